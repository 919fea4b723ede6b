/*
 * The header's "metrics" (docs/specs/gprofiler-compat.md §7): cpu_avg from
 * /proc/stat deltas between cycles, mem_avg the mean of used-memory
 * samples taken every 5 s on a loop timer (on the tick grid).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "base/log.h"
#include "base/procfs.h"
#include "base/tick.h"
#include "base/xmalloc.h"
#include "gprofiler.h"
#include "meta/meta.h"

#define METRICS_MAGIC		0x4d545243u
#define METRICS_MEM_SEC		5

struct metrics {
	unsigned magic;
	struct event *mem_ev;
	struct cpu_times prev;
	int have_prev;
	double mem_sum;
	unsigned mem_n;
};

/* Busy percent between two readings, rounded to 0.1; -1 without a delta. */
double
metrics_cpu_percent(const struct cpu_times *a, const struct cpu_times *b)
{
	uint64_t dt, di;

	if (b->total <= a->total || b->idle < a->idle)
		return (-1);
	dt = b->total - a->total;
	di = b->idle - a->idle;
	if (di > dt)
		return (-1);
	return (round((double)(dt - di) * 1000.0 / (double)dt) / 10.0);
}

/* Used memory percent, (MemTotal − MemAvailable) / MemTotal × 100. */
double
metrics_mem_percent(uint64_t total_kb, uint64_t avail_kb)
{
	if (total_kb == 0 || avail_kb > total_kb)
		return (-1);
	return ((double)(total_kb - avail_kb) * 100.0 / (double)total_kb);
}

static int
metrics_read_cpu(struct cpu_times *ct)
{
	char *buf;
	size_t len;
	int rc;

	if ((rc = procfs_read("/proc/stat", &buf, &len, 1 << 22)) != 0)
		return (rc);
	rc = procfs_cpu_times(buf, len, ct);
	free(buf);
	return (rc);
}

static void
metrics_sample_mem(struct metrics *m)
{
	char *buf;
	size_t len;
	uint64_t t, a;
	double pct;

	if (procfs_read("/proc/meminfo", &buf, &len, 1 << 20) != 0)
		return;
	if (procfs_meminfo(buf, len, &t, &a) == 0 &&
	    (pct = metrics_mem_percent(t, a)) >= 0) {
		m->mem_sum += pct;
		m->mem_n++;
	}
	free(buf);
}

static void
metrics_mem_cb(evutil_socket_t fd, short what, void *arg)
{
	struct metrics *m = arg;
	struct timeval tv;

	CHECK_OBJ(m, METRICS_MAGIC);
	tick_next(METRICS_MEM_SEC * 1000, &tv);
	event_add(m->mem_ev, &tv);
	metrics_sample_mem(m);
}

/* Start sampling now; NULL never (failures only make values null). */
struct metrics *
metrics_new(struct event_base *base)
{
	struct metrics *m;
	struct timeval tv;

	m = xcalloc(1, sizeof(*m));
	m->magic = METRICS_MAGIC;
	m->have_prev = metrics_read_cpu(&m->prev) == 0;
	metrics_sample_mem(m);
	/* On the tick grid: it wakes the agent with the plugins' slow
	 * timers, not on its own. */
	tick_next(METRICS_MEM_SEC * 1000, &tv);
	m->mem_ev = event_new(base, -1, 0, metrics_mem_cb, m);
	if (m->mem_ev == NULL || event_add(m->mem_ev, &tv) == -1)
		fatalx("metrics: cannot add the memory sampling timer");
	return (m);
}

void
metrics_free(struct metrics *m)
{
	if (m == NULL)
		return;
	CHECK_OBJ(m, METRICS_MAGIC);
	event_free(m->mem_ev);
	m->magic = 0;
	free(m);
}

/*
 * {"cpu_avg", "mem_avg"} since the previous call (or the start), then a new
 * period begins with a fresh memory sample.  m NULL: both null (metrics
 * collection disabled).  Caller owns the result.
 */
struct json_object *
metrics_cycle(struct metrics *m)
{
	struct json_object *o = json_object_new_object();
	struct cpu_times now;
	double cpu = -1;

	if (m != NULL) {
		CHECK_OBJ(m, METRICS_MAGIC);
		if (metrics_read_cpu(&now) == 0) {
			if (m->have_prev)
				cpu = metrics_cpu_percent(&m->prev, &now);
			m->prev = now;
			m->have_prev = 1;
		}
	}
	json_object_object_add(o, "cpu_avg", cpu >= 0 ?
	    json_object_new_double(cpu) : NULL);
	json_object_object_add(o, "mem_avg", m != NULL && m->mem_n > 0 ?
	    json_object_new_double(m->mem_sum / m->mem_n) : NULL);
	if (m != NULL) {
		m->mem_sum = 0;
		m->mem_n = 0;
		metrics_sample_mem(m);
	}
	return (o);
}
