/*
 * --perf-use-cgroups: sample only the busiest cgroups, as gProfiler's
 * `perf record -G` does.  cgsel.c holds the pure parts (cpu.stat, docker
 * names, the choice), cgwalk.c the walk of the cgroup v2 tree.  Private to
 * plugins/perf.
 */
#ifndef GP_PERF_CGROUPS_H
#define GP_PERF_CGROUPS_H

#include <stddef.h>
#include <stdint.h>

/* Bounds of one walk: a host with thousands of cgroups stays cheap. */
#define CG_WALK_MAX		4096	/* directories visited */
#define CG_WALK_DEPTH		16	/* below the mount */
/* A walk's CPU time: about 1000 cgroups on a slow VM. */
#define CG_WALK_BUDGET_US	50000
#define CG_PATH_MAX		256	/* kept for the log, truncated */

/* One cgroup that holds processes, as the walk saw it. */
struct cg_entry {
	uint64_t id;		/* inode = bpf_get_current_cgroup_id */
	uint64_t usage;		/* cpu.stat usage_usec, now */
	uint64_t delta;		/* usage since the previous walk */
	int docker;		/* a docker container's cgroup */
	char path[CG_PATH_MAX];	/* below the mount */
};

/* cgsel.c */
/*
 * usage_usec of a cgroup v2 cpu.stat text ("usage_usec N\n..."): 0, or
 * -EINVAL when the field is missing or not a decimal number.
 */
int cgstat_parse_usage(const char *buf, size_t len,
		    uint64_t *usec);
/*
 * Whether a cgroup directory name (with its parent's name) is a docker
 * container's: "docker-<64 hex>.scope" (systemd driver) or "<64 hex>"
 * under a directory named "docker" (cgroupfs driver).
 */
int cgsel_is_docker(const char *name, const char *parent);
/*
 * gProfiler's choice (utils/cgroup_utils.py get_top_cgroup_names_for_perf)
 * over e[0..n), ranked by delta: with max_docker > 0, the max_docker
 * busiest docker containers first, then other cgroups, not docker ones,
 * while the total is below max_cgroups; with max_docker 0, the max_cgroups
 * busiest cgroups, docker or not.  Sorts e; the chosen are moved to its
 * front.  Returns how many.
 */
size_t cgsel_choose(struct cg_entry *e, size_t n, uint64_t max_cgroups,
		    uint64_t max_docker);

/* cgwalk.c */
struct cgwalk;
/*
 * The cgroup v2 mount (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a
 * hybrid host); NULL with errno ENOENT when cgroup v2 is not mounted.
 */
struct cgwalk *cgwalk_open(void);
void cgwalk_free(struct cgwalk *);
const char *cgwalk_root(const struct cgwalk *);
/*
 * Walk the tree (bounded by CG_WALK_MAX and CG_WALK_DEPTH, never through a
 * link or into another file system) and return the cgroups that hold
 * processes, with their usage since the previous walk (the first walk: the
 * usage since each was created).  *ep is owned by the walker, valid until
 * the next walk.  The count, or -errno; *truncated when a bound cut it.
 */
int cgwalk_scan(struct cgwalk *, struct cg_entry **ep,
		    int *truncated);

#endif
