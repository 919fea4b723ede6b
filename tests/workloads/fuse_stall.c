/*
 * A FUSE filesystem whose reads never answer, for the hostile-input tests:
 * every name in its root is a regular file of one page, dated now at each
 * look (a file older than its process is ignored by some readers), whose read
 * blocks until the server is killed (or STALL_S seconds); but a name ending
 * in "-packages" (site-packages, dist-packages) is a directory whose listing
 * blocks the same way, and a name that begins with "hang" is one whose
 * look-up (getattr) never answers.  With FUSE_STALL_EXE set, a name that
 * begins with "exe" is that program, served (runnable), whose getattr
 * never answers once the file FUSE_STALL_TRIGGER exists: a program a user
 * runs from the mount, whose server then goes away.  A page of it,
 * mapped by the victim and never touched, left behind a pointer the agent
 * follows, or the file itself where the agent opens one on a process's
 * behalf, makes a reader that reaches it wait for this server: in an
 * uninterruptible sleep that SIGTERM does not end.
 *
 * What makes the wait real: the size from getattr covers the page (past
 * the end a fault is SIGBUS, and process_vm_readv says EFAULT at once),
 * the file is opened without direct_io (which forbids a shared mapping and
 * sends reads straight to the server), and nothing has read the page yet.
 *
 *	[FUSE_STALL_UID=uid] [FUSE_STALL_EXE=program FUSE_STALL_TRIGGER=file]
 *	    fuse_stall MOUNTPOINT [libfuse options]
 *
 * The files belong to FUSE_STALL_UID when set, else to the server's user.
 * Run it multi-threaded (no -s): the victim's close (FLUSH) must not queue
 * behind a read that never answers.
 */
#define FUSE_USE_VERSION 31

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STALL_S		600
#define STALL_SIZE	4096

static uid_t stall_uid;
static gid_t stall_gid;
static const char *stall_exe, *stall_trigger;
static int stall_exe_fd = -1;
static off_t stall_exe_size;

static void
stall_sleep(void)
{
	unsigned int left = STALL_S;

	while (left > 0)
		left = sleep(left);
}

/* "/site-packages", "/dist-packages": a directory. */
static int
stall_is_dir(const char *path)
{
	size_t len = strlen(path);

	return (len > 9 && strcmp(path + len - 9, "-packages") == 0);
}

/* "/exe...": the program (FUSE_STALL_EXE). */
static int
stall_is_exe(const char *path)
{
	return (stall_exe_fd >= 0 && strncmp(path, "/exe", 4) == 0);
}

static int
stall_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	st->st_uid = stall_uid;
	st->st_gid = stall_gid;
	st->st_atime = st->st_mtime = st->st_ctime = time(NULL);
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return (0);
	}
	if (strchr(path + 1, '/') != NULL)
		return (-ENOENT);
	if (strncmp(path, "/hang", 5) == 0) {
		stall_sleep();
		return (-EIO);
	}
	if (stall_is_dir(path)) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return (0);
	}
	if (stall_is_exe(path)) {
		if (access(stall_trigger, F_OK) == 0) {
			stall_sleep();
			return (-EIO);
		}
		st->st_mode = S_IFREG | 0755;
		st->st_nlink = 1;
		st->st_size = stall_exe_size;
		st->st_atime = st->st_mtime = st->st_ctime = 1;
		return (0);
	}
	st->st_mode = S_IFREG | 0644;
	st->st_nlink = 1;
	st->st_size = STALL_SIZE;
	return (0);
}

static int
stall_open(const char *path, struct fuse_file_info *fi)
{
	if (strchr(path + 1, '/') != NULL || stall_is_dir(path))
		return (-ENOENT);
	/* No direct I/O: the file must be mappable, its pages cached. */
	fi->direct_io = 0;
	fi->keep_cache = 1;
	return (0);
}

static int
stall_read(const char *path, char *buf, size_t size, off_t off,
    struct fuse_file_info *fi)
{
	(void)off;
	(void)fi;
	if (stall_is_exe(path))
		return ((int)pread(stall_exe_fd, buf, size, off));
	stall_sleep();
	size = size < STALL_SIZE ? size : STALL_SIZE;
	memset(buf, 0, size);
	return ((int)size);
}

static int
stall_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
    struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (stall_is_dir(path)) {
		stall_sleep();
		return (-EIO);
	}
	if (strcmp(path, "/") != 0)
		return (-ENOENT);
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "stall", NULL, 0, 0);
	return (0);
}

static const struct fuse_operations stall_ops = {
	.getattr = stall_getattr,
	.open = stall_open,
	.read = stall_read,
	.readdir = stall_readdir,
};

int
main(int argc, char *argv[])
{
	const char *u = getenv("FUSE_STALL_UID");

	stall_uid = u != NULL ? (uid_t)atoi(u) : getuid();
	stall_gid = u != NULL ? (gid_t)atoi(u) : getgid();
	stall_exe = getenv("FUSE_STALL_EXE");
	stall_trigger = getenv("FUSE_STALL_TRIGGER");
	if (stall_exe != NULL && stall_trigger != NULL &&
	    (stall_exe_fd = open(stall_exe, O_RDONLY)) >= 0)
		stall_exe_size = lseek(stall_exe_fd, 0, SEEK_END);
	return (fuse_main(argc, argv, &stall_ops, NULL));
}
