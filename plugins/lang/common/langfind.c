/*
 * How a runtime plugin finds its processes (langfind.h): the host's
 * reports, or a walk of /proc each rescan_ms without them.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "langfind.h"
#include "langproc.h"

#define LANGFIND_ROOM_MS	1000

static void langfind_scan_cb(void *);

void
langfind_init(struct langfind *f, struct langtab *tab,
    const struct gp_host_api *api, struct gp_plugin_ctx *ctx,
    const struct langfind_ops *ops, void *arg)
{
	f->tab = tab;
	f->api = api;
	f->ctx = ctx;
	f->ops = ops;
	f->arg = arg;
	f->min_duration = 0;
	f->discover = f->walk_once = 0;
	f->scan_timer = NULL;
	f->spared = f->room_ms = 0;
}

void
langfind_stop(struct langfind *f)
{
	f->api->timer_del(f->scan_timer);
	f->scan_timer = NULL;
	if (GP_API_HAS(f->api, process_subscribe))
		(void)f->api->process_subscribe(f->ctx, NULL, NULL);
	f->discover = f->walk_once = 0;
}

/* Its CPU time, for a plugin that ranks by it. */
static int
langfind_stat(const struct langfind *f, pid_t pid, uint64_t *start,
    uint64_t *exe_id, uint64_t *vsize, uint64_t *ticks)
{
	return (langproc_stat_cpu(pid, start, exe_id, vsize,
	    f->ops->ticks != NULL ? ticks : NULL));
}

/* Consider one process: new, re-exec'd (new identity) or known. */
static void
langfind_look(void *arg, pid_t pid, double uptime)
{
	struct langfind *f = arg;
	struct langtab_proc *lp = langtab_find(f->tab, pid);
	uint64_t start, exe_id, vsize, ticks = 0;
	double age;

	if ((lp == NULL && f->ops->candidate != NULL &&
	    !f->ops->candidate(f->arg, pid)) ||
	    langfind_stat(f, pid, &start, &exe_id, &vsize, &ticks) != 0)
		return;
	age = langtab_age(start, uptime);
	if (langtab_same(f->tab, &lp, start, exe_id)) {
		if (f->ops->ticks != NULL)
			f->ops->ticks(f->arg, lp, 0, age, ticks);
		if (langtab_due(lp, vsize, uptime, f->api, f->ctx))
			f->ops->examine(f->arg, lp, age);
		else if (lp->state == LANGTAB_IGNORED)
			f->spared++;
		return;
	}
	/* --min-duration: too young now, considered again next scan. */
	if (!f->api->pid_wanted(f->ctx, (int32_t)pid) ||
	    (f->min_duration > 0 && (age < 0 || age < f->min_duration)))
		return;
	if ((lp = langtab_new(f->tab, f->ops->proc_size, pid, start,
	    exe_id)) == NULL)
		return;
	if (f->ops->ticks != NULL)
		f->ops->ticks(f->arg, lp, 1, age, ticks);
	langtab_looked(lp, vsize, uptime);
	f->ops->examine(f->arg, lp, age);
}

void
langfind_walk(struct langfind *f)
{
	f->walk_once = 0;
	langtab_unsee(f->tab);
	(void)langtab_walk_proc(langfind_look, f);
}

void
langfind_refresh(struct langfind *f, int young_only)
{
	struct langtab_proc *lp;
	uint64_t start, exe_id, ticks = 0;
	double uptime = langtab_uptime(), age;
	uint32_t i;

	for (i = 0; i < f->tab->n; i++) {
		lp = f->tab->procs[i];
		if (young_only && lp->state != LANGTAB_NEW)
			continue;
		lp->seen = langfind_stat(f, lp->pid, &start, &exe_id, NULL,
		    &ticks) == 0 && start == lp->starttime &&
		    exe_id == lp->exe_id;
		if (!lp->seen) {
			if (young_only)
				lp->state = LANGTAB_GONE;	/* pruned later */
			continue;
		}
		age = langtab_age(start, uptime);
		/* the CPU rate is per scan, not per retry */
		if (!young_only && f->ops->ticks != NULL)
			f->ops->ticks(f->arg, lp, 0, age, ticks);
		if (lp->state == LANGTAB_NEW)
			f->ops->examine(f->arg, lp, age);
	}
}

void
langfind_scan(struct langfind *f)
{
	if (f->discover && !f->walk_once)
		langfind_refresh(f, 0);
	else
		langfind_walk(f);
	/* Forget vanished processes, unless their stacks await a snapshot. */
	langtab_prune(f->tab);
}

void
langfind_discover_sync(struct langfind *f)
{
	int was;

	if (!GP_API_HAS(f->api, process_subscribe))
		return;
	was = f->discover;
	f->discover = f->api->process_subscribe(f->ctx, f->ops->report,
	    f->arg) == 0;
	/* Processes the source reported before we listened: one walk. */
	if (f->discover && !was && f->scan_timer != NULL)
		f->walk_once = 1;
	if (f->discover) {
		f->api->timer_del(f->scan_timer);
		f->scan_timer = NULL;
	} else if (f->scan_timer == NULL && f->ops->rescan_ms > 0)
		f->scan_timer = f->api->timer_add(f->ctx, f->ops->rescan_ms, 1,
		    langfind_scan_cb, f);
}

static void
langfind_scan_cb(void *arg)
{
	struct langfind *f = arg;

	langfind_discover_sync(f);
	langfind_scan(f);
	if (f->ops->scanned != NULL)
		f->ops->scanned(f->arg);
}

static int
langfind_room_due(struct langfind *f)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	if (f->room_ms != 0 && now - f->room_ms < LANGFIND_ROOM_MS)
		return (0);
	f->room_ms = now;
	return (1);
}

int
langfind_report(struct langfind *f, int32_t pid, struct langtab_proc **lpp)
{
	struct langtab_proc *lp = langtab_find(f->tab, (pid_t)pid);
	uint32_t n = f->tab->n;
	int was = lp != NULL ? lp->state : -1;

	if (!f->discover)	/* a source that started after us */
		langfind_discover_sync(f);
	/* Make room: the dead go.  Once a second at most: a table full of
	 * live processes would otherwise be stat'ed whole at every report
	 * of a new one (4096 reads, ~60 ms, each). */
	if (lp == NULL && f->tab->n >= LANGTAB_MAX && langfind_room_due(f))
		langfind_scan(f);
	langfind_look(f, (pid_t)pid, langtab_uptime());
	*lpp = langtab_find(f->tab, (pid_t)pid);
	return (f->tab->n != n || *lpp != lp ||
	    (lp != NULL && lp->state != was));
}
