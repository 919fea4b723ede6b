/*
 * The BPF backend's state (sampler_bpf.c), shared with the legacy
 * program's loading and rings (sampler_legacy.c).  Not seen outside the
 * sampler room.
 */
#ifndef GP_PERF_SBPF_INT_H
#define GP_PERF_SBPF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "sampler_int.h"

struct bpf_link;
struct bpf_map;
struct bpf_program;
struct perf_buffer;
struct ring_buffer;
struct sampler_bpf;
struct sampler_legacy_bpf;

/* Which program: the order auto tries them in. */
enum sbpf_kind { SBPF_FULL, SBPF_COMPAT, SBPF_LEGACY };

/* What both objects have, by the same names. */
struct sbpf_maps {
	struct bpf_map *events, *pids, *cgroups, *exec_gen, *watch, *stats,
	    *scratch;
	struct bpf_map *walk_cfgs, *walk_roots;	/* NULL: legacy */
	struct bpf_program *on_exec, *on_exit;
};
#define SBPF_MAPS(sk) {							\
	(sk)->maps.events, (sk)->maps.pids, (sk)->maps.cgroups,		\
	(sk)->maps.exec_gen, (sk)->maps.watch, (sk)->maps.stats,	\
	(sk)->maps.scratch, NULL, NULL, (sk)->progs.on_exec,		\
	(sk)->progs.on_exit }

struct sbpf {
	struct sampler base;	/* first */
	struct sampler_bpf *skel;		/* full, compat */
	struct sampler_legacy_bpf *lskel;	/* legacy */
	struct sbpf_maps m;
	struct sampler_cfg cfg;
	struct ring_buffer *rb;
	/* legacy: perf events' rings, urgent then the rest, both in epfd;
	 * rec holds a record aligned (a raw sample's data is 4 bytes off) */
	struct perf_buffer *pb[2];
	int epfd;
	int more_fd;	/* eventfd: readable after a drain stopped early */
	int stop_rc;	/* the drain's stop (-EAGAIN), 0: it ran through */
	uint64_t lost;
	uint64_t *rec;
	size_t rec_max;
	int nrec;
	struct sampler_opts opts;
	int ncpus;	/* possible CPUs */
	int *fds;	/* perf event per CPU, -1 */
	struct bpf_link **links;
	struct sampler_ev ev;
	int ksym_ok;			/* ksym_resolve loaded */
	enum sbpf_kind kind;
	int tp_known;			/* task_tp_off looked up */
	int have_loop;			/* bpf_loop: 1.7's walks */
	struct bpf_link *exec_link;	/* exec generations */
	struct bpf_link *exit_link;
};

/* sampler_bpf.c: the ring's size for o; the maps sized before loading;
 * -p's PIDs written once loaded.  0 or -errno. */
uint32_t sbpf_ring_size(const struct sampler_opts *o, int ncpus);
int sbpf_sizes(struct sbpf *);
int sbpf_pids_fill(struct sbpf *);

/* sbpf_walk.c: sampler_ops' walk_set and walk_root. */
int sbpf_walk_set(struct sampler *, int32_t, const struct walk_cfg *);
int sbpf_walk_root(struct sampler *, int32_t, int32_t, uint64_t, uint64_t);

/* sampler_legacy.c: the legacy object loaded and its rings opened (0 or
 * -errno); its sampling program; its rings drained (records, or
 * -errno); sampling started; all it holds freed. */
int sbpf_legacy_load(struct sbpf *);
struct bpf_program *sbpf_legacy_prog(const struct sbpf *);
int sbpf_legacy_drain(struct sbpf *);
void sbpf_legacy_resume(struct sbpf *);
void sbpf_legacy_free(struct sbpf *);

#endif
