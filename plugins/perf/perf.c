/*
 * The perf plugin: gProfiler's system profiler for cpu mode, sampling every
 * CPU with a BPF program instead of running perf(1).  This file is the
 * glue: descriptor, options, the run's life cycle, the drain timer and the
 * profile metadata.  Sampling is in sampler.c, aggregation in collect.c,
 * the snapshot in perf_cycle.c, output in emit.c, symbols in symbolize.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <gprofiler/plugin.h>

#include "cgroups.h"
#include "clockns.h"
#include "perf_int.h"
#include "pidtab.h"
#include "sampler/perfevent.h"
#include "stackagg.h"
#include "sym/symbolize.h"
#include "unwind.h"

/* docs/specs/gprofiler-compat.md §1.4 #4 */
#define PERF_MAX_FREQ_DWARF	100

static const struct gp_option perf_options[] = {
	{
		.name = "perf-mode",
		.type = GP_OPT_ENUM,
		.defval = "fp",
		.choices = "fp|dwarf|smart|disabled|none",
		.help = "native user stacks from frame pointers (fp), DWARF "
		    "CFI (dwarf), per process the deeper of both (smart), or "
		    "no perf profiler (disabled; none is a synonym)",
	},
	{
		.name = "perf-backend",
		.type = GP_OPT_ENUM,
		.defval = "auto",
		.choices = "auto|bpf|bpf-compat|bpf-legacy|perf-events",
		.help = "how samples are taken: a BPF program (bpf, Linux "
		    "5.15+), the same without the task's BTF helpers "
		    "(bpf-compat, 5.8+; DWARF stacks only for samples taken "
		    "in user mode), the same through perf events' rings "
		    "without global data or loops (bpf-legacy, 4.18+; no "
		    "interpreter frame walk), perf events' own ring buffers "
		    "as perf record does, for kernels or hosts where BPF "
		    "cannot load (perf-events), or the first of these that "
		    "works (auto)",
	},
	{
		.name = "perf-dwarf-stack-size",
		.type = GP_OPT_INT,
		.defval = "8192",
		.min = 8,
		.max = SAMPLE_MAX_STACK,
		.help = "bytes of user stack copied per sample for DWARF "
		    "unwinding (a multiple of 8)",
	},
	{
		.name = "perf-event",
		.type = GP_OPT_STRING,
		.help = "sample on this perf event instead of cpu-clock, as "
		    "perf record -e: cycles, instructions, cache-misses, "
		    "page-faults, context-switches, L1-dcache-load-misses, "
		    "r1a8, sched:sched_switch, ... (stacks from frame "
		    "pointers, as in gProfiler)",
	},
	{
		.name = "hw-events-file",
		.type = GP_OPT_PATH,
		.help = "gProfiler's custom PMU event definitions (JSON: "
		    "event -> platform -> {\"raw\": code}): a --perf-event "
		    "name perf does not know is looked up there for this "
		    "host's CPU model or PMU",
	},
	{
		.name = "perf-event-period",
		.type = GP_OPT_INT,
		.min = 1,
		.max = 0x7fffffffffffffffLL,
		.help = "one sample every N events (perf record -c N) instead "
		    "of --profiling-frequency samples a second; at most 1000 "
		    "samples a second per CPU are taken whatever N (clock and "
		    "cycle events refuse N under 1000000)",
	},
	{
		.name = "perf-use-cgroups",
		.type = GP_OPT_BOOL,
		.defval = "false",
		.help = "sample only the processes of the cgroups (v2) that "
		    "used the most CPU, re-chosen at each cycle (perf -G in "
		    "gProfiler)",
	},
	{
		.name = "perf-max-cgroups",
		.type = GP_OPT_INT,
		.defval = "50",
		.min = 0,
		.max = 0x7fffffffffffffffLL,
		.help = "with --perf-use-cgroups: how many cgroups at most",
	},
	{
		.name = "perf-max-docker-containers",
		.type = GP_OPT_INT,
		.defval = "0",
		.min = 0,
		.max = 0x7fffffffffffffffLL,
		.help = "with --perf-use-cgroups: the N busiest docker "
		    "containers, each as its own cgroup, then other cgroups "
		    "up to --perf-max-cgroups (0: containers are cgroups like "
		    "any other)",
	},
};

