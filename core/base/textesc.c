/*
 * The one rule for text that reaches a profile (comm, thread names, app
 * ids, container names, frame names, and the strings of the header JSON):
 * the result is valid UTF-8 with no control character, so the backend
 * (which decodes strictly and answers 422 otherwise) accepts it and no
 * consumer that splits lines (Python's str.splitlines() splits on \v, \f,
 * \x1c-\x1e, U+0085, U+2028, U+2029 as well as \n and \r) sees a new line.
 *
 *   - a byte that does not start a valid UTF-8 sequence becomes "\xNN"
 *     (Python's backslashreplace): distinct names stay distinct;
 *   - a control character (Unicode Cc: C0, DEL, C1) becomes "\xNN", and a
 *     line or paragraph separator (U+2028, U+2029) "\uNNNN" (Python's repr);
 *   - with TEXTESC_FRAME, ';' becomes '|' (the .col frame separator;
 *     docs/specs/gprofiler-compat.md §4.2 does this for Java signatures);
 *   - with TEXTESC_LINES, '\n' is kept (multi-line text such as a whole
 *     .col), everything else as above;
 *   - everything else, the backslash included, is copied: the rule is
 *     idempotent (its output is left unchanged by a second pass).
 *
 * Pure functions over bytes, no allocation but textesc_dup's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/textesc.h"
#include "base/xmalloc.h"

static const char textesc_hex[] = "0123456789abcdef";

/*
 * The code point of the valid UTF-8 sequence at p (n > 0 bytes) and its
 * length in *len; *len = 0 when the byte at p starts no valid sequence
 * (overlong forms, surrogates and values past U+10FFFF are invalid).
 */
static uint32_t
textesc_decode(const unsigned char *p, size_t n, size_t *len)
{
	uint32_t c;
	size_t l, i;

	*len = 0;
	if (p[0] < 0x80) {
		*len = 1;
		return (p[0]);
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		l = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		l = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		l = 4, c = p[0] & 0x07;
	else
		return (0);
	if (l > n)
		return (0);
	for (i = 1; i < l; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return (0);
		c = (c << 6) | (p[i] & 0x3f);
	}
	if ((l == 3 && c < 0x800) || (l == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return (0);
	*len = l;
	return (c);
}

/* What replaces code point c (or an invalid byte, bad != 0): its length
 * and, when out != NULL, the bytes; 0 when c is copied as it is. */
static size_t
textesc_subst(uint32_t c, int bad, int flags, char *out)
{
	char tmp[8];
	char *o = out != NULL ? out : tmp;

	if (!bad) {
		if (c == ';' && (flags & TEXTESC_FRAME)) {
			o[0] = '|';
			return (1);
		}
		if (c == '\n' && (flags & TEXTESC_LINES))
			return (0);
		if (c == 0x2028 || c == 0x2029) {
			memcpy(o, c == 0x2028 ? "\\u2028" : "\\u2029", 6);
			return (6);
		}
		if (!(c < 0x20 || (c >= 0x7f && c <= 0x9f)))
			return (0);
	}
	o[0] = '\\';
	o[1] = 'x';
	o[2] = textesc_hex[(c >> 4) & 0xf];
	o[3] = textesc_hex[c & 0xf];
	return (4);
}

/* Whether the rule leaves s[0..n) unchanged. */
int
textesc_clean(const char *s, size_t n, int flags)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;
	size_t i, l;

	for (i = 0; i < n; i += l) {
		/* Fast path: printable ASCII. */
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != ';') {
			l = 1;
			continue;
		}
		c = textesc_decode(p + i, n - i, &l);
		if (l == 0 || textesc_subst(c, 0, flags, NULL) != 0)
			return (0);
	}
	return (1);
}

/*
 * Write the rule's output for s[0..n) to dst, which has room for
 * textesc_len() + 1 bytes; NUL-terminated.  Returns the length written.
 * With dst NULL only the length is counted (one walk for both, so they
 * cannot disagree).
 */
size_t
textesc_write(char *dst, const char *s, size_t n, int flags)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;
	size_t i, l, r, o = 0;
	char *at;

	for (i = 0; i < n; i += l) {
		at = dst != NULL ? dst + o : NULL;
		c = textesc_decode(p + i, n - i, &l);
		if (l == 0) {
			o += textesc_subst(p[i], 1, flags, at);
			l = 1;
		} else if ((r = textesc_subst(c, 0, flags, at)) != 0)
			o += r;
		else {
			if (at != NULL)
				memcpy(at, s + i, l);
			o += l;
		}
	}
	if (dst != NULL)
		dst[o] = '\0';
	return (o);
}

/* Length of the rule's output for s[0..n) (no NUL counted). */
size_t
textesc_len(const char *s, size_t n, int flags)
{
	return (textesc_write(NULL, s, n, flags));
}

/* The rule's output as a new NUL-terminated string (length in *lenp if
 * not NULL); NULL when out of memory.  Caller frees. */
char *
textesc_dup(const char *s, size_t n, int flags, size_t *lenp)
{
	size_t len = textesc_len(s, n, flags);
	char *d;

	if ((d = malloc(len + 1)) == NULL)
		return (NULL);
	textesc_write(d, s, n, flags);
	if (lenp != NULL)
		*lenp = len;
	return (d);
}

static int
textesc_skipped(const char *key, const char *const *skip)
{
	for (; skip != NULL && *skip != NULL; skip++)
		if (strcmp(key, *skip) == 0)
			return (1);
	return (0);
}

/* A string value under the rule, in place (shared values with it). */
static void
textesc_json_string(struct json_object *o)
{
	const char *s = json_object_get_string(o);
	size_t n = (size_t)json_object_get_string_len(o), len;
	char *d;

	if (textesc_clean(s, n, 0) || (d = textesc_dup(s, n, 0, &len)) == NULL)
		return;
	json_object_set_string_len(o, d, (int)len);
	free(d);
}

/*
 * Walk o (depth bounded by the tree json-c built: our own header).  Object
 * keys from outside (PerfSpect metric names) are renamed by removing and
 * re-adding the member, after the iteration.
 */
static void
textesc_json_walk(struct json_object *o, const char *const *skip)
{
	struct json_object *v;
	char *nk, **bad = NULL;
	size_t i, n, nbad = 0;

	switch (json_object_get_type(o)) {
	case json_type_string:
		textesc_json_string(o);
		break;
	case json_type_object: {
		json_object_object_foreach(o, k, val) {
			if (textesc_skipped(k, skip))
				continue;
			textesc_json_walk(val, NULL);
			if (!textesc_clean(k, strlen(k), 0)) {
				bad = xreallocarray(bad, nbad + 1,
				    sizeof(*bad));
				bad[nbad++] = xstrdup(k);
			}
		}
		for (i = 0; i < nbad; i++) {
			if (json_object_object_get_ex(o, bad[i], &v) &&
			    (nk = textesc_dup(bad[i], strlen(bad[i]), 0,
			    NULL)) != NULL) {
				json_object_object_add(o, nk,
				    json_object_get(v));
				json_object_object_del(o, bad[i]);
				free(nk);
			}
			free(bad[i]);
		}
		free(bad);
		break;
	}
	case json_type_array:
		n = json_object_array_length(o);
		for (i = 0; i < n; i++)
			textesc_json_walk(json_object_array_get_idx(o, i),
			    NULL);
		break;
	default:
		break;
	}
}

void
textesc_json(struct json_object *o, const char *const *skip)
{
	if (o != NULL)
		textesc_json_walk(o, skip);
}
