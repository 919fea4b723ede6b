/*
 * Merging the system profiler's result with the process profilers' results
 * per PID, exactly as docs/specs/gprofiler-compat.md §3 (gprofiler/merge.py):
 * runtime stacks replace native ones, scaled by P/R with stochastic
 * rounding; error/skip frames go right after perf's comm; without a system
 * profiler the results are concatenated unscaled.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/log.h"
#include "base/xmalloc.h"
#include "profile/profile.h"

struct merge_copy {
	struct profile *out;
	const char *prefix;	/* error frame after comm, or NULL */
	double ratio;		/* 1: unchanged */
	double (*rng)(void *);
	void *rngarg;
};

struct merge_state {
	const struct profile *sys;
	struct profile *out;
	struct profile *claimed;	/* PIDs a runtime result took */
	double (*rng)(void *);
	void *rngarg;
	const struct profile *cur;	/* runtime result being merged */
};

/*
 * count × ratio rounded up with probability frac(count × ratio), so the
 * expected value is exact; ratio exactly 1 leaves the count alone.
 */
uint64_t
merge_scale(uint64_t count, double ratio, double (*rng)(void *), void *arg)
{
	double v, fl;

	if (ratio == 1.0)
		return (count);
	v = (double)count * ratio;
	fl = floor(v);
	if (v - fl > 0 && rng(arg) < v - fl)
		fl += 1;
	return ((uint64_t)fl);
}

static int
merge_copy_stack(const struct profile_stack *s, void *arg)
{
	struct merge_copy *mc = arg;
	const char *fr[512], **f = fr;
	uint64_t n;
	uint32_t nf = s->nframes;

	n = merge_scale(s->count, mc->ratio, mc->rng, mc->rngarg);
	if (n == 0)
		return (0);	/* a stack that reaches 0 is removed */
	if (mc->prefix == NULL)
		return (profile_add_stack(mc->out, s->pid, s->comm, s->frames,
		    s->nframes, n));
	if (nf + 1 > sizeof(fr) / sizeof(fr[0]))
		f = xreallocarray(NULL, nf + 1, sizeof(*f));
	f[0] = mc->prefix;
	memcpy(f + 1, s->frames, nf * sizeof(*f));
	profile_add_stack(mc->out, s->pid, s->comm, f, nf + 1, n);
	if (f != fr)
		free(f);
	return (0);
}

/* Attributes: the runtime result's, falling back to the system's. */
static void
merge_attrs(struct profile *out, const struct profile *rt,
    const struct profile *sys, int32_t pid)
{
	const struct profile *src[2] = { rt, sys };
	struct json_object *md;
	const char *v;
	int i;

	for (i = 0; i < 2; i++)
		if (src[i] != NULL &&
		    (v = profile_pid_container(src[i], pid)) != NULL) {
			profile_set_container(out, pid, v);
			break;
		}
	for (i = 0; i < 2; i++)
		if (src[i] != NULL &&
		    (v = profile_pid_appid(src[i], pid)) != NULL) {
			profile_set_appid(out, pid, v);
			break;
		}
	for (i = 0; i < 2; i++)
		if (src[i] != NULL &&
		    (md = profile_pid_appmeta(src[i], pid)) != NULL) {
			profile_set_appmeta(out, pid, json_object_get(md));
			break;
		}
}

static void
merge_copy_pid(struct merge_state *ms, const struct profile *src,
    int32_t pid, const char *prefix, double ratio)
{
	struct merge_copy mc = { ms->out, prefix, ratio, ms->rng,
	    ms->rngarg };

	profile_foreach_in_pid(src, pid, merge_copy_stack, &mc);
}

/* An error-only result as a stack of its own: "<comm>;[Profiling ...]". */
static void
merge_error_stack(struct profile *out, const struct profile *rt,
    int32_t pid)
{
	const char *err = profile_pid_error(rt, pid);
	const char *comm = profile_pid_comm(rt, pid);

	profile_add_stack(out, pid, comm != NULL ? comm : "", &err, 1, 1);
}

