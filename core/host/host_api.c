/*
 * The host API table handed to plugins (include/gprofiler/plugin.h): every
 * entry checks the magic of the objects it receives, because they come back
 * from a .so we did not build.  Plugins never see the event_base.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "base/child.h"
#include "base/http.h"
#include "base/log.h"
#include "base/mapsread.h"
#include "base/procfs.h"
#include "base/procstr.h"
#include "base/safeopen.h"
#include "base/tick.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "host/host.h"
#include "host/host_api_int.h"
#include "host/host_sample.h"

struct gp_timer {
	unsigned magic;	/* TIMER_MAGIC */
	struct gp_plugin_ctx *ctx;
	struct event *ev;
	uint64_t grid_ms;	/* periodic on the tick grid */
	void (*cb)(void *);
	void *arg;
	LIST_ENTRY(gp_timer)	 entry;
};

struct gp_watch {
	unsigned magic;	/* WATCH_MAGIC */
	struct gp_plugin_ctx *ctx;
	struct event *ev;
	void (*cb)(int32_t, uint32_t, void *);
	void *arg;
	LIST_ENTRY(gp_watch)	 entry;
};

struct gp_plugin_ctx {
	unsigned magic;	/* PLUGIN_CTX_MAGIC */
	struct plugin *plugin;
	const char *name;
	struct event_base *base;
	const struct config *cfg;
	void (*stop_cb)(void *);
	void *stop_arg;
	char *pids_text;	/* parsed --pids, cached */
	int pids_set;		/* a non-empty --pids */
	int32_t *pids;
	size_t npids;
	LIST_HEAD(, gp_timer)	 timers;
	LIST_HEAD(, gp_watch)	 watches;
};

static int (*host_http_download_impl)(struct gp_plugin_ctx *, const char *,
		    int32_t, uint32_t, void (*)(void *, int32_t, int32_t,
		    const char *), void *);

static void host_pids_parse(struct gp_plugin_ctx *);

/* Logging. */
static void
host_log(struct gp_plugin_ctx *ctx, int level, const char *fmt, ...)
{
	va_list ap;

	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	va_start(ap, fmt);
	log_vmsg(level, ctx->name, fmt, ap);
	va_end(ap);
}

/* Options: the current run's config, core and plugin options alike. */
static const char *
host_option_get(struct gp_plugin_ctx *ctx, const char *name)
{
	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	if (ctx->cfg == NULL || name == NULL)
		return (NULL);
	return (config_get(ctx->cfg, name));
}

static int64_t
host_option_get_int(struct gp_plugin_ctx *ctx, const char *name,
    int64_t dflt)
{
	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	if (ctx->cfg == NULL || name == NULL)
		return (dflt);
	return (config_get_int(ctx->cfg, name, dflt));
}

static int32_t
host_option_get_bool(struct gp_plugin_ctx *ctx, const char *name)
{
	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	if (ctx->cfg == NULL || name == NULL)
		return (0);
	return (config_get_bool(ctx->cfg, name) ? 1 : 0);
}

/* Timers. */
static void
host_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct gp_timer *t = arg;

	CHECK_OBJ(t, TIMER_MAGIC);
	if (t->grid_ms != 0) {
		/* Re-armed first: the callback may delete the timer. */
		struct timeval tv;

		tick_next(t->grid_ms, &tv);
		event_add(t->ev, &tv);
	}
	t->cb(t->arg);
}

/*
 * A one-shot timer stays allocated (inactive) until timer_del, like a
 * libevent event, so a plugin may keep and delete it at any time; leftovers
 * are freed with the plugin's context.
 */
static struct gp_timer *
host_timer_add(struct gp_plugin_ctx *ctx, uint64_t msec, int32_t persist,
    void (*cb)(void *), void *arg)
{
	struct gp_timer *t;
	struct timeval tv;

	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	if (cb == NULL)
		return (NULL);
	t = xcalloc(1, sizeof(*t));
	t->magic = TIMER_MAGIC;
	t->ctx = ctx;
	t->cb = cb;
	t->arg = arg;
	/* Periods of whole seconds join the tick grid (one wake-up for
	 * every slow timer of the agent); shorter ones keep their phase. */
	if (persist && tick_aligned(msec))
		t->grid_ms = msec;
	t->ev = event_new(ctx->base, -1, persist && t->grid_ms == 0 ?
	    EV_PERSIST : 0, host_timer_cb, t);
	if (t->grid_ms != 0)
		tick_next(t->grid_ms, &tv);
	else {
		tv.tv_sec = msec / 1000;
		tv.tv_usec = (msec % 1000) * 1000;
	}
	if (t->ev == NULL || event_add(t->ev, &tv) == -1)
		fatalx("%s: cannot add a timer", ctx->name);
	LIST_INSERT_HEAD(&ctx->timers, t, entry);
	return (t);
}

