/*
 * Runtime versions, for the Ruby and PHP readers (langver.c): the
 * "X.Y.Z" a binary carries, and the row of a reader's per-version table
 * of offsets.  Pure.
 */
#ifndef GP_LANGVER_H
#define GP_LANGVER_H

#include <stddef.h>

/* A major.minor: first in each row of a per-version table. */
struct langver_key {
	int major, minor;
};

/* A reader's per-version table, and how it names what it supports. */
struct langver_table {
	const char *lang;	/* "PHP" */
	const char *range;	/* "7.4-8.4" */
	const void *rows;	/* each beginning with its key */
	size_t n, stride;
};

/*
 * "8.2.36" (digits, dots; anything after the third number ignored, each
 * number at most four digits): 0, or -EINVAL.
 */
int langver_parse(const char *s, size_t len, int *major, int *minor,
	    int *patch);
/*
 * The row of major.minor: its index, or -ENOTSUP with "<lang> X.Y.Z is
 * not supported (<lang> <range> are)" in why.
 */
int langver_row(const struct langver_table *, int major, int minor,
	    int patch, char *why, size_t whylen);

#endif
