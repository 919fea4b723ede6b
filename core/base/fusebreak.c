/*
 * The event loop let go of a FUSE server that holds it: see fusebreak.h.
 *
 * Everything here runs in the stop guard's thread while the loop waits in
 * the kernel: no log call (the line goes back to the loop, which logs it
 * when it turns again), no state shared with the loop, and only files of
 * /proc and of the FUSE control filesystem read, which no user serves.
 */
#include "config.h"

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/vfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fusebreak.h"
#include "base/procfs.h"
#include "base/safeopen.h"
#include "fsguard.h"

#define FUSEBREAK_CTL_MAGIC	0x65735543	/* FUSE_CTL_SUPER_MAGIC */
#define FUSEBREAK_MOUNTINFO_MAX	(4u << 20)	/* the agent's own mounts */
#define FUSEBREAK_MAX_CONNS	4096	/* control directories looked at */

/* The control filesystem is there, mounted now if it was not (systemd
 * mounts it at boot; a minimal host or a container may not have). */
static int
fb_ctl_ready(void)
{
	struct statfs sf;

	if (statfs(FUSEBREAK_CTL, &sf) != 0)
		return (-errno);
	if ((uint32_t)sf.f_type == FUSEBREAK_CTL_MAGIC)
		return (0);
	if (mount("fusectl", FUSEBREAK_CTL, "fusectl", MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, NULL) != 0)
		return (-errno);
	return (0);
}

/* Connection conn aborted unless root mounted it: 1, -EPERM, -errno. */
static int
fb_abort(unsigned long conn, uid_t *owner)
{
	char path[96];
	struct stat st;
	int fd, rc = 1;

	snprintf(path, sizeof(path), FUSEBREAK_CTL "/%lu", conn);
	if (lstat(path, &st) != 0)
		return (-errno);
	*owner = st.st_uid;
	if (st.st_uid == 0)
		return (-EPERM);
	snprintf(path, sizeof(path), FUSEBREAK_CTL "/%lu/abort", conn);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return (-errno);
	if (write(fd, "1", 1) != 1)
		rc = -errno;
	close(fd);
	return (rc);
}

/* A mount table read from /proc: its text and its mounts. */
struct fb_mounts {
	char *text;
	struct fsguard_mount *m;
	uint32_t n;
};

/* The mount table at path (a /proc/PID/mountinfo) into t: 0 or -errno;
 * fb_mounts_free(t) either way. */
static int
fb_mounts_read(const char *path, struct fb_mounts *t)
{
	ssize_t len;

	memset(t, 0, sizeof(*t));
	if ((t->text = malloc(FUSEBREAK_MOUNTINFO_MAX)) == NULL)
		return (-ENOMEM);
	if ((len = procfs_read_buf(path, t->text,
	    FUSEBREAK_MOUNTINFO_MAX)) < 0)
		return ((int)len);
	t->n = fsguard_parse_mountinfo(t->text, (size_t)len, NULL, 0);
	if (t->n == 0 || (t->m = calloc(t->n, sizeof(*t->m))) == NULL)
		return (t->n == 0 ? -EINVAL : -ENOMEM);
	t->n = fsguard_parse_mountinfo(t->text, (size_t)len, t->m, t->n);
	return (0);
}

static void
fb_mounts_free(struct fb_mounts *t)
{
	free(t->m);
	free(t->text);
}

/* Mount mp of t, a FUSE one, named for the line: its connection. */
static unsigned long
fb_mount_conn(const struct fb_mounts *t, const struct fsguard_mount *mp,
    char *where, size_t wlen)
{
	snprintf(where, wlen, "%.*s", (int)(mp->pointlen < 200 ?
	    mp->pointlen : 200), t->text + mp->point);
	return (mp->dev);
}

/* The connection a descriptor of this process reads from (its mount's
 * device, which names the control directory): 0, -ENOENT if not FUSE. */
static int
fb_fd_conn(int fd, unsigned long *conn, char *where, size_t wlen)
{
	char path[64], info[512];
	const struct fsguard_mount *hit;
	struct fb_mounts t;
	ssize_t len;
	uint32_t id;
	int rc;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if ((len = procfs_read_buf(path, info, sizeof(info))) < 0)
		return ((int)len);
	if (fsguard_fdinfo_mnt_id(info, (size_t)len, &id) != 0)
		return (-EINVAL);
	if ((rc = fb_mounts_read("/proc/self/mountinfo", &t)) != 0)
		goto out;
	rc = -ENOENT;
	if ((hit = fsguard_by_id(t.m, t.n, id)) == NULL ||
	    strncmp(hit->fstype, "fuse", 4) != 0)
		goto out;
	*conn = fb_mount_conn(&t, hit, where, wlen);
	rc = 0;
out:
	fb_mounts_free(&t);
	return (rc);
}

