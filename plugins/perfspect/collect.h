/*
 * The collector: one PerfSpect run per profiling cycle (see collect.c for
 * why), driven by the host's child helper.  perfspect.c owns one.
 */
#ifndef PERFSPECT_COLLECT_H
#define PERFSPECT_COLLECT_H

#include <limits.h>

#include <gprofiler/plugin.h>

/*
 * SIGTERM makes PerfSpect write its summary; a hung one is SIGKILLed after
 * a grace that must end before the host abandons the snapshot (half the
 * cycle): a quarter of the cycle, within these bounds.
 */
#define PS_STOP_GRACE_MS	5000
#define PS_STOP_GRACE_MIN_MS	1000
/* Consecutive failures double the cycles skipped, up to this many. */
#define PS_BACKOFF_MAX_CYCLES	16
/*
 * PerfSpect's set-up before its first row, until a run has been measured
 * (about 7 s on 3.17.0, docs/specs/perfspect.md §3.2); then the last measured
 * one is used.
 */
#define PS_SETUP_GUESS_S	7.0

struct ps_run_config {
	char binary[PATH_MAX];	/* "" until known */
	int duration;		/* --duration, seconds */
	int interval;		/* --interval at most, seconds */
	int cycle;		/* the cycle, seconds */
	int debug;		/* add --debug */
	unsigned grace_ms;	/* 0: PS_STOP_GRACE_MS */
	const char *tmpdir;	/* parent of the private dir */
};

struct ps_collector;

/* Caller owns the result; free with ps_collector_free. */
struct ps_collector *ps_collector_new(struct gp_plugin_ctx *ctx,
		    const struct gp_host_api *api);
void ps_collector_free(struct ps_collector *c);
/* A run begins: make the private directory; launch PerfSpect when the
 * binary is known.  0 or -errno (logged). */
int ps_collector_start(struct ps_collector *c,
		    const struct ps_run_config *cfg);
/* Until a binary is given, every cycle reports `status` and `why`. */
void ps_collector_hold(struct ps_collector *c, const char *status,
		    const char *why);
/* The binary is known now (e.g. installed): launch PerfSpect. */
void ps_collector_use(struct ps_collector *c, const char *binary);
void ps_collector_snapshot(struct ps_collector *c,
		    struct gp_snapshot *snap);
void ps_collector_abandon(struct ps_collector *c,
		    struct gp_snapshot *snap);
void ps_collector_metadata(struct ps_collector *c,
		    struct gp_json *md, struct gp_json *hdr);
/* Stop PerfSpect (SIGTERM, then SIGKILL) and call api->stop_done. */
void ps_collector_stop(struct ps_collector *c);
/*
 * The --interval for a run that will be stopped `left` seconds from now
 * and spends `setup` seconds setting up: the largest, up to `max`, that
 * still gives the window two rows (one when even that cannot fit), at
 * least 1 (PerfSpect's minimum).
 */
int ps_collector_interval(double left, double setup, int max);
/* The private output directory ("" before start); for tests. */
const char *ps_collector_dir(const struct ps_collector *c);

#endif
