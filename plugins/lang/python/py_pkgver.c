/*
 * The parsers behind package versions in Python frames: where a frame
 * names a file, which directory holds its packages, and what a
 * distribution's directory name, METADATA and RECORD say.  Pure functions
 * over bytes (fuzz/fuzz_cpython_pkgver.c): every input is a file of the
 * profiled process.  Each follows what gProfiler's py_module_version.py
 * gets from Python (re, pathlib, csv, email.parser, pkg_resources), so
 * that the frames read the same; docs/COMPAT.md lists the differences.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "py_pkgver.h"

#define PKG_FIELD_MAX	4096

static int
pkg_isdigit(char c)
{
	return (c >= '0' && c <= '9');
}

/* The bytes str.splitlines ends a line at (ASCII ones). */
static int
pkg_iseol(char c)
{
	return (c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
	    c == '\x1c' || c == '\x1d' || c == '\x1e');
}

/* The end of the line at p (its terminator excluded). */
static size_t
pkg_line_end(const char *s, size_t len, size_t p)
{
	while (p < len && !pkg_iseol(s[p]))
		p++;
	return (p);
}

/* Past the terminator at p ("\r\n" is one). */
static size_t
pkg_line_next(const char *s, size_t len, size_t p)
{
	if (p < len && s[p] == '\r' && p + 1 < len && s[p + 1] == '\n')
		return (p + 2);
	return (p < len ? p + 1 : p);
}

int
py_pkgver_next_module(const char *s, size_t len, size_t from, size_t *file,
    size_t *flen, size_t *close)
{
	const char *open, *end;
	size_t b, e, colon, i;

	while (from < len &&
	    (open = memchr(s + from, '(', len - from)) != NULL) {
		b = (size_t)(open - s) + 1;
		/* [^\)]+? stops at the first ')': no later '(' has one
		 * either when this one has none. */
		if ((end = memchr(s + b, ')', len - b)) == NULL)
			return (0);
		e = (size_t)(end - s);
		/* ":\d+" right before the ')': the last ':' of the group */
		for (colon = e; colon > b && s[colon - 1] != ':'; colon--)
			;
		if (colon > b && colon < e) {
			colon--;
			for (i = colon + 1; i < e && pkg_isdigit(s[i]); i++)
				;
			if (i == e && colon - b >= 4 &&
			    memcmp(s + colon - 3, ".py", 3) == 0) {
				*file = b;
				*flen = colon - b;
				*close = e;
				return (1);
			}
		}
		from = b;
	}
	return (0);
}

/* The last occurrence of needle in s[0, len): its offset, or -1. */
static ssize_t
pkg_rfind(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle), i;

	if (len < n)
		return (-1);
	for (i = len - n + 1; i-- > 0;)
		if (memcmp(s + i, needle, n) == 0)
			return ((ssize_t)i);
	return (-1);
}

size_t
py_pkgver_packages_dir(const char *path, size_t len)
{
	ssize_t at;

	if (len == 0 || path[0] != '/')
		return (0);
	if ((at = pkg_rfind(path, len, "/site-packages/")) >= 0)
		return ((size_t)at + strlen("/site-packages/"));
	if ((at = pkg_rfind(path, len, "/dist-packages/")) >= 0)
		return ((size_t)at + strlen("/dist-packages/"));
	return (0);
}

/* "site-packages" or "dist-packages" in s before its first newline
 * (the regex's ".*" does not cross one). */
static int
pkg_has_packages(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i + 13 <= len && s[i] != '\n'; i++)
		if ((memcmp(s + i, "site-packages", 13) == 0 ||
		    memcmp(s + i, "dist-packages", 13) == 0) &&
		    memchr(s + i, '\n', 13) == NULL)
			return (1);
	return (0);
}

int
py_pkgver_is_stdlib(const char *path, size_t len)
{
	size_t i, e;

	/* /python\d\.\d\d?/(?!.*(site|dist)-packages), anywhere */
	for (i = 0; i + 11 <= len; i++) {
		if (path[i] != '/' || memcmp(path + i + 1, "python", 6) != 0 ||
		    !pkg_isdigit(path[i + 7]) || path[i + 8] != '.' ||
		    !pkg_isdigit(path[i + 9]))
			continue;
		e = i + 10;
		if (e < len && pkg_isdigit(path[e]))
			e++;
		if (e >= len || path[e] != '/')
			continue;
		if (!pkg_has_packages(path + e + 1, len - e - 1))
			return (1);
	}
	return (0);
}

static int
pkg_endswith_ci(const char *s, const char *suffix)
{
	size_t l = strlen(s), n = strlen(suffix);

	return (l >= n && strcasecmp(s + l - n, suffix) == 0);
}

