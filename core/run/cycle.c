/*
 * One profiling cycle (docs/ARCHITECTURE.md, "A cycle"): ask every plugin
 * for its snapshot, wait with a bound, abandon what does not answer, take
 * the end time after the system profiler's result, merge, enrich
 * (containers, appids, application metadata), build the header, write,
 * hand over.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "base/log.h"
#include "base/mapsread.h"
#include "base/utctime.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "host/host.h"
#include "meta/meta.h"
#include "output/output.h"
#include "profile/profile.h"
#include "run/run_int.h"

static void cycle_finish(struct run *);

int run_snap_min_s = RUN_SNAP_MIN_S;

static int64_t
ts_ms(const struct timespec *a, const struct timespec *b)
{
	return ((int64_t)(b->tv_sec - a->tv_sec) * 1000 +
	    (b->tv_nsec - a->tv_nsec) / 1000000);
}

static void
cycle_snapshot_done(void *arg, struct gp_snapshot *snap, int status,
    const char *err)
{
	struct run_plug *rp = arg;
	struct run *r = rp->run;
	const char *name = rp->plugin->manifest.name;

	CHECK_OBJ(rp, RUN_PLUG_MAGIC);
	if (rp->snap != snap || rp->answered)
		return;
	rp->answered = 1;
	if (status < 0) {
		log_warnx("%s: snapshot failed: %s", name, err != NULL ? err :
		    strerror(-status));
		rp->failed = 1;
	} else
		rp->result = snapshot_take_profile(snap);
	if (rp == r->sys)
		clock_gettime(CLOCK_REALTIME, &r->sys_end);
	/* The plugin may still be inside snapshot(): free on the next turn. */
	r->pending--;
	if (r->pending == 0 && r->in_cycle) {
		event_del(r->wait_ev);
		event_active(r->wait_ev, EV_TIMEOUT, 0);
	}
}

static void
cycle_request(struct run *r, struct run_plug *rp)
{
	const struct gp_plugin *d = rp->plugin->desc;
	int rc;

	rp->answered = rp->failed = 0;
	profile_free(rp->result);
	rp->result = NULL;
	rp->snap = snapshot_new(rp->plugin->ctx, cycle_snapshot_done, rp);
	r->pending++;
	rc = d->snapshot != NULL ? d->snapshot(rp->plugin->priv, rp->snap) :
	    -ENOSYS;
	if (rc != 0 && !rp->answered)
		cycle_snapshot_done(rp, rp->snap, rc < 0 ? rc : -EIO,
		    "snapshot() refused the request");
}

/* The snapshot bound expired, or every plugin answered (made active). */
static void
cycle_wait_cb(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;

	CHECK_OBJ(r, RUN_MAGIC);
	if (!r->in_cycle)
		return;
	cycle_finish(r);
}

static void
cycle_begin(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	struct timespec now;
	struct timeval tv;
	int64_t bound, early;
	size_t i;

	CHECK_OBJ(r, RUN_MAGIC);
	if (r->stopping || r->in_cycle)
		return;
	/*
	 * Never before the deadline: libevent measures timeouts from the
	 * time it cached when the loop woke, which may be stale by the
	 * callback that armed us.  Early by more than a millisecond: wait
	 * out the rest.
	 */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((early = ts_ms(&now, &r->next_mono)) > 1) {
		tv.tv_sec = early / 1000;
		tv.tv_usec = (early % 1000) * 1000;
		event_base_update_cache_time(r->base);
		evtimer_add(r->cycle_ev, &tv);
		return;
	}
	r->in_cycle = 1;
	r->pending = 0;
	clock_gettime(CLOCK_REALTIME, &r->req_start);
	clock_gettime(CLOCK_MONOTONIC, &r->req_mono);
	r->sys_end.tv_sec = 0;
	bound = r->duration / 2 > run_snap_min_s ? r->duration / 2 :
	    run_snap_min_s;
	tv.tv_sec = bound;
	tv.tv_usec = 0;
	evtimer_add(r->wait_ev, &tv);
	/*
	 * Hold one count while asking: a plugin that answers inside its
	 * snapshot() (perf does) would otherwise bring pending to 0 before
	 * the others are even asked, and the cycle would end without them.
	 */
	r->pending++;
	/* The system profiler first: its answer dates the cycle's end. */
	if (r->sys != NULL)
		cycle_request(r, r->sys);
	for (i = 0; i < r->nplugs; i++)
		if (&r->plugs[i] != r->sys && r->plugs[i].started &&
		    r->plugs[i].plugin->desc->snapshot != NULL)
			cycle_request(r, &r->plugs[i]);
	if (--r->pending == 0) {
		event_del(r->wait_ev);
		event_active(r->wait_ev, EV_TIMEOUT, 0);
	}
}