static void
host_timer_del(struct gp_timer *t)
{
	if (t == NULL)
		return;
	CHECK_OBJ(t, TIMER_MAGIC);
	LIST_REMOVE(t, entry);
	event_free(t->ev);	/* safe from its own callback */
	t->magic = 0;
	free(t);
}

/* fd watches. */
static void
host_watch_cb(evutil_socket_t fd, short what, void *arg)
{
	struct gp_watch *w = arg;
	uint32_t ev = 0;

	CHECK_OBJ(w, WATCH_MAGIC);
	if (what & EV_READ)
		ev |= GP_EV_READ;
	if (what & EV_WRITE)
		ev |= GP_EV_WRITE;
	w->cb(fd, ev, w->arg);
}

static struct gp_watch *
host_fd_watch(struct gp_plugin_ctx *ctx, int32_t fd, uint32_t events,
    void (*cb)(int32_t, uint32_t, void *), void *arg)
{
	struct gp_watch *w;
	short what = EV_PERSIST;

	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	if (fd < 0 || cb == NULL || (events & ~(GP_EV_READ | GP_EV_WRITE)) ||
	    events == 0) {
		errno = EINVAL;
		return (NULL);
	}
	if (events & GP_EV_READ)
		what |= EV_READ;
	if (events & GP_EV_WRITE)
		what |= EV_WRITE;
	w = xcalloc(1, sizeof(*w));
	w->magic = WATCH_MAGIC;
	w->ctx = ctx;
	w->cb = cb;
	w->arg = arg;
	w->ev = event_new(ctx->base, fd, what, host_watch_cb, w);
	if (w->ev == NULL || event_add(w->ev, NULL) == -1) {
		if (w->ev != NULL)
			event_free(w->ev);
		free(w);
		errno = EINVAL;
		return (NULL);
	}
	LIST_INSERT_HEAD(&ctx->watches, w, entry);
	return (w);
}

static void
host_fd_unwatch(struct gp_watch *w)
{
	if (w == NULL)
		return;
	CHECK_OBJ(w, WATCH_MAGIC);
	LIST_REMOVE(w, entry);
	event_free(w->ev);
	w->magic = 0;
	free(w);
}

/* Children: child.c, tagged with the context so destroy can reap them. */
static struct gp_child *
host_child_spawn(struct gp_plugin_ctx *ctx, const struct gp_child_spec *spec)
{
	struct gp_child *c;

	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	c = child_spawn(ctx->base, spec, ctx);
	if (c == NULL)
		log_msg(LOG_LEVEL_DEBUG, ctx->name, "spawn %s: %s",
		    spec != NULL && spec->argv != NULL && spec->argv[0] !=
		    NULL ? spec->argv[0] : "(null)", strerror(errno));
	return (c);
}

static int
host_child_stop(struct gp_child *c, int32_t sig, uint32_t grace_ms)
{
	return (child_stop(c, sig, grace_ms));
}

static int32_t
host_child_pid(struct gp_child *c)
{
	return (child_pid(c));
}

static size_t
host_child_stderr_tail(struct gp_child *c, char *buf, size_t bufsz)
{
	return (child_stderr_tail(c, buf, bufsz));
}

static void
host_stop_done(struct gp_plugin_ctx *ctx)
{
	void (*cb)(void *);

	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	if ((cb = ctx->stop_cb) == NULL)
		return;
	ctx->stop_cb = NULL;
	cb(ctx->stop_arg);
}

/*
 * --pids (comma-separated; NULL or empty: every process), never the agent
 * itself or one of its children (a tool we spawned profiling us back).
 */
