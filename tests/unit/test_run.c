/*
 * Unit tests of core/run/run.c, core/run/cycle.c and core/host/host_api.c: a run with
 * in-test plugins written against the ABI (a system profiler, a process
 * profiler whose stacks replace the system's, one that never answers).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "base/http.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "host/host.h"
#include "meta/meta.h"
#include "profile/profile.h"
#include "run/run.h"
#include "run/run_int.h"
#include "testing.h"

static const struct gp_host_api *api;
static struct event_base *base;
static int abandoned, stopped, finished, cycles, timer_hits, watch_hits;
static char *last_col;
static struct cycle_output last_co;
static int64_t span_ms;
static char err_buf[256];

static int
sys_snapshot(void *priv, struct gp_snapshot *snap)
{
	const char *f[] = { "main", "native_leaf" };
	const char *g[] = { "start", "work" };

	api->snapshot_add_stack(snap, 4242, "python", f, 2, 10);
	api->snapshot_add_stack(snap, 77, "nginx", g, 2, 3);
	api->snapshot_done(snap, 0, NULL);
	/* After done: ignored with a warning, never a crash. */
	return (api->snapshot_add_stack(snap, 1, "x", f, 1, 1) == -EINVAL ?
	    0 : -EIO);
}

static int
py_snapshot(void *priv, struct gp_snapshot *snap)
{
	const char *f[] = { "<module> (/srv/a.py:1)_[p]", "hot_[p]" };
	struct gp_json *md = api->json_new();

	api->snapshot_add_stack(snap, 4242, "python", f, 2, 5);
	api->snapshot_set_appid(snap, 4242, "python: a.py");
	api->json_set_string(md, "python_version", "3.11");
	api->snapshot_set_app_metadata(snap, 4242, md);
	api->snapshot_done(snap, 0, NULL);
	return (0);
}

static int
hung_snapshot(void *priv, struct gp_snapshot *snap)
{
	return (0);	/* never answers */
}

static void
hung_abandon(void *priv, struct gp_snapshot *snap)
{
	abandoned++;
}

static int
p_stop(void *priv)
{
	stopped++;
	api->stop_done(priv);
	return (0);
}

static int
sys_metadata(void *priv, struct gp_json *md, struct gp_json *hdr)
{
	api->json_set_string(md, "iaprof_version", "2026.3");
	api->json_set_int(md, "iaprof_output_interval_ms", 10);
	return (0);
}

static int
p_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *a, void **privp)
{
	api = a;
	*privp = ctx;
	return (0);
}

/* A system profiler that answers every other snapshot 0.8 s late: the
 * late cycle ends in the same second as the next one most of the time. */
static int late_n;
static struct gp_timer *late_timer;
static struct gp_plugin_ctx *late_ctx;

static void
late_answer(void *arg)
{
	struct gp_snapshot *snap = arg;
	const char *f[] = { "main" };

	api->timer_del(late_timer);
	late_timer = NULL;
	api->snapshot_add_stack(snap, 4242, "python", f, 1, 1);
	api->snapshot_done(snap, 0, NULL);
}

static int
late_snapshot(void *priv, struct gp_snapshot *snap)
{
	late_timer = api->timer_add(late_ctx, late_n++ % 2 == 0 ? 800 : 1, 0,
	    late_answer, snap);
	return (0);
}

static int
late_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *a,
    void **privp)
{
	late_ctx = ctx;
	return (p_init(ctx, a, privp));
}

static struct gp_plugin d_sys = { GP_PLUGIN_HEADER, .name = "tsys",
	.kind = GP_KIND_SYSTEM, .modes = GP_MODE_CPU, .init = p_init,
	.snapshot = sys_snapshot, .metadata = sys_metadata, .stop = p_stop };
static struct gp_plugin d_py = { GP_PLUGIN_HEADER, .name = "tpy",
	.kind = GP_KIND_PROCESS, .modes = GP_MODE_CPU, .init = p_init,
	.snapshot = py_snapshot, .stop = p_stop };
static struct gp_plugin d_late = { GP_PLUGIN_HEADER, .name = "tlate",
	.kind = GP_KIND_SYSTEM, .modes = GP_MODE_CPU, .init = late_init,
	.snapshot = late_snapshot, .stop = p_stop };
