/*
 * A minimal plugin host for the perf plugin's integration tests and the
 * benchmark, used until (and besides) the daemon: dlopen()s perf.so,
 * implements the host API parts perf uses (log, options, timers, one fd
 * watch, stack sink, JSON metadata as "# key=value" lines, pid_wanted), runs N cycles
 * of D seconds and prints each cycle's stacks folded, like a .col body:
 *
 *	comm;frame;...;frame count
 *
 * usage: test_perf_host PLUGIN.so [-d sec] [-n cycles] [-o opt=value]...
 * Options given with -o are what option_get returns (profiling-frequency,
 * perf-mode, pids, ...).  Not a TAP test itself.
 */
#include <sys/resource.h>

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "base/safeopen.h"

#define HOST_MAX_OPTS	32
#define HOST_MAX_TIMERS	8

struct gp_timer {
	int used;
	uint64_t msec;
	int32_t persist;
	double due;
	void (*cb)(void *);
	void *arg;
};

static struct {
	const char *k, *v;
} opts[HOST_MAX_OPTS];
static int nopts;
static struct gp_timer timers[HOST_MAX_TIMERS];
static struct gp_watch {
	int fd;	/* -1: none */
	void (*cb)(int32_t, uint32_t, void *);
	void *arg;
} watch = { -1, NULL, NULL };
static int snap_done, stop_done_called, snap_status;
/* The longest plugin callback, as the benchmarks report it. */
static double cb_max, cb_max_cpu;
/* The same per kind: snapshot, timer, short timer, ring buffer watch. */
static const char *cb_kinds[] = { "snapshot", "timer", "short timer",
    "ring buffer watch" };
static double cb_kind_cpu[4];
static const char *cb_max_what = "none", *cb_max_cpu_what = "none";
static double cb_t0, cb_c0;

static double now(void);

/* CPU time of this thread: what a callback did, without the time other
 * processes of a loaded host took the CPU away from it. */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (ts.tv_sec + ts.tv_nsec / 1e9);
}

static void
cb_begin(void)
{
	cb_t0 = now();
	cb_c0 = cpu_now();
}

static void
cb_end(const char *what)
{
	double d = now() - cb_t0, c = cpu_now() - cb_c0;

	if (d > cb_max) {
		cb_max = d;
		cb_max_what = what;
	}
	if (c > cb_max_cpu) {
		cb_max_cpu = c;
		cb_max_cpu_what = what;
	}
	for (size_t k = 0; k < 4; k++)
		if (strcmp(what, cb_kinds[k]) == 0 && c > cb_kind_cpu[k])
			cb_kind_cpu[k] = c;
}
static uint64_t nstacks;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec + ts.tv_nsec / 1e9);
}

static void
h_log(struct gp_plugin_ctx *ctx, int level, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s perf: ", level == 0 ? "ERR" : level == 1 ? "WARN" :
	    level == 2 ? "INFO" : "DEBUG");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *
h_option_get(struct gp_plugin_ctx *ctx, const char *name)
{
	int i;

	for (i = 0; i < nopts; i++)
		if (strcmp(opts[i].k, name) == 0)
			return (opts[i].v);
	return (NULL);
}

static int64_t
h_option_get_int(struct gp_plugin_ctx *ctx, const char *name, int64_t dflt)
{
	const char *v = h_option_get(ctx, name);

	return (v != NULL ? strtoll(v, NULL, 10) : dflt);
}

static int32_t
h_option_get_bool(struct gp_plugin_ctx *ctx, const char *name)
{
	const char *v = h_option_get(ctx, name);

	return (v != NULL && strcmp(v, "true") == 0);
}

static struct gp_timer *
h_timer_add(struct gp_plugin_ctx *ctx, uint64_t msec, int32_t persist,
    void (*cb)(void *), void *arg)
{
	int i;

	for (i = 0; i < HOST_MAX_TIMERS; i++) {
		if (!timers[i].used) {
			timers[i] = (struct gp_timer){ 1, msec, persist,
			    now() + msec / 1000.0, cb, arg };
			return (&timers[i]);
		}
	}
	return (NULL);
}

static void
h_timer_del(struct gp_timer *t)
{
	if (t != NULL)
		t->used = 0;
}

