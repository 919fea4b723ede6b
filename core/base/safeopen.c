/*
 * Opening files the agent does not trust.  The agent runs as root and
 * reads files local users control (perf maps, binaries and their debug
 * links, config files named on command lines, anything under
 * /proc/PID/root), so a path is resolved without following a magic link
 * and inside the process's root (openat2 RESOLVE_IN_ROOT, or a walk with
 * O_NOFOLLOW per component where the kernel lacks it), opened O_PATH
 * first (a FIFO cannot block us, a device sees no open()), checked on the
 * fd (regular file, size, owner), and only then reopened for reading
 * through /proc/self/fd: the same inode, whatever happens to the path.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "base/procstr.h"
#include "base/safefs.h"
#include "base/safeopen.h"

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC	0x9fa0
#endif
#define SAFEOPEN_MAX_HOPS	40
#define SAFEOPEN_RETRIES	8	/* openat2 -EAGAIN: a rename raced */

static int safeopen_no_openat2;
static int safeopen_proc = -1;	/* the host's /proc, judged (safeopen_procfd) */
static int safeopen_proc_bad;
static int safeopen_pid;	/* whose root safeopen_open is in, or 0 */

int
safeopen_target(void)
{
	return (__atomic_load_n(&safeopen_pid, __ATOMIC_RELAXED));
}

void
safeopen_set_fallback(int on)
{
	safeopen_no_openat2 = on;
	if (safeopen_proc >= 0)
		close(safeopen_proc);
	safeopen_proc = -1;
	safeopen_proc_bad = 0;
}

static int
safeopen_openat2(int dirfd, const char *path, uint64_t resolve)
{
	struct open_how how;
	int fd, i;

	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = resolve;
	for (i = 0; i < SAFEOPEN_RETRIES; i++) {
		fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	return (fd >= 0 ? fd : -errno);
}

static int
safeopen_same(int a, int b)
{
	struct stat sa, sb;

	return (fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

static void
safeopen_replace(int *cur, int fd)
{
	close(*cur);
	*cur = fd;
}

/* One step of the walk: cur/name as an O_PATH descriptor its file
 * system lets us use; -errno otherwise. */
static int
safeopen_step(int cur, const char *name, int flags, struct safefs_ctx *fc)
{
	int fd, rc;

	if ((fd = openat(cur, name, O_PATH | O_CLOEXEC | flags)) < 0)
		return (-errno);
	if ((rc = safefs_check_fd(fc, fd)) != 0) {
		close(fd);
		return (rc);
	}
	return (fd);
}

/*
 * Without openat2: one component at a time with O_NOFOLLOW, symlinks
 * resolved by us inside rootfd (an absolute target restarts at rootfd,
 * ".." stops there), magic links (symlinks on procfs) refused.  Each step's
 * mount is checked before anything touches it (safefs): a symlink into a
 * FUSE directory stops at its door.
 */
static int
safeopen_walk(int rootfd, const char *path, int nosymlinks,
    struct safefs_ctx *fc)
{
	char rest[2 * PATH_MAX], link[PATH_MAX], comp[NAME_MAX + 1];
	char tmp[2 * PATH_MAX];
	struct stat sb;
	struct statfs sf;
	const char *p, *slash;
	size_t clen;
	ssize_t n;
	int cur, fd, hops = 0;

	if (strlen(path) >= sizeof(rest))
		return (-ENAMETOOLONG);
	snprintf(rest, sizeof(rest), "%s", path);
	if ((cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 0)) < 0)
		return (-errno);
	p = rest;
	for (;;) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			return (cur);
		slash = strchr(p, '/');
		clen = slash != NULL ? (size_t)(slash - p) : strlen(p);
		if (clen > NAME_MAX) {
			close(cur);
			return (-ENAMETOOLONG);
		}
		memcpy(comp, p, clen);
		comp[clen] = '\0';
		p += clen;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			if (safeopen_same(cur, rootfd))
				continue;
			if ((fd = safeopen_step(cur, "..", O_DIRECTORY,
			    fc)) < 0)
				goto out;
			safeopen_replace(&cur, fd);
			continue;
		}
		if ((fd = safeopen_step(cur, comp, O_NOFOLLOW, fc)) < 0)
			goto out;
		if (fstat(fd, &sb) != 0) {
			close(fd);
			goto fail;
		}
		if (!S_ISLNK(sb.st_mode)) {
			safeopen_replace(&cur, fd);
			continue;
		}
		if (nosymlinks || ++hops > SAFEOPEN_MAX_HOPS ||
		    (fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC)) {
			close(fd);
			close(cur);
			return (-ELOOP);
		}
		n = readlinkat(fd, "", link, sizeof(link) - 1);
		close(fd);
		if (n <= 0) {
			close(cur);
			return (n == 0 ? -ENOENT : -errno);
		}
		link[n] = '\0';
		if (strlen(link) + strlen(p) + 2 > sizeof(tmp)) {
			close(cur);
			return (-ENAMETOOLONG);
		}
		/* target + "/" + what is left (checked to fit above) */
		memcpy(tmp, link, (size_t)n);
		tmp[n] = '/';
		memcpy(tmp + n + 1, p, strlen(p) + 1);
		memcpy(rest, tmp, strlen(tmp) + 1);
		p = rest;
		if (link[0] == '/') {
			if ((fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0)) < 0)
				goto fail;
			safeopen_replace(&cur, fd);
		}
	}