static struct gp_plugin d_hung = { GP_PLUGIN_HEADER, .name = "thung",
	.kind = GP_KIND_PROCESS, .modes = GP_MODE_CPU, .init = p_init,
	.snapshot = hung_snapshot, .abandon = hung_abandon };

static struct plugin *
mkplugin(struct plugin_list *pl, const struct gp_plugin *d,
    const struct config *cfg)
{
	struct plugin *p = xcalloc(1, sizeof(*p));

	p->magic = PLUGIN_MAGIC;
	p->manifest.name = xstrdup(d->name);
	p->desc = d;
	p->active = 1;
	p->ctx = host_ctx_new(p, base);
	host_ctx_set_config(p->ctx, cfg);
	d->init(p->ctx, host_api(), &p->priv);
	TAILQ_INSERT_TAIL(pl, p, entry);
	return (p);
}

#define NENDS	6
static time_t ends[NENDS];
static char ctimes[NENDS][32];

static void
on_cycle(const struct cycle_output *co, const char *col, size_t len,
    void *arg)
{
	struct json_object *md, *ct;

	if (cycles < NENDS) {
		ends[cycles] = co->end.tv_sec;
		if (json_object_object_get_ex(co->header, "metadata", &md) &&
		    json_object_object_get_ex(md, "current_time", &ct))
			snprintf(ctimes[cycles], sizeof(ctimes[0]), "%s",
			    json_object_get_string(ct));
	}
	cycles++;
	free(last_col);
	last_col = xstrndup(col, len);
	span_ms = (co->end.tv_sec - co->start.tv_sec) * 1000 +
	    (co->end.tv_nsec - co->start.tv_nsec) / 1000000;
	last_co = *co;
}

static void
on_finished(struct run *r, int status, const char *err, void *arg)
{
	finished = status == 0 ? 1 : -1;
}

static const char *
cname(int32_t pid, void *arg)
{
	return (pid == 77 ? "web-1" : "");
}

static void
stop_done_cb(void *arg)
{
	(*(int *)arg)++;
}

static void
wake(evutil_socket_t fd, short w, void *a)
{
}

/* Runs the loop until *flag is set or ms have passed on the clock; counted
 * in time, not iterations, so a busy host cannot end the wait early. */
static void
loop_until(int *flag, int ms)
{
	struct event *t = event_new(base, -1, EV_PERSIST, wake, NULL);
	struct timeval tv = { 0, 20000 };
	struct timespec now, end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (long)(ms % 1000) * 1000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	event_add(t, &tv);
	while (!*flag) {
		event_base_loop(base, EVLOOP_ONCE);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec &&
		    now.tv_nsec >= end.tv_nsec))
			break;
	}
	event_free(t);
}

static void
tick(void *arg)
{
	timer_hits++;
}

static void
readable(int32_t fd, uint32_t ev, void *arg)
{
	char c;

	if ((ev & GP_EV_READ) && read(fd, &c, 1) == 1)
		watch_hits++;
}

static void
test_host_api(struct plugin *p, struct config *cfg)
{
	struct gp_plugin_ctx *ctx = p->ctx;
	struct gp_timer *t;
	struct gp_watch *w;
	struct gp_json *j;
	char err[256];
	int fds[2], one = 0;

	CHECK(api->size == sizeof(struct gp_host_api), "table size");
	CHECK_STREQ(api->option_get(ctx, "profiling-duration"), "1",
	    "core option through option_get");
	CHECK_INTEQ(api->option_get_int(ctx, "profiling-duration", 9), 1,
	    "option_get_int");
	CHECK(api->option_get(ctx, "no-such-option") == NULL, "unknown: NULL");
	CHECK(api->pid_wanted(ctx, 4242), "no --pids: any pid");
	CHECK(!api->pid_wanted(ctx, getpid()), "never the agent itself");
	config_set(cfg, "pids", "12, 4242", SRC_CLI, "test", err,
	    sizeof(err));
	CHECK(api->pid_wanted(ctx, 4242) && api->pid_wanted(ctx, 12) &&
	    !api->pid_wanted(ctx, 13), "--pids list");
	config_set(cfg, "pids", "", SRC_CLI, "test", err, sizeof(err));
	t = api->timer_add(ctx, 10, 1, tick, NULL);
	CHECK(pipe2(fds, O_CLOEXEC) == 0, "pipe");
	w = api->fd_watch(ctx, fds[0], GP_EV_READ, readable, NULL);
	CHECK(w != NULL, "fd_watch");
	(void)!write(fds[1], "ab", 2);
	/* 10 ms ticks: three need 30 ms; 5 s only bounds a stalled host. */
	for (int i = 0; i < 250 && (timer_hits < 3 || watch_hits < 1); i++)
		loop_until(&one, 20);
	CHECK(timer_hits >= 3, "periodic timer fired");
	CHECK(watch_hits >= 1, "fd watch fired");
	api->timer_del(t);
	api->fd_unwatch(w);
	api->timer_del(NULL);
	close(fds[0]);
	close(fds[1]);
	j = api->json_new();
	CHECK_INTEQ(api->json_set_raw(j, "k", "{\"a\": [1, 2]}"), 0, "raw");
	CHECK_INTEQ(api->json_set_raw(j, "k", "{bad"), -EINVAL, "bad raw");
	api->json_free(j);
	CHECK(api->http_download(ctx, "http://x", 1, 10, NULL, NULL) ==
	    -ENOSYS, "http_download says it is not wired");
}