int
py_pkgver_dist_kind(const char *name)
{
	if (pkg_endswith_ci(name, ".dist-info"))
		return (PY_DIST_INFO);
	if (pkg_endswith_ci(name, ".egg-info"))
		return (PY_DIST_EGG);
	return (PY_DIST_NONE);
}

static int
pkg_isalnumdot(char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    pkg_isdigit(c) || c == '.');
}

int
py_pkgver_dirname(const char *name, char *proj, size_t projlen, char *ver,
    size_t verlen)
{
	const char *dot, *dash, *v, *ve;
	size_t root, n, o = 0, i;

	/* os.path.splitext: the last '.' not leading the name */
	dot = strrchr(name, '.');
	root = dot != NULL && dot != name ? (size_t)(dot - name) :
	    strlen(name);
	for (i = 0; i < root && name[i] == '.'; i++)
		;
	if (i == root)
		root = strlen(name);
	ver[0] = '\0';
	/* EGG_NAME: (?P<name>[^-]+)(-(?P<ver>[^-]+)(...)?)? from the start */
	dash = memchr(name, '-', root);
	n = dash != NULL ? (size_t)(dash - name) : root;
	if (n == 0) {
		/* no match: pkg_resources says "Unknown" */
		if (snprintf(proj, projlen, "Unknown") >= (int)projlen)
			return (-ENAMETOOLONG);
		return (0);
	}
	/* safe_name: runs of [^A-Za-z0-9.] become one '-' */
	for (i = 0; i < n; i++) {
		if (o + 2 > projlen)
			return (-ENAMETOOLONG);
		if (pkg_isalnumdot(name[i]))
			proj[o++] = name[i];
		else if (i == 0 || pkg_isalnumdot(name[i - 1]))
			proj[o++] = '-';
	}
	proj[o] = '\0';
	if (dash == NULL)
		return (0);
	v = dash + 1;
	ve = memchr(v, '-', root - (size_t)(v - name));
	n = ve != NULL ? (size_t)(ve - v) : root - (size_t)(v - name);
	if (n == 0)
		return (0);
	if (n + 1 > verlen)
		return (-ENAMETOOLONG);
	memcpy(ver, v, n);
	ver[n] = '\0';
	return (1);
}

/* [\041-\071\073-\176]: a header name's byte */
static int
pkg_ishdrchar(unsigned char c)
{
	return (c >= 041 && c <= 0176 && c != ':');
}

int
py_pkgver_header(const char *s, size_t len, const char *key,
    const char **val, size_t *vlen, int *exact)
{
	size_t p = 0, le, i, klen = strlen(key), vb = 0, ve = 0;
	int n = 0, cur = 0;	/* cur: the header being continued is key */

	*val = NULL;
	*vlen = 0;
	*exact = 0;
	while (p < len) {
		/* email.feedparser splits at \r\n, \r and \n only */
		for (le = p; le < len && s[le] != '\n' && s[le] != '\r'; le++)
			;
		if (le == p)
			break;			/* the blank line */
		if (s[p] == ' ' || s[p] == '\t') {
			if (cur)		/* folded: value goes on */
				ve = le;
		} else if (le - p >= 5 && memcmp(s + p, "From ", 5) == 0) {
			cur = 0;		/* ignored, as Python does */
		} else {
			for (i = p; i < le && pkg_ishdrchar(s[i]); i++)
				;
			if (i == le || s[i] != ':')
				break;		/* not a header: the body */
			cur = 0;
			if (i > p) {
				n++;
				if (i - p == klen && memcmp(s + p, key,
				    klen) == 0)
					*exact = 1;
				if (*val == NULL && i - p == klen &&
				    strncasecmp(s + p, key, klen) == 0) {
					for (vb = i + 1; vb < le &&
					    (s[vb] == ' ' || s[vb] == '\t');
					    vb++)
						;
					ve = le;
					*val = s + vb;
					cur = 1;
				}
			}
		}
		p = le;
		if (p < len && s[p] == '\r')
			p++;
		if (p < len && s[p] == '\n' && (p == le || s[le] == '\r'))
			p++;
	}
	if (*val != NULL)
		*vlen = ve - vb;
	return (n);
}

int
py_pkgver_norm(const char *in, size_t len, char *out, size_t outlen)
{
	size_t i = 0, o = 0, b, slashes = 0;

	while (slashes < len && in[slashes] == '/')
		slashes++;
	if (outlen < 3)
		return (-ENAMETOOLONG);
	if (slashes == 2)
		o = (size_t)snprintf(out, outlen, "//");
	else if (slashes > 0)
		o = (size_t)snprintf(out, outlen, "/");
	i = slashes;
	while (i < len) {
		for (b = i; i < len && in[i] != '/'; i++)
			;
		if (i == b || (i - b == 1 && in[b] == '.')) {
			i++;
			continue;
		}
		if (o > 0 && out[o - 1] != '/') {
			if (o + 1 >= outlen)
				return (-ENAMETOOLONG);
			out[o++] = '/';
		}
		if (o + (i - b) >= outlen)
			return (-ENAMETOOLONG);
		memcpy(out + o, in + b, i - b);
		o += i - b;
		i++;
	}
	if (o == 0)
		out[o++] = '.';
	out[o] = '\0';
	return (0);
}

