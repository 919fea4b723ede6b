/*
 * The perf plugin's state, shared by its glue (perf.c), the record
 * collector (collect.c) and the snapshot emitter (emit.c).  Private to
 * plugins/perf.
 */
#ifndef GP_PERF_INT_H
#define GP_PERF_INT_H

#include <stdint.h>
#include <time.h>

#include <gprofiler/plugin.h>

#include "heaptrim.h"
#include "ratelim.h"
#include "sampler/perfevent.h"
#include "sampler/sampler.h"

#define PERF_MAGIC		0x50455246u	/* "PERF" */

#define PERF_MODE_DISABLED	0
#define PERF_MODE_FP		1
#define PERF_MODE_DWARF		2
#define PERF_MODE_SMART		3

/* Drain period: the BPF program wakes us for new processes and a filling
 * ring; the timer only bounds how long a sample waits otherwise (a process
 * whose PID was seen before, maps that changed), and is the whole
 * mechanism in a host without fd watches.  Whole seconds: the host fires
 * it with its other slow timers. */
/*
 * A period (--perf-event-period, a tracepoint's every hit) makes the rate
 * the event's, not ours: at most PERF_PERIOD_MAX_RATE samples a second per
 * CPU are taken (-f 1000's worth), the rest dropped in the kernel and the
 * period raised.  Clocks count nanoseconds and cycles or instructions
 * about a billion a second: a period under PERF_PERIOD_MIN_CLOCK on them
 * is refused at start.
 */
#define PERF_PERIOD_MAX_RATE	1000
/* What the kernel side enforces: the rate with an eighth of headroom, so
 * that a clock exactly at the limit (cpu-clock every 1 ms) is not capped
 * for its timer's jitter against a window that starts at a sample. */
#define PERF_PERIOD_CAP_RATE	(PERF_PERIOD_MAX_RATE + PERF_PERIOD_MAX_RATE / 8)
#define PERF_PERIOD_MIN_CLOCK	1000000

#define PERF_DRAIN_MS		10000
#define PERF_DRAIN_POLL_MS	100	/* without a wake-up watch */
/* Perf maps read per loop turn (about a millisecond of parsing), and how
 * often the rest of a large one is read between cycles. */
#define PERF_JIT_TURN_BYTES	(64u * 1024)
#define PERF_JIT_WORK_MS	10
/* One drain's share of the loop: at any accepted frequency the samples are
 * read in slices, so signals, timers and uploads still run between them;
 * what the ring cannot hold meanwhile is dropped and counted by the BPF
 * program (STAT_RB_FULL) rather than the host starved. */
#define PERF_DRAIN_SLICE_NS	(20ull * 1000 * 1000)
/* A snapshot whose drain started symbol-table loads waits for them on the
 * work timer (a turn's share each), this long at most, rather than load
 * them in its own callback; then the emit gets a turn of its own. */
#define PERF_SNAP_WAIT_NS	(1000ull * 1000 * 1000)

struct stackagg;
struct pidtab;
struct pidinfo;
struct symbolizer;
struct unwinder;
struct cgwalk;

/* What one cycle saw, for the profile metadata. */
struct perf_cycle_stats {
	uint64_t stat[STAT_NSTATS];	/* sampler counters, this cycle */
	uint64_t bad_records;
	uint64_t agg_failures;	/* out of memory while adding */
	uint64_t user_frames;	/* emitted, weighted by count */
	uint64_t user_resolved;
	uint64_t pids;
	uint64_t dwarf_pids;	/* smart: PIDs DWARF won */
	uint64_t drain_slices;	/* drains cut at their slice */
	uint64_t cgroups;	/* --perf-use-cgroups: chosen */
	/* mappings /proc could not show, from the kernel's records */
	uint64_t logged_maps;
	uint64_t maps_rereads;	/* /proc/PID/maps read again on a miss */
	int cpus;
};

struct perf {
	uint32_t magic;
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;

	int mode;	/* PERF_MODE_* */
	int backend;	/* --perf-backend */
	int64_t freq;
	int64_t period;	/* --perf-event-period, 0; raised over the rate cap */
	int rate_said;	/* the rate cap warned of */
	int cfi_said;	/* the unwinder's budget, too */
	int have_ev;	/* --perf-event given */
	struct perfevent ev;
	uint32_t dwarf_size;
	int32_t *pids;	/* --pids, NULL for all */
	uint32_t npids;
	/* --perf-use-cgroups: the busiest cgroups, re-chosen each cycle */
	int use_cgroups;
	int64_t max_cgroups;	/* --perf-max-cgroups */
	int64_t max_docker;	/* --perf-max-docker-containers */
	struct cgwalk *cgw;	/* NULL: no cgroup filter */
	uint64_t *cg_ids;	/* the ids chosen */