/* Abandon every unanswered snapshot (bound expired or the run stops). */
void
cycle_abandon(struct run *r)
{
	struct run_plug *rp;
	size_t i;

	for (i = 0; i < r->nplugs; i++) {
		rp = &r->plugs[i];
		if (rp->snap == NULL)
			continue;
		if (!rp->answered) {
			log_warnx("%s: no snapshot within the cycle's bound; "
			    "abandoned, the cycle goes on without it",
			    rp->plugin->manifest.name);
			rp->failed = 1;
			rp->answered = 1;
			if (rp->plugin->desc->abandon != NULL)
				rp->plugin->desc->abandon(rp->plugin->priv,
				    rp->snap);
		}
		snapshot_free(rp->snap);
		rp->snap = NULL;
	}
	r->pending = 0;
	event_del(r->wait_ev);
}

struct enrich {
	struct run *run;
	struct profile *prof;
	struct json_object *containers;	/* array */
	struct json_object *appmeta;	/* array, [0] = null */
	struct appmeta_set *appset;	/* its entries, found by text */
	int names, appids, appmd;
};

static void
enrich_container(struct enrich *e, int32_t pid)
{
	const char *name;
	size_t i, n;

	if (e->names) {
		name = e->run->hooks.container_name(pid, e->run->hooks.arg);
		if (name != NULL && *name != '\0')
			profile_set_container(e->prof, pid, name);
	}
	if ((name = profile_pid_container(e->prof, pid)) == NULL)
		return;
	if (!e->names) {
		profile_set_container(e->prof, pid, NULL);
		return;
	}
	n = json_object_array_length(e->containers);
	for (i = 0; i < n; i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(
		    e->containers, i)), name) == 0)
			return;
	json_object_array_add(e->containers, json_object_new_string(name));
}

static int
enrich_pid(int32_t pid, void *arg)
{
	struct enrich *e = arg;
	struct json_object *md;

	enrich_container(e, pid);
	if (!e->appids)
		profile_set_appid(e->prof, pid, NULL);
	if (e->appset != NULL && pid > 0 &&
	    profile_pid_total(e->prof, pid) > 0) {
		md = appmeta_for_pid(pid, profile_pid_appmeta(e->prof, pid));
		profile_set_appmeta_idx(e->prof, pid,
		    appmeta_set_index(e->appset, md));
	}
	return (0);
}

/* Plugin metadata() objects are merged flat into "metadata" (iaprof §6.6). */
static void
cycle_plugin_metadata(struct run *r, struct json_object *hdr,
    struct json_object *md)
{
	struct gp_json *jm, *jh;
	struct json_object *own;
	struct plugin *p;
	size_t i;

	for (i = 0; i < r->nplugs; i++) {
		p = r->plugs[i].plugin;
		if (!r->plugs[i].started || p->desc->metadata == NULL)
			continue;
		own = json_object_new_object();
		jm = host_json_wrap(own);
		jh = host_json_wrap(hdr);
		if (p->desc->metadata(p->priv, jm, jh) != 0)
			log_warnx("%s: metadata() failed", p->manifest.name);
		host_json_release(jm);
		host_json_release(jh);
		json_object_object_foreach(own, k, v)
			json_object_object_add(md, k, json_object_get(v));
		json_object_put(own);
	}
}

static struct json_object *
cycle_header(struct run *r, struct enrich *e, const struct timespec *end)
{
	struct json_object *h = json_object_new_object(), *md;

	md = metadata_build(r->cfg, r->mode, r->frequency, end);
	json_object_object_add(h, "containers", e->containers);
	json_object_object_add(h, "container_names_enabled",
	    json_object_new_boolean(e->names));
	json_object_object_add(h, "metadata", md);
	json_object_object_add(h, "metrics", metrics_cycle(r->metrics));
	json_object_object_add(h, "application_metadata", e->appmeta);
	json_object_object_add(h, "application_metadata_enabled",
	    json_object_new_boolean(e->appmd));
	json_object_object_add(h, "hwmetrics", NULL);
	json_object_object_add(h, "htmlblob", NULL);
	json_object_object_add(h, "flamegraph_html", NULL);
	metadata_add_sampling(h, r->mode, r->frequency);
	cycle_plugin_metadata(r, h, md);
	return (h);
}