fail:
	fd = -errno;
out:
	close(cur);
	return (fd);
}

/*
 * The host's /proc, opened and judged once (a local mount, procfs): a
 * path resolved below it without crossing a mount (RESOLVE_NO_XDEV) is on
 * procfs itself, which no user serves, and needs no mount check of its
 * own.  Most files the agent opens are there (stat, status, maps of every
 * process sampled): the checks cost some 40 us an open, the files' read a
 * few.  -errno when /proc is not that (then every step is checked).
 */
static int
safeopen_procfd(void)
{
	struct safefs_ctx own;
	struct statfs sf;
	int fd;

	if (safeopen_proc >= 0 || safeopen_proc_bad)
		return (safeopen_proc >= 0 ? safeopen_proc : -ENOENT);
	if ((fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return (-errno);
	memset(&own, 0, sizeof(own));
	/* fstatfs only once the mount is known local: FUSE answers it */
	if (safefs_check_fd(&own, fd) != 0 || fstatfs(fd, &sf) != 0 ||
	    sf.f_type != PROC_SUPER_MAGIC) {
		close(fd);
		safeopen_proc_bad = 1;
		return (-ENOENT);
	}
	safeopen_proc = fd;
	return (safeopen_proc);
}

/* An O_PATH fd for the spec's path, resolved under its rules. */
static int
safeopen_resolve(const struct gp_open_spec *sp, struct safefs_ctx *fc)
{
	uint64_t resolve = RESOLVE_NO_MAGICLINKS;
	const char *path;
	int rootfd, fd, nosym, stepwise, hostproc;

	if (sp->flags & GP_OPEN_PROC_LINK) {
		/* The kernel's own link to a mapped file or the executable:
		 * followed on purpose, the file is checked below. */
		if (sp->root != NULL || strncmp(sp->path, "/proc/", 6) != 0)
			return (-EINVAL);
		fd = open(sp->path, O_PATH | O_CLOEXEC);
		return (fd >= 0 ? fd : -errno);
	}
	if (sp->root == NULL && sp->path[0] != '/')
		return (-EINVAL);
	/*
	 * The host's /proc is resolved from /proc itself, never through
	 * "/": a host whose root is on NFS (diskless) or 9p keeps every
	 * /proc read, and the lookup meets no mount but procfs's own.
	 */
	hostproc = sp->root == NULL && strncmp(sp->path, "/proc/", 6) == 0;
	path = hostproc ? sp->path + 5 : sp->path;
	nosym = (sp->flags & GP_OPEN_NO_SYMLINKS) != 0;
	if (hostproc && !safeopen_no_openat2 && (rootfd =
	    safeopen_procfd()) >= 0) {
		fd = safeopen_openat2(rootfd, path, resolve | RESOLVE_IN_ROOT |
		    RESOLVE_NO_XDEV | (nosym ? RESOLVE_NO_SYMLINKS : 0));
		if (fd >= 0) {
			fc->on_proc = 1;
			return (fd);
		}
		/* a mount crossed, or no openat2: resolved as below */
		if (fd != -EXDEV && fd != -ENOSYS && fd != -E2BIG &&
		    fd != -EINVAL)
			return (fd);
	}
	if (!hostproc && (fd = safefs_check_path(fc, sp->path)) != 0)
		return (fd);
	/* The root itself may be a magic link (/proc/PID/root): trusted,
	 * it is the caller's choice, not the monitored process's. */
	rootfd = open(hostproc ? "/proc" : sp->root != NULL ? sp->root : "/",
	    O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return (-errno);
	if ((fd = safefs_check_fd(fc, rootfd)) != 0) {
		close(rootfd);
		return (fd);
	}
	if (nosym)
		resolve |= RESOLVE_NO_SYMLINKS;
	resolve |= RESOLVE_IN_ROOT;
	/* A path with symlinks may lead anywhere (into a FUSE directory):
	 * it is walked a step at a time, each step's mount checked.  The
	 * host's /proc is procfs, whose own links ("self") stay in it. */
	stepwise = !nosym && !hostproc;
	fd = -ENOSYS;
	if (!safeopen_no_openat2 && !stepwise)
		fd = safeopen_openat2(rootfd, path, resolve);
	if (stepwise || fd == -ENOSYS || fd == -E2BIG || (fd == -EINVAL &&
	    !safeopen_no_openat2)) {
		if (!stepwise && (fd == -ENOSYS || fd == -E2BIG))
			safeopen_no_openat2 = 1;
		fd = safeopen_walk(rootfd, path, nosym, fc);
	}
	close(rootfd);
	return (fd);
}

static void
safeopen_info(const struct stat *sb, struct gp_file_info *info)
{
	if (info == NULL)
		return;
	info->dev = (uint64_t)sb->st_dev;
	info->ino = (uint64_t)sb->st_ino;
	info->size = (uint64_t)sb->st_size;
	info->mtime_ns = (int64_t)sb->st_mtim.tv_sec * 1000000000 +
	    sb->st_mtim.tv_nsec;
	info->mode = (uint32_t)sb->st_mode;
	info->uid = (uint32_t)sb->st_uid;
}

/* Could uid read this file, by its mode bits?  Groups are not looked at
 * (the agent does not know the process's): a file only its group may
 * read counts as unreadable. */
static int
safeopen_readable(int64_t uid, const struct stat *sb)
{
	if (uid == 0)
		return (1);
	if (uid > 0 && sb->st_uid == (uid_t)uid)
		return ((sb->st_mode & S_IRUSR) != 0);
	return ((sb->st_mode & S_IROTH) != 0);
}

/*
 * The spec's owner and mode rules: 0, -EPERM (owner), -EACCES (reader).
 * The one place that says
 * whose files the agent reads for whom: `owner` is who must have written
 * it (GP_OPEN_OWNER_OR_ROOT: or root), `reader` the process it is read
 * for, who must be able to read it (a file reached through a process's
 * root is whatever that process mounted there: a bind mount of a
 * root-only file passes any owner test, never this one).
 */
static int
safeopen_owner_ok(const struct gp_open_spec *sp, int64_t reader,
    const struct stat *sb)
{
	uid_t uid;

	if (reader != 0 && !safeopen_readable(reader, sb))
		return (-EACCES);
	if (sp->owner < 0)
		return (0);
	uid = (uid_t)sp->owner;
	if (sp->flags & GP_OPEN_READABLE_BY) {
		if (!safeopen_readable(sp->owner, sb))
			return (-EPERM);
		if (!(sp->flags & GP_OPEN_OWNER_OR_ROOT))
			return (0);
	}
	if (sb->st_uid == uid)
		return (0);
	if ((sp->flags & GP_OPEN_OWNER_OR_ROOT) && sb->st_uid == 0)
		return (0);
	return (-EPERM);
}

int
safeopen_open(const struct gp_open_spec *sp, struct gp_file_info *info)
{
	struct safefs_ctx fc;
	struct stat sb, sb2;
	char self[64];
	int64_t reader;
	int pfd, fd, r;

	if (info != NULL)
		memset(info, 0, sizeof(*info));
	if (sp == NULL || sp->path == NULL || sp->size < GP_OPEN_SPEC_SIZE_1_1)
		return (-EINVAL);
	/* A 1.1 plugin's spec ends before `reader`. */
	reader = sp->size >= offsetof(struct gp_open_spec, reader) +
	    sizeof(sp->reader) ? sp->reader : 0;
	safefs_ctx_init(&fc, sp);
	/* Whose look-ups these are, should one hold the loop (a mount table
	 * judged up to a second ago may have changed): fusebreak.h. */
	__atomic_store_n(&safeopen_pid, fc.pid, __ATOMIC_RELAXED);
	if ((pfd = safeopen_resolve(sp, &fc)) < 0) {
		r = pfd;
		goto out;
	}
	/* Before fstat: a stat on FUSE is answered by its server. */
	if (!fc.on_proc && (r = safefs_check_fd(&fc, pfd)) != 0)
		goto out_close;
	if (fstat(pfd, &sb) != 0) {
		r = -errno;
		goto out_close;
	}
	safeopen_info(&sb, info);
	if (S_ISLNK(sb.st_mode)) {
		r = -ELOOP;
		goto out_close;
	}
	if (!S_ISREG(sb.st_mode)) {
		r = -EINVAL;
		goto out_close;
	}
	if (sp->max_size != 0 && (uint64_t)sb.st_size > sp->max_size) {
		r = -EFBIG;
		goto out_close;
	}
	if ((r = safeopen_owner_ok(sp, reader, &sb)) != 0)
		goto out_close;
	/* A process's cmdline or environ is read from its memory. */
	if ((r = procstr_guard_fd(pfd, &sb)) != 0)
		goto out_close;
	/* Reopen the inode we checked, not the path. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto out_close;
	}
	if (fstat(fd, &sb2) != 0 || sb2.st_dev != sb.st_dev ||
	    sb2.st_ino != sb.st_ino) {
		close(fd);
		r = -ESTALE;
		goto out_close;
	}
	r = fd;
out_close:
	close(pfd);
out:
	__atomic_store_n(&safeopen_pid, 0, __ATOMIC_RELAXED);
	return (r);
}

int
safeopen_open_cb(void *arg, const struct gp_open_spec *sp,
    struct gp_file_info *info)
{
	(void)arg;
	return (safeopen_open(sp, info));
}

ssize_t
safeopen_pread(int fd, void *buf, size_t len, off_t off)
{
	size_t total = 0;
	ssize_t n;

	while (total < len) {
		n = pread(fd, (char *)buf + total, len - total,
		    off + (off_t)total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return (total > 0 ? (ssize_t)total : -errno);
		if (n == 0)
			break;
		total += (size_t)n;
	}
	return ((ssize_t)total);
}

ssize_t
safeopen_read(const struct gp_open_spec *sp, void *buf, size_t len)
{
	ssize_t n;
	int fd;

	if ((fd = safeopen_open(sp, NULL)) < 0)
		return (fd);
	n = safeopen_pread(fd, buf, len, 0);
	close(fd);
	return (n);
}

const char *
safeopen_strerror(int rc, const struct gp_file_info *info)
{
	uint32_t m = info != NULL ? info->mode : 0;

	switch (-rc) {
	case EINVAL:
		if (S_ISFIFO(m))
			return ("not a regular file (a FIFO)");
		if (S_ISCHR(m) || S_ISBLK(m))
			return ("not a regular file (a device)");
		if (S_ISSOCK(m))
			return ("not a regular file (a socket)");
		if (S_ISDIR(m))
			return ("not a regular file (a directory)");
		return ("not a regular file");
	case ELOOP:
		return ("a symlink where none is accepted");
	case EFBIG:
		return ("larger than accepted");
	case EPERM:
		return ("owned by another user");
	case EACCES:
		/* ours only when a file was found and checked */
		if (m != 0)
			return ("not readable by the process's own user (a "
			    "file mounted from elsewhere?)");
		return (strerror(-rc));
	case EREMOTE:
		return (safefs_why());
	default:
		return (strerror(-rc));
	}
}
