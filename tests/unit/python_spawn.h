/*
 * Test and bench helper: find the interpreters this machine has (pyenv's
 * builds and Debian's static python3.11) and start one on a workload that
 * prints "ready" once its threads run.
 */
#ifndef GP_PYTHON_SPAWN_H
#define GP_PYTHON_SPAWN_H

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct py_interp {
	const char *label;
	char path[512];
};

static const char *const py_spawn_versions[][2] = {
	{ "3.8", "3.8.18" }, { "3.9", "3.9.18" }, { "3.10", "3.10.13" },
	{ "3.11", "3.11.7" }, { "3.12", "3.12.1" }, { "3.13", "3.13.0" },
};

/* Fills up to max interpreters that exist; returns how many. */
static inline int
py_spawn_find(struct py_interp *out, int max)
{
	const char *root = getenv("PYENV_ROOT");
	char def[256];
	size_t i;
	int n = 0;

	if (root == NULL) {
		snprintf(def, sizeof(def), "%s/.pyenv",
		    getenv("HOME") ? getenv("HOME") : "/root");
		root = def;
	}
	for (i = 0; i < sizeof(py_spawn_versions) /
	    sizeof(py_spawn_versions[0]) && n < max; i++) {
		out[n].label = py_spawn_versions[i][0];
		snprintf(out[n].path, sizeof(out[n].path),
		    "%s/versions/%s/bin/python%s", root,
		    py_spawn_versions[i][1], py_spawn_versions[i][0]);
		if (access(out[n].path, X_OK) == 0)
			n++;
	}
	if (n < max && access("/usr/bin/python3.11", X_OK) == 0) {
		out[n].label = "3.11-debian";
		snprintf(out[n].path, sizeof(out[n].path),
		    "/usr/bin/python3.11");
		n++;
	}
	return (n);
}

/* Start argv and wait (timeout_ms) for a "ready" line; -1 on failure. */
static inline pid_t
py_spawn(char *const argv[], int timeout_ms)
{
	char buf[256];
	size_t len = 0;
	struct pollfd pfd;
	int p[2];
	pid_t pid;
	ssize_t n;

	if (pipe(p) != 0)
		return (-1);
	if ((pid = fork()) < 0)
		return (-1);
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	while (len < sizeof(buf) - 1 && poll(&pfd, 1, timeout_ms) > 0) {
		if ((n = read(p[0], buf + len, sizeof(buf) - 1 - len)) <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "ready\n") != NULL) {
			close(p[0]);
			return (pid);
		}
	}
	close(p[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return (-1);
}

static inline void
py_spawn_kill(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* The line of the first "# <marker>" comment in file, or -1. */
static inline int
py_spawn_marker_line(const char *file, const char *marker)
{
	char line[1024], want[128];
	FILE *f;
	int n = 0;

	snprintf(want, sizeof(want), "# %s", marker);
	if ((f = fopen(file, "r")) == NULL)
		return (-1);
	while (fgets(line, sizeof(line), f) != NULL) {
		n++;
		if (strstr(line, want) != NULL) {
			fclose(f);
			return (n);
		}
	}
	fclose(f);
	return (-1);
}

#endif
