/*
 * The runtime plugins' driver (langdrv.h).  Processes are found by
 * langfind.c (the system profiler's reports, else a walk of /proc); a
 * profiler that starts after the plugin is found at the first loop turn,
 * once every plugin has started, so that no walk is needed; the sample
 * timer runs while a process needs it.
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

/* The plugin examines; an attached process may then be walked in the
 * samples (langdrv_walk.c), one that is no longer, no more. */
static void
langdrv_examine(void *arg, struct langtab_proc *lp, double age)
{
	struct langdrv *d = arg;

	d->ops->examine(d->arg, lp, age);
	langdrv_walk_sync(d, (struct langdrv_proc *)lp);
}

/* A process forgotten: walked no more, then the plugin's entry freed. */
static void
langdrv_release(void *arg, struct langtab_proc *lp)
{
	struct langdrv *d = arg;

	langdrv_walk_off(d, (struct langdrv_proc *)lp);
	d->ops->release(d->arg, lp);
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
	    (dp->ran || !d->find.discover));
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
	} else if (any && d->sample_timer == NULL &&
	    (d->find.scan_timer != NULL || d->find.discover))
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
	struct langdrv *d = arg;

	langfind_refresh(&d->find, 1);
	langdrv_timer_sync(d);
}

/*
 * The system profiler sampled pid (its first sample of the cycle, or of a
 * new image): examined if new or re-exec'd; a known one costs a lookup.
 */
static void
langdrv_process_cb(void *arg, int32_t pid)
{
	struct langdrv *d = arg;
	struct langtab_proc *lp = langtab_find(&d->tab, (pid_t)pid);
	int asleep = lp != NULL && !((struct langdrv_proc *)lp)->ran;
	int changed = langfind_report(&d->find, pid, &lp);

	if (lp != NULL)
		((struct langdrv_proc *)lp)->ran = 2;
	/* new, replaced, looked at again and attached, or running again
	 * after a cycle asleep: sampled now */
	if (changed || asleep)
		langdrv_timer_sync(d);
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
	langfind_discover_sync(&d->find);
	d->find.walk_once = 0;
	langdrv_walk_cycle(d);	/* a system profiler that walks started */
	langdrv_timer_sync(d);
	if (d->ops->started != NULL)
		d->ops->started(d->arg);
}

/* The scan timer walked /proc. */
static void
langdrv_scanned(void *arg)
{
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
	d->find_ops.proc_size = ops->proc_size;
	d->find_ops.rescan_ms = ops->rescan_ms;
	d->find_ops.examine = langdrv_examine;
	d->find_ops.report = langdrv_process_cb;
	d->find_ops.scanned = langdrv_scanned;
	langfind_init(&d->find, &d->tab, api, ctx, &d->find_ops, d);
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
	d->api->timer_del(d->first_timer);
	d->sample_timer = d->first_timer = NULL;
	langtab_retry_stop(&d->tab, d->api);
	langfind_stop(&d->find);
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
	d->find.min_duration = (double)d->api->option_get_int(d->ctx,
	    "min-duration", 0);
	/*
	 * No walk when a system profiler reports processes.  Without one
	 * yet, plugins start in turn, and one that starts after us (perf
	 * does) is found at the first loop turn (langdrv_first_cb), which
	 * spares the walk: it examines every process on the host (a fifth
	 * of the default agent's CPU in bench/plugin_cost.sh's case b).
	 */
	langfind_discover_sync(&d->find);
	langdrv_walk_start(d);
	langdrv_walk_cycle(d);
	if (d->ops->scan_at_start)
		langfind_scan(&d->find);
	if (!d->find.discover)
		d->first_timer = d->api->timer_add(d->ctx, 0, 0,
		    langdrv_first_cb, d);
	if (d->find.scan_timer == NULL && !d->find.discover) {
		langdrv_reset(d);
		return (-ENOMEM);
	}
	langdrv_timer_sync(d);
	/* otherwise at the first loop turn, once every plugin has started */
	if (d->first_timer == NULL && d->ops->started != NULL)
		d->ops->started(d->arg);
	return (0);
}