/* Tracefs, where the kernel numbers its tracepoints. */
static const char *const perf_tracefs[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

static int
perf_mode_parse(const char *s)
{
	if (s == NULL || strcmp(s, "fp") == 0)
		return (PERF_MODE_FP);
	if (strcmp(s, "dwarf") == 0)
		return (PERF_MODE_DWARF);
	if (strcmp(s, "smart") == 0)
		return (PERF_MODE_SMART);
	if (strcmp(s, "disabled") == 0 || strcmp(s, "none") == 0)
		return (PERF_MODE_DISABLED);
	return (-EINVAL);
}

static const char *
perf_mode_name(int mode)
{
	static const char *names[] = { "disabled", "fp", "dwarf", "smart" };

	return (mode >= 0 && mode <= PERF_MODE_SMART ? names[mode] : "?");
}

uint64_t
perf_now_ns(void)
{
	return (clock_ns(CLOCK_MONOTONIC));
}

void
perf_complain(struct perf *p, const char *fmt, ...)
{
	char buf[512], more[80];
	va_list ap;
	struct timespec ts;
	unsigned held;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	if (!ratelim_admit(&p->complain_limit, (uint64_t)ts.tv_sec * 1000 +
	    (uint64_t)ts.tv_nsec / 1000000, &held))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	more[0] = '\0';
	if (held > 0)
		snprintf(more, sizeof(more), "; %u held back before it", held);
	p->api->log(p->ctx, GP_LOG_WARN, "%s (further such warnings "
	    "suppressed for a minute%s)", buf, more);
}

static void
perf_sym_log(void *arg, int level, const char *msg)
{
	struct perf *p = arg;

	p->api->log(p->ctx, level, "%s", msg);
}

/* The exec generation pid is in now, for the symbolizer. */
static int
perf_cur_gen(void *arg, int32_t pid, uint32_t *gen)
{
	struct perf *p = arg;

	(void)sampler_exec_gen(p->sampler, pid, gen);
	return (0);
}

/* A process profiler watches pid (host API sample_watch). */
static void
perf_watch(void *arg, int32_t pid, int32_t on)
{
	struct perf *p = arg;
	int rc;

	if (p->sampler != NULL && (rc = sampler_watch(p->sampler, pid,
	    on)) != 0)
		perf_complain(p, "cannot %swatch pid %d for its process "
		    "profiler: %s", on ? "" : "un", (int)pid, strerror(-rc));
}

/* The symbolizer's kernel names, by the sampler's in-kernel lookup. */
static int
perf_ksym_resolve(void *arg, const uint64_t *addrs, size_t n, char *names,
    size_t name_len)
{
	struct perf *p = arg;

	return (sampler_ksym_resolve(p->sampler, addrs, n, names, name_len));
}

/* The symbolizer's files, through the host's safe open. */
static int
perf_file_open(void *arg, const struct gp_open_spec *spec,
    struct gp_file_info *info)
{
	struct perf *p = arg;

	return (p->api->file_open(p->ctx, spec, info));
}

/* Processes' maps, under the host's budget (1.8). */
static int
perf_maps_read(void *arg, int32_t pid, size_t max, char **text, size_t *len)
{
	struct perf *p = arg;
	uint64_t n = 0;
	int rc;

	rc = p->api->maps_read(p->ctx, pid, max, text, &n);
	*len = (size_t)n;
	return (rc);
}

static int
perf_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	struct perf *p;

	if (!GP_API_HAS(api, file_open))
		return (-ENOTSUP);	/* never an unsafe open instead */
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (-ENOMEM);
	p->magic = PERF_MAGIC;
	p->ctx = ctx;
	p->api = api;
	p->complain_limit = (struct ratelim)RATELIM_INIT(1, 60000);
	*privp = p;
	return (0);
}

