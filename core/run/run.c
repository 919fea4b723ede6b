/*
 * A profiling run: its own copy of the configuration, the active plugins
 * started and stopped (with a bound), cycles scheduled by cycle.c, metrics
 * sampled for the header.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "base/log.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "host/host.h"
#include "meta/meta.h"
#include "profile/profile.h"
#include "run/run.h"
#include "run/run_int.h"

static void run_finish(struct run *, int, const char *);

/* Caller keeps ownership of plugins; the run copies cfg. */
struct run *
run_new(struct event_base *base, const struct config *cfg,
    struct plugin_list *plugins, const struct run_hooks *hooks)
{
	struct run *r;
	struct plugin *p;
	size_t n = 0;

	r = xcalloc(1, sizeof(*r));
	r->magic = RUN_MAGIC;
	r->base = base;
	r->finish = run_finish;
	r->cfg = config_clone(cfg);
	r->plugins = plugins;
	if (hooks != NULL)
		r->hooks = *hooks;
	if (plugins != NULL)
		TAILQ_FOREACH(p, plugins, entry)
			if (p->active && p->desc != NULL)
				n++;
	r->plugs = xcalloc(n + 1, sizeof(*r->plugs));
	if (plugins != NULL)
		TAILQ_FOREACH(p, plugins, entry) {
			if (!p->active || p->desc == NULL)
				continue;
			r->plugs[r->nplugs].magic = RUN_PLUG_MAGIC;
			r->plugs[r->nplugs].run = r;
			r->plugs[r->nplugs].plugin = p;
			r->nplugs++;
		}
	r->mode = config_mode(r->cfg);
	/* Defaults from the option table; its bounds keep them positive. */
	r->duration = config_get_num(r->cfg, "profiling-duration");
	if (r->duration <= 0)
		r->duration = 1;
	r->frequency = config_get_num(r->cfg, r->mode == MODE_ALLOCATION ?
	    "alloc-interval" : "profiling-frequency");
	r->continuous = config_get_bool(r->cfg, "continuous");
	return (r);
}

/*
 * Start every active plugin.  A process profiler or metrics collector that
 * fails is dropped with a warning; the system profiler failing fails the
 * run (-errno, logged here).
 */
int
run_start(struct run *r)
{
	struct run_plug *rp;
	struct plugin *p;
	size_t i;
	int rc;

	CHECK_OBJ(r, RUN_MAGIC);
	for (i = 0; i < r->nplugs; i++) {
		rp = &r->plugs[i];
		p = rp->plugin;
		host_ctx_set_config(p->ctx, r->cfg);
		rc = p->desc->start != NULL ? p->desc->start(p->priv) : 0;
		if (rc == 0) {
			rp->started = p->started = 1;
			if (p->desc->kind == GP_KIND_SYSTEM && r->sys == NULL)
				r->sys = rp;
			continue;
		}
		if (p->desc->kind == GP_KIND_SYSTEM) {
			log_msg(LOG_LEVEL_ERR, NULL, "system profiler %s failed "
			    "to start: %s", p->manifest.name,
			    strerror(rc < 0 ? -rc : EIO));
			free(r->finish_err);
			xasprintf(&r->finish_err, "system profiler %s failed "
			    "to start: %s (the agent's log says why)",
			    p->manifest.name, strerror(rc < 0 ? -rc : EIO));
			r->stopping = 1;
			run_stop(r, NULL, NULL);
			return (rc < 0 ? rc : -EIO);
		}
		log_warnx("%s failed to start (%s); profiling without it",
		    p->manifest.name, strerror(rc < 0 ? -rc : EIO));
	}
	if (r->sys == NULL)
		log_info("no system profiler in mode %s: process profilers' "
		    "results are concatenated", config_mode_name(r->mode));
	if (!config_get_bool(r->cfg, "disable-metrics-collection"))
		r->metrics = metrics_new(r->base);
	log_info("profiling run: mode %s, %lld s cycles%s",
	    config_mode_name(r->mode), (long long)r->duration,
	    r->continuous ? ", continuous" : ", one cycle");
	cycle_schedule(r);
	return (0);
}

/* Why the run failed (run_start, or the end of a failed run); or NULL. */
const char *
run_error(const struct run *r)
{
	return (r->finish_err);
}

/*
 * How long the cycle in progress has been collecting (its window began at
 * the previous cycle's end, or at the start): what stopping the run now
 * would drop.  -1 when no window is open (not started, or stopping).
 */
int64_t
run_window_ms(const struct run *r)
{
	struct timespec now;

	CHECK_OBJ(r, RUN_MAGIC);
	if (r->cycle_ev == NULL || r->stopping || r->finished)
		return (-1);
	clock_gettime(CLOCK_REALTIME, &now);
	return ((int64_t)(now.tv_sec - r->win_start.tv_sec) * 1000 +
	    (now.tv_nsec - r->win_start.tv_nsec) / 1000000);
}

int64_t
run_duration(const struct run *r)
{
	return (r->duration);
}

static void
run_finish_cb(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;

	CHECK_OBJ(r, RUN_MAGIC);
	if (r->hooks.on_finished != NULL)
		r->hooks.on_finished(r, r->finish_status, r->finish_err,
		    r->hooks.arg);
}

/*
 * The run ended by itself: tell the owner on the next loop turn (never
 * from inside a cycle, which the owner may want to free).
 */