static void
free_plugins(struct plugin_list *pl)
{
	struct plugin *p;

	while ((p = TAILQ_FIRST(pl)) != NULL) {
		TAILQ_REMOVE(pl, p, entry);
		host_ctx_free(p->ctx);
		free(p->manifest.name);
		free(p);
	}
}

/*
 * Files and current_time name a cycle by its end to the second: cycles
 * whose answers come late must still get distinct, increasing seconds
 * (or one .col overwrites another).
 */
static void
test_distinct_seconds(struct config *cfg)
{
	struct plugin_list pl = TAILQ_HEAD_INITIALIZER(pl);
	struct run_hooks hooks = { on_cycle, on_finished, NULL, NULL };
	struct run *r;
	char err[256];
	int i, sdone = 0, ok_end = 1, ok_ct = 1, never = 0;

	config_set(cfg, "continuous", "true", SRC_CLI, "test", err,
	    sizeof(err));
	mkplugin(&pl, &d_late, cfg);
	cycles = 0;
	r = run_new(base, cfg, &pl, &hooks);
	CHECK_INTEQ(run_start(r), 0, "continuous run starts");
	for (i = 0; i < 10 * NENDS && cycles < NENDS; i++)
		loop_until(&never, 200);
	CHECK_INTEQ(cycles >= NENDS, 1, "the late system profiler's cycles "
	    "complete");
	for (i = 1; i < NENDS && i < cycles; i++) {
		if (ends[i] <= ends[i - 1])
			ok_end = 0;
		if (strcmp(ctimes[i], ctimes[i - 1]) <= 0)
			ok_ct = 0;
	}
	CHECK(ok_end, "every cycle ends in a later second than the one "
	    "before");
	CHECK(ok_ct, "current_time increases from cycle to cycle");
	run_stop(r, stop_done_cb, &sdone);
	loop_until(&sdone, 2000);
	run_free(r);
	free_plugins(&pl);
}

/*
 * A metrics collector that answers 0.4 s after being asked, in a cycle
 * whose system profiler answers inside snapshot(): the cycle must wait for
 * it (the inline answer once ended the cycle before the others were asked,
 * and PerfSpect's summary never reached any header).
 */
static int met_answered, met_abandoned;
static struct gp_timer *met_timer;
static struct gp_plugin_ctx *met_ctx;

static void
met_answer(void *arg)
{
	api->timer_del(met_timer);
	met_timer = NULL;
	met_answered++;
	api->snapshot_done(arg, 0, NULL);
}

static int
met_snapshot(void *priv, struct gp_snapshot *snap)
{
	met_timer = api->timer_add(met_ctx, 400, 0, met_answer, snap);
	return (0);
}

static void
met_abandon(void *priv, struct gp_snapshot *snap)
{
	api->timer_del(met_timer);
	met_timer = NULL;
	met_abandoned++;
}

static int
met_metadata(void *priv, struct gp_json *md, struct gp_json *hdr)
{
	api->json_set_int(md, "tmet_answered", met_answered);
	return (0);
}

static int
met_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *a,
    void **privp)
{
	met_ctx = ctx;
	return (p_init(ctx, a, privp));
}

