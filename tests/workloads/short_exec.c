/*
 * A short-lived CPU-bound program for the fork+exec workload
 * (tests/workloads/exec_loop.sh starts dozens a second): main -> short_mid
 * -> short_leaf, busy for a given number of milliseconds of CPU time, 60%
 * of it in short_leaf and 40% in short_mid itself.  Built with frame
 * pointers so every sampler sees the whole chain.
 *
 *	short_exec [ms]		(default 50)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE	__attribute__((noinline))
#define CHUNK		20000	/* iterations between clock reads */

volatile uint64_t short_sink;

static inline __attribute__((always_inline)) uint64_t
short_spin(uint64_t n, uint64_t x)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return (x);
}

/* Keeps the busy functions from being leaves (which get no frame). */
NOINLINE void
short_note(uint64_t x)
{
	short_sink = x;
}

NOINLINE uint64_t
short_leaf(uint64_t x)
{
	x = short_spin(3 * CHUNK, x);
	short_note(x);
	return (x);
}

static double
short_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (ts.tv_sec * 1e3 + ts.tv_nsec / 1e6);
}

/* 2 units of its own work per 3 in short_leaf: 40/60. */
NOINLINE uint64_t
short_mid(double ms)
{
	uint64_t x = 1;
	double end = short_cpu_ms() + ms;

	while (short_cpu_ms() < end) {
		x = short_spin(2 * CHUNK, x);
		short_note(x);
		x = short_leaf(x);
	}
	return (x);
}

int
main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 50;

	short_sink = short_mid(ms > 0 ? ms : 50);
	return (0);
}