	struct sampler *sampler;
	struct gp_timer *drain_timer;
	struct gp_timer *work_timer;	/* perf maps left to read,
					 * tables to load */
	struct gp_snapshot *snap_wait;	/* waiting for tables */
	uint64_t snap_until;		/* CLOCK_MONOTONIC ns */
	int trim_due;			/* an emit just ended */
	struct heaptrim trim;
	struct gp_watch *wakeup;	/* the ring's wake-ups */
	/* The kernel's mapping records (perf_maps.c); NULL: not followed. */
	struct perf_maps *maps;
	struct symbolizer *sym;
	struct unwinder *uw;
	struct stackagg *fp;	/* frame-pointer stacks */
	struct stackagg *dw;	/* DWARF-unwound stacks */
	struct pidtab *seen;	/* this cycle's PIDs */
	int reports;		/* the host's sample source */
	int proc_reports;	/* and its process source */
	int walker;		/* and its frame walker (1.6) */
	int java_threads;	/* --java-collect-thread-names */

	uint64_t drain_deadline;	/* CLOCK_MONOTONIC ns */
	uint32_t drain_n;		/* records this drain */

	uint64_t stat_prev[STAT_NSTATS];
	uint64_t logged_prev;
	uint64_t rereads_prev;
	struct perf_cycle_stats cur;	/* being collected */
	struct perf_cycle_stats last;	/* the last snapshot's */
	struct ratelim complain_limit;	/* of bad input: a line a
					 * minute (perf_complain) */
};

/* perf.c */
/* CLOCK_MONOTONIC in ns: the plugin's one clock for deadlines. */
uint64_t perf_now_ns(void);
/* One warning a minute at most about bad input. */
void perf_complain(struct perf *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));

/* evresolve.c */
/*
 * --perf-event NAME into ev: an event perf knows, else NAME in
 * --hw-events-file for this host's platform.  0, or -errno with one line
 * in err; a custom event's raw code and file go to `from` ("" otherwise).
 */
int perf_event_resolve(struct perf *, const char *name,
		    struct perfevent *ev, char *from, size_t fromlen,
		    char *err, size_t errlen);

/* collect.c */
/* sampler_opts.on_record: one ring-buffer record into the tables;
 * -EAGAIN once the drain's slice is used (the record was taken). */
int perf_collect_record(void *arg, const void *rec, size_t len);
/* Start a drain's slice; then sampler_drain, which answers -EAGAIN when
 * the slice ran out with records left. */
void perf_collect_slice(struct perf *);
/* pi (sampled this cycle) to the process profilers, if they listen: at
 * its first sample, and again when it maps code later (perf_maps.c),
 * each time after a wait twice the last, up to PERF_REPORT_WAIT_MAX_S. */
#define PERF_REPORT_WAIT_MAX_S	32
void perf_report_process(struct perf *, struct pidinfo *,
		    uint64_t now_ns);

/* emit.c */
/* The cycle's stacks into the snapshot (smart mode picks per PID). */
int perf_emit(struct perf *, struct gp_snapshot *);

/* cgpick.c */
/*
 * Start the cgroup filter the options ask for: whether the sampler
 * filters by cgroup (0: the whole host, said in a WARN line when cgroup v2
 * is missing), or -ENOENT when the options select no cgroup at all (perf
 * is then disabled, as in gProfiler).
 */
int perf_cgroups_init(struct perf *);
/* Choose this cycle's cgroups and hand them to the sampler. */
void perf_cgroups_pick(struct perf *);
/* perf_cycle.c: the snapshot, and the work timer's turns */
int perf_snapshot(void *, struct gp_snapshot *);
void perf_abandon(void *, struct gp_snapshot *);
void perf_work_cb(void *);

/* perf_walk.c: interpreter frames walked in the sample, for process
 * profilers (host API sample_walk, ABI 1.6) */
void perf_walker_start(struct perf *);
void perf_walker_stop(struct perf *);
void perf_walker_metadata(struct perf *,
		    const struct perf_cycle_stats *, struct gp_json *);

/* perf_maps.c: what processes mapped, from the kernel's own records */
/* Follow them (a line says so when the kernel cannot). */
void perf_maps_start(struct perf *);
/* Read what the kernel wrote since: before the samples, whose mappings
 * these are. */
void perf_maps_drain(struct perf *);
void perf_maps_stop(struct perf *);

/* pidlist.c */
/* "1,2, 3" (the pids option) into a new array; -EINVAL naming nothing. */
int pidlist_parse(const char *, int32_t **pidsp, uint32_t *np);

#endif
