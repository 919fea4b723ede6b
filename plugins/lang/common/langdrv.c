/*
 * The runtime plugins' driver (langdrv.h).  Processes are found from the
 * system profiler's samples when it reports them (ABI 1.4: an idle
 * process is never examined), else by a walk of /proc each rescan_ms; a
 * profiler that starts after the plugin is found at the first loop turn,
 * once every plugin has started, so that no walk is needed.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elfread.h"
#include "langagg.h"
#include "langdrv.h"
#include "langfile.h"
#include "langplug.h"
#include "langproc.h"

static void langdrv_sample_cb(void *);
static void langdrv_retry_cb(void *);
static void langdrv_scan_cb(void *);
static void langdrv_discover_sync(struct langdrv *);

/* The plugin examines; an attached process may then be walked in the
 * samples (langdrv_walk.c), one that is no longer, no more. */
static void
langdrv_examine(struct langdrv *d, struct langtab_proc *lp, double age)
{
	d->ops->examine(d->arg, lp, age);
	langdrv_walk_sync(d, (struct langdrv_proc *)lp);
}

static void
langdrv_reexamine(void *arg, struct langtab_proc *lp, double age)
{
	langdrv_examine(arg, lp, age);
}

/* A process forgotten: walked no more, then the plugin's entry freed. */
static void
langdrv_release(void *arg, struct langtab_proc *lp)
{
	struct langdrv *d = arg;

	langdrv_walk_off(d, (struct langdrv_proc *)lp);
	d->ops->release(d->arg, lp);
}

/* Consider one process: new, re-exec'd (new identity) or known. */
static void
langdrv_scan_pid(void *arg, pid_t pid, double uptime)
{
	struct langdrv *d = arg;
	struct langtab_proc *lp = langtab_find(&d->tab, pid);
	uint64_t start, exe_id, vsize;
	double age;

	if (langproc_stat_vsize(pid, &start, &exe_id, &vsize) != 0)
		return;
	age = langtab_age(start, uptime);
	if (langtab_same(&d->tab, &lp, start, exe_id)) {
		if (langtab_due(lp, vsize, uptime, d->api, d->ctx))
			langdrv_examine(d, lp, age);
		return;
	}
	/* --min-duration: too young now, considered again next scan. */
	if (!d->api->pid_wanted(d->ctx, (int32_t)pid) ||
	    (d->min_duration > 0 && (age < 0 || age < d->min_duration)))
		return;
	if ((lp = langtab_new(&d->tab, d->ops->proc_size, pid, start,
	    exe_id)) != NULL) {
		langtab_looked(lp, vsize, uptime);
		langdrv_examine(d, lp, age);
	}
}

/* The known processes checked (langtab_refresh). */
static void
langdrv_refresh(struct langdrv *d, int young_only)
{
	langtab_refresh(&d->tab, young_only, langproc_stat, langdrv_reexamine,
	    d);
}

void
langdrv_scan(struct langdrv *d)
{
	if (d->discover && !d->walk_once)
		langdrv_refresh(d, 0);
	else {
		d->walk_once = 0;
		langtab_unsee(&d->tab);
		(void)langtab_walk_proc(langdrv_scan_pid, d);
	}
	/* Forget vanished processes, unless their stacks await a snapshot. */
	langtab_prune(&d->tab);
}

/*
 * Whether the timer samples dp: attached, not walked, and, while the
 * system profiler reports processes, reported this cycle or the last.
 * A process that slept a whole cycle is not read at -f Hz for nothing
 * (its stacks would be scaled to its perf samples, none, at the merge)
 * and lets its caches go; a sample of it reports it again.
 */
static int
langdrv_timed(const struct langdrv *d, const struct langdrv_proc *dp)
{
	return (dp->lp.state == LANGTAB_ACTIVE && !dp->walking &&
	    (dp->ran || !d->discover));
}

