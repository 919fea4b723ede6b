/*
 * Files that must never be seen half-written (profiles, spool records,
 * state): written under a fresh temporary name ".tmp-<name>.<random>" in the
 * same directory, created with O_EXCL (so a name planted by someone else,
 * a symlink or a hard link to a file of theirs, is never opened), fsync'ed,
 * then renamed over the final name (rename replaces a planted final name
 * instead of writing through it).
 */
#include "config.h"

#include <sys/random.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"

/* Attempts at a fresh name before giving up: a collision of 64 random bits
 * means someone is guessing, not bad luck. */
#define FILE_TMP_TRIES	8

/* 64 unpredictable bits; a clock/counter mix only if getrandom(2) fails. */
static uint64_t
file_random64(void)
{
	static uint64_t counter;
	struct timespec ts;
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return (r);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^
	    ((uint64_t)getpid() << 48) ^ (++counter * 0x9e3779b97f4a7c15ULL);
	return (r);
}

/*
 * Create a fresh temporary beside `name` (O_EXCL, never following a link):
 * the fd, or -errno; the name used goes to tmp.
 */
int
file_create_tmp(int dirfd, const char *name, mode_t mode, char *tmp,
    size_t tmplen)
{
	const char *base;
	int fd, i;

	base = strrchr(name, '/');
	for (i = 0; i < FILE_TMP_TRIES; i++) {
		if (snprintf(tmp, tmplen, "%.*s" FILE_TMP_PREFIX "%s.%016llx",
		    base != NULL ? (int)(base - name + 1) : 0, name,
		    base != NULL ? base + 1 : name,
		    (unsigned long long)file_random64()) >= (int)tmplen)
			return (-ENAMETOOLONG);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, mode);
		if (fd != -1)
			return (fd);
		if (errno != EEXIST)
			return (-errno);
	}
	return (-EEXIST);
}

/*
 * dirfd/name (dirfd may be AT_FDCWD and name a path) atomically, with
 * `mode`.  0 / -errno; on error nothing is left behind.
 */
int
file_write_atomic(int dirfd, const char *name, const void *buf, size_t len,
    mode_t mode)
{
	char tmp[PATH_MAX];
	const char *p = buf;
	ssize_t w;
	int fd, rc = 0;

	if ((fd = file_create_tmp(dirfd, name, mode, tmp, sizeof(tmp))) < 0)
		return (fd);
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
	/* The umask must not widen or narrow what the caller asked for. */
	if (rc == 0 && fchmod(fd, mode) == -1)
		rc = -errno;
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