static struct profile *
cycle_merge(struct run *r)
{
	const struct profile **rt;
	struct profile *out;
	size_t i, n = 0;

	rt = xcalloc(r->nplugs + 1, sizeof(*rt));
	for (i = 0; i < r->nplugs; i++)
		if (&r->plugs[i] != r->sys && r->plugs[i].result != NULL)
			rt[n++] = r->plugs[i].result;
	out = merge_profiles(r->sys != NULL ? r->sys->result : NULL, rt, n,
	    merge_rng_default, NULL);
	free(rt);
	return (out);
}

static void
cycle_header_time(struct json_object *hdr, const char *key,
    const struct timespec *ts)
{
	char buf[64];

	utc_iso_time(buf, sizeof(buf), ts->tv_sec);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ".%06ld",
	    ts->tv_nsec / 1000);
	json_object_object_add(hdr, key, json_object_new_string(buf));
}

static void
cycle_emit(struct run *r, struct profile *prof, struct json_object *hdr,
    const struct timespec *end)
{
	struct cycle_output co;
	const char *od;
	char *col;
	size_t collen;

	memset(&co, 0, sizeof(co));
	co.cfg = r->cfg;
	co.profile = prof;
	co.header = hdr;
	co.start = r->win_start;
	co.end = *end;
	co.mode = r->mode;
	co.frequency = r->frequency;
	/* Ad-hoc: a single run started by a heartbeat command; only those
	 * uploads carry the flame graph (docs/specs/gprofiler-compat.md §12
	 * #10). */
	co.adhoc = !r->continuous &&
	    config_source(r->cfg, "continuous") == SRC_COMMAND;
	/* Not in gProfiler's header, which the backend reads loosely: the
	 * cycle's window, for the flame graph page and for readers of .col
	 * files (the upload body carries its own copies). */
	cycle_header_time(hdr, "start_time", &co.start);
	cycle_header_time(hdr, "end_time", &co.end);
	if ((od = config_get(r->cfg, "output-dir")) != NULL && *od != '\0')
		output_write_cycle(&co);
	if (r->hooks.on_cycle != NULL) {
		output_embed_flamegraph(&co);
		col = col_render(&co, &collen);
		r->hooks.on_cycle(&co, col, collen, r->hooks.arg);
		free(col);
	}
}

/*
 * Reads of maps that their budget deferred in the cycle (mapsread.h):
 * one line a cycle, a warning the first time.  Their processes' frames
 * wait for the kernel's mapping records or a later read meanwhile.
 */
static void
cycle_maps_deferred(void)
{
	static struct mapsread_stats last;
	static int warned;
	struct mapsread_stats st;

	mapsread_stats(&st);
	if (st.deferred != last.deferred)
		log_msg(warned ? LOG_LEVEL_INFO : LOG_LEVEL_WARN, NULL,
		    "maps reads: %llu deferred, the last by %s (uid %u; a user "
		    "%u MiB, then %u KiB a second, all users %u MiB, then %u "
		    "KiB a second; %llu MiB read in all): their frames may "
		    "stay unresolved for a while",
		    (unsigned long long)(st.deferred - last.deferred),
		    st.last_all ? "all users' budget" : "its user's budget",
		    st.last_uid, MAPSREAD_USER_BURST >> 20,
		    MAPSREAD_USER_RATE >> 10, MAPSREAD_ALL_BURST >> 20,
		    MAPSREAD_ALL_RATE >> 10,
		    (unsigned long long)(st.bytes >> 20));
	warned |= st.deferred != last.deferred;
	last = st;
}

