/*
 * The benchmarks' clock: this process's CPU time (user + system) in
 * microseconds, from getrusage -- the kernel's precise runtime, where
 * wall time would count the waits of a loaded host.
 */
#ifndef GP_BENCH_CPU_US_H
#define GP_BENCH_CPU_US_H

#include <sys/resource.h>

static inline double
cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((double)ru.ru_utime.tv_sec * 1e6 + (double)ru.ru_utime.tv_usec +
	    (double)ru.ru_stime.tv_sec * 1e6 + (double)ru.ru_stime.tv_usec);
}

#endif