void
langdrv_timer_sync(struct langdrv *d)
{
	uint32_t i;
	int any = 0;

	/* a walked process needs no timer, nor one that did not run */
	for (i = 0; i < d->tab.n && !any; i++)
		any = langdrv_timed(d, (struct langdrv_proc *)d->tab.procs[i]);
	if (!any && d->sample_timer != NULL) {
		d->api->timer_del(d->sample_timer);
		d->sample_timer = NULL;
	} else if (any && d->sample_timer == NULL && (d->scan_timer != NULL ||
	    d->discover))
		d->sample_timer = d->api->timer_add(d->ctx, 1000 / d->freq, 1,
		    langdrv_sample_cb, d);
	langtab_retry_sync(&d->tab, d->api, d->ctx, langdrv_retry_cb, d);
}

static void
langdrv_sample_cb(void *arg)
{
	struct langdrv *d = arg;
	uint32_t i;

	for (i = 0; i < d->tab.n; i++)
		if (langdrv_timed(d, (struct langdrv_proc *)d->tab.procs[i]))
			langdrv_sample(d, (struct langdrv_proc *)
			    d->tab.procs[i]);
}

/* Young processes whose attach failed, tried again (langtab.h). */
static void
langdrv_retry_cb(void *arg)
{
	langdrv_refresh(arg, 1);
	langdrv_timer_sync(arg);
}

/*
 * The system profiler sampled pid (its first sample of the cycle, or of a
 * new image): examine it if new or re-exec'd; a known one costs a lookup.
 */
static void
langdrv_process_cb(void *arg, int32_t pid)
{
	struct langdrv *d = arg;
	struct langtab_proc *lp = langtab_find(&d->tab, (pid_t)pid);
	struct langdrv_proc *dp;
	uint32_t n = d->tab.n;
	int was = lp != NULL ? lp->state : -1;
	int ran = lp != NULL && ((struct langdrv_proc *)lp)->ran;

	if (!d->discover)	/* a source that started after us */
		langdrv_discover_sync(d);
	if (lp == NULL && d->tab.n >= LANGTAB_MAX)
		langdrv_scan(d);	/* make room: the dead go */
	langdrv_scan_pid(d, (pid_t)pid, langtab_uptime());
	if ((dp = (struct langdrv_proc *)langtab_find(&d->tab,
	    (pid_t)pid)) != NULL)
		dp->ran = 2;
	/* new, replaced, looked at again and attached, or running again
	 * after a cycle asleep: sampled now */
	if (d->tab.n != n || (struct langtab_proc *)dp != lp || (lp != NULL &&
	    (lp->state != was || !ran)))
		langdrv_timer_sync(d);
}

/* Whether a system profiler reports processes now (it may start after
 * us): then no scan timer wakes the loop each second. */
static void
langdrv_discover_sync(struct langdrv *d)
{
	int was;

	if (!GP_API_HAS(d->api, process_subscribe))
		return;
	was = d->discover;
	d->discover = d->api->process_subscribe(d->ctx, langdrv_process_cb,
	    d) == 0;
	/* Processes the source reported before we listened: one walk. */
	if (d->discover && !was && d->scan_timer != NULL)
		d->walk_once = 1;
	if (d->discover) {
		d->api->timer_del(d->scan_timer);
		d->scan_timer = NULL;
	} else if (d->scan_timer == NULL)
		d->scan_timer = d->api->timer_add(d->ctx, d->ops->rescan_ms, 1,
		    langdrv_scan_cb, d);
}

/*
 * The first loop turn, every plugin started: a system profiler that
 * started after us has reported nothing yet, so listening now misses
 * nothing and no walk of /proc is needed.
 */
static void
langdrv_first_cb(void *arg)
{
	struct langdrv *d = arg;

	d->api->timer_del(d->first_timer);
	d->first_timer = NULL;
	langdrv_discover_sync(d);
	d->walk_once = 0;
	langdrv_walk_cycle(d);	/* a system profiler that walks started */
	langdrv_timer_sync(d);
	if (d->ops->started != NULL)
		d->ops->started(d->arg);
}