/* Every answer is in or the bound expired: build and hand over. */
static void
cycle_finish(struct run *r)
{
	struct enrich e;
	struct json_object *hdr;
	struct timespec end;
	int sysfail;

	cycle_abandon(r);
	r->in_cycle = 0;
	r->ncycles++;
	sysfail = r->sys != NULL && (r->sys->failed || r->sys->result == NULL);
	if (r->sys != NULL && r->sys_end.tv_sec != 0)
		end = r->sys_end;
	else
		clock_gettime(CLOCK_REALTIME, &end);
	if (ts_ms(&r->win_start, &end) <= 0)	/* never start == end */
		end.tv_sec = r->win_start.tv_sec + 1;
	/*
	 * Files and current_time name a cycle by its end to the second
	 * (docs/specs/gprofiler-compat.md §5, §6): a cycle that ends in the
	 * same second as the one before (the loop stalled at the wrong moment)
	 * would overwrite its .col and repeat its current_time.  Round such an
	 * end up to the next second, within the precision the names carry.
	 */
	if (r->last_end.tv_sec != 0 && end.tv_sec <= r->last_end.tv_sec) {
		log_debug("cycle %u ends in the second of the previous one; "
		    "dated %+.3f s later", r->ncycles,
		    (double)(r->last_end.tv_sec + 1 - end.tv_sec) -
		    end.tv_nsec / 1e9);
		end.tv_sec = r->last_end.tv_sec + 1;
		end.tv_nsec = 0;
	}
	r->last_end = end;
	if (sysfail) {
		log_warnx("profiling cycle %u failed: the system profiler %s "
		    "gave no result", r->ncycles, r->sys->plugin->manifest.name);
		if (!r->continuous) {
			r->finish(r, -EIO, "the system profiler gave no result");
			return;
		}
	} else {
		memset(&e, 0, sizeof(e));
		e.run = r;
		e.prof = cycle_merge(r);
		e.containers = json_object_new_array();
		e.appmeta = json_object_new_array();
		json_object_array_add(e.appmeta, NULL);
		e.names = r->hooks.container_name != NULL &&
		    !config_get_bool(r->cfg, "disable-container-names");
		e.appids = !config_get_bool(r->cfg,
		    "disable-application-identifiers");
		e.appmd = !config_get_bool(r->cfg,
		    "disable-application-metadata");
		if (e.appmd)	/* NULL, out of memory: no entries */
			e.appset = appmeta_set_new(e.appmeta);
		profile_foreach_pid(e.prof, enrich_pid, &e);
		appmeta_set_free(e.appset);
		appmeta_sweep();
		cycle_maps_deferred();
		hdr = cycle_header(r, &e, &end);
		cycle_emit(r, e.prof, hdr, &end);
		json_object_put(hdr);
		profile_free(e.prof);
	}
	cycle_schedule(r);
}

/*
 * The deadline after prev on a grid of duration_s seconds: prev +
 * duration, or, when the agent fell more than a whole cycle behind (a
 * stalled host), the first grid point not yet past (one longer window,
 * no burst of short ones).  Returns the wait from now in ms (>= 0).
 */
int64_t
cycle_next_deadline(const struct timespec *prev, int64_t duration_s,
    const struct timespec *now, struct timespec *next)
{
	int64_t wait;

	*next = *prev;
	next->tv_sec += duration_s;
	if ((wait = ts_ms(now, next)) < 0 && -wait >= duration_s * 1000) {
		next->tv_sec += ((-wait + duration_s * 1000 - 1) /
		    (duration_s * 1000)) * duration_s;
		wait = ts_ms(now, next);
	}
	return (wait > 0 ? wait : 0);
}

/*
 * Schedule the next cycle.  Windows tile time: each starts where the one
 * before ended (the end its header states), and the cycles fire on a grid
 * of profiling-duration seconds from the run's start, so a slow cycle
 * (symbolization, a loaded host) neither shortens the next window nor
 * makes the run drift.  Without --continuous the run ends after the first
 * cycle.
 */
void
cycle_schedule(struct run *r)
{
	struct timespec now, base;
	struct timeval tv;
	int64_t wait_ms;

	if (r->stopping)
		return;
	if (r->ncycles > 0 && !r->continuous) {
		r->finish(r, 0, NULL);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (r->ncycles > 0) {
		/* The new window begins where the last one's header ended. */
		r->win_start = r->last_end;
		base = r->next_mono;
	} else {
		clock_gettime(CLOCK_REALTIME, &r->win_start);
		r->win_mono = now;
		base = now;
	}
	wait_ms = cycle_next_deadline(&base, r->duration, &now, &r->next_mono);
	if (r->cycle_ev == NULL) {
		r->cycle_ev = evtimer_new(r->base, cycle_begin, r);
		r->wait_ev = evtimer_new(r->base, cycle_wait_cb, r);
	}
	tv.tv_sec = wait_ms / 1000;
	tv.tv_usec = (wait_ms % 1000) * 1000;
	/* libevent adds tv to the time it cached when the loop woke, stale
	 * by however long this cycle took: refresh it first. */
	event_base_update_cache_time(r->base);
	evtimer_add(r->cycle_ev, &tv);
}