static void
run_finish(struct run *r, int status, const char *err)
{
	struct timeval tv = { 0, 0 };

	if (r->finished)
		return;
	r->finished = 1;
	r->finish_status = status;
	r->finish_err = err != NULL ? xstrdup(err) : NULL;
	r->finish_ev = evtimer_new(r->base, run_finish_cb, r);
	if (r->finish_ev == NULL || evtimer_add(r->finish_ev, &tv) == -1)
		fatalx("run: cannot schedule the end of the run");
}

static void
run_stop_deliver(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	void (*done)(void *);

	(void)fd;
	(void)what;
	CHECK_OBJ(r, RUN_MAGIC);
	done = r->stop_done;
	r->stop_done = NULL;
	if (done != NULL)
		done(r->stop_arg);
}

/*
 * Every plugin stopped (or timed out).  `done` runs on a later loop turn:
 * a plugin may have called stop_done from inside its stop(), and done may
 * unload that very plugin.
 */
static void
run_stop_complete(struct run *r)
{
	struct timeval now = { 0, 0 };
	size_t i;

	if (r->stop_scheduled)
		return;
	r->stop_scheduled = 1;
	if (r->stop_ev != NULL)
		event_del(r->stop_ev);
	for (i = 0; i < r->nplugs; i++)
		r->plugs[i].plugin->started = 0;
	metrics_free(r->metrics);
	r->metrics = NULL;
	/* An event of ours, not event_base_once: a run that failed to
	 * start is freed at once, and the delivery must die with it. */
	if (r->deliver_ev == NULL)
		r->deliver_ev = evtimer_new(r->base, run_stop_deliver, r);
	evtimer_add(r->deliver_ev, &now);
}

static int
run_stopping_count(struct run *r)
{
	size_t i;
	int n = 0;

	for (i = 0; i < r->nplugs; i++)
		n += r->plugs[i].stopping;
	return (n);
}

static void
run_plug_stopped(void *arg)
{
	struct run_plug *rp = arg;
	struct run *r = rp->run;

	CHECK_OBJ(rp, RUN_PLUG_MAGIC);
	if (!rp->stopping)
		return;
	rp->stopping = 0;
	rp->started = 0;
	if (run_stopping_count(r) == 0)
		run_stop_complete(r);
}

static void
run_stop_bound(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	size_t i;

	CHECK_OBJ(r, RUN_MAGIC);
	for (i = 0; i < r->nplugs; i++)
		if (r->plugs[i].stopping) {
			log_warnx("%s: did not stop within %d s; going on "
			    "without it", r->plugs[i].plugin->manifest.name,
			    RUN_STOP_BOUND_S);
			r->plugs[i].stopping = 0;
			host_ctx_on_stop(r->plugs[i].plugin->ctx, NULL, NULL);
		}
	run_stop_complete(r);
}

/*
 * Abandon the current cycle, stop the plugins (each stop() completes
 * through stop_done; bounded), then call done on a later turn or now.
 */
void
run_stop(struct run *r, void (*done)(void *), void *arg)
{
	struct timeval tv = { RUN_STOP_BOUND_S, 0 };
	struct run_plug *rp;
	size_t i;

	CHECK_OBJ(r, RUN_MAGIC);
	r->stopping = 1;
	r->stop_scheduled = 0;
	r->stop_done = done;
	r->stop_arg = arg;
	if (r->cycle_ev != NULL)
		event_del(r->cycle_ev);
	if (r->in_cycle) {
		cycle_abandon(r);
		r->in_cycle = 0;
	}
	for (i = 0; i < r->nplugs; i++) {
		rp = &r->plugs[i];
		if (!rp->started || rp->plugin->desc->stop == NULL)
			continue;
		rp->stopping = 1;
		host_ctx_on_stop(rp->plugin->ctx, run_plug_stopped, rp);
	}
	/* Call stop() only once every flag is set: one may finish inline. */
	for (i = 0; i < r->nplugs; i++) {
		rp = &r->plugs[i];
		if (rp->stopping && rp->plugin->desc->stop(rp->plugin->priv)
		    != 0)
			run_plug_stopped(rp);
	}
	if (run_stopping_count(r) == 0) {
		run_stop_complete(r);
		return;
	}
	r->stop_ev = evtimer_new(r->base, run_stop_bound, r);
	evtimer_add(r->stop_ev, &tv);
}

void
run_free(struct run *r)
{
	size_t i;

	if (r == NULL)
		return;
	CHECK_OBJ(r, RUN_MAGIC);
	if (r->in_cycle)
		cycle_abandon(r);
	for (i = 0; i < r->nplugs; i++) {
		if (r->plugs[i].plugin->ctx != NULL)
			host_ctx_on_stop(r->plugs[i].plugin->ctx, NULL, NULL);
		profile_free(r->plugs[i].result);
		r->plugs[i].magic = 0;
	}
	if (r->cycle_ev != NULL)
		event_free(r->cycle_ev);
	if (r->wait_ev != NULL)
		event_free(r->wait_ev);
	if (r->stop_ev != NULL)
		event_free(r->stop_ev);
	if (r->deliver_ev != NULL)
		event_free(r->deliver_ev);
	if (r->finish_ev != NULL)
		event_free(r->finish_ev);
	free(r->finish_err);
	metrics_free(r->metrics);
	config_free(r->cfg);
	free(r->plugs);
	r->magic = 0;
	free(r);
}