static struct gp_watch *
h_fd_watch(struct gp_plugin_ctx *ctx, int32_t fd, uint32_t events,
    void (*cb)(int32_t, uint32_t, void *), void *arg)
{
	if (watch.fd >= 0 || events != GP_EV_READ)
		return (NULL);
	watch = (struct gp_watch){ fd, cb, arg };
	return (&watch);
}

static void
h_fd_unwatch(struct gp_watch *w)
{
	if (w != NULL)
		w->fd = -1;
}

/* Frames of one stack, folded; the host would add index/container. */
static int
h_add_stack(struct gp_snapshot *snap, int32_t pid, const char *comm,
    const char *const *frames, uint32_t n, uint64_t count)
{
	uint32_t i;

	printf("%s", comm);
	for (i = 0; i < n; i++)
		printf(";%s", frames[i]);
	printf(" %llu\n", (unsigned long long)count);
	nstacks++;
	return (0);
}

static void
h_snapshot_done(struct gp_snapshot *snap, int32_t status, const char *err)
{
	snap_done = 1;
	snap_status = status;
	if (status != 0)
		fprintf(stderr, "snapshot failed: %s\n", err ? err : "?");
}

static void
h_stop_done(struct gp_plugin_ctx *ctx)
{
	stop_done_called = 1;
}

static struct gp_json *
h_json_new(void)
{
	return ((struct gp_json *)(uintptr_t)1);
}

static void
h_json_free(struct gp_json *j)
{
}

static int
h_json_set_string(struct gp_json *j, const char *k, const char *v)
{
	printf("# %s=%s\n", k, v);
	return (0);
}

static int
h_json_set_int(struct gp_json *j, const char *k, int64_t v)
{
	printf("# %s=%lld\n", k, (long long)v);
	return (0);
}

static int
h_json_set_double(struct gp_json *j, const char *k, double v)
{
	printf("# %s=%g\n", k, v);
	return (0);
}

static int
h_json_set_bool(struct gp_json *j, const char *k, int32_t v)
{
	printf("# %s=%s\n", k, v ? "true" : "false");
	return (0);
}

static int
h_json_set_null(struct gp_json *j, const char *k)
{
	printf("# %s=null\n", k);
	return (0);
}

/* The keys were printed as they were set; say whose they were. */
static int
h_set_app_metadata(struct gp_snapshot *snap, int32_t pid, struct gp_json *md)
{
	printf("# app_metadata_pid=%d\n", (int)pid);
	return (0);
}

/* Like the daemon: not ourselves; with pids, only those. */
static int32_t
h_pid_wanted(struct gp_plugin_ctx *ctx, int32_t pid)
{
	const char *pids = h_option_get(ctx, "pids"), *s;
	long v;
	char *end;

	if (pid == getpid())
		return (0);
	if (pids == NULL)
		return (1);
	for (s = pids; *s != '\0'; s = *end ? end + 1 : end) {
		v = strtol(s, &end, 10);
		if (v == pid)
			return (1);
		if (end == s)
			break;
	}
	return (0);
}

/* The daemon's own safe open (core/base/safeopen.c), as the daemon offers it. */
static int32_t
h_file_open(struct gp_plugin_ctx *ctx, const struct gp_open_spec *spec,
    struct gp_file_info *info)
{
	return (safeopen_open(spec, info));
}

static int64_t
h_file_read(struct gp_plugin_ctx *ctx, const struct gp_open_spec *spec,
    void *buf, uint64_t bufsz)
{
	return (safeopen_read(spec, buf, (size_t)bufsz));
}

static const struct gp_host_api host = {
	.size = sizeof(struct gp_host_api),
	.abi_major = GP_ABI_MAJOR,
	.abi_minor = GP_ABI_MINOR,
	.log = h_log,
	.option_get = h_option_get,
	.option_get_int = h_option_get_int,
	.option_get_bool = h_option_get_bool,
	.timer_add = h_timer_add,
	.timer_del = h_timer_del,
	.fd_watch = h_fd_watch,
	.fd_unwatch = h_fd_unwatch,
	.snapshot_add_stack = h_add_stack,
	.snapshot_set_app_metadata = h_set_app_metadata,
	.snapshot_done = h_snapshot_done,
	.stop_done = h_stop_done,
	.json_new = h_json_new,
	.json_free = h_json_free,
	.json_set_string = h_json_set_string,
	.json_set_int = h_json_set_int,
	.json_set_double = h_json_set_double,
	.json_set_bool = h_json_set_bool,
	.json_set_null = h_json_set_null,
	.pid_wanted = h_pid_wanted,
	.file_open = h_file_open,
	.file_read = h_file_read,
};

