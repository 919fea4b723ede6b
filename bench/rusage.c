/*
 * Run a command and print the CPU seconds (user + system, its waited-for
 * children included) and the peak RSS of it and its children:
 *
 *	rusage OUTFILE CMD [ARG]...	-> OUTFILE: "cpu_seconds max_rss_kb"
 *
 * GNU time prints CPU time in 10 ms steps, too coarse for an agent that
 * spends tens of milliseconds a minute; getrusage gives microseconds (the
 * kernel's precise runtime, split between user and system by ticks, so
 * the sum is exact).  The command's stdout and stderr are left alone.
 */
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct rusage ru;
	FILE *f;
	pid_t pid;
	int st;

	if (argc < 3) {
		fprintf(stderr, "usage: rusage OUTFILE CMD [ARG]...\n");
		return (2);
	}
	if ((pid = fork()) < 0) {
		perror("rusage: fork");
		return (2);
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "rusage: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			perror("rusage: waitpid");
			return (2);
		}
	if (getrusage(RUSAGE_CHILDREN, &ru) != 0 ||
	    (f = fopen(argv[1], "w")) == NULL) {
		perror("rusage");
		return (2);
	}
	fprintf(f, "%.6f %ld\n", ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6, ru.ru_maxrss);
	fclose(f);
	return (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}
