/*
 * What the Node.js plugin reads of one process before it attaches: its
 * /proc files through the host's safe open, whether it runs node, its
 * start time (the identity a pid alone is not), why it must be left
 * alone, and its /tmp as it resolves it.
 */
#include "config.h"

#include <sys/syscall.h>
#include <sys/types.h>

#include <linux/openat2.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "nj_proto.h"
#include "nj_int.h"

/* A /proc file of pid through the host's safe open, NUL-terminated:
 * its length or -errno. */
int64_t
nj_read_proc(struct nj *n, int32_t pid, const char *what)
{
	struct gp_open_spec spec;
	char path[64];
	int64_t got;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	spec = (struct gp_open_spec){
		.size = sizeof(spec),
		.path = path,
		.owner = -1,
	};
	got = n->api->file_read(n->ctx, &spec, n->rbuf, NJ_READ_MAX - 1);
	if (got >= 0)
		n->rbuf[got] = '\0';
	return (got);
}

/* Whether pid runs a node binary (the comm may be a process.title). */
int
nj_is_node(int32_t pid)
{
	char path[64], exe[PATH_MAX];
	ssize_t len;
	char *b;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((len = readlink(path, exe, sizeof(exe) - 1)) <= 0)
		return (0);
	exe[len] = '\0';
	if ((b = strstr(exe, " (deleted)")) != NULL)
		*b = '\0';
	b = strrchr(exe, '/');
	b = b == NULL ? exe : b + 1;
	return (strcmp(b, "node") == 0 || strcmp(b, "nodejs") == 0);
}

void
nj_comm(struct nj *n, int32_t pid, char *out, size_t len)
{
	snprintf(out, len, "?");
	if (nj_read_proc(n, pid, "comm") > 0) {
		n->rbuf[strcspn(n->rbuf, "\n")] = '\0';
		snprintf(out, len, "%s", n->rbuf);
	}
}

/* Why pid must be left alone (a line), or NULL to attach. */
const char *
nj_reason(struct nj *n, int32_t pid, int *quiet)
{
	int64_t got;
	int r;

	*quiet = 0;
	if ((got = nj_read_proc(n, pid, "cmdline")) < 0)
		return ("its command line cannot be read");
	r = nj_args_check(n->rbuf, (size_t)got, 0);
	if (r == NJ_ARGS_PLAIN && (got = nj_read_proc(n, pid, "environ")) >= 0)
		r = nj_args_check(n->rbuf, (size_t)got, 1);
	if (r == NJ_ARGS_PERFMAP) {
		*quiet = 1;
		return ("it writes its perf map itself (--perf-basic-prof)");
	}
	if (r == NJ_ARGS_INSPECT)
		return ("its user enabled the inspector (--inspect or "
		    "--debug-port in its command line or NODE_OPTIONS), "
		    "which this agent does not take over");
	if (((got = nj_read_proc(n, pid, "net/tcp")) > 0 &&
	    nj_tcp_listening(n->rbuf, (size_t)got, NJ_INSPECT_PORT)) ||
	    ((got = nj_read_proc(n, pid, "net/tcp6")) > 0 &&
	    nj_tcp_listening(n->rbuf, (size_t)got, NJ_INSPECT_PORT)))
		return ("port 9229 is already in use in its network "
		    "namespace");
	return (NULL);
}

/* The target's /tmp as it resolves it (inside its root), held while its
 * helper runs: what the helper copies there is removed through it even
 * if the helper was killed and the target died.  O_PATH: nothing is
 * opened, no FIFO or device is touched. */
int
nj_open_tmp(int32_t pid)
{
	struct open_how how;
	char path[64];
	int rootfd, fd, e;

	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	if ((rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return (-errno);
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, rootfd, "tmp", &how, sizeof(how));
	if (fd == -1 && errno == ENOSYS)
		fd = openat(rootfd, "tmp", O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	e = errno;
	close(rootfd);
	return (fd == -1 ? -e : fd);
}
