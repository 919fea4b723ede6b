/*
 * fileio.c: files never seen half-written (base room).
 */
#ifndef GP_BASE_FILEIO_H
#define GP_BASE_FILEIO_H

#include <sys/types.h>

#include <stddef.h>

#define FILE_TMP_PREFIX	".tmp-"		/* temporaries: never a real name */
int file_write_atomic(int dirfd, const char *name,
		    const void *buf, size_t len, mode_t mode);
int file_create_tmp(int dirfd, const char *name, mode_t mode,
		    char *tmp, size_t tmplen);

#endif
