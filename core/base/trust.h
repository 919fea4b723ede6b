/*
 * trust.c: trusted paths, the directories the daemon loads code from or
 * writes into as root (base room).
 */
#ifndef GP_BASE_TRUST_H
#define GP_BASE_TRUST_H

#include <stddef.h>

#define TRUST_OWNER_EUID 0x1u	/* the daemon's own user may own it too */
struct stat;
int trust_check_stat(const char *what, const struct stat *,
		    int leaf, unsigned flags, char *err, size_t errlen);
int trust_open_dir(const char *path, unsigned flags, char *err,
		    size_t errlen);

#endif