/*
 * Does the event count about a billion a second per CPU (nanoseconds,
 * cycles, instructions)?  The default event is cycles or cpu-clock.
 */
static int
perf_event_clocklike(const struct perfevent *ev)
{
	if (ev == NULL)
		return (1);
	if (ev->type == PERF_TYPE_SOFTWARE)
		return (ev->config == PERF_COUNT_SW_CPU_CLOCK ||
		    ev->config == PERF_COUNT_SW_TASK_CLOCK);
	if (ev->type == PERF_TYPE_HARDWARE)
		return (ev->config == PERF_COUNT_HW_CPU_CYCLES ||
		    ev->config == PERF_COUNT_HW_INSTRUCTIONS ||
		    ev->config == PERF_COUNT_HW_REF_CPU_CYCLES);
	return (0);
}

static int
perf_check(void *priv, char *err, uint32_t errlen)
{
	struct perf *p = priv;
	int mode = perf_mode_parse(p->api->option_get(p->ctx, "perf-mode"));
	int64_t freq, dsz, period;
	const char *pids, *ev;
	struct perfevent pe;
	char from[PERFEVENT_NAME_LEN + 512];
	int32_t *list;
	uint32_t n;

	if (mode < 0) {
		snprintf(err, errlen, "--perf-mode: expected one of fp, dwarf, "
		    "smart, disabled");
		return (-EINVAL);
	}
#if !defined(__x86_64__) && !defined(__aarch64__)
	/* The sampler copies x86_64's and arm64's user registers for libdw
	 * (sampler.h): elsewhere DWARF unwinding would unwind garbage. */
	if (mode == PERF_MODE_DWARF || mode == PERF_MODE_SMART) {
		snprintf(err, errlen, "--perf-mode %s: DWARF unwinding is not "
		    "supported on this architecture yet (x86_64 and arm64 "
		    "only); use --perf-mode fp", perf_mode_name(mode));
		return (-EINVAL);
	}
#endif
	freq = p->api->option_get_int(p->ctx, "profiling-frequency",
	    GP_DEFAULT_FREQUENCY);
	dsz = p->api->option_get_int(p->ctx, "perf-dwarf-stack-size", 8192);
	if ((mode == PERF_MODE_DWARF || mode == PERF_MODE_SMART) &&
	    freq > PERF_MAX_FREQ_DWARF) {
		snprintf(err, errlen, "--profiling-frequency %lld is above %d, "
		    "the limit with --perf-mode %s: lower -f or use "
		    "--perf-mode fp", (long long)freq, PERF_MAX_FREQ_DWARF,
		    perf_mode_name(mode));
		return (-EINVAL);
	}
	if (dsz < 8 || dsz > SAMPLE_MAX_STACK || dsz % 8 != 0) {
		snprintf(err, errlen, "--perf-dwarf-stack-size %lld: must be a "
		    "multiple of 8 between 8 and %d", (long long)dsz,
		    SAMPLE_MAX_STACK);
		return (-EINVAL);
	}
	ev = p->api->option_get(p->ctx, "perf-event");
	if (ev != NULL && ev[0] != '\0' && perf_event_resolve(p, ev, &pe,
	    from, sizeof(from), err, errlen) != 0)
		return (-EINVAL);
	period = p->api->option_get_int(p->ctx, "perf-event-period", 0);
	if (period > 0 && period < PERF_PERIOD_MIN_CLOCK &&
	    perf_event_clocklike(ev != NULL && ev[0] != '\0' ? &pe : NULL)) {
		snprintf(err, errlen, "--perf-event-period %lld: %s counts "
		    "about a billion a second per CPU, so a period under %d "
		    "asks for more than %d samples a second per CPU (the "
		    "limit, -f %d's worth): use %d or more, or -f",
		    (long long)period, ev != NULL && ev[0] != '\0' ? pe.name :
		    "the default event (cycles or cpu-clock)",
		    PERF_PERIOD_MIN_CLOCK, PERF_PERIOD_MAX_RATE,
		    PERF_PERIOD_MAX_RATE, PERF_PERIOD_MIN_CLOCK);
		return (-EINVAL);
	}
	pids = p->api->option_get(p->ctx, "pids");
	if (pids != NULL && pids[0] != '\0') {
		if (pidlist_parse(pids, &list, &n) != 0) {
			snprintf(err, errlen, "--pids '%s': expected "
			    "comma-separated process ids", pids);
			return (-EINVAL);
		}
		free(list);
	}
	return (0);
}

