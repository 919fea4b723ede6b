/*
 * What the runtime readers' ELF reads cost in one loop callback: each file
 * read as the Ruby, Python and PHP readers read an interpreter's image
 * (their symbols, build-id, version bytes), timed, the worst of a few runs
 * (the first one also from a cold page cache when run as root after
 * "echo 1 > /proc/sys/vm/drop_caches").  A hostile file is bounded by the
 * reader's budget (tests/workloads/hostile_elf.py writes those).
 *	bench/elf_read FILE...
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elfbad.h"
#include "elfread.h"
#include "phpreader.h"
#include "pyreader.h"
#include "rubyreader.h"

#define RUNS	5

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec * 1e3 + ts.tv_nsec / 1e6);
}

static int
read_as(int kind, int fd)
{
	struct ruby_elf re;
	struct py_elf pe;
	struct php_elf he;

	switch (kind) {
	case 0:
		return (ruby_elf_read_fd(fd, &re));
	case 1:
		return (py_elf_read_fd(fd, &pe));
	default:
		return (php_elf_read_fd(fd, &he));
	}
}

int
main(int argc, char **argv)
{
	static const char *const kinds[] = { "ruby", "python", "php" };
	double t, worst, best;
	uint64_t b0, r0, b1, r1;
	int i, k, r, fd, rc, status = 0;

	for (i = 1; i < argc; i++) {
		if ((fd = open(argv[i], O_RDONLY | O_CLOEXEC)) < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			status = 1;
			continue;
		}
		for (k = 0; k < 3; k++) {
			worst = 0;
			best = 1e9;
			elfread_spent(&b0, &r0);
			for (r = 0; r < RUNS; r++) {
				/* measured, not remembered: a bad file is
				 * otherwise answered without a read */
				elfbad_clear();
				elfread_turn_clear();
				t = now_ms();
				rc = read_as(k, fd);
				t = now_ms() - t;
				if (t > worst)
					worst = t;
				if (t < best)
					best = t;
			}
			elfread_spent(&b1, &r1);
			printf("%-6s %6.2f-%6.2f ms %5llu reads %8llu bytes  "
			    "%s (%s)\n", kinds[k], best, worst,
			    (unsigned long long)(r1 - r0) / RUNS,
			    (unsigned long long)(b1 - b0) / RUNS, argv[i],
			    rc == 0 ? "read" : elfread_strerror(rc));
		}
		close(fd);
	}
	return (status);
}
