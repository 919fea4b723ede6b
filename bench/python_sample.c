/*
 * Cost of one Python stack sample (the whole py_target_sample: thread
 * states, /proc state check, frame walk, code cache, formatting) on a live
 * interpreter spinning at the bottom of a 20- and a 100-frame stack.
 * Target (issue 7): <= 50 us for 20 frames.
 *	bench/python_sample [samples]	(top_srcdir in the environment)
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "python_spawn.h"
#include "py_target.h"
#include "base/safeopen.h"

struct depth {
	uint32_t frames;
	uint32_t stacks;
};

static void
count(void *arg, struct py_target *t, int32_t tid, const char *const *f,
    uint32_t n)
{
	struct depth *d = arg;

	d->frames = n;
	d->stacks++;
}

static double
now_us(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ((double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3);
}

static void
bench_one(const struct py_interp *pi, const char *srcdir, int frames,
    int samples)
{
	char script[PATH_MAX], depth[16], why[256];
	char *argv[] = { (char *)pi->path, script, depth, NULL };
	struct depth d = { 0 };
	struct py_target t;
	double t0, t1, c0, c1;
	uint64_t reads;
	uint32_t nth;
	int i, fails = 0;
	pid_t pid;

	snprintf(script, sizeof(script), "%s/tests/workloads/py_deep.py",
	    srcdir);
	/* <module> + recurse(depth .. 0) + spin = depth + 3 frames. */
	snprintf(depth, sizeof(depth), "%d", frames - 3);
	if ((pid = py_spawn(argv, 15000)) < 0 ||
	    py_target_attach(pid, &t, why, sizeof(why)) != 0) {
		printf("%-12s %3d frames: cannot start/attach\n", pi->label,
		    frames);
		py_spawn_kill(pid);
		return;
	}
	for (i = 0; i < 50; i++)	/* warm the code cache */
		py_target_sample(&t, count, &d, &nth);
	reads = t.mem.nreads;
	d.stacks = 0;
	t0 = now_us(CLOCK_MONOTONIC);
	c0 = now_us(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < samples; i++)
		if (py_target_sample(&t, count, &d, &nth) != 0)
			fails++;
	c1 = now_us(CLOCK_PROCESS_CPUTIME_ID);
	t1 = now_us(CLOCK_MONOTONIC);
	/* CPU time is what the agent pays; wall time includes waiting for
	 * a CPU on a loaded machine. */
	printf("%-12s %3u frames: %6.1f us/sample CPU, %6.1f us wall, "
	    "%4.1f remote reads/sample, %u/%d stacks, %d failed\n",
	    pi->label, d.frames, (c1 - c0) / samples, (t1 - t0) / samples,
	    (double)(t.mem.nreads - reads) / samples, d.stacks, samples,
	    fails);
	py_target_release(&t);
	py_spawn_kill(pid);
}

int
main(int argc, char **argv)
{
	struct py_interp interps[8];
	const char *srcdir = getenv("top_srcdir");
	int i, n, samples = argc > 1 ? atoi(argv[1]) : 2000;

	if (srcdir == NULL)
		srcdir = ".";
	py_set_opener(safeopen_open_cb, NULL);	/* as the daemon offers it */
	if (samples <= 0)
		samples = 2000;
	n = py_spawn_find(interps, 8);
	for (i = 0; i < n; i++) {
		bench_one(&interps[i], srcdir, 20, samples);
		bench_one(&interps[i], srcdir, 100, samples);
	}
	return (n > 0 ? 0 : 1);
}
