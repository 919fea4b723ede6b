/*
 * The identity of a process's executable, for the core and the plugins
 * alike: the device and inode its /proc/PID/exe link names.
 *
 * stat() follows the link to the file and asks the file's filesystem for
 * fresh attributes.  A user can run a program from a FUSE mount every user
 * may enter (allow_other: root's sshfs whose server went away, or a mount
 * of theirs where /etc/fuse.conf allows it) whose server then never
 * answers a getattr: stat() waits for it in an uninterruptible sleep,
 * the agent's loop with it.  The device and inode need no request: statx
 * with AT_STATX_DONT_SYNC takes them from the inode the kernel holds.
 * (An NFS file is still revalidated once on the way through the link.)
 */
#ifndef GP_LIB_PROCEXE_H
#define GP_LIB_PROCEXE_H

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

/* st_dev and st_ino of pid's executable (the rest zero): 0, or -errno
 * (-ENOENT for a kernel thread, a zombie or a gone process). */
static inline int
procexe_stat(int pid, struct stat *st)
{
	struct statx sx;
	char path[64];

	memset(st, 0, sizeof(*st));
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if (statx(AT_FDCWD, path, AT_STATX_DONT_SYNC, STATX_INO, &sx) != 0)
		return (-errno);
	st->st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	st->st_ino = sx.stx_ino;
	return (0);
}

#endif