static void
perf_drain_cb(void *arg)
{
	struct perf *p = arg;
	int rc;

	if (p->sampler == NULL)
		return;
	/* A sample in anonymous memory starts reading its perf map: within
	 * this turn's budget, like any other turn (without one, the first
	 * drain read and sorted a whole 64 MiB map in one callback). */
	symbolizer_turn(p->sym, PERF_JIT_TURN_BYTES);
	perf_maps_drain(p);
	perf_collect_slice(p);
	/* -EAGAIN: the slice ran out; the ring stays readable, so the loop
	 * comes back after its other events. */
	if ((rc = sampler_drain(p->sampler)) < 0 && rc != -EAGAIN)
		perf_complain(p, "draining the sample ring buffer: %s",
		    strerror(-rc));
	/* Perf maps the samples started reading: the rest in slices during
	 * the cycle, so their names are there at the snapshot. */
	if (p->work_timer == NULL && symbolizer_work_pending(p->sym))
		p->work_timer = p->api->timer_add(p->ctx, PERF_JIT_WORK_MS, 1,
		    perf_work_cb, p);
}

static void
perf_wakeup_cb(int32_t fd, uint32_t events, void *arg)
{
	perf_drain_cb(arg);
}

/* Free what a run allocated; safe on a partly started run. */
static void
perf_teardown(struct perf *p)
{
	if (p->reports)
		(void)p->api->sample_source(p->ctx, NULL, NULL);
	p->reports = 0;
	if (p->proc_reports)
		(void)p->api->process_source(p->ctx, 0);
	p->proc_reports = 0;
	perf_walker_stop(p);
	p->api->timer_del(p->drain_timer);
	p->drain_timer = NULL;
	p->api->timer_del(p->work_timer);
	p->work_timer = NULL;
	p->snap_wait = NULL;
	if (p->wakeup != NULL)
		p->api->fd_unwatch(p->wakeup);
	p->wakeup = NULL;
	perf_maps_stop(p);
	sampler_close(p->sampler);
	p->sampler = NULL;
	unwinder_free(p->uw);
	p->uw = NULL;
	stackagg_free(p->fp);
	stackagg_free(p->dw);
	p->fp = p->dw = NULL;
	pidtab_free(p->seen);
	p->seen = NULL;
	symbolizer_free(p->sym);
	p->sym = NULL;
	free(p->pids);
	p->pids = NULL;
	p->npids = 0;
	cgwalk_free(p->cgw);
	p->cgw = NULL;
	free(p->cg_ids);
	p->cg_ids = NULL;
}

/*
 * The tracepoint's id from tracefs into ev->config; -errno with the
 * reason in err.
 */
