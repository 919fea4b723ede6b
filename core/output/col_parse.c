/*
 * The .col parser: header line and folded stacks, tolerant of the damage
 * real files carry (CRLF, junk lines, huge counts) because the flame graph
 * must still draw whatever is good.  Allocates only its frame array.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "output/col_parse.h"

struct col_frames {
	struct col_span *v;
	size_t cap;
};

static void
col_note_bad(struct col_result *res, unsigned lineno, const char *why,
    const char *p, size_t len)
{
	struct col_bad *b;

	res->nbad++;
	if (res->nkept >= COL_BAD_KEEP)
		return;
	b = &res->bad[res->nkept++];
	b->lineno = lineno;
	b->why = why;
	if (len > COL_BAD_TEXT)
		len = COL_BAD_TEXT;
	memcpy(b->text, p, len);
	b->text[len] = '\0';
}

/* A decimal count: digits only, no sign, must fit in 63 bits (pprof and
 * JSON readers take int64). */
static const char *
col_parse_count(const char *p, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (len == 0)
		return ("missing count");
	for (i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return ("count is not a number");
		if (v > (UINT64_C(0x7fffffffffffffff) - (p[i] - '0')) / 10)
			return ("count too large");
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	*out = v;
	return (NULL);
}

/* Split "a;b;c" into spans; empty frames are kept (an empty container
 * frame is legitimate). */
static uint32_t
col_split(const char *p, size_t len, struct col_frames *fr)
{
	size_t i, start = 0, n = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && p[i] != ';')
			continue;
		if (n == fr->cap) {
			fr->cap = fr->cap ? fr->cap * 2 : 64;
			fr->v = xreallocarray(fr->v, fr->cap, sizeof(*fr->v));
		}
		fr->v[n].p = p + start;
		fr->v[n].len = i - start;
		n++;
		start = i + 1;
	}
	return ((uint32_t)n);
}

static int
col_parse_line(const char *p, size_t len, unsigned lineno,
    struct col_frames *fr, int (*cb)(const struct col_line *, void *),
    void *arg, struct col_result *res)
{
	struct col_line line;
	const char *sp, *why;
	uint64_t count;

	sp = NULL;
	for (size_t i = len; i > 0; i--)
		if (p[i - 1] == ' ') {
			sp = p + i - 1;
			break;
		}
	if (sp == NULL) {
		col_note_bad(res, lineno, "no count", p, len);
		return (0);
	}
	why = col_parse_count(sp + 1, (size_t)(p + len - sp - 1), &count);
	if (why != NULL) {
		col_note_bad(res, lineno, why, p, len);
		return (0);
	}
	if (sp == p) {
		col_note_bad(res, lineno, "no frames", p, len);
		return (0);
	}
	if (count == 0)
		return (0);
	line.lineno = lineno;
	line.nframes = col_split(p, (size_t)(sp - p), fr);
	line.frames = fr->v;
	line.count = count;
	res->nstacks++;
	res->total = res->total + count < res->total ? UINT64_MAX :
	    res->total + count;
	return (cb != NULL ? cb(&line, arg) : 0);
}

int
col_parse(const char *buf, size_t len,
    int (*cb)(const struct col_line *, void *), void *arg,
    struct col_result *res)
{
	struct col_frames fr = { NULL, 0 };
	const char *p, *end, *nl;
	size_t l;
	unsigned lineno = 0;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	p = buf;
	end = buf + len;
	while (p < end && rc == 0) {
		nl = memchr(p, '\n', (size_t)(end - p));
		l = (size_t)((nl != NULL ? nl : end) - p);
		lineno++;
		if (l > 0 && p[l - 1] == '\r')
			l--;
		if (lineno == 1 && l > 0 && p[0] == '#') {
			res->header.p = p + 1;
			res->header.len = l - 1;
			while (res->header.len > 0 && *res->header.p == ' ') {
				res->header.p++;
				res->header.len--;
			}
		} else if (l > 0 && p[0] == '#')
			col_note_bad(res, lineno, "header not on line 1", p, l);
		else if (l > 0)
			rc = col_parse_line(p, l, lineno, &fr, cb, arg, res);
		p = nl != NULL ? nl + 1 : end;
	}
	free(fr.v);
	return (rc);
}

/* Length of the valid UTF-8 sequence at p (1..4), 0 if invalid: frame
 * names come from untrusted processes and every consumer repairs them. */
size_t
col_utf8_len(const unsigned char *p, size_t n)
{
	uint32_t c;
	size_t len, i;

	if (p[0] < 0x80)
		return (1);
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07;
	else
		return (0);
	if (len > n)
		return (0);
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return (0);
		c = (c << 6) | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF. */
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return (0);
	return (len);
}
