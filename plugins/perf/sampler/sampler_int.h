/*
 * What the sampler's backends share (sampler.c chooses one): the table of
 * operations each provides, and the sampling event every backend opens the
 * same way on each CPU (sampler_ev.c).  Not seen outside the sampler.
 */
#ifndef GP_PERF_SAMPLER_INT_H
#define GP_PERF_SAMPLER_INT_H

#include <linux/perf_event.h>

#include "sampler.h"

struct sampler_ops;

/* The first member of every backend's state. */
struct sampler {
	const struct sampler_ops *ops;
};

/* One row per backend; every operation is that of sampler.h. */
struct sampler_ops {
	const char *name;	/* as --perf-backend names it */
	const char *desc;	/* "sampling ... through" it */
	/* what it gives up against the full BPF program, for o, in words
	 * (NULL: nothing) */
	const char *(*costs)(const struct sampler_opts *o);
	struct sampler *(*open)(const struct sampler_opts *, char *, size_t);
	void (*close)(struct sampler *);
	void (*resume)(struct sampler *);
	int (*drain)(struct sampler *);
	int (*wakeup_fd)(const struct sampler *);
	int (*sync_cpus)(struct sampler *);
	int (*set_period)(struct sampler *, uint64_t);
	void (*stats)(struct sampler *, uint64_t *);
	int (*ksym_resolve)(struct sampler *, const uint64_t *,
			    size_t, char *, size_t);
	int (*exec_gen)(struct sampler *, int32_t, uint32_t *);
	int (*watch)(struct sampler *, int32_t, int);
	/* NULL: the backend cannot walk frames (-ENOTSUP) */
	int (*walk_set)(struct sampler *, int32_t,
			    const struct walk_cfg *);
	int (*walk_root)(struct sampler *, int32_t, int32_t,
			    uint64_t, uint64_t);
	int (*cgroups_set)(struct sampler *, const uint64_t *,
			    size_t);
	int (*follows_exec)(const struct sampler *);
	const char *(*event_name)(const struct sampler *);
};

extern const struct sampler_ops sampler_bpf_ops;	/* sampler_bpf.c */
extern const struct sampler_ops sampler_bpf_compat_ops;
extern const struct sampler_ops sampler_bpf_legacy_ops;
extern const struct sampler_ops sampler_pev_ops;	/* sampler_pev.c */

/* The costs of the compat and legacy programs (sampler.c) and of perf
 * events (sampler_pev.c). */
const char *sampler_compat_costs(const struct sampler_opts *);
const char *sampler_legacy_costs(const struct sampler_opts *);
const char *sampler_pev_costs(const struct sampler_opts *);

/* sampler_ev.c: the sampling event. */
struct sampler_ev {
	uint32_t type;	/* PERF_TYPE_* */
	uint64_t config;
	const char *name;	/* NULL: not chosen yet */
};
/*
 * Open ev on cpu with attr as the template (what a backend asks of each
 * sample); the type, config and rate are set from ev and o.  When
 * ev->name is NULL, the first of cycles, cpu-clock and task-clock the
 * host has is chosen and ev filled in.  The fd, or -errno.
 */
int sampler_ev_open(struct sampler_ev *ev, const struct perf_event_attr *,
	    const struct sampler_opts *o, int cpu);
/* The online CPUs into set[0..n): their count, or -errno. */
int sampler_ev_online(uint8_t *set, int n);
/* Why a named event (--perf-event) could be opened on no CPU. */
void sampler_ev_explain(const struct sampler_ev *, int rc, char *err,
	    size_t errlen);
/* Why no sampling event could be opened at all. */
void sampler_ev_explain_any(int rc, char *err, size_t errlen);

/* Where the kernel saves a task's user thread pointer, from its BTF
 * (tasktp.c): the byte offset in task_struct, or 0 (unknown). */
uint32_t sampler_task_tp_off(void);

#endif
