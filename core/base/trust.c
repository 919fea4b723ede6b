/*
 * Trusted paths: directories the daemon loads code from or writes into as
 * root must be ones no other user can change.  A path is trusted when every
 * directory from "/" down is owned by root (or by the daemon's own user)
 * and writable by nobody else, except a sticky ancestor such as /tmp, where
 * others may add names but cannot rename or remove ours.  The walk opens
 * each component with O_NOFOLLOW under the one before, so the fd returned
 * is the directory that was checked, whatever happens to the path later.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/trust.h"

static int
trust_owner_ok(uid_t uid, unsigned flags)
{
	return (uid == 0 || ((flags & TRUST_OWNER_EUID) && uid == geteuid()));
}

/*
 * One object on a trusted path: a file or the final directory (`leaf`) must
 * not be writable by group or others at all; an ancestor may be if sticky.
 * 0 or -EPERM with the fix in err.
 */
int
trust_check_stat(const char *what, const struct stat *sb, int leaf,
    unsigned flags, char *err, size_t errlen)
{
	const char *owner = (flags & TRUST_OWNER_EUID) && geteuid() != 0 ?
	    "root or this user" : "root";

	if (!trust_owner_ok(sb->st_uid, flags)) {
		snprintf(err, errlen, "%s is owned by uid %u, not %s: another "
		    "user could replace what is there (chown root %s, or use "
		    "a directory only %s can write)", what,
		    (unsigned)sb->st_uid, owner, what, owner);
		return (-EPERM);
	}
	if ((sb->st_mode & 022) != 0 &&
	    (leaf || !S_ISDIR(sb->st_mode) || !(sb->st_mode & S_ISVTX))) {
		snprintf(err, errlen, "%s is writable by %s (mode %04o): "
		    "another user could replace what is there (chmod go-w "
		    "%s)", what, (sb->st_mode & 002) ? "everyone" : "its group",
		    (unsigned)(sb->st_mode & 07777), what);
		return (-EPERM);
	}
	return (0);
}

/*
 * Open directory `path` after checking it and every directory above it
 * (symlinks resolved first, then each real component opened without
 * following links).  The directory fd (O_CLOEXEC), or -errno with one line
 * in err naming the component and the fix.
 */
int
trust_open_dir(const char *path, unsigned flags, char *err, size_t errlen)
{
	struct stat sb;
	char *rp, *comp, *next, sofar[PATH_MAX];
	int fd, nfd, rc;

	if ((rp = realpath(path, NULL)) == NULL) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return (rc);
	}
	snprintf(sofar, sizeof(sofar), "/");
	if ((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		rc = -errno;
		snprintf(err, errlen, "/: %s", strerror(errno));
		goto out;
	}
	for (comp = rp + 1; ; comp = next) {
		next = strchr(comp, '/');
		if (next != NULL)
			*next++ = '\0';
		if (fstat(fd, &sb) == -1) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", sofar, strerror(errno));
			goto out_close;
		}
		if ((rc = trust_check_stat(sofar, &sb, *comp == '\0', flags,
		    err, errlen)) != 0)
			goto out_close;
		if (*comp == '\0')
			break;
		nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		snprintf(sofar + strlen(sofar), sizeof(sofar) - strlen(sofar),
		    "%s%s", strcmp(sofar, "/") == 0 ? "" : "/", comp);
		if (nfd == -1) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s (was it replaced while "
			    "being checked?)", sofar, strerror(errno));
			goto out_close;
		}
		close(fd);
		fd = nfd;
		if (next == NULL)
			next = comp + strlen(comp);	/* "" ends the walk */
	}
	free(rp);
	return (fd);
out_close:
	close(fd);
out:
	free(rp);
	return (rc);
}
