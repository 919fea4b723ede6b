/*
 * The filesystem check of safeopen (core/base/safefs.c): a file on FUSE or on
 * a network filesystem is never opened, decided from the mount tables in
 * /proc and our own fdinfo, before any syscall that could reach the
 * filesystem's server (a lookup, stat or open there can block for as
 * long as a local user's server wishes).
 */
#ifndef GP_SAFEFS_H
#define GP_SAFEFS_H

#include <gprofiler/plugin.h>

struct safefs_ns;

/* Whose mount table a spec's path and files are judged against. */
struct safefs_ctx {
	int pid;		/* 0: ours */
	const char *prefix;	/* the spec's root when not PID's */
	int on_proc;		/* resolved in the host's procfs, on no
				 * other mount: no fd check needed */
	/* the mount tables this open found (the process's, ours), and
	 * when each was read: its steps need not find them again */
	struct safefs_ns *seen[2];
	uint64_t seen_read[2];
};

void safefs_ctx_init(struct safefs_ctx *, const struct gp_open_spec *);
/* The path, before it is walked: every mount it passes through local.
 * 0 or -EREMOTE (-errno when the mount table cannot be read). */
int safefs_check_path(struct safefs_ctx *, const char *path);
/* An O_PATH fd, before anything touches its file: on a local mount.
 * 0 or -EREMOTE. */
int safefs_check_fd(struct safefs_ctx *, int fd);
/* The last refusal ("on fuse (mount /mnt/x)"). */
const char *safefs_why(void);

#endif
