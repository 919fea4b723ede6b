/*
 * The cycle's end: the snapshot drains the ring, waits on the work timer
 * for the symbol tables its samples started loading (so that no loop
 * callback loads a large library's table at once), emits the cycle's
 * stacks in a turn of its own and starts the next cycle.  The work timer
 * also reads the rest of large perf maps between cycles.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/perf_event.h>

#include <gprofiler/plugin.h>

#include "perf_int.h"
#include "pidtab.h"
#include "stackagg.h"
#include "sym/symbolize.h"
#include "unwind.h"

/*
 * The event gave more than PERF_PERIOD_CAP_RATE samples a second on some
 * CPU this cycle (the BPF program dropped the rest): raise a perf event's
 * period by the ratio of what came to what was taken, so that the kernel
 * stops interrupting at the old rate; a tracepoint's program runs at
 * every hit whatever we do, its excess stays dropped.
 */
static void
perf_rate_capped(struct perf *p)
{
	uint64_t taken = p->cur.stat[STAT_SAMPLES];
	uint64_t capped = p->cur.stat[STAT_RATE_CAPPED];
	uint64_t factor, np;
	int rc;

	if (p->ev.type == PERF_TYPE_TRACEPOINT && p->have_ev) {
		if (!p->rate_said)
			p->api->log(p->ctx, GP_LOG_WARN, "--perf-event %s: more "
			    "than %d hits a second on a CPU at "
			    "--perf-event-period %lld; the rest are not "
			    "sampled (%llu this cycle): raise the period",
			    p->ev.name, PERF_PERIOD_MAX_RATE,
			    (long long)p->period, (unsigned long long)capped);
		p->rate_said = 1;
		return;
	}
	factor = (taken + capped + (taken > 0 ? taken - 1 : 0)) /
	    (taken > 0 ? taken : 1);
	if (factor < 2)
		factor = 2;
	np = (uint64_t)p->period > INT64_MAX / factor ? INT64_MAX :
	    (uint64_t)p->period * factor;
	if ((rc = sampler_set_period(p->sampler, np)) != 0) {
		if (!p->rate_said)
			p->api->log(p->ctx, GP_LOG_WARN, "%s: over %d samples a "
			    "second on a CPU at period %lld, and the period "
			    "cannot be raised (%s): the rest are dropped",
			    sampler_event_name(p->sampler),
			    PERF_PERIOD_MAX_RATE, (long long)p->period,
			    strerror(-rc));
		p->rate_said = 1;
		return;
	}
	/* Warned once; the next steps (the first cycle's ratio
	 * underestimates when other CPUs were under the cap) are info. */
	p->api->log(p->ctx, p->rate_said ? GP_LOG_INFO : GP_LOG_WARN,
	    "%s: over %d samples a second on a CPU at --perf-event-period "
	    "%lld (%llu dropped this cycle): period raised to %llu",
	    sampler_event_name(p->sampler),
	    PERF_PERIOD_MAX_RATE, (long long)p->period,
	    (unsigned long long)capped, (unsigned long long)np);
	p->rate_said = 1;
	p->period = (int64_t)np;
}

/* The sampler's counters since the previous snapshot. */
static void
perf_stats_delta(struct perf *p)
{
	struct symbolizer_stats ss;
	uint64_t now[STAT_NSTATS];
	int i;

	symbolizer_stats(p->sym, &ss);
	p->cur.logged_maps = ss.logged_maps - p->logged_prev;
	p->logged_prev = ss.logged_maps;
	p->cur.maps_rereads = ss.maps_rereads - p->rereads_prev;
	p->rereads_prev = ss.maps_rereads;
	sampler_stats(p->sampler, now);
	for (i = 0; i < STAT_NSTATS; i++) {
		p->cur.stat[i] = now[i] - p->stat_prev[i];
		p->stat_prev[i] = now[i];
	}
	if (p->cur.stat[STAT_RB_FULL] > 0)
		p->api->log(p->ctx, GP_LOG_WARN, "%llu samples lost to a full "
		    "ring buffer this cycle%s",
		    (unsigned long long)p->cur.stat[STAT_RB_FULL],
		    p->cur.drain_slices > 0 ? " (reading them took more than "
		    "its share of the loop: lower -f)" : "");
	if (p->cur.stat[STAT_RATE_CAPPED] > 0)
		perf_rate_capped(p);
	if (p->cur.stat[STAT_TOO_LARGE] > 0)
		p->api->log(p->ctx, GP_LOG_WARN, "%llu samples lost this cycle: "
		    "their record was larger than the ring's scratch buffer",
		    (unsigned long long)p->cur.stat[STAT_TOO_LARGE]);
}

static void
perf_cycle_reset(struct perf *p)
{
	uint64_t over;

	p->last = p->cur;
	memset(&p->cur, 0, sizeof(p->cur));
	p->cur.cpus = p->last.cpus;
	stackagg_clear(p->fp);
	stackagg_clear(p->dw);
	pidtab_clear(p->seen);
	if (p->uw != NULL && (over = unwinder_cycle_end(p->uw)) > 0) {
		p->api->log(p->ctx, p->cfi_said ? GP_LOG_DEBUG : GP_LOG_WARN,
		    "DWARF unwinding: %llu modules not read this cycle: "
		    "their call frame information would pass the %u MiB "
		    "held at once; stacks through them end there",
		    (unsigned long long)over, UNWIND_BUDGET_BYTES >> 20);
		p->cfi_said = 1;
	}
	symbolizer_cycle_end(p->sym);
}

