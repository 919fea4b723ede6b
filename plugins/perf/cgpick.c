/*
 * --perf-use-cgroups in the perf plugin: gProfiler runs `perf record -G`
 * on the busiest cgroups; here the BPF sampler keeps the samples of tasks
 * whose cgroup v2 id is in its "cgroups" map, and this file fills the map
 * at the start and again at each cycle's start with the cgroups that used
 * the most CPU (cgwalk.c walks, cgsel.c chooses).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gprofiler/plugin.h>

#include "cgroups.h"
#include "clockns.h"
#include "perf_int.h"

#define CG_LOG_BYTES	1024	/* the per-cycle list, cut beyond */

int
perf_cgroups_init(struct perf *p)
{
	if (!p->use_cgroups)
		return (0);
	if (p->max_cgroups == 0 && p->max_docker == 0) {
		/* gProfiler never falls back to the whole host here */
		p->api->log(p->ctx, GP_LOG_WARN, "--perf-use-cgroups with "
		    "--perf-max-cgroups 0 and --perf-max-docker-containers 0 "
		    "selects no cgroup: perf is disabled, as in gProfiler");
		return (-ENOENT);
	}
	if ((p->cgw = cgwalk_open()) == NULL) {
		p->api->log(p->ctx, GP_LOG_WARN, "--perf-use-cgroups: cgroup "
		    "v2 is not mounted (neither /sys/fs/cgroup nor "
		    "/sys/fs/cgroup/unified), so there is no cgroup to choose: "
		    "sampling the whole host");
		return (0);
	}
	return (1);
}

static uint64_t
cg_now_us(void)
{
	return (clock_ns(CLOCK_MONOTONIC) / 1000);
}

/* The choice, one line at debug level: "/a (1234 ms), ...". */
static void
perf_cgroups_log(struct perf *p, const struct cg_entry *e, size_t k,
    size_t n, uint64_t took_us)
{
	char buf[CG_LOG_BYTES];
	size_t i, off = 0;
	int w;

	buf[0] = '\0';
	for (i = 0; i < k && off < sizeof(buf); i++) {
		w = snprintf(buf + off, sizeof(buf) - off, "%s%s (%llu ms%s)",
		    i > 0 ? ", " : "", e[i].path[0] != '\0' ? e[i].path : "/",
		    (unsigned long long)(e[i].delta / 1000),
		    e[i].docker ? ", docker" : "");
		if (w < 0)
			break;
		off += (size_t)w;
	}
	p->api->log(p->ctx, GP_LOG_DEBUG, "perf cgroups this cycle: %zu of "
	    "%zu with processes (walk %llu us)%s%s", k, n,
	    (unsigned long long)took_us, k > 0 ? ": " : "", buf);
}

void
perf_cgroups_pick(struct perf *p)
{
	struct cg_entry *e;
	uint64_t *ids, t0;
	size_t i, k;
	int n, truncated, rc;

	if (p->cgw == NULL || p->sampler == NULL)
		return;
	t0 = cg_now_us();
	if ((n = cgwalk_scan(p->cgw, &e, &truncated)) < 0) {
		perf_complain(p, "--perf-use-cgroups: walking %s: %s; the "
		    "previous cycle's cgroups are kept", cgwalk_root(p->cgw),
		    strerror(-n));
		return;
	}
	k = cgsel_choose(e, (size_t)n, (uint64_t)p->max_cgroups,
	    (uint64_t)p->max_docker);
	if (k > SAMPLER_MAX_CGROUPS)
		k = SAMPLER_MAX_CGROUPS;
	ids = k > 0 ? malloc(k * sizeof(*ids)) : NULL;
	if (k > 0 && ids == NULL) {
		perf_complain(p, "--perf-use-cgroups: out of memory; the "
		    "previous cycle's cgroups are kept");
		return;
	}
	for (i = 0; i < k; i++)
		ids[i] = e[i].id;
	if ((rc = sampler_cgroups_set(p->sampler, ids, k)) != 0) {
		perf_complain(p, "--perf-use-cgroups: updating the sampler's "
		    "cgroups: %s", strerror(-rc));
		free(ids);
		return;
	}
	free(p->cg_ids);
	p->cg_ids = ids;
	p->cur.cgroups = k;
	perf_cgroups_log(p, e, k, (size_t)n, cg_now_us() - t0);
	if (truncated)
		perf_complain(p, "--perf-use-cgroups: %s has more than %d "
		    "cgroups, deeper than %d levels, or more than %d ms "
		    "of CPU time of them; those beyond were not considered",
		    cgwalk_root(p->cgw), CG_WALK_MAX, CG_WALK_DEPTH,
		    CG_WALK_BUDGET_US / 1000);
	if (k == 0)
		perf_complain(p, "--perf-use-cgroups: no cgroup under %s "
		    "holds processes: nothing is sampled until one does",
		    cgwalk_root(p->cgw));
}