/* Connection conn has requests its server has not answered. */
static int
fb_waiting(unsigned long conn)
{
	char path[96], num[32];

	snprintf(path, sizeof(path), FUSEBREAK_CTL "/%lu/waiting", conn);
	return (procfs_read_buf(path, num, sizeof(num)) > 0 &&
	    strtoul(num, NULL, 10) > 0);
}

/* Each connection with requests waiting that uid mounted, aborted: how
 * many (-errno if the control directory cannot be read). */
static int
fb_abort_waiting(uid_t uid, char *list, size_t llen)
{
	char path[96];
	struct dirent *de;
	struct stat st;
	unsigned long conn;
	uid_t owner;
	size_t off = 0;
	DIR *d;
	int n = 0, seen = 0;
	char *end;

	if ((d = opendir(FUSEBREAK_CTL)) == NULL)
		return (-errno);
	list[0] = '\0';
	while ((de = readdir(d)) != NULL && seen++ < FUSEBREAK_MAX_CONNS) {
		conn = strtoul(de->d_name, &end, 10);
		if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end != '\0')
			continue;
		snprintf(path, sizeof(path), FUSEBREAK_CTL "/%lu", conn);
		if (lstat(path, &st) != 0 || st.st_uid != uid ||
		    !fb_waiting(conn))
			continue;
		if (fb_abort(conn, &owner) == 1) {
			n++;
			if (off < llen)
				off += (size_t)snprintf(list + off, llen - off,
				    "%s%lu", n > 1 ? ", " : "", conn);
		}
	}
	closedir(d);
	return (n);
}

/* Which argument of system call nr names a path it looks up: -1 for a
 * call that looks up none. */
static int
fb_lookup_arg(long nr)
{
	switch (nr) {
	case SYS_openat:
	case SYS_newfstatat:
	case SYS_statx:
	case SYS_readlinkat:
	case SYS_faccessat:
#ifdef SYS_openat2
	case SYS_openat2:
#endif
#ifdef SYS_faccessat2
	case SYS_faccessat2:
#endif
		return (1);
#ifdef SYS_open
	case SYS_open:
	case SYS_stat:
	case SYS_lstat:
	case SYS_readlink:
	case SYS_access:
		return (0);
#endif
	}
	return (-1);
}

int
fusebreak_lookup_path(long nr, const unsigned long long a[6], char *out,
    size_t len)
{
	struct iovec local, remote;
	ssize_t n;
	int arg;

	out[0] = '\0';
	if ((arg = fb_lookup_arg(nr)) < 0 || len < 2)
		return (-EINVAL);
	local.iov_base = out;
	local.iov_len = len - 1;
	remote.iov_base = (void *)(uintptr_t)a[arg];
	remote.iov_len = len - 1;
	/* Up to an unmapped page, if one follows the string. */
	if ((n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0)) < 0)
		return (-errno);
	out[n] = '\0';
	return (0);
}

/*
 * The process whose files a look-up of path lp is for: the one the safe
 * open works for, else the PID of a path "/proc/PID/..."; 0 when neither
 * says.  *inroot: the path inside that process's root, when lp says it
 * (NULL for a step of a walk, relative to a directory).
 */
static int
fb_lookup_whose(const char *lp, const char **inroot)
{
	char *end;
	long pid;

	*inroot = NULL;
	if ((pid = safeopen_target()) > 0) {
		if (lp[0] == '/')
			*inroot = lp;	/* openat2 in its root */
		return ((int)pid);
	}
	if (strncmp(lp, "/proc/", 6) != 0)
		return (0);
	pid = strtol(lp + 6, &end, 10);
	if (end == lp + 6 || (*end != '/' && *end != '\0') || pid <= 0 ||
	    pid >= (1L << 22))
		return (0);
	if (strncmp(end, "/root/", 6) == 0)
		*inroot = end + 5;
	return ((int)pid);
}

/*
 * A look-up in pid's mount namespace held: the FUSE mount that path
 * inroot (inside pid's root) passes through, aborted if it has requests
 * waiting (another user's mount that also waits is not the loop's).  1,
 * or -EPERM for one of root's, with *conn and where set; 0 when the table
 * names none (a path the look-up does not tell, or a mount unmounted
 * lazily while the look-up waits in it); -errno.
 */
