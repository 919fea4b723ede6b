/*
 * CPython str objects read from a target (docs/specs/cpython.md §9): where the
 * characters are, how wide they are, and their conversion to UTF-8.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>

#include "pyreader.h"

/*
 * From a str header (hdr, at least str_compact_size bytes, read at obj):
 * the address of its characters, their size in bytes and the kind (1, 2
 * or 4 bytes per character; ASCII is kind 1).  Legacy (non-compact)
 * strings and implausible lengths are refused.
 */
int
py_str_decode(const struct py_offsets *o, const uint8_t *hdr, size_t hdrlen,
    uint64_t obj, uint64_t *data, size_t *nbytes, int *kind)
{
	uint64_t length;
	uint32_t state;
	int k;

	if (hdrlen < o->str_compact_size || o->str_length + 8 > hdrlen ||
	    o->str_state + 4 > hdrlen)
		return (-EINVAL);
	length = py_u64(hdr, o->str_length);
	state = py_u32(hdr, o->str_state);
	k = (int)((state >> 2) & 7);
	if (length > PY_MAX_STR || !(state & 0x20) ||
	    (k != 1 && k != 2 && k != 4))
		return (-EINVAL);
	if (state & 0x40) {
		if (k != 1)
			return (-EINVAL);
		*data = obj + o->str_ascii_size;
	} else
		*data = obj + o->str_compact_size;
	*nbytes = (size_t)length * (size_t)k;
	*kind = k;
	return (0);
}

static size_t
py_utf8_put(uint32_t c, char *out)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return (1);
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3f));
		return (2);
	}
	if (c >= 0xd800 && c <= 0xdfff)
		c = 0xfffd;	/* lone surrogate (e.g. surrogateescape) */
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | (c >> 12));
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return (3);
	}
	if (c > 0x10ffff)
		c = 0xfffd;
	if (c < 0x10000)
		return (py_utf8_put(c, out));
	out[0] = (char)(0xf0 | (c >> 18));
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return (4);
}

/*
 * Characters of `kind` into NUL-terminated UTF-8; the output is cut at a
 * character boundary when out is too small.  Returns the length written.
 * NUL characters become '?' so names stay C strings.
 */
int
py_str_to_utf8(const uint8_t *in, size_t nbytes, int kind, char *out,
    size_t outlen)
{
	size_t i, o = 0, n;
	uint32_t c;
	char tmp[4];

	if (outlen == 0 || (kind != 1 && kind != 2 && kind != 4))
		return (-EINVAL);
	for (i = 0; i + (size_t)kind <= nbytes; i += (size_t)kind) {
		if (kind == 1)
			c = in[i];
		else if (kind == 2)
			c = (uint32_t)in[i] | (uint32_t)in[i + 1] << 8;
		else
			c = py_u32(in, i);
		if (c == 0)
			c = '?';
		n = py_utf8_put(c, tmp);
		if (o + n + 1 > outlen)
			break;
		for (size_t j = 0; j < n; j++)
			out[o++] = tmp[j];
	}
	out[o] = '\0';
	return ((int)o);
}
