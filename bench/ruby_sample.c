/*
 * Cost of one Ruby stack sample (ruby_walk_stack over process_vm_readv:
 * the VM, ractor and execution context, each control frame, its iseq body,
 * label and path strings and line table, formatting) on a live ruby
 * spinning at the bottom of a 20- and a 100-frame stack (the first
 * sample's frames printed, all of them with RUBY_SAMPLE_ALL set), then on
 * a 20-frame stack a third of which are C function frames (named from the
 * VM's symbol table).
 * Target (issue 16): <= 50 us for 20 frames.
 *	bench/ruby_sample [samples]	(top_srcdir in the environment)
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "python_spawn.h"
#include "ruby_target.h"
#include "base/safeopen.h"

static int
count(void *arg, const char *text)
{
	(void)text;
	(*(uint32_t *)arg)++;
	return (0);
}

/* The first sample's frames, leaf first, to see what is measured. */
static int
show(void *arg, const char *text)
{
	uint32_t *k = arg;

	if ((*k)++ < 4 || getenv("RUBY_SAMPLE_ALL") != NULL)
		printf("  %s\n", text);
	return (0);
}

static double
now_us(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ((double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3);
}

static void
bench_one(const char *ruby, const char *srcdir, int frames, int via_c,
    int samples)
{
	char script[PATH_MAX], depth[16], why[256];
	char *argv[] = { (char *)ruby, script, depth, via_c ? "c" : NULL,
	    NULL };
	struct ruby_target t = { 0 };
	double t0, t1, c0, c1;
	uint32_t n = 0, seen;
	uint64_t reads;
	int i, fails = 0;
	pid_t pid;

	snprintf(script, sizeof(script), "%s/tests/workloads/ruby_deep.rb",
	    srcdir);
	/* <main> + recurse(depth .. 0) + spin = depth + 3 frames; through
	 * C functions, 3 frames a level. */
	snprintf(depth, sizeof(depth), "%d", via_c ? (frames - 3) / 3 :
	    frames - 3);
	if ((pid = py_spawn(argv, 15000)) < 0) {
		printf("%d frames: cannot start %s\n", frames, ruby);
		return;
	}
	if (ruby_target_attach(pid, &t, why, sizeof(why)) != 0) {
		printf("%d frames: attach failed: %s\n", frames, why);
		goto out;
	}
	n = 0;
	ruby_target_begin(&t);
	if (ruby_walk_stack(&t.mem, &t.off, t.root, RUBY_MAX_FRAMES, t.fcache,
	    show, &n, &seen) != 0)
		printf("first sample failed\n");
	reads = t.pg.nreads;
	t0 = now_us(CLOCK_MONOTONIC);
	c0 = now_us(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < samples; i++) {
		n = 0;
		ruby_target_begin(&t);
		if (ruby_walk_stack(&t.mem, &t.off, t.root, RUBY_MAX_FRAMES,
		    t.fcache, count, &n, &seen) != 0)
			fails++;
	}
	c1 = now_us(CLOCK_PROCESS_CPUTIME_ID);
	t1 = now_us(CLOCK_MONOTONIC);
	printf("Ruby %d.%d.%d, %u frames%s: %.1f us CPU per sample (%.1f us "
	    "wall), %.1f reads per sample, %d of %d failed\n", t.ver.major,
	    t.ver.minor, t.ver.patch, n, via_c ? " (a third C functions)" : "", (c1 - c0) / samples, (t1 - t0) /
	    samples, (double)(t.pg.nreads - reads) / samples, fails, samples);
out:
	ruby_target_release(&t);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int
main(int argc, char **argv)
{
	const char *srcdir = getenv("top_srcdir");
	const char *ruby = "/usr/bin/ruby";
	int samples = argc > 1 ? atoi(argv[1]) : 2000;

	if (srcdir == NULL)
		srcdir = ".";
	if (access(ruby, X_OK) != 0) {
		printf("no %s: nothing to measure\n", ruby);
		return (0);
	}
	/* as the daemon offers it */
	langproc_set_opener(safeopen_open_cb, NULL);
	if (samples <= 0)
		samples = 2000;
	bench_one(ruby, srcdir, 20, 0, samples);
	bench_one(ruby, srcdir, 100, 0, samples);
	bench_one(ruby, srcdir, 20, 1, samples);
	return (0);
}
