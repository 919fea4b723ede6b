/*
 * What the safe open (core/base/safeopen.c) costs the agent for the files
 * it opens most: a process's /proc/PID/stat, its own and another's, and a
 * file under a path of the host's root.  CPU per open (user + system,
 * getrusage), the file opened and closed N times:
 *
 *	bench/safeopen_cost [N]		(20000)
 *
 * Figures in docs/PERFORMANCE.md.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "base/safeopen.h"
#include "cpu_us.h"

static void
one(const char *what, const char *path, int n)
{
	struct gp_open_spec sp;
	double t0;
	int i, fd, failed = 0;

	memset(&sp, 0, sizeof(sp));
	sp.size = sizeof(sp);
	sp.path = path;
	sp.max_size = 1 << 20;
	t0 = cpu_us();
	for (i = 0; i < n; i++) {
		if ((fd = safeopen_open(&sp, NULL)) < 0)
			failed++;
		else
			close(fd);
	}
	printf("%-28s %8.1f us/open%s\n", what, (cpu_us() - t0) / n,
	    failed > 0 ? " (some failed)" : "");
}

int
main(int argc, char **argv)
{
	char path[64];
	int n = argc > 1 ? atoi(argv[1]) : 20000;

	if (n <= 0)
		n = 20000;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)getpid());
	one("/proc/PID/stat (its own)", path, n);
	one("/proc/1/stat", "/proc/1/stat", n);
	one("/etc/hostname", "/etc/hostname", n);
	return (0);
}
