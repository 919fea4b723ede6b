/*
 * A FUSE filesystem that never answers a read: one file, "stall", of one
 * page, whose read blocks until the server is killed (or STALL_S seconds).
 * Hostile-input tests mount it as an unprivileged user and leave a page of
 * the file, mapped but never touched, behind a pointer the agent follows:
 * a reader that faults it in waits for this server.
 *
 *	fuse_stall MOUNTPOINT [libfuse options]	 (add -f to stay in front)
 */
#define FUSE_USE_VERSION 31

#include <sys/stat.h>

#include <errno.h>
#include <fuse.h>
#include <string.h>
#include <unistd.h>

#define STALL_S		600
#define STALL_SIZE	4096

static int
stall_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return (0);
	}
	if (strcmp(path, "/stall") == 0) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = STALL_SIZE;
		return (0);
	}
	return (-ENOENT);
}

static int
stall_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/stall") != 0)
		return (-ENOENT);
	/* No direct I/O: the file must be mappable. */
	fi->keep_cache = 1;
	return (0);
}

static int
stall_read(const char *path, char *buf, size_t size, off_t off,
    struct fuse_file_info *fi)
{
	unsigned int left = STALL_S;

	(void)path;
	(void)buf;
	(void)off;
	(void)fi;
	while (left > 0)
		left = sleep(left);
	return ((int)(size < STALL_SIZE ? size : STALL_SIZE));
}

static int
stall_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
    struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
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
	return (fuse_main(argc, argv, &stall_ops, NULL));
}