static struct gp_plugin d_met = { GP_PLUGIN_HEADER, .name = "tmet",
	.kind = GP_KIND_METRICS, .modes = GP_MODE_CPU, .init = met_init,
	.snapshot = met_snapshot, .abandon = met_abandon,
	.metadata = met_metadata, .stop = p_stop };

static void
test_inline_then_late(struct config *cfg)
{
	struct plugin_list pl = TAILQ_HEAD_INITIALIZER(pl);
	struct run_hooks hooks = { on_cycle, on_finished, NULL, NULL };
	struct run *r;
	int sdone = 0;

	mkplugin(&pl, &d_sys, cfg);
	mkplugin(&pl, &d_met, cfg);
	finished = cycles = 0;
	r = run_new(base, cfg, &pl, &hooks);
	CHECK_INTEQ(run_start(r), 0, "run with a late metrics collector");
	loop_until(&finished, 6000);
	CHECK_INTEQ(met_abandoned, 0, "a collector answering within the bound "
	    "is not abandoned when the system profiler answered inline");
	CHECK(last_col != NULL && strstr(last_col, "\"tmet_answered\": 1") !=
	    NULL, "its answer reaches the cycle's header");
	run_stop(r, stop_done_cb, &sdone);
	loop_until(&sdone, 2000);
	run_free(r);
	free_plugins(&pl);
}

/*
 * Issue 11 #7: cycle windows tile time.  Each cycle's hook blocks the
 * loop for 300 ms (a slow write or upload on a loaded host); the windows
 * must still start where the previous ended and last -d (1 s), and the
 * run must not gain cycles.
 */
#define NWIN	6
static struct timespec wstart[NWIN], wend[NWIN];
static int nwin;

static void
on_cycle_slow(const struct cycle_output *co, const char *col, size_t len,
    void *arg)
{
	struct timespec t0, t1;

	if (nwin < NWIN) {
		wstart[nwin] = co->start;
		wend[nwin] = co->end;
	}
	nwin++;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t1);
	while ((t1.tv_sec - t0.tv_sec) * 1000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000000 < 300);
}

static int64_t
ms_between(const struct timespec *a, const struct timespec *b)
{
	return ((int64_t)(b->tv_sec - a->tv_sec) * 1000 +
	    (b->tv_nsec - a->tv_nsec) / 1000000);
}

static void
test_tiling(struct config *cfg)
{
	struct plugin_list pl = TAILQ_HEAD_INITIALIZER(pl);
	struct run_hooks hooks = { on_cycle_slow, on_finished, NULL, NULL };
	struct timespec t0, t1, a, now, next;
	struct run *r;
	char msg[160];
	int i, sdone = 0, never = 0, tiled = 1, len_ok = 1;
	int64_t len, minlen = 1 << 30, maxlen = 0, w;

	config_set(cfg, "continuous", "true", SRC_CLI, "test", err_buf,
	    sizeof(err_buf));
	mkplugin(&pl, &d_sys, cfg);
	nwin = 0;
	r = run_new(base, cfg, &pl, &hooks);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INTEQ(run_start(r), 0, "continuous 1 s run starts");
	for (i = 0; i < 100 && nwin < NWIN; i++)
		loop_until(&never, 200);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(nwin >= NWIN, "its cycles complete");
	for (i = 1; i < NWIN && i < nwin; i++) {
		if (wstart[i].tv_sec != wend[i - 1].tv_sec ||
		    wstart[i].tv_nsec != wend[i - 1].tv_nsec)
			tiled = 0;
		len = ms_between(&wstart[i], &wend[i]);
		if (len < minlen)
			minlen = len;
		if (len > maxlen)
			maxlen = len;
		/* Deadlines are exact; an end waits for the answer (a
		 * loaded host delays it by some ms).  Before the fix the
		 * windows were 300 ms short. */
		if (len < 900 || len > 1150)
			len_ok = 0;
	}
	CHECK(tiled, "each window starts where the one before ended");
	snprintf(msg, sizeof(msg), "each window lasts -d (1 s) although "
	    "every cycle takes 300 ms: %lld..%lld ms", (long long)minlen,
	    (long long)maxlen);
	CHECK(len_ok, msg);
	w = ms_between(&t0, &t1);
	snprintf(msg, sizeof(msg), "%d cycles in %lld ms: no extra cycles",
	    nwin, (long long)w);
	CHECK(nwin <= w / 1000 + 1, msg);
	run_stop(r, stop_done_cb, &sdone);
	loop_until(&sdone, 2000);
	run_free(r);
	free_plugins(&pl);

	/* The grid: one longer window after a stall, not a burst. */
	a.tv_sec = 100;
	a.tv_nsec = 0;
	now = a;
	now.tv_nsec = 400000000;
	CHECK_INTEQ(cycle_next_deadline(&a, 5, &now, &next), 4600,
	    "next deadline: 5 s after the last one");
	CHECK(next.tv_sec == 105, "on the grid");
	now.tv_sec = 112;
	CHECK_INTEQ(cycle_next_deadline(&a, 5, &now, &next), 2600,
	    "after a stall of two cycles: the next grid point ahead");
	CHECK(next.tv_sec == 115, "still on the grid");
	now.tv_sec = 105;
	now.tv_nsec = 500000000;
	CHECK_INTEQ(cycle_next_deadline(&a, 5, &now, &next), 0,
	    "a little late: now");
	CHECK(next.tv_sec == 105, "and the grid is kept");
}