#define CSV_START	0
#define CSV_FIELD	1
#define CSV_QUOTED	2
#define CSV_QUOTE	3	/* a quote inside a quoted field */

int
py_pkgver_record_next(const char *s, size_t len, size_t *pos, char *out,
    size_t outlen)
{
	char field[PKG_FIELD_MAX];
	size_t p = *pos, f = 0, nf = 0, le;
	int st = CSV_START, over = 0, done = 0;
	char c;

	/* csv.reader over splitlines(): a blank line is an empty row */
	while (p < len && pkg_iseol(s[p]))
		p = pkg_line_next(s, len, p);
	if (p >= len) {
		*pos = p;
		return (0);
	}
	while (!done) {
		le = pkg_line_end(s, len, p);
		for (; p < le; p++) {
			/* Past the first field, only a quote matters. */
			if (nf > 0 && (st == CSV_START || st == CSV_FIELD) &&
			    memchr(s + p, '"', le - p) == NULL) {
				p = le;
				break;
			}
			c = s[p];
			switch (st) {
			case CSV_START:
			case CSV_FIELD:
				if (c == ',') {
					nf++;
					st = CSV_START;
				} else if (c == '"' && st == CSV_START)
					st = CSV_QUOTED;
				else {
					st = CSV_FIELD;
					goto add;
				}
				continue;
			case CSV_QUOTED:
				if (c == '"')
					st = CSV_QUOTE;
				else
					goto add;
				continue;
			case CSV_QUOTE:
				if (c == '"') {
					st = CSV_QUOTED;
					goto add;
				}
				if (c == ',') {
					nf++;
					st = CSV_START;
					continue;
				}
				st = CSV_FIELD;	/* not strict: kept */
				goto add;
			}
add:
			if (nf > 0)
				continue;
			if (f + 1 >= sizeof(field))
				over = 1;
			else
				field[f++] = c;
		}
		p = pkg_line_next(s, len, le);
		/* a quoted field goes on over the line's end, adding nothing */
		if (st != CSV_QUOTED || p >= len)
			done = 1;
	}
	*pos = p;
	if (over)
		return (-ENAMETOOLONG);
	if (py_pkgver_norm(field, f, out, outlen) != 0)
		return (-ENAMETOOLONG);
	return (1);
}

int
py_pkgver_legacy_next(const char *s, size_t len, size_t *pos,
    const char *info, char *out, size_t outlen)
{
	char norm[PKG_FIELD_MAX];
	size_t p = *pos, le, o, ups = 0, n;
	int keep_info = 1, rc;
	const char *rest;

	while (p < len && pkg_iseol(s[p]))
		p = pkg_line_next(s, len, p);
	if (p >= len) {
		*pos = p;
		return (0);
	}
	le = pkg_line_end(s, len, p);
	*pos = pkg_line_next(s, len, le);
	if ((rc = py_pkgver_norm(s + p, le - p, norm, sizeof(norm))) != 0)
		return (rc);
	if (norm[0] == '/') {
		/* Path(info, "/abs") is "/abs" */
		if (strlen(norm) + 1 > outlen)
			return (-ENAMETOOLONG);
		memcpy(out, norm, strlen(norm) + 1);
		return (1);
	}
	/* Each leading ".." takes the info directory, then adds a ".." */
	rest = norm;
	while (strncmp(rest, "..", 2) == 0 && (rest[2] == '/' ||
	    rest[2] == '\0')) {
		if (keep_info)
			keep_info = 0;
		else
			ups++;
		rest += rest[2] == '/' ? 3 : 2;
	}
	if (strcmp(rest, ".") == 0)
		rest = "";	/* Path(".").parts is () */
	o = 0;
	out[0] = '\0';
	if (keep_info) {
		n = strlen(info);
		if (n + 2 > outlen)
			return (-ENAMETOOLONG);
		memcpy(out, info, n);
		o = n;
	}
	for (; ups > 0; ups--) {
		if (o + 4 > outlen)
			return (-ENAMETOOLONG);
		if (o > 0)
			out[o++] = '/';
		memcpy(out + o, "..", 2);
		o += 2;
	}
	n = strlen(rest);
	if (n > 0) {
		if (o + n + 2 > outlen)
			return (-ENAMETOOLONG);
		if (o > 0)
			out[o++] = '/';
		memcpy(out + o, rest, n);
		o += n;
	}
	if (o == 0)
		out[o++] = '.';
	out[o] = '\0';
	return (1);
}
