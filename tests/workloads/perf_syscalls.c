/*
 * A syscall-heavy workload: most of its CPU time is in the kernel
 * (reading /dev/zero into a large buffer: clear_user and friends), so
 * kernel frames must show up on top of syscall_loop's user frames.
 *
 *	perf_syscalls [-t seconds]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 20];

__attribute__((noinline)) void
syscall_loop(int fd, double end)
{
	struct timespec ts;

	do {
		if (read(fd, buf, sizeof(buf)) < 0)
			exit(1);
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}

int
main(int argc, char **argv)
{
	struct timespec ts;
	double secs = 5;
	int fd;

	if (argc > 2)
		secs = atof(argv[2]);
	if ((fd = open("/dev/zero", O_RDONLY)) < 0)
		return (1);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	syscall_loop(fd, ts.tv_sec + ts.tv_nsec / 1e9 + secs);
	return (0);
}