int
main(void)
{
	struct plugin_list pl = TAILQ_HEAD_INITIALIZER(pl);
	struct run_hooks hooks = { on_cycle, on_finished, cname, NULL };
	struct config *cfg;
	struct run *r;
	struct plugin *p;
	char err[256];
	int sdone = 0;

	log_init(0, "test_run");
	base = event_base_new();
	cfg = config_new();
	if (config_set(cfg, "profiling-duration", "1", SRC_CLI, "test", err,
	    sizeof(err)) != 0)
		printf("# %s\n", err);
	mkplugin(&pl, &d_sys, cfg);
	p = mkplugin(&pl, &d_py, cfg);
	mkplugin(&pl, &d_hung, cfg);
	test_host_api(p, cfg);

	run_snap_min_s = 1;
	r = run_new(base, cfg, &pl, &hooks);
	CHECK_INTEQ(run_start(r), 0, "run starts");
	loop_until(&finished, 6000);
	CHECK_INTEQ(finished, 1, "single run finished by itself");
	CHECK_INTEQ(cycles, 1, "one cycle without --continuous");
	CHECK_INTEQ(abandoned, 1, "silent plugin told to abandon");
	CHECK(span_ms >= 900, "end after start (the cycle's duration)");
	CHECK(last_col != NULL && strstr(last_col, ";;python;appid: python: "
	    "a.py;<module> (/srv/a.py:1)_[p];hot_[p] 10") != NULL,
	    "runtime stacks replace native ones, scaled P/R = 2");
	CHECK(strstr(last_col, "native_leaf") == NULL,
	    "native stacks of the replaced pid are gone");
	CHECK(strstr(last_col, "0;web-1;nginx;start;work 3") != NULL,
	    "container name from the hook");
	CHECK(strstr(last_col, "\"containers\": [ \"web-1\" ]") != NULL,
	    "header containers");
	CHECK(strstr(last_col, "\"iaprof_version\": \"2026.3\"") != NULL,
	    "plugin metadata merged into metadata");
	CHECK(strstr(last_col, "\"profiling_mode\": \"cpu\"") != NULL &&
	    strstr(last_col, "\"sampling_frequency\": 11") != NULL,
	    "mode and sampling keys");
	CHECK(strstr(last_col, "\"cpu_avg\"") != NULL &&
	    strstr(last_col, "\"mac_address\"") != NULL, "metrics, metadata");
	run_stop(r, stop_done_cb, &sdone);
	CHECK_INTEQ(sdone, 0, "stop's done is never called from inside run_stop");
	event_base_loop(base, EVLOOP_NONBLOCK);
	CHECK_INTEQ(sdone, 1, "stop completes on the next turn (plugins "
	    "answered inline)");
	CHECK_INTEQ(stopped, 2, "stop() called on plugins that have it");
	run_free(r);
	test_inline_then_late(cfg);
	test_distinct_seconds(cfg);
	test_tiling(cfg);
	free(last_col);
	free_plugins(&pl);
	config_free(cfg);
	metadata_free();
	event_base_free(base);
	return (testing_done());
}
