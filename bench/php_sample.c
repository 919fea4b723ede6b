/*
 * Cost of one PHP stack sample (php_walk_stack over process_vm_readv:
 * executor globals, each execute_data, function, class and file strings,
 * formatting) on a live PHP CLI spinning at the bottom of a 20- and a
 * 100-frame stack.  Target (issue 16): <= 50 us for 20 frames.
 *	bench/php_sample [samples]	(top_srcdir in the environment)
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
#include "php_target.h"
#include "base/safeopen.h"

static int
count(void *arg, const char *text)
{
	(void)text;
	(*(uint32_t *)arg)++;
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
bench_one(const char *php, const char *srcdir, int frames, int samples)
{
	char script[PATH_MAX], depth[16], why[256];
	char *argv[] = { (char *)php, script, depth, NULL };
	struct php_target t = { 0 };
	double t0, t1, c0, c1;
	uint32_t n = 0, seen;
	uint64_t reads;
	int i, fails = 0;
	pid_t pid;

	snprintf(script, sizeof(script), "%s/tests/workloads/php_deep.php",
	    srcdir);
	/* <main> + recurse(depth .. 0) + spin = depth + 3 frames. */
	snprintf(depth, sizeof(depth), "%d", frames - 3);
	if ((pid = py_spawn(argv, 15000)) < 0) {
		printf("%d frames: cannot start %s\n", frames, php);
		return;
	}
	if (php_target_attach(pid, &t, why, sizeof(why)) != 0) {
		printf("%d frames: attach failed: %s\n", frames, why);
		goto out;
	}
	reads = t.pg.nreads;
	t0 = now_us(CLOCK_MONOTONIC);
	c0 = now_us(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < samples; i++) {
		n = 0;
		php_target_begin(&t);
		if (php_walk_stack(&t.mem, &t.off, t.eg, PHP_MAX_FRAMES,
		    t.fcache, count, &n, &seen) != 0)
			fails++;
	}
	c1 = now_us(CLOCK_PROCESS_CPUTIME_ID);
	t1 = now_us(CLOCK_MONOTONIC);
	printf("PHP %d.%d.%d, %u frames: %.1f us CPU per sample (%.1f us "
	    "wall), %.1f reads per sample, %d of %d failed\n", t.ver.major,
	    t.ver.minor, t.ver.patch, n, (c1 - c0) / samples, (t1 - t0) /
	    samples, (double)(t.pg.nreads - reads) / samples, fails, samples);
out:
	php_target_release(&t);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int
main(int argc, char **argv)
{
	const char *srcdir = getenv("top_srcdir");
	const char *php = "/usr/bin/php8.2";
	int samples = argc > 1 ? atoi(argv[1]) : 2000;

	if (srcdir == NULL)
		srcdir = ".";
	if (access(php, X_OK) != 0) {
		printf("no %s: nothing to measure\n", php);
		return (0);
	}
	langproc_set_opener(safeopen_open_cb, NULL);	/* as the daemon offers it */
	if (samples <= 0)
		samples = 2000;
	bench_one(php, srcdir, 20, samples);
	bench_one(php, srcdir, 100, samples);
	return (0);
}
