/*
 * The iaprof version gate.  The reference parses PEP 440; this project
 * accepts an optional leading 'v' and dot-separated non-negative integers
 * compared segment by segment (missing segments are 0), and nothing else,
 * so "2026.3rc1" or "iaprof 2026.3" are invalid rather than guessed at.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "version.h"

#define VERSION_SEGS	8

/* Trimmed bounds of s (ASCII whitespace, as str.strip() does for it). */
static const char *
version_trim(const char *s, size_t *n)
{
	if (s == NULL) {
		*n = 0;
		return ("");
	}
	*n = strlen(s);
	while (*n > 0 && isspace((unsigned char)*s)) {
		s++;
		(*n)--;
	}
	while (*n > 0 && isspace((unsigned char)s[*n - 1]))
		(*n)--;
	return (s);
}

/* Parse "v?N(.N)*" into seg[]; the count, or -1 if the text is invalid. */
static int
version_parse(const char *s, size_t n, uint64_t *seg)
{
	int nseg = 0, digits;

	if (n > 0 && (*s == 'v' || *s == 'V')) {
		s++;
		n--;
	}
	for (;;) {
		if (nseg == VERSION_SEGS)
			return (-1);
		seg[nseg] = 0;
		for (digits = 0; n > 0 && isdigit((unsigned char)*s);
		    s++, n--, digits++) {
			if (seg[nseg] > (UINT64_MAX - 9) / 10)
				return (-1);
			seg[nseg] = seg[nseg] * 10 + (uint64_t)(*s - '0');
		}
		if (digits == 0)
			return (-1);
		nseg++;
		if (n == 0)
			return (nseg);
		if (*s != '.')
			return (-1);
		s++;
		n--;
	}
}

/* seg[] as text without leading zeros, as PEP 440 normalises it. */
static void
version_format(const uint64_t *seg, int nseg, char *buf, size_t sz)
{
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < nseg && o < sz; i++)
		o += (size_t)snprintf(buf + o, sz - o, "%s%llu", i ? "." : "",
		    (unsigned long long)seg[i]);
}

static int
version_cmp(const uint64_t *a, int na, const uint64_t *b, int nb)
{
	uint64_t x, y;
	int i;

	for (i = 0; i < na || i < nb; i++) {
		x = i < na ? a[i] : 0;
		y = i < nb ? b[i] : 0;
		if (x != y)
			return (x < y ? -1 : 1);
	}
	return (0);
}

int
iaprof_version_check(const char *out, const char *err_text, char *norm,
    size_t normsz, char *err, size_t errsz)
{
	uint64_t seg[VERSION_SEGS], min[VERSION_SEGS];
	const char *s;
	size_t n;
	int nseg, nmin;

	s = version_trim(out, &n);
	if (n == 0)
		s = version_trim(err_text, &n);
	nmin = version_parse(IAPROF_MIN_VERSION, strlen(IAPROF_MIN_VERSION),
	    min);
	if ((nseg = version_parse(s, n, seg)) < 0) {
		snprintf(err, errsz, "Invalid version: '%.*s'",
		    n > 200 ? 200 : (int)n, s);
		return (-EINVAL);
	}
	version_format(seg, nseg, norm, normsz);
	if (version_cmp(seg, nseg, min, nmin) < 0) {
		snprintf(err, errsz, "iaprof %s is unsupported; minimum "
		    "version is %s", norm, IAPROF_MIN_VERSION);
		return (-ENOTSUP);
	}
	return (0);
}
