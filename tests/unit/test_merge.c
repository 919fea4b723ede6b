/*
 * Unit tests of core/profile/merge.c: every row of docs/specs/gprofiler-compat.md §3
 * and the statistics of stochastic rounding.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <gprofiler/plugin.h>
#include <json-c/json.h>

#include "base/log.h"
#include "profile/profile.h"
#include "testing.h"

static double
rng_const(void *arg)
{
	return (*(double *)arg);
}

static double
rng_seeded(void *arg)
{
	return (erand48(arg));
}

struct find {
	int32_t pid;
	const char *line;	/* "comm;f1;f2" */
	uint64_t count;
	int found;
	int nstacks;
};

static int
find_cb(const struct profile_stack *s, void *arg)
{
	struct find *f = arg;
	char buf[512];
	size_t off;
	uint32_t i;

	if (s->pid != f->pid)
		return (0);
	f->nstacks++;
	off = snprintf(buf, sizeof(buf), "%s", s->comm);
	for (i = 0; i < s->nframes; i++)
		off += snprintf(buf + off, sizeof(buf) - off, ";%s",
		    s->frames[i]);
	if (strcmp(buf, f->line) == 0) {
		f->found = 1;
		f->count = s->count;
	}
	return (0);
}

/* Count of the stack "comm;f..." of pid in p, or -1 if absent. */
static long long
stack_count(const struct profile *p, int32_t pid, const char *line)
{
	struct find f = { pid, line, 0, 0, 0 };

	profile_foreach(p, find_cb, &f);
	return (f.found ? (long long)f.count : -1);
}

static int
nstacks(const struct profile *p, int32_t pid)
{
	struct find f = { pid, "", 0, 0, 0 };

	profile_foreach(p, find_cb, &f);
	return (f.nstacks);
}

static void
add(struct profile *p, int32_t pid, const char *comm, const char *a,
    const char *b, uint64_t n)
{
	const char *fr[2] = { a, b };

	profile_add_stack(p, pid, comm, fr, b != NULL ? 2 : 1, n);
}

static void
test_rows(void)
{
	struct profile *sys = profile_new(), *rt = profile_new(), *out;
	const struct profile *rts[1] = { rt };
	double up = 0.0, down = 0.999;

	/* Perf: pid 1 (replaced), 2 (error kept), 3 (perf only), 6 (empty rt) */
	add(sys, 1, "python", "libc", "PyEval", 6);
	add(sys, 1, "python", "libc", "other", 4);		/* P = 10 */
	add(sys, 2, "java", "libjvm", "x", 5);
	add(sys, 3, "nginx", "main", NULL, 9);
	add(sys, 6, "ruby", "main", NULL, 2);
	profile_set_container(sys, 1, "perf-container");
	profile_set_container(sys, 5, "");
	/* Runtime: pid 1 R = 4, pid 2 error, 4 absent from perf, 5 error */
	add(rt, 1, "python", "mod", "f", 3);
	add(rt, 1, "python", "mod", "g", 1);
	profile_set_error(rt, 2, "java", GP_PID_ERROR, "exception Foo");
	add(rt, 4, "python", "m", "h", 7);
	profile_set_error(rt, 5, "php", GP_PID_SKIPPED, "safemode");
	profile_set_appid(rt, 6, "ruby: x.rb");		/* empty result */
	profile_set_appid(rt, 1, "python: -m mod");

	out = merge_profiles(sys, rts, 1, rng_const, &up);
	CHECK_INTEQ(stack_count(out, 1, "python;mod;f"), 8,
	    "P>0 normal: replaced, 3*10/4 = 7.5 rounded up (rng 0)");
	CHECK_INTEQ(stack_count(out, 1, "python;mod;g"), 3,
	    "1*10/4 = 2.5 rounded up (rng 0)");
	CHECK_INTEQ(stack_count(out, 1, "python;libc;PyEval"), -1,
	    "perf's stacks of a replaced pid are discarded");
	CHECK_STREQ(profile_pid_container(out, 1), "perf-container",
	    "no runtime container: perf's is used");
	CHECK_STREQ(profile_pid_appid(out, 1), "python: -m mod",
	    "runtime appid kept");
	CHECK_INTEQ(stack_count(out, 2,
	    "java;[Profiling error: exception Foo];libjvm;x"), 5,
	    "P>0 error: error frame right after perf's comm");
	CHECK_INTEQ(nstacks(out, 2), 1, "only the annotated perf stacks");
	CHECK_INTEQ(stack_count(out, 3, "nginx;main"), 9,
	    "perf-only pid keeps perf's stacks");
	CHECK_INTEQ(stack_count(out, 4, "python;m;h"), 7,
	    "absent from perf, normal: unscaled");
	CHECK_INTEQ(nstacks(out, 5), 0, "P=0 error/skip: dropped");
	CHECK_INTEQ(stack_count(out, 6, "ruby;main"), 2,
	    "empty runtime result: perf's stacks unchanged");
	CHECK_STREQ(profile_pid_appid(out, 6), "ruby: x.rb",
	    "empty runtime result: its appid applies to perf's stacks");
	profile_free(out);

	out = merge_profiles(sys, rts, 1, rng_const, &down);
	CHECK_INTEQ(stack_count(out, 1, "python;mod;f"), 7,
	    "7.5 rounded down (rng 0.999)");
	CHECK_INTEQ(stack_count(out, 1, "python;mod;g"), 2,
	    "2.5 rounded down (rng 0.999)");
	profile_free(out);

	/* Runtime container wins over perf's. */
	profile_set_container(rt, 1, "rt-container");
	out = merge_profiles(sys, rts, 1, rng_const, &up);
	CHECK_STREQ(profile_pid_container(out, 1), "rt-container",
	    "runtime container kept");
	profile_free(out);
	profile_free(sys);
	profile_free(rt);
}

