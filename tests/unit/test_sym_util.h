/*
 * Helpers for the symbolizer tests: run programs from argv arrays (no
 * shell strings), copy files, find an address's file offset in our maps.
 */
#ifndef TEST_SYM_UTIL_H
#define TEST_SYM_UTIL_H

#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* Run argv to completion; its exit status, or -1. */
static inline int
tsu_run(char *const argv[])
{
	pid_t pid;
	int st;

	if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) != 0)
		return (-1);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return (-1);
	return (WEXITSTATUS(st));
}

/* Start argv with pipes on stdin and stdout. */
static inline pid_t
tsu_spawn(char *const argv[], int *to_child, int *from_child)
{
	posix_spawn_file_actions_t fa;
	int in[2], out[2];
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
		return (-1);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	*to_child = in[1];
	*from_child = out[0];
	return (pid);
}

static inline int
tsu_copy(const char *from, const char *to, off_t limit)
{
	char buf[65536];
	ssize_t n;
	off_t total = 0;
	int in, out, r = 0;

	if ((in = open(from, O_RDONLY)) < 0)
		return (-1);
	if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755)) < 0) {
		close(in);
		return (-1);
	}
	while ((limit < 0 || total < limit) &&
	    (n = read(in, buf, sizeof(buf))) > 0) {
		if (limit >= 0 && total + n > limit)
			n = limit - total;
		if (write(out, buf, (size_t)n) != n)
			r = -1;
		total += n;
	}
	close(in);
	close(out);
	return (r);
}

/* Read one line "0x..." from fd. */
static inline uint64_t
tsu_read_addr(int fd)
{
	char buf[64];
	size_t n = 0;

	while (n < sizeof(buf) - 1 && read(fd, buf + n, 1) == 1 &&
	    buf[n] != '\n')
		n++;
	buf[n] = '\0';
	return (strtoull(buf, NULL, 16));
}

static inline char *
tsu_tmpdir(void)
{
	static char dir[] = "/tmp/test_sym.XXXXXX";

	return (mkdtemp(dir));
}

static inline void
tsu_rmtree(const char *dir)
{
	char *argv[] = { "rm", "-rf", (char *)dir, NULL };

	(void)tsu_run(argv);
}

#endif
