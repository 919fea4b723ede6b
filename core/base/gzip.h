/*
 * gzip.c: gzip in one call (base room).
 */
#ifndef GP_BASE_GZIP_H
#define GP_BASE_GZIP_H

#include <stddef.h>

unsigned char *gzip_compress(const void *buf, size_t len, size_t *outlen);

#endif
