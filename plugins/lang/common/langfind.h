/*
 * How a runtime plugin finds its processes (the driver's, langdrv.c,
 * Python's, Java's and Node's): from the system profiler's reports when it gives
 * them (ABI 1.4: an idle process is never examined), else by a walk of
 * /proc each rescan_ms (or when the plugin asks); a profiler that starts
 * after the plugin is listened to from its first report.  Each process found is checked for identity (a reused
 * PID or an exec is a new process), --min-duration and the host's PID
 * filter, and examined by the plugin when new or due again (langtab.h).
 * The plugin says what examining means and what follows a change.
 */
#ifndef GP_LANGFIND_H
#define GP_LANGFIND_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

#include "langtab.h"

struct langfind_ops {
	size_t proc_size;	/* the plugin's entry, a langtab_proc first */
	/* The walk's period without reports; 0: no timer, the plugin
	 * scans when it needs to (Java: at each round). */
	uint32_t rescan_ms;
	/* A new or re-exec'd process, or one due again: sets lp->state. */
	void (*examine)(void *, struct langtab_proc *, double age);
	/* Its CPU time at each look, the entry new or known (optional: a
	 * plugin that ranks processes by CPU). */
	void (*ticks)(void *, struct langtab_proc *, int fresh, double age,
		    uint64_t ticks);
	/* The host reported pid (process_subscribe's callback): the
	 * plugin's own, calling langfind_report. */
	void (*report)(void *, int32_t pid);
	/* The scan timer walked /proc (langfind_scan done; optional). */
	void (*scanned)(void *);
	/* Whether an unknown process may be this runtime's at all, before
	 * its stat is read (optional: a cheap test, such as Node's name of
	 * the executable; one refused is not kept in the table). */
	int (*candidate)(void *, pid_t);
};

struct langfind {
	struct langtab *tab;
	const struct gp_host_api *api;
	struct gp_plugin_ctx *ctx;
	const struct langfind_ops *ops;
	void *arg;		/* the plugin's, for its ops */
	double min_duration;	/* --min-duration: younger wait */
	int discover;		/* processes from the host's reports */
	int walk_once;		/* reports began: what came before */
	struct gp_timer *scan_timer;
	/* Looks at a known process of no interest (LANGTAB_IGNORED) that
	 * examined nothing: its maps not read again. */
	uint64_t spared;
	uint64_t room_ms;	/* the last scan to make room (monotonic) */
};

void langfind_init(struct langfind *, struct langtab *,
	    const struct gp_host_api *, struct gp_plugin_ctx *,
	    const struct langfind_ops *, void *arg);
/* Reports unsubscribed, the scan timer off. */
void langfind_stop(struct langfind *);
/* Whether a system profiler reports processes now (it may start after
 * the plugin): then no scan timer wakes the loop each second. */
void langfind_discover_sync(struct langfind *);
/* Each process in /proc considered (langfind_look). */
void langfind_walk(struct langfind *);
/* The known processes checked: all (their CPU time too), or only the
 * young ones whose attach is to be tried again (young_only); one no
 * longer itself is unseen (young_only: gone), one still itself and
 * LANGTAB_NEW examined again. */
void langfind_refresh(struct langfind *, int young_only);
/* The known ones checked, or /proc walked when reports are not (yet) the
 * source; the vanished pruned. */
void langfind_scan(struct langfind *);
/*
 * The host reported pid (its first sample of the cycle, or of a new
 * image): the reports listened to if they were not, room made, and pid
 * considered.  Its entry now (NULL: none); whether the table changed for
 * it: new, replaced, or examined into another state.
 */
int langfind_report(struct langfind *, int32_t pid,
	    struct langtab_proc **lpp);

#endif