static void perf_snapshot_emit(struct perf *, struct gp_snapshot *);

/* The heap given back if it holds much more free memory than usual. */
static void
perf_trim(struct perf *p)
{
	struct heaptrim *h = &p->trim;
	struct symbolizer_stats ss;

	symbolizer_stats(p->sym, &ss);
	p->api->log(p->ctx, GP_LOG_DEBUG, "symbol tables: %llu, %llu KiB "
	    "with kallsyms, perf maps %llu KiB, of a %llu MiB budget; %llu "
	    "evicted in all", (unsigned long long)ss.binaries,
	    (unsigned long long)ss.table_bytes >> 10,
	    (unsigned long long)ss.perfmap_bytes >> 10,
	    (unsigned long long)ss.table_budget >> 20,
	    (unsigned long long)ss.table_evictions);
	heaptrim_run(h);
	if (h->trimmed)
		p->api->log(p->ctx, GP_LOG_DEBUG, "heap: %zu KiB resident beyond "
		    "%zu KiB in use: trimmed in %.2f ms, %zu KiB left",
		    h->slack >> 10, h->used >> 10, h->ms, h->base >> 10);
	else
		p->api->log(p->ctx, GP_LOG_DEBUG, "heap: %zu KiB resident beyond "
		    "%zu KiB in use: kept for the next cycle", h->slack >> 10,
		    h->used >> 10);
}

/*
 * Perf maps a turn's budget cut short and symbol tables being loaded: a
 * slice per timer turn.  A snapshot waiting for its tables is emitted in
 * a turn of its own once they are loaded (or it waited long enough).
 */
void
perf_work_cb(void *arg)
{
	struct perf *p = arg;
	struct gp_snapshot *snap;

	if ((snap = p->snap_wait) != NULL && (!symbolizer_loading(p->sym) ||
	    perf_now_ns() >= p->snap_until)) {
		p->snap_wait = NULL;
		perf_snapshot_emit(p, snap);
		return;
	}
	if (p->trim_due) {	/* after an emit, in a turn of its own */
		p->trim_due = 0;
		perf_trim(p);
		return;
	}
	symbolizer_turn(p->sym, PERF_JIT_TURN_BYTES);
	if (!symbolizer_work(p->sym) && p->snap_wait == NULL && !p->trim_due) {
		p->api->timer_del(p->work_timer);
		p->work_timer = NULL;
	}
}

static void
perf_work_arm(struct perf *p)
{
	if (p->work_timer == NULL && (p->snap_wait != NULL || p->trim_due ||
	    symbolizer_work(p->sym)))
		p->work_timer = p->api->timer_add(p->ctx, PERF_JIT_WORK_MS, 1,
		    perf_work_cb, p);
}

int
perf_snapshot(void *priv, struct gp_snapshot *snap)
{
	struct perf *p = priv;
	int rc, cpus;

	if (p->sampler == NULL) {
		p->api->snapshot_done(snap, 0, NULL);
		return (0);
	}
	perf_collect_slice(p);
	perf_maps_drain(p);
	if ((rc = sampler_drain(p->sampler)) < 0 && rc != -EAGAIN)
		perf_complain(p, "draining the sample ring buffer: %s",
		    strerror(-rc));
	cpus = sampler_sync_cpus(p->sampler);
	if (cpus > 0 && cpus != p->cur.cpus) {
		p->api->log(p->ctx, GP_LOG_INFO, "now sampling %d CPUs (was "
		    "%d): CPU hot-plug", cpus, p->cur.cpus);
		p->cur.cpus = cpus;
	}
	/* Samples wait in the ring until now, most of them: the binaries
	 * they landed in first are loading.  The emit waits for them on the
	 * work timer (samples drained meanwhile join this cycle). */
	if (symbolizer_loading(p->sym)) {
		p->snap_wait = snap;
		p->snap_until = perf_now_ns() + PERF_SNAP_WAIT_NS;
		perf_work_arm(p);
		if (p->work_timer != NULL)
			return (0);
		p->snap_wait = NULL;	/* no timer: the loads end here */
	}
	perf_snapshot_emit(p, snap);
	return (0);
}

/* The cycle's stacks to the host, and the next cycle begins. */
static void
perf_snapshot_emit(struct perf *p, struct gp_snapshot *snap)
{
	int rc;

	perf_stats_delta(p);
	symbolizer_turn(p->sym, PERF_JIT_TURN_BYTES);
	rc = perf_emit(p, snap);
	perf_cycle_reset(p);
	/* the next cycle starts now: its cgroups */
	perf_cgroups_pick(p);
	symbolizer_turn(p->sym, PERF_JIT_TURN_BYTES);
	/* The cycle's strings, retired snapshots and parse buffers are free
	 * now: the next turn sees whether they are worth giving back. */
	p->trim_due = 1;
	perf_work_arm(p);
	if (p->work_timer == NULL)
		p->trim_due = 0;
	if (rc != 0)
		p->api->snapshot_done(snap, -EIO, "perf: the host refused "
		    "stacks");
	else
		p->api->snapshot_done(snap, 0, NULL);
}

void
perf_abandon(void *priv, struct gp_snapshot *snap)
{
	struct perf *p = priv;

	/* A snapshot waiting for its tables: its cycle is dropped, as the
	 * host's was; the tables go on loading. */
	if (p->snap_wait == snap && snap != NULL) {
		p->snap_wait = NULL;
		perf_cycle_reset(p);
	}
}