static int
fb_abort_path(int pid, const char *inroot, unsigned long *conn,
    char *where, size_t wlen)
{
	const struct fsguard_mount *bad = NULL;
	struct fb_mounts t;
	char path[64];
	uid_t owner;
	int rc;

	if (inroot == NULL)
		return (0);
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	if ((rc = fb_mounts_read(path, &t)) != 0)
		goto out;
	if (fsguard_path_check(t.text, t.m, t.n, inroot, &bad) != -EREMOTE ||
	    strncmp(bad->fstype, "fuse", 4) != 0 || !fb_waiting(bad->dev))
		goto out;
	*conn = fb_mount_conn(&t, bad, where, wlen);
	if ((rc = fb_abort(bad->dev, &owner)) != 1 && rc != -EPERM)
		rc = 0;
out:
	fb_mounts_free(&t);
	return (rc);
}

/*
 * A look-up held on pid's behalf: the FUSE mount on its path; else, as
 * for a remote read, the connections with requests waiting that pid's
 * user mounted (a mount unmounted lazily under the waiting look-up is
 * in no mount table but still has its connection).  fusebreak_run's
 * result.
 */
static int
fb_lookup(int pid, const char *inroot, char *what, size_t wlen)
{
	char where[256], list[128], path[64];
	unsigned long conn = 0;
	struct stat st;
	int rc;

	rc = fb_abort_path(pid, inroot, &conn, where, sizeof(where));
	if (rc == 1) {
		snprintf(what, wlen, "aborted FUSE connection %lu at %s (on the "
		    "path, in the mount namespace of process %d; mounted by a "
		    "user other than root, with requests waiting)", conn, where,
		    pid);
		return (1);
	}
	if (rc == -EPERM) {
		snprintf(what, wlen, "a FUSE mount of root's with requests "
		    "waiting (%s, on the path in the mount namespace of "
		    "process %d): not aborted", where, pid);
		return (-EPERM);
	}
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (stat(path, &st) != 0 || st.st_uid == 0)
		return (0);
	if ((rc = fb_abort_waiting(st.st_uid, list, sizeof(list))) <= 0)
		return (rc);
	snprintf(what, wlen, "aborted FUSE connection%s %s (mounted by uid %u, "
	    "the user of process %d, with requests waiting)", rc > 1 ? "s" :
	    "", list, (unsigned)st.st_uid, pid);
	return (1);
}

int
fusebreak_run(long nr, const unsigned long long a[6], char *what, size_t wlen)
{
	char path[64], where[256], list[128], lp[4096];
	const char *inroot = NULL;
	unsigned long conn = 0;
	struct stat st;
	uid_t owner = 0;
	int rc, pid = 0;

	what[0] = '\0';
	if (fb_lookup_arg(nr) >= 0) {
		/* A look-up: for whom?  (The agent's own are root's.) */
		if (fusebreak_lookup_path(nr, a, lp, sizeof(lp)) != 0 ||
		    (pid = fb_lookup_whose(lp, &inroot)) == 0)
			return (0);
	} else if (nr != SYS_process_vm_readv) {
		if (nr != SYS_read && nr != SYS_pread64 && nr != SYS_readv &&
		    nr != SYS_preadv && nr != SYS_getdents64)
			return (0);
		/* A descriptor's read: on FUSE at all?  (A slow disk is
		 * not.) */
		if ((rc = fb_fd_conn((int)a[0], &conn, where,
		    sizeof(where))) != 0)
			return (rc == -ENOENT ? 0 : rc);
	}
	if ((rc = fb_ctl_ready()) != 0) {
		snprintf(what, wlen, "no FUSE connection aborted: the FUSE "
		    "control filesystem is not at " FUSEBREAK_CTL " and could "
		    "not be mounted there (%s)", strerror(-rc));
		return (rc);
	}
	if (pid > 0)
		return (fb_lookup(pid, inroot, what, wlen));
	if (nr == SYS_process_vm_readv) {
		snprintf(path, sizeof(path), "/proc/%llu", a[0]);
		if (stat(path, &st) != 0)
			return (-errno);
		if (st.st_uid == 0) {
			snprintf(what, wlen, "a process of root's: no FUSE "
			    "connection aborted");
			return (-EPERM);
		}
		if ((rc = fb_abort_waiting(st.st_uid, list, sizeof(list))) <= 0)
			return (rc);
		snprintf(what, wlen, "aborted FUSE connection%s %s (mounted by "
		    "uid %u, the process's user, with requests waiting)",
		    rc > 1 ? "s" : "", list, (unsigned)st.st_uid);
		return (1);
	}
	rc = fb_abort(conn, &owner);
	if (rc == -EPERM)
		snprintf(what, wlen, "a FUSE mount of root's (%s): not aborted",
		    where);
	else if (rc == 1)
		snprintf(what, wlen, "aborted FUSE connection %lu (mounted by "
		    "uid %u) of %s", conn, (unsigned)owner, where);
	return (rc);
}
