/*
 * Process-level start-up: privileges, the single-instance lock, the pid
 * file, resource limits (docs/specs/gprofiler-compat.md §1.5).
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "config/configuration.h"

static int daemon_lock_fd = -1;
static char *daemon_pidfile;

/*
 * One agent per host: an abstract unix socket, like gProfiler's
 * "\0gprofiler_lock", so a crashed agent never leaves a stale lock.
 * GPROFILER_LOCK_NAME lets tests run agents side by side.
 */
int
daemon_lock(char *err, size_t errlen)
{
	struct sockaddr_un sun;
	const char *name = getenv("GPROFILER_LOCK_NAME");
	socklen_t len;
	int fd;

	if (name == NULL || *name == '\0')
		name = "gprofiler_lock";
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1, "%s", name);
	len = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		snprintf(err, errlen, "single-instance lock: socket: %s",
		    strerror(errno));
		return (-errno);
	}
	if (bind(fd, (struct sockaddr *)&sun, len) == -1) {
		if (errno == EADDRINUSE)
			snprintf(err, errlen, "another gprofiler is already "
			    "running on this host (lock \"@%s\" is taken); "
			    "stop it first", name);
		else
			snprintf(err, errlen, "single-instance lock: %s",
			    strerror(errno));
		close(fd);
		return (-EADDRINUSE);
	}
	daemon_lock_fd = fd;
	return (0);
}

/* Write our PID (atomically); a failure is only logged. */
void
daemon_write_pidfile(const char *path)
{
	char buf[32];
	int n, rc;

	if (path == NULL || *path == '\0')
		return;
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if ((rc = file_write_atomic(AT_FDCWD, path, buf, n, 0644)) != 0) {
		log_warnx("pid file %s: %s", path, strerror(-rc));
		return;
	}
	free(daemon_pidfile);
	daemon_pidfile = xstrdup(path);
}

void
daemon_cleanup(void)
{
	if (daemon_pidfile != NULL) {
		unlink(daemon_pidfile);
		free(daemon_pidfile);
		daemon_pidfile = NULL;
	}
	if (daemon_lock_fd != -1)
		close(daemon_lock_fd);
	daemon_lock_fd = -1;
}

/* Whether we run in the init PID namespace (gProfiler's pidns check). */
static int
daemon_in_init_pidns(void)
{
	char self[64] = "", init[64] = "";

	if (readlink("/proc/self/ns/pid", self, sizeof(self) - 1) == -1 ||
	    readlink("/proc/1/ns/pid", init, sizeof(init) - 1) == -1)
		return (1);	/* cannot tell: do not refuse */
	return (strcmp(self, init) == 0);
}

/* Preconditions: 0, or -errno with the reason (exit 1). */
int
daemon_check_environment(const struct config *cfg, char *err, size_t errlen)
{
	struct rlimit rl = { 0, 0 };
	int rootless = config_get_bool(cfg, "rootless");

	if (!rootless && geteuid() != 0) {
		snprintf(err, errlen, "gprofiler must run as root (or pass "
		    "--rootless with --pids for your own processes)");
		return (-EPERM);
	}
	if (rootless && geteuid() == 0) {
		snprintf(err, errlen, "--rootless was given but gprofiler runs "
		    "as root; drop --rootless");
		return (-EPERM);
	}
	if (!config_get_bool(cfg, "disable-pidns-check") &&
	    !daemon_in_init_pidns()) {
		snprintf(err, errlen, "gprofiler runs in a child PID namespace "
		    "and would see only part of the host; run it with the "
		    "host's PID namespace (docker --pid=host) or pass "
		    "--disable-pidns-check");
		return (-EPERM);
	}
	umask(022);
	if (!config_get_bool(cfg, "dont-disable-core-files"))
		setrlimit(RLIMIT_CORE, &rl);
	return (0);
}
