/*
 * Which filesystems the agent may read from (lib/fsguard.c): the one
 * classification shared by the core (files opened through safeopen) and
 * the runtime readers (remote memory reads, plugins/lang/common).  A read
 * of a file on FUSE or on a network filesystem waits, uninterruptibly, for
 * whoever serves it, and a local user can serve one that never answers;
 * so only filesystems whose pages come from memory or a local disk are
 * read.  Everything here is pure over bytes: the callers read
 * /proc/PID/mountinfo and /proc/self/fdinfo/N (procfs, never the served
 * filesystem) and decide with these functions, before any syscall that
 * could reach a filesystem's server.
 */
#ifndef GP_FSGUARD_H
#define GP_FSGUARD_H

#include <stddef.h>
#include <stdint.h>

#define FSGUARD_FSTYPE		24

/* A mount of a mountinfo text. */
struct fsguard_mount {
	uint32_t id;		/* mount ID (global, as in fdinfo) */
	uint32_t dev;		/* major << 20 | minor, the kernel's dev_t */
	uint32_t point;		/* offset of the mount point in the text */
	uint32_t pointlen;	/* its length, unescaped */
	uint8_t local;
	char fstype[FSGUARD_FSTYPE];
};

/* 1 when pages of fstype come from memory or a local block device; 0 for
 * FUSE, NFS, CIFS, 9p, Ceph, virtiofs and any type not known. */
int fsguard_fs_local(const char *fstype, size_t len);
/*
 * The mounts of a /proc/PID/mountinfo text, at most max into out (NULL:
 * count only, buf left as it is): their number.  Mount points are
 * unescaped in place (buf is modified; each is at buf + point, pointlen
 * bytes, not NUL-terminated).
 * Malformed lines are skipped.
 */
uint32_t fsguard_parse_mountinfo(char *buf, size_t len,
	    struct fsguard_mount *out, uint32_t max);
/* The mount with this ID, or NULL. */
const struct fsguard_mount *fsguard_by_id(const struct fsguard_mount *,
	    uint32_t n, uint32_t id);
/* A mount of this device (all its mounts share one filesystem), or NULL. */
const struct fsguard_mount *fsguard_by_dev(const struct fsguard_mount *,
	    uint32_t n, uint32_t dev);
/*
 * Whether walking path (absolute, in the root the mountinfo was read
 * from; "." and ".." taken lexically, as RESOLVE_IN_ROOT does without
 * symlinks) stays on local filesystems: the mount visible at every mount
 * point the path passes through, "/" included.  0; -EREMOTE with *bad
 * set when one is not local; -EINVAL for a relative path.
 */
int fsguard_path_check(const char *text, const struct fsguard_mount *,
	    uint32_t n, const char *path, const struct fsguard_mount **bad);
/* The "mnt_id:" of a /proc/self/fdinfo/N text: 0, or -EINVAL. */
int fsguard_fdinfo_mnt_id(const char *buf, size_t len, uint32_t *id);

/* Past one space-separated field of a /proc text and the spaces after it:
 * 0, or -EINVAL at the end of s[0..len). */
int fsguard_skip_field(const char *s, size_t len, size_t *i);

#endif