/* Run timers and the watch until `until`. */
static void
run_until(double until)
{
	struct pollfd pfd;
	double t, next;
	int i;

	while ((t = now()) < until) {
		next = until;
		for (i = 0; i < HOST_MAX_TIMERS; i++) {
			if (!timers[i].used)
				continue;
			if (timers[i].due <= t) {
				if (timers[i].persist)
					timers[i].due = t +
					    timers[i].msec / 1000.0;
				else
					timers[i].used = 0;
				cb_begin();
				timers[i].cb(timers[i].arg);
				cb_end(timers[i].msec < 1000 ? "short timer" :
				    "timer");
			}
			if (timers[i].used && timers[i].due < next)
				next = timers[i].due;
		}
		t = next - now();
		if (t <= 0)
			continue;
		pfd.fd = watch.fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, (int)(t * 1000) + 1) > 0 && watch.fd >= 0 &&
		    (pfd.revents & POLLIN)) {
			cb_begin();
			watch.cb(watch.fd, GP_EV_READ, watch.arg);
			cb_end("ring buffer watch");
		}
	}
}

int
main(int argc, char **argv)
{
	const struct gp_plugin *pl;
	struct rusage ru;
	void *dl, *priv = NULL;
	double secs = 5;
	int c, cycles = 1, i, rc;
	char err[512] = "", *eq;

	while ((c = getopt(argc, argv, "d:n:o:")) != -1) {
		switch (c) {
		case 'd':
			secs = atof(optarg);
			break;
		case 'n':
			cycles = atoi(optarg);
			break;
		case 'o':
			if ((eq = strchr(optarg, '=')) == NULL ||
			    nopts == HOST_MAX_OPTS)
				return (2);
			*eq = '\0';
			opts[nopts].k = optarg;
			opts[nopts++].v = eq + 1;
			break;
		default:
			return (2);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: test_perf_host PLUGIN.so [-d sec] "
		    "[-n cycles] [-o key=value]...\n");
		return (2);
	}
	if ((dl = dlopen(argv[optind], RTLD_NOW | RTLD_LOCAL)) == NULL ||
	    (pl = dlsym(dl, GP_PLUGIN_SYMBOL)) == NULL) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return (1);
	}
	if (pl->magic != GP_PLUGIN_MAGIC || pl->abi_major != GP_ABI_MAJOR)
		return (1);
	if ((rc = pl->init(NULL, &host, &priv)) != 0) {
		fprintf(stderr, "init: %s\n", strerror(-rc));
		return (1);
	}
	if (pl->check != NULL && pl->check(priv, err, sizeof(err)) != 0) {
		fprintf(stderr, "check: %s\n", err);
		pl->destroy(priv);
		return (2);
	}
	if ((rc = pl->start(priv)) != 0) {
		fprintf(stderr, "start: %s\n", strerror(-rc));
		pl->destroy(priv);
		return (3);
	}
	for (i = 0; i < cycles; i++) {
		run_until(now() + secs);
		printf("# cycle %d\n", i);
		snap_done = 0;
		cb_begin();
		pl->snapshot(priv, (struct gp_snapshot *)(uintptr_t)(i + 1));
		cb_end("snapshot");
		fprintf(stderr, "host: cycle %d: snapshot callback %.2f ms "
		    "(%.2f ms CPU)\n", i, (now() - cb_t0) * 1000,
		    (cpu_now() - cb_c0) * 1000);
		while (!snap_done)
			run_until(now() + 0.05);
		if (pl->metadata != NULL)
			pl->metadata(priv, h_json_new(), h_json_new());
		fflush(stdout);
	}
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "host: longest callback %.2f ms (%s), %.2f ms of CPU "
	    "(%s); CPU user %.2f s, system %.2f s\n", cb_max * 1000,
	    cb_max_what, cb_max_cpu * 1000, cb_max_cpu_what,
	    ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	    ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	for (i = 0; i < 4; i++)
		fprintf(stderr, "host: longest %s: %.2f ms of CPU\n",
		    cb_kinds[i], cb_kind_cpu[i] * 1000);
	pl->stop(priv);
	pl->destroy(priv);
	dlclose(dl);
	return (snap_status != 0 || !stop_done_called ? 1 : 0);
}
