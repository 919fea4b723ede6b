/*
 * A workload whose page faults and CPU time are in different functions:
 * burn_cpu spins (most of the CPU time, no faults), fault_pages maps fresh
 * anonymous memory and touches every page (nearly every page fault, little
 * CPU).  Sampling on page-faults must put fault_pages on top; sampling on
 * cpu-clock, burn_cpu.
 *
 *	perf_faults [-t seconds]
 */
#include <sys/mman.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FAULT_BYTES	(1u << 20)	/* 256 pages a round */

static volatile unsigned long sink;

__attribute__((noinline)) void
burn_cpu(void)
{
	unsigned long i, x = 1;

	for (i = 0; i < 40000000; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	sink = x;
}

__attribute__((noinline)) void
fault_pages(void)
{
	char *p;
	size_t off;

	p = mmap(NULL, FAULT_BYTES, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	/* one fault a page, not one a huge page */
	(void)madvise(p, FAULT_BYTES, MADV_NOHUGEPAGE);
	for (off = 0; off < FAULT_BYTES; off += 4096)
		p[off] = (char)off;
	sink += (unsigned long)p[4096];
	munmap(p, FAULT_BYTES);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec + ts.tv_nsec / 1e9);
}

int
main(int argc, char **argv)
{
	double end, secs = 5;

	if (argc > 2 && strcmp(argv[1], "-t") == 0)
		secs = atof(argv[2]);
	end = now() + secs;
	while (now() < end) {
		burn_cpu();
		fault_pages();
	}
	return (0);
}