static void
langdrv_scan_cb(void *arg)
{
	langdrv_discover_sync(arg);
	langdrv_scan(arg);
	langdrv_timer_sync(arg);
}

int
langdrv_init(struct langdrv *d, struct gp_plugin_ctx *ctx,
    const struct gp_host_api *api, const struct langdrv_ops *ops, void *arg)
{
	memset(d, 0, sizeof(*d));
	d->ctx = ctx;
	d->api = api;
	d->ops = ops;
	d->arg = arg;
	if (langtab_init(&d->tab, langdrv_release, d) != 0)
		return (-ENOMEM);
	d->texts = calloc(ops->max_frames, ops->text_size);
	d->frames = calloc(ops->max_frames, sizeof(*d->frames));
	d->named = malloc(ops->text_size);
	d->agg = langagg_new(ops->max_frames + 1);
	if (d->texts == NULL || d->frames == NULL || d->named == NULL ||
	    d->agg == NULL) {
		langdrv_free(d);
		return (-ENOMEM);
	}
	langproc_set_opener(langplug_open, ctx);
	langfile_set_maps_reader(langplug_maps, ctx);
	elfread_set_log(langplug_warn, ctx);
	return (0);
}

void
langdrv_free(struct langdrv *d)
{
	elfread_set_log(NULL, NULL);
	langtab_free(&d->tab);
	langagg_free(d->agg);
	free(d->texts);
	free(d->frames);
	free(d->named);
	memset(d, 0, sizeof(*d));
}

void
langdrv_reset(struct langdrv *d)
{
	d->api->timer_del(d->sample_timer);
	d->api->timer_del(d->scan_timer);
	d->api->timer_del(d->first_timer);
	d->sample_timer = d->scan_timer = d->first_timer = NULL;
	langtab_retry_stop(&d->tab, d->api);
	if (GP_API_HAS(d->api, process_subscribe))
		(void)d->api->process_subscribe(d->ctx, NULL, NULL);
	d->discover = 0;
	langdrv_walk_stop(d);
	while (d->tab.n > 0)
		langtab_remove(&d->tab, d->tab.procs[d->tab.n - 1]);
	langagg_clear(d->agg);
	d->ntexts = 0;
	d->nsamples = d->nfailed = 0;
	if (d->ops->reset != NULL)
		d->ops->reset(d->arg);
}

int
langdrv_start(struct langdrv *d)
{
	int64_t f;

	f = d->api->option_get_int(d->ctx, "profiling-frequency",
	    GP_DEFAULT_FREQUENCY);
	d->freq = f < 1 ? 1 : f > d->ops->max_freq ? d->ops->max_freq :
	    (uint32_t)f;
	d->min_duration = (double)d->api->option_get_int(d->ctx,
	    "min-duration", 0);
	/*
	 * No walk when a system profiler reports processes.  Without one
	 * yet, plugins start in turn, and one that starts after us (perf
	 * does) is found at the first loop turn (langdrv_first_cb), which
	 * spares the walk: it examines every process on the host (a fifth
	 * of the default agent's CPU in bench/plugin_cost.sh's case b).
	 */
	langdrv_discover_sync(d);
	langdrv_walk_start(d);
	langdrv_walk_cycle(d);
	if (d->ops->scan_at_start)
		langdrv_scan(d);
	if (!d->discover)
		d->first_timer = d->api->timer_add(d->ctx, 0, 0,
		    langdrv_first_cb, d);
	if (d->scan_timer == NULL && !d->discover) {
		langdrv_reset(d);
		return (-ENOMEM);
	}
	langdrv_timer_sync(d);
	/* otherwise at the first loop turn, once every plugin has started */
	if (d->first_timer == NULL && d->ops->started != NULL)
		d->ops->started(d->arg);
	return (0);
}