static int32_t
host_pid_wanted(struct gp_plugin_ctx *ctx, int32_t pid)
{
	char path[64], *buf;
	size_t len, i;
	int32_t ppid;
	int r;

	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	if (pid < 0 || pid == getpid())
		return (0);
	/* The idle task: kept as "swapper" (as gProfiler does) unless
	 * --pids narrows the profile. */
	if (pid == 0) {
		host_pids_parse(ctx);
		return (!ctx->pids_set);
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (procfs_read(path, &buf, &len, 4096) == 0) {
		r = procfs_stat_ppid(buf, len, &ppid);
		free(buf);
		if (r == 0 && ppid == getpid())
			return (0);
	}
	host_pids_parse(ctx);
	if (!ctx->pids_set)
		return (1);
	for (i = 0; i < ctx->npids; i++)
		if (ctx->pids[i] == pid)
			return (1);
	return (0);
}

/*
 * Parse "1,2, 3" once per distinct --pids text; bad entries are skipped
 * (config.c validated the option), and a list naming no valid PID selects
 * nothing rather than everything.
 */
static void
host_pids_parse(struct gp_plugin_ctx *ctx)
{
	const char *txt = host_option_get(ctx, "pids");
	char *end;
	const char *p;
	long v;

	if (txt == NULL)
		txt = "";
	if (ctx->pids_text != NULL && strcmp(ctx->pids_text, txt) == 0)
		return;
	free(ctx->pids_text);
	free(ctx->pids);
	ctx->pids_text = xstrdup(txt);
	ctx->pids = NULL;
	ctx->npids = 0;
	ctx->pids_set = txt[0] != '\0';
	for (p = txt; *p != '\0'; p = *end ? end + 1 : end) {
		while (*p == ' ' || *p == ',')
			p++;
		if (*p == '\0')
			break;
		v = strtol(p, &end, 10);
		if (end == p || v <= 0 || v > INT32_MAX) {
			while (*end != '\0' && *end != ',')
				end++;
			continue;
		}
		ctx->pids = xreallocarray(ctx->pids, ctx->npids + 1,
		    sizeof(*ctx->pids));
		ctx->pids[ctx->npids++] = (int32_t)v;
		while (*end == ' ')
			end++;
	}
}

static int
host_http_download(struct gp_plugin_ctx *ctx, const char *url, int32_t fd,
    uint32_t timeout_ms, void (*done)(void *, int32_t, int32_t,
    const char *), void *arg)
{
	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	if (host_http_download_impl != NULL)
		return (host_http_download_impl(ctx, url, fd, timeout_ms, done,
		    arg));
	log_msg(LOG_LEVEL_WARN, ctx->name, "http_download is not available "
	    "in this build (no HTTP client wired in)");
	return (-ENOSYS);
}

/*
 * A process's cmdline or environ refused (core/base/procstr.c): a plugin
 * takes it for any file it could not open, so the host says why, naming
 * the process, once a burst.
 */
static int64_t
host_file_refused(struct gp_plugin_ctx *ctx, int64_t rc)
{
	static struct complain strings;
	int pid;

	if (rc == -EREMOTE && (pid = procstr_refused()) != 0)
		log_complain(&strings, LOG_LEVEL_WARN, ctx->name, "pid %d: "
		    "its arguments or environment lie in a page mapped from "
		    "a file (one on FUSE would hold the reader): its cmdline "
		    "and environ not read", pid);
	return (rc);
}

/* Untrusted files: core/base/safeopen.c, the same rules as the core's. */
static int32_t
host_file_open(struct gp_plugin_ctx *ctx, const struct gp_open_spec *spec,
    struct gp_file_info *info)
{
	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	return ((int32_t)host_file_refused(ctx, safeopen_open(spec, info)));
}

static int64_t
host_file_read(struct gp_plugin_ctx *ctx, const struct gp_open_spec *spec,
    void *buf, uint64_t bufsz)
{
	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	if (buf == NULL || bufsz > SSIZE_MAX)
		return (-EINVAL);
	return (host_file_refused(ctx, safeopen_read(spec, buf,
	    (size_t)bufsz)));
}

/* Every maps read under one budget: core/base/mapsread.c. */
static int32_t
host_maps_read(struct gp_plugin_ctx *ctx, int32_t pid, uint64_t max,
    char **text, uint64_t *len)
{
	size_t n = 0;
	int rc;

	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	*text = NULL;
	*len = 0;
	if (pid <= 0 || max == 0 || max > SSIZE_MAX / 2)
		return (-EINVAL);
	rc = mapsread(pid, (size_t)max, text, &n);
	*len = n;
	return (rc);
}

void
host_ctx_check(struct gp_plugin_ctx *ctx)
{
	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
}

static const struct gp_host_api host_api_table = {
	.size = sizeof(struct gp_host_api),
	.abi_major = GP_ABI_MAJOR,
	.abi_minor = GP_ABI_MINOR,
	.log = host_log,
	.option_get = host_option_get,
	.option_get_int = host_option_get_int,
	.option_get_bool = host_option_get_bool,
	.timer_add = host_timer_add,
	.timer_del = host_timer_del,
	.fd_watch = host_fd_watch,
	.fd_unwatch = host_fd_unwatch,
	.child_spawn = host_child_spawn,
	.child_stop = host_child_stop,
	.child_pid = host_child_pid,
	.child_stderr_tail = host_child_stderr_tail,
	.snapshot_add_stack = host_snapshot_add_stack,
	.snapshot_pid_error = host_snapshot_pid_error,
	.snapshot_set_appid = host_snapshot_set_appid,
	.snapshot_set_app_metadata = host_snapshot_set_app_metadata,
	.snapshot_done = host_snapshot_done,
	.stop_done = host_stop_done,
	.json_new = host_json_new,
	.json_free = host_json_free,
	.json_set_string = host_json_set_string,
	.json_set_int = host_json_set_int,
	.json_set_double = host_json_set_double,
	.json_set_bool = host_json_set_bool,
	.json_set_null = host_json_set_null,
	.json_set_object = host_json_set_object,
	.json_set_raw = host_json_set_raw,
	.pid_wanted = host_pid_wanted,
	.http_download = host_http_download,
	.file_open = host_file_open,
	.file_read = host_file_read,
	.sample_watch = host_sample_watch,
	.sample_subscribe = host_sample_subscribe,
	.sample_source = host_sample_source,
	.sample_report = host_sample_report,
	.sample_report_stack = host_sample_report_stack,
	.sample_subscribe_stack = host_sample_subscribe_stack,
	.process_source = host_process_source,
	.process_report = host_process_report,
	.process_subscribe = host_process_subscribe,
	.sample_walk = host_sample_walk,
	.sample_walk_thread = host_sample_walk_thread,
	.sample_walker = host_sample_walker,
	.maps_read = host_maps_read,
};

const struct gp_host_api *
host_api(void)
{
	return (&host_api_table);
}

void
host_set_http_download(int (*fn)(struct gp_plugin_ctx *, const char *,
    int32_t, uint32_t, void (*)(void *, int32_t, int32_t, const char *),
    void *))
{
	host_http_download_impl = fn;
}

struct gp_plugin_ctx *
host_ctx_new(struct plugin *p, struct event_base *base)
{
	struct gp_plugin_ctx *ctx;

	ctx = xcalloc(1, sizeof(*ctx));
	ctx->magic = PLUGIN_CTX_MAGIC;
	ctx->plugin = p;
	ctx->name = p != NULL && p->manifest.name != NULL ?
	    p->manifest.name : "plugin";
	ctx->base = base;
	LIST_INIT(&ctx->timers);
	LIST_INIT(&ctx->watches);
	return (ctx);
}

/* Frees what the plugin left behind too: timers, watches, children. */
void
host_ctx_free(struct gp_plugin_ctx *ctx)
{
	if (ctx == NULL)
		return;
	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	while (!LIST_EMPTY(&ctx->timers))
		host_timer_del(LIST_FIRST(&ctx->timers));
	while (!LIST_EMPTY(&ctx->watches))
		host_fd_unwatch(LIST_FIRST(&ctx->watches));
	child_abandon_owner(ctx);
	http_download_cancel(ctx);
	host_sample_forget(ctx);
	free(ctx->pids_text);
	free(ctx->pids);
	ctx->magic = 0;
	free(ctx);
}

void
host_ctx_set_config(struct gp_plugin_ctx *ctx, const struct config *cfg)
{
	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	ctx->cfg = cfg;
}

/* Arm the callback stop_done will call (once). */
void
host_ctx_on_stop(struct gp_plugin_ctx *ctx, void (*cb)(void *), void *arg)
{
	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	ctx->stop_cb = cb;
	ctx->stop_arg = arg;
}

const char *
host_ctx_name(const struct gp_plugin_ctx *ctx)
{
	CHECK_OBJ(ctx, PLUGIN_CTX_MAGIC);
	return (ctx->name);
}