static int
perf_tracepoint_id(struct perfevent *ev, char *err, size_t errlen)
{
	char path[512], buf[32];
	ssize_t n;
	size_t i;
	int fd, rc = -ENOENT, mounted = 0;

	for (i = 0; i < sizeof(perf_tracefs) / sizeof(perf_tracefs[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", perf_tracefs[i]);
		if (access(path, F_OK) == 0)
			mounted = 1;
		snprintf(path, sizeof(path), "%s/events/%s/%s/id",
		    perf_tracefs[i], ev->tp_sys, ev->tp_name);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0) {
			rc = -errno;
			continue;
		}
		n = read(fd, buf, sizeof(buf));
		rc = n < 0 ? -errno : 0;
		close(fd);
		if (rc == 0 && perfevent_tp_id(buf, (size_t)n,
		    &ev->config) != 0) {
			snprintf(err, errlen, "--perf-event %s: %s/events/%s/%s/"
			    "id: not a tracepoint id", ev->name,
			    perf_tracefs[i], ev->tp_sys, ev->tp_name);
			return (-EINVAL);
		}
		if (rc == 0)
			return (0);
	}
	if (!mounted)
		snprintf(err, errlen, "--perf-event %s: tracefs is not mounted, "
		    "so tracepoints cannot be named: mount -t tracefs nodev "
		    "/sys/kernel/tracing", ev->name);
	else
		snprintf(err, errlen, "--perf-event %s: no such tracepoint "
		    "(/sys/kernel/tracing/events/%s/%s/id: %s); `perf list "
		    "tracepoint` shows those of this kernel", ev->name,
		    ev->tp_sys, ev->tp_name, strerror(-rc));
	return (rc);
}

static int
perf_read_options(struct perf *p)
{
	const char *pids, *ev;
	char err[512], from[PERFEVENT_NAME_LEN + 512];

	p->mode = perf_mode_parse(p->api->option_get(p->ctx, "perf-mode"));
	p->freq = p->api->option_get_int(p->ctx, "profiling-frequency",
	    GP_DEFAULT_FREQUENCY);
	p->dwarf_size = (uint32_t)p->api->option_get_int(p->ctx,
	    "perf-dwarf-stack-size", 8192);
	p->backend = sampler_backend_parse(p->api->option_get(p->ctx,
	    "perf-backend"));
	if (p->mode < 0 || p->freq <= 0 || p->backend == -EINVAL)
		return (-EINVAL);
	p->period = p->api->option_get_int(p->ctx, "perf-event-period", 0);
	if (p->period < 0)
		return (-EINVAL);
	ev = p->api->option_get(p->ctx, "perf-event");
	p->have_ev = ev != NULL && ev[0] != '\0';
	if (p->have_ev && perf_event_resolve(p, ev, &p->ev, from,
	    sizeof(from), err, sizeof(err)) != 0) {
		p->api->log(p->ctx, GP_LOG_ERR, "%s", err);
		return (-EINVAL);
	}
	if (p->have_ev && from[0] != '\0')
		p->api->log(p->ctx, GP_LOG_INFO, "--perf-event %s: %s, a "
		    "custom event (%s)", p->ev.name, from,
		    perfevent_kind(&p->ev));
	if (p->have_ev && p->ev.type == PERF_TYPE_TRACEPOINT &&
	    perf_tracepoint_id(&p->ev, err, sizeof(err)) != 0) {
		p->api->log(p->ctx, GP_LOG_ERR, "%s", err);
		return (-ENOENT);
	}
	/* The tracepoint's program runs at every hit: there is no kernel
	 * frequency to ask for, so a period (1 unless given). */
	if (p->have_ev && p->ev.type == PERF_TYPE_TRACEPOINT &&
	    p->period == 0) {
		p->api->log(p->ctx, GP_LOG_INFO, "--perf-event %s: a "
		    "tracepoint is sampled at every hit, not at -f "
		    "(--perf-event-period N: every Nth)", p->ev.name);
		p->period = 1;
	}
	/* gProfiler runs a custom event's perf in fp mode only. */
	if (p->have_ev && (p->mode == PERF_MODE_DWARF ||
	    p->mode == PERF_MODE_SMART)) {
		p->api->log(p->ctx, GP_LOG_INFO, "--perf-event %s: stacks "
		    "from frame pointers (--perf-mode %s is not used with a "
		    "custom event, as in gProfiler)", p->ev.name,
		    perf_mode_name(p->mode));
		p->mode = PERF_MODE_FP;
	}
	pids = p->api->option_get(p->ctx, "pids");
	if (pids != NULL && pids[0] != '\0' &&
	    pidlist_parse(pids, &p->pids, &p->npids) != 0)
		return (-EINVAL);
	p->use_cgroups = p->api->option_get_bool(p->ctx,
	    "perf-use-cgroups") == 1;
	p->max_cgroups = p->api->option_get_int(p->ctx, "perf-max-cgroups",
	    50);
	p->max_docker = p->api->option_get_int(p->ctx,
	    "perf-max-docker-containers", 0);
	if (p->max_cgroups < 0 || p->max_docker < 0)
		return (-EINVAL);
	return (0);
}

static int
perf_start(void *priv)
{
	struct perf *p = priv;
	struct sampler_opts o;
	char err[512], rate[128];
	int rc, cg;

	memset(&p->cur, 0, sizeof(p->cur));
	memset(&p->last, 0, sizeof(p->last));
	memset(p->stat_prev, 0, sizeof(p->stat_prev));
	p->logged_prev = 0;
	if ((rc = perf_read_options(p)) != 0) {
		if (rc == -EINVAL)
			p->api->log(p->ctx, GP_LOG_ERR, "invalid perf options");
		perf_teardown(p);
		return (rc);
	}
	if (p->mode == PERF_MODE_DISABLED)
		return (0);
	if ((cg = perf_cgroups_init(p)) < 0) {
		p->mode = PERF_MODE_DISABLED;
		return (0);
	}
	p->sym = symbolizer_new(perf_sym_log, p);
	if (p->sym != NULL)
		symbolizer_set_insert_dso(p->sym, p->api->option_get_bool(
		    p->ctx, "insert-dso-name") == 1);
	/* gProfiler's async-profiler "threads": a JVM's stacks get a
	 * "[name tid=N]" frame under the process's comm (emit.c). */
	p->java_threads = p->api->option_get_bool(p->ctx,
	    "java-collect-thread-names") == 1;
	p->fp = stackagg_new();
	p->dw = stackagg_new();
	p->seen = pidtab_new();
	if (p->sym != NULL) {
		symbolizer_set_opener(p->sym, perf_file_open, p);
		if (GP_API_HAS(p->api, maps_read))
			symbolizer_set_maps_reader(p->sym, perf_maps_read, p);
	}
	p->uw = p->sym != NULL ? unwinder_new(p->sym) : NULL;
	if (p->sym == NULL || p->fp == NULL || p->dw == NULL ||
	    p->seen == NULL || p->uw == NULL) {
		perf_teardown(p);
		return (-ENOMEM);
	}
	memset(&o, 0, sizeof(o));
	o.backend = p->backend;
	o.self_pid = getpid();
	o.freq = (uint32_t)p->freq;
	o.period = (uint64_t)p->period;
	/* A tracepoint's program counts its hits itself, with no clock's
	 * jitter: its cap is the rate exactly. */
	if (p->period > 0)
		o.max_rate = p->have_ev && p->ev.type == PERF_TYPE_TRACEPOINT ?
		    PERF_PERIOD_MAX_RATE : PERF_PERIOD_CAP_RATE;
	if (p->have_ev) {
		o.ev_name = p->ev.name;
		o.ev_type = p->ev.type;
		o.ev_config = p->ev.config;
	}
	o.want_fp = p->mode == PERF_MODE_FP || p->mode == PERF_MODE_SMART;
	o.want_dwarf = p->mode == PERF_MODE_DWARF ||
	    p->mode == PERF_MODE_SMART;
	o.dwarf_size = p->dwarf_size;
	/* gProfiler's perf takes -G instead of --pid when both are given */
	o.pids = cg > 0 ? NULL : p->pids;
	o.npids = cg > 0 ? 0 : p->npids;
	o.filter_cgroups = cg > 0;
	/* until what runs already is read (perf_maps_start) */
	o.start_paused = 1;
	o.on_record = perf_collect_record;
	o.log = perf_sym_log;
	o.arg = p;
	p->sampler = sampler_open(&o, err, sizeof(err));
	if (p->sampler == NULL) {
		p->api->log(p->ctx, GP_LOG_ERR, "%s", err);
		perf_teardown(p);
		return (-ENOTSUP);
	}
	if (cg > 0) {
		if (p->max_docker > 0)
			snprintf(rate, sizeof(rate), "%lld busiest docker "
			    "containers and then the busiest other cgroups, "
			    "%lld in all,", (long long)p->max_docker,
			    (long long)p->max_cgroups);
		else
			snprintf(rate, sizeof(rate), "%lld busiest cgroups",
			    (long long)p->max_cgroups);
		p->api->log(p->ctx, GP_LOG_INFO, "--perf-use-cgroups: "
		    "sampling only the processes of the %s under %s, chosen "
		    "by CPU usage at each cycle's start (the first by usage "
		    "since each cgroup was created)%s", rate,
		    cgwalk_root(p->cgw), p->pids != NULL ? "; --pids is not "
		    "applied to perf, as in gProfiler" : "");
		perf_cgroups_pick(p);
	}
	symbolizer_set_kernel_resolver(p->sym, perf_ksym_resolve, p);
	if (sampler_follows_exec(p->sampler)) {
		symbolizer_set_gen_resolver(p->sym, perf_cur_gen, p);
		/* generations are counted as the sampler counts them */
		perf_maps_start(p);
	}
	sampler_resume(p->sampler);
	/* Process profilers learn which threads were on CPU from us. */
	if (GP_API_HAS(p->api, sample_report) &&
	    p->api->sample_source != NULL && p->api->sample_report != NULL &&
	    p->api->sample_source(p->ctx, perf_watch, p) == 0)
		p->reports = 1;
	/* And their frames, walked in the sample (perf_walk.c). */
	perf_walker_start(p);
	/* And which processes run (1.4): the first sample of each image
	 * wakes us, so they need not scan /proc to find them.  Not with a
	 * cgroup filter: processes outside the chosen cgroups are never
	 * sampled, yet their runtimes are profiled (gProfiler's too). */
	if (p->cgw == NULL && GP_API_HAS(p->api, process_subscribe) &&
	    p->api->process_source != NULL &&
	    p->api->process_source(p->ctx, 1) == 0)
		p->proc_reports = 1;
	p->cur.cpus = sampler_sync_cpus(p->sampler);
	if (p->api->fd_watch != NULL)
		p->wakeup = p->api->fd_watch(p->ctx,
		    sampler_wakeup_fd(p->sampler), GP_EV_READ, perf_wakeup_cb,
		    p);
	p->drain_timer = p->api->timer_add(p->ctx, p->wakeup != NULL ?
	    PERF_DRAIN_MS : PERF_DRAIN_POLL_MS, 1, perf_drain_cb, p);
	if (p->drain_timer == NULL) {
		perf_teardown(p);
		return (-ENOMEM);
	}
	if (p->period > 0)
		snprintf(rate, sizeof(rate), "every %lld events",
		    (long long)p->period);
	else
		snprintf(rate, sizeof(rate), "at %lld Hz", (long long)p->freq);
	p->api->log(p->ctx, GP_LOG_INFO, "sampling %d CPUs %s (%s%s%s, %s "
	    "stacks%s) through %s", p->cur.cpus, rate,
	    sampler_event_name(p->sampler), p->have_ev ? ", " : "",
	    p->have_ev ? perfevent_kind(&p->ev) : "", perf_mode_name(p->mode),
	    o.pids != NULL ? ", --pids" : "",
	    sampler_backend_desc(p->sampler));
	return (0);
}

static int
perf_metadata(void *priv, struct gp_json *md, struct gp_json *hdr)
{
	struct perf *p = priv;
	const struct perf_cycle_stats *c = &p->last;
	const struct gp_host_api *a = p->api;

	a->json_set_string(md, "perf_mode", perf_mode_name(p->mode));
	if (p->sampler == NULL)
		return (0);
	a->json_set_string(md, "perf_event", sampler_event_name(p->sampler));
	a->json_set_string(md, "perf_backend",
	    sampler_backend_name(p->sampler));
	if (p->have_ev)
		a->json_set_string(md, "perf_event_type",
		    perfevent_kind(&p->ev));
	if (p->period > 0)
		a->json_set_int(md, "perf_event_period", p->period);
	a->json_set_int(md, "perf_cpus", c->cpus);
	a->json_set_int(md, "perf_samples", (int64_t)c->stat[STAT_SAMPLES]);
	a->json_set_int(md, "perf_dropped_samples",
	    (int64_t)(c->stat[STAT_RB_FULL] + c->stat[STAT_TOO_LARGE] +
	    c->bad_records + c->agg_failures));
	/* Part of the dropped ones: a record the ring could not take. */
	a->json_set_int(md, "perf_too_large_samples",
	    (int64_t)c->stat[STAT_TOO_LARGE]);
	a->json_set_int(md, "perf_kernel_stack_errors",
	    (int64_t)c->stat[STAT_KSTACK_ERR]);
	a->json_set_int(md, "perf_user_stack_errors",
	    (int64_t)c->stat[STAT_USTACK_ERR]);
	if (p->mode != PERF_MODE_FP) {
		a->json_set_int(md, "perf_dwarf_stack_errors",
		    (int64_t)c->stat[STAT_DWARF_ERR]);
		a->json_set_int(md, "perf_dwarf_pids", (int64_t)c->dwarf_pids);
	}
	perf_walker_metadata(p, c, md);
	a->json_set_int(md, "perf_pids", (int64_t)c->pids);
	if (p->cgw != NULL)
		a->json_set_int(md, "perf_cgroups", (int64_t)c->cgroups);
	a->json_set_int(md, "perf_drain_slices", (int64_t)c->drain_slices);
	a->json_set_int(md, "perf_user_frames", (int64_t)c->user_frames);
	a->json_set_int(md, "perf_user_frames_symbolized",
	    (int64_t)c->user_resolved);
	if (p->maps != NULL)
		a->json_set_int(md, "perf_mappings_from_kernel_records",
		    (int64_t)c->logged_maps);
	a->json_set_int(md, "perf_maps_rereads", (int64_t)c->maps_rereads);
	return (0);
}

static int
perf_stop(void *priv)
{
	struct perf *p = priv;

	perf_teardown(p);
	p->api->stop_done(p->ctx);
	return (0);
}

static void
perf_destroy(void *priv)
{
	struct perf *p = priv;

	if (p == NULL)
		return;
	perf_teardown(p);
	p->magic = 0;
	free(p);
}

GP_PLUGIN_EXPORT const struct gp_plugin gprofiler_plugin = {
	GP_PLUGIN_HEADER,
	.name = "perf",
	.version = "1.0.0",
	.build = "bpf sampler, libdw unwinder",
	.description = "native CPU stacks of every process (BPF sampling, "
	    "like perf record -a -g)",
	.kind = GP_KIND_SYSTEM,
	.modes = GP_MODE_CPU,
	.options = perf_options,
	.option_size = sizeof(struct gp_option),
	.option_count = sizeof(perf_options) / sizeof(perf_options[0]),
	.incompatible = NULL,
	.init = perf_init,
	.check = perf_check,
	.start = perf_start,
	.snapshot = perf_snapshot,
	.abandon = perf_abandon,
	.metadata = perf_metadata,
	.stop = perf_stop,
	.destroy = perf_destroy,
};