/* One PID of a runtime result, with the system profiler enabled. */
static int
merge_runtime_pid(int32_t pid, void *arg)
{
	struct merge_state *ms = arg;
	const struct profile *rt = ms->cur;
	const char *err = profile_pid_error(rt, pid);
	uint64_t R = profile_pid_total(rt, pid);
	uint64_t P = profile_pid_total(ms->sys, pid);

	if (err == NULL && R == 0) {
		/*
		 * Empty result: perf's stacks stay, with the appid and app
		 * metadata the runtime found (the Java plugin names JIT
		 * frames through perf and only adds these).
		 */
		if (P > 0 && !profile_has_pid(ms->claimed, pid))
			merge_attrs(ms->out, rt, NULL, pid);
		return (0);
	}
	if (profile_has_pid(ms->claimed, pid)) {
		log_debug("merge: pid %d has results from two process "
		    "profilers, keeping the first", (int)pid);
		return (0);
	}
	profile_set_appmeta_idx(ms->claimed, pid, 1);
	if (err != NULL) {
		if (P > 0)
			merge_copy_pid(ms, ms->sys, pid, err, 1.0);
		/* P = 0: the PID contributes nothing. */
	} else if (P > 0)
		merge_copy_pid(ms, rt, pid, NULL, (double)P / (double)R);
	else
		merge_copy_pid(ms, rt, pid, NULL, 1.0);
	merge_attrs(ms->out, rt, ms->sys, pid);
	return (0);
}

/* PIDs only the system profiler saw (or no runtime result took). */
static int
merge_system_pid(int32_t pid, void *arg)
{
	struct merge_state *ms = arg;

	if (profile_has_pid(ms->claimed, pid))
		return (0);
	merge_copy_pid(ms, ms->sys, pid, NULL, 1.0);
	merge_attrs(ms->out, NULL, ms->sys, pid);
	return (0);
}

/* Perf disabled: concatenate, unscaled; errors become their own stack. */
static int
merge_concat_pid(int32_t pid, void *arg)
{
	struct merge_state *ms = arg;

	if (profile_pid_error(ms->cur, pid) != NULL)
		merge_error_stack(ms->out, ms->cur, pid);
	else
		merge_copy_pid(ms, ms->cur, pid, NULL, 1.0);
	merge_attrs(ms->out, ms->cur, NULL, pid);
	return (0);
}

/*
 * Merge into a new profile (caller frees).  sys is the system profiler's
 * result, NULL when there is none (perf disabled); rt[] the process
 * profilers' results (NULL entries skipped).  rng returns uniform [0, 1).
 */
struct profile *
merge_profiles(const struct profile *sys, const struct profile *const *rt,
    size_t nrt, double (*rng)(void *), void *rngarg)
{
	struct merge_state ms;
	size_t i;

	memset(&ms, 0, sizeof(ms));
	ms.sys = sys;
	ms.out = profile_new();
	ms.claimed = profile_new();
	ms.rng = rng;
	ms.rngarg = rngarg;
	for (i = 0; i < nrt; i++) {
		if ((ms.cur = rt[i]) == NULL)
			continue;
		profile_foreach_pid(ms.cur, sys != NULL ? merge_runtime_pid :
		    merge_concat_pid, &ms);
	}
	if (sys != NULL)
		profile_foreach_pid(sys, merge_system_pid, &ms);
	profile_free(ms.claimed);
	return (ms.out);
}

/* The default rng: drand48 seeded once from the clock and PID. */
double
merge_rng_default(void *arg)
{
	static int seeded;
	struct timespec ts;

	if (!seeded) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		srand48(ts.tv_nsec ^ ((long)getpid() << 16));
		seeded = 1;
	}
	return (drand48());
}
