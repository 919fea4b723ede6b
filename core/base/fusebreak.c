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

/* The connection a descriptor of this process reads from (its mount's
 * device, which names the control directory): 0, -ENOENT if not FUSE. */
static int
fb_fd_conn(int fd, unsigned long *conn, char *where, size_t wlen)
{
	char path[64], info[512], *mi = NULL;
	struct fsguard_mount *m = NULL;
	const struct fsguard_mount *hit;
	uint32_t id, n;
	ssize_t len;
	int rc = -ENOENT;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if ((len = procfs_read_buf(path, info, sizeof(info))) < 0)
		return ((int)len);
	if (fsguard_fdinfo_mnt_id(info, (size_t)len, &id) != 0)
		return (-EINVAL);
	if ((mi = malloc(FUSEBREAK_MOUNTINFO_MAX)) == NULL)
		return (-ENOMEM);
	if ((len = procfs_read_buf("/proc/self/mountinfo", mi,
	    FUSEBREAK_MOUNTINFO_MAX)) < 0) {
		rc = (int)len;
		goto out;
	}
	n = fsguard_parse_mountinfo(mi, (size_t)len, NULL, 0);
	if (n == 0 || (m = calloc(n, sizeof(*m))) == NULL)
		goto out;
	n = fsguard_parse_mountinfo(mi, (size_t)len, m, n);
	if ((hit = fsguard_by_id(m, n, id)) == NULL ||
	    strncmp(hit->fstype, "fuse", 4) != 0)
		goto out;
	*conn = hit->dev;
	snprintf(where, wlen, "%.*s", (int)(hit->pointlen < 200 ?
	    hit->pointlen : 200), mi + hit->point);
	rc = 0;
out:
	free(m);
	free(mi);
	return (rc);
}

/* Each connection with requests waiting that uid mounted, aborted: how
 * many (-errno if the control directory cannot be read). */
static int
fb_abort_waiting(uid_t uid, char *list, size_t llen)
{
	char path[96], num[32];
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
		if (lstat(path, &st) != 0 || st.st_uid != uid)
			continue;
		snprintf(path, sizeof(path), FUSEBREAK_CTL "/%lu/waiting",
		    conn);
		if (procfs_read_buf(path, num, sizeof(num)) <= 0 ||
		    strtoul(num, NULL, 10) == 0)
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

int
fusebreak_run(long nr, const unsigned long long a[6], char *what, size_t wlen)
{
	char path[64], where[256], list[128];
	unsigned long conn = 0;
	struct stat st;
	uid_t owner = 0;
	int rc;

	what[0] = '\0';
	if (nr != SYS_process_vm_readv && nr != SYS_read &&
	    nr != SYS_pread64 && nr != SYS_readv && nr != SYS_preadv &&
	    nr != SYS_getdents64)
		return (0);
	/* A descriptor's read: on FUSE at all?  (A slow disk is not.) */
	if (nr != SYS_process_vm_readv && (rc = fb_fd_conn((int)a[0], &conn,
	    where, sizeof(where))) != 0)
		return (rc == -ENOENT ? 0 : rc);
	if ((rc = fb_ctl_ready()) != 0) {
		snprintf(what, wlen, "no FUSE connection aborted: the FUSE "
		    "control filesystem is not at " FUSEBREAK_CTL " and could "
		    "not be mounted there (%s)", strerror(-rc));
		return (rc);
	}
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
