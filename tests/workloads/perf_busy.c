/*
 * A CPU-bound workload with known shares: main -> busy_run -> busy_round
 * -> hot_fifty / hot_thirty / hot_twenty, which burn 50%, 30% and 20% of
 * its CPU time: every call runs the same loop for the same count, and each
 * round picks the function at random with probabilities 5:3:2.  A fixed
 * call order would repeat with a period close to the sampling period and
 * alias with it (a 499 Hz timer against a ~2 ms round skews the shares by
 * several points).  Built with frame pointers; used by the perf plugin's
 * tests and the benchmark.
 *
 *	perf_busy [-t seconds] [-j threads]	(default 10 s, 1 thread)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE	__attribute__((noinline))
#define UNIT		20000	/* iterations per share point */

volatile uint64_t busy_sink;

static inline __attribute__((always_inline)) uint64_t
busy_spin(uint64_t n, uint64_t x)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return (x);
}

/*
 * The hot functions call this so they are not leaves: GCC sets up no
 * frame pointer in a leaf that needs no stack, which would hide their
 * caller from a frame-pointer unwinder.
 */
NOINLINE void
busy_note(uint64_t x)
{
	busy_sink = x;
}

NOINLINE uint64_t
hot_fifty(uint64_t x)
{
	x = busy_spin(10 * UNIT, x);
	busy_note(x);
	return (x + 1);
}

NOINLINE uint64_t
hot_thirty(uint64_t x)
{
	x = busy_spin(10 * UNIT, x);
	busy_note(x);
	return (x + 1);
}

NOINLINE uint64_t
hot_twenty(uint64_t x)
{
	x = busy_spin(10 * UNIT, x);
	busy_note(x);
	return (x + 1);
}

NOINLINE uint64_t
busy_round(uint64_t x)
{
	/* xorshift: cheap, and independent of the timer. */
	static __thread uint64_t rng = 0x9e3779b97f4a7c15ull;
	unsigned pick;

	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	pick = (unsigned)(rng % 10);
	if (pick < 5)
		x = hot_fifty(x);
	else if (pick < 8)
		x = hot_thirty(x);
	else
		x = hot_twenty(x);
	busy_sink = x;
	return (x + 1);
}

static double
busy_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec + ts.tv_nsec / 1e9);
}

static double busy_seconds = 10;

NOINLINE void *
busy_run(void *arg)
{
	double end = busy_now() + busy_seconds;
	uint64_t x = (uintptr_t)arg;

	while (busy_now() < end)
		x = busy_round(x);
	busy_sink = x;
	return (NULL);
}

int
main(int argc, char **argv)
{
	pthread_t tids[64];
	int c, i, nthreads = 1;

	while ((c = getopt(argc, argv, "t:j:")) != -1) {
		switch (c) {
		case 't':
			busy_seconds = atof(optarg);
			break;
		case 'j':
			nthreads = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: perf_busy [-t sec] [-j n]\n");
			return (2);
		}
	}
	if (nthreads < 1 || nthreads > 64)
		nthreads = 1;
	for (i = 1; i < nthreads; i++)
		pthread_create(&tids[i], NULL, busy_run, (void *)(uintptr_t)i);
	busy_run(NULL);
	for (i = 1; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	return (0);
}
