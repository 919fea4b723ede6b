/*
 * Files that must never be seen half-written (profiles, spool records,
 * state): written under a temporary name ".tmp-<name>" in the same
 * directory, fsync'ed, then renamed over the final name.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gprofiler.h"

/*
 * dirfd/name (dirfd may be AT_FDCWD and name a path) atomically, with
 * `mode`.  0 / -errno; on error nothing is left behind.
 */
int
file_write_atomic(int dirfd, const char *name, const void *buf, size_t len,
    mode_t mode)
{
	char		 tmp[PATH_MAX];
	const char	*p = buf, *base;
	ssize_t		 w;
	int		 fd, rc = 0;

	base = strrchr(name, '/');
	if (snprintf(tmp, sizeof(tmp), "%.*s" FILE_TMP_PREFIX "%s",
	    base != NULL ? (int)(base - name + 1) : 0, name,
	    base != NULL ? base + 1 : name) >= (int)sizeof(tmp))
		return (-ENAMETOOLONG);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, mode);
	if (fd == -1)
		return (-errno);
	while (len > 0) {
		if ((w = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		p += w;
		len -= (size_t)w;
	}
	/* Durable before the rename makes it visible. */
	if (rc == 0 && fsync(fd) == -1)
		rc = -errno;
	if (close(fd) == -1 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(dirfd, tmp, dirfd, name) == -1)
		rc = -errno;
	if (rc != 0)
		unlinkat(dirfd, tmp, 0);
	return (rc);
}