static void
test_p_zero_and_ratio_one(void)
{
	struct profile *sys = profile_new(), *rt = profile_new(), *out;
	const struct profile *rts[1] = { rt };
	double half = 0.5;
	int i;
	char fn[16];

	/* P exactly equals R: ratio 1, counts unchanged whatever the rng. */
	add(sys, 1, "p", "a", NULL, 5);
	add(rt, 1, "p", "x", NULL, 2);
	add(rt, 1, "p", "y", NULL, 3);
	/* P = 1, R = 100 over 100 stacks: 0.01 each, rounded down to 0. */
	add(sys, 2, "q", "a", NULL, 1);
	for (i = 0; i < 100; i++) {
		snprintf(fn, sizeof(fn), "f%d", i);
		add(rt, 2, "q", fn, NULL, 1);
	}
	/* PID seen by perf with 0 samples is "P = 0". */
	profile_set_container(sys, 3, "c3");
	add(rt, 3, "r", "z", NULL, 4);
	out = merge_profiles(sys, rts, 1, rng_const, &half);
	CHECK_INTEQ(stack_count(out, 1, "p;x"), 2, "ratio 1: unchanged");
	CHECK_INTEQ(stack_count(out, 1, "p;y"), 3, "ratio 1: unchanged (2)");
	CHECK_INTEQ(nstacks(out, 2), 0, "stacks reaching 0 are removed");
	CHECK_INTEQ(stack_count(out, 3, "r;z"), 4, "P = 0: unscaled");
	CHECK_STREQ(profile_pid_container(out, 3), "c3",
	    "container fallback for a P = 0 pid");
	profile_free(out);
	profile_free(sys);
	profile_free(rt);
}

static void
test_perf_disabled(void)
{
	struct profile *a = profile_new(), *b = profile_new(), *out;
	const struct profile *rts[3] = { a, NULL, b };
	double up = 0.0;

	add(a, 1, "python", "m", "f", 3);
	profile_set_error(a, 2, "python", GP_PID_ERROR, "went down");
	add(b, 3, "java", "Main.main", NULL, 100);
	add(b, 1, "python", "m", "f", 2);	/* same pid, other profiler */
	out = merge_profiles(NULL, rts, 3, rng_const, &up);
	CHECK_INTEQ(stack_count(out, 1, "python;m;f"), 5,
	    "perf disabled: concatenated, unscaled");
	CHECK_INTEQ(stack_count(out, 2, "python;[Profiling error: went down]"),
	    1, "error result is its own stack, count 1");
	CHECK_INTEQ(stack_count(out, 3, "java;Main.main"), 100,
	    "counts not rescaled across profilers");
	CHECK_INTEQ(profile_total(out), 106, "total");
	profile_free(out);
	profile_free(a);
	profile_free(b);
}

/* The expected value of stochastic rounding equals count × ratio. */
static void
test_stochastic(void)
{
	unsigned short seed[3] = { 0x1234, 0x5678, 0x9abc };
	const int N = 200000;
	double sum, mean, sd;
	uint64_t v, lo = UINT64_MAX, hi = 0;
	int i;

	sum = 0;
	for (i = 0; i < N; i++) {
		v = merge_scale(3, 0.3, rng_seeded, seed);
		sum += v;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	mean = sum / N;
	sd = sqrt(0.9 * 0.1 / N);
	CHECK(fabs(mean - 0.9) < 5 * sd,
	    "E[round(3 x 0.3)] = 0.9 within 5 sigma");
	CHECK(lo == 0 && hi == 1, "only floor or ceil");
	sum = 0;
	for (i = 0; i < N; i++)
		sum += merge_scale(7, 10.0 / 3.0, rng_seeded, seed);
	mean = sum / N;
	sd = sqrt((1.0 / 3) * (2.0 / 3) / N);
	CHECK(fabs(mean - 70.0 / 3.0) < 5 * sd,
	    "E[round(7 x 10/3)] = 23.33 within 5 sigma");
	CHECK_INTEQ(merge_scale(12, 1.0, rng_seeded, seed), 12, "ratio 1");
	CHECK_INTEQ(merge_scale(12, 0.5, rng_seeded, seed), 6,
	    "exact products are not perturbed");
	CHECK(merge_rng_default(NULL) >= 0 && merge_rng_default(NULL) < 1,
	    "default rng in [0, 1)");
}

/* A merged pid's total stays near P across many stacks. */
static void
test_total_preserved(void)
{
	unsigned short seed[3] = { 1, 2, 3 };
	struct profile *sys = profile_new(), *rt = profile_new(), *out;
	const struct profile *rts[1] = { rt };
	char fn[16];
	int i;
	double t;

	add(sys, 9, "w", "native", NULL, 5000);
	for (i = 0; i < 2000; i++) {
		snprintf(fn, sizeof(fn), "f%d", i);
		add(rt, 9, "w", fn, NULL, 1 + i % 5);	/* R = 6000 */
	}
	out = merge_profiles(sys, rts, 1, rng_seeded, seed);
	t = (double)profile_pid_total(out, 9);
	/* Var ≤ 2000 × 0.25: sd ≤ 22.4. */
	CHECK(fabs(t - 5000) < 5 * 22.4, "scaled total within 5 sigma of P");
	profile_free(out);
	profile_free(sys);
	profile_free(rt);
}

int
main(void)
{
	log_init(0, "test_merge");
	test_rows();
	test_p_zero_and_ratio_one();
	test_perf_disabled();
	test_stochastic();
	test_total_preserved();
	return (testing_done());
}
