/*
 * Go's .go.buildinfo header: see gobuildinfo.h.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "gobuildinfo.h"

static const char gobuildinfo_magic[14] = "\xff Go buildinf:";

#define GOBUILDINFO_FLAG_INLINE	0x2	/* strings follow the header */

/* A uvarint at *off (at most 10 bytes, as encoding/binary); 0 or -1. */
static int
gobuildinfo_uvarint(const uint8_t *p, size_t len, size_t *off, uint64_t *v)
{
	unsigned shift, i;

	*v = 0;
	for (i = 0, shift = 0; i < 10; i++, shift += 7) {
		if (*off >= len)
			return (-1);
		if (i == 9 && p[*off] > 1)
			return (-1);		/* overflows 64 bits */
		*v |= (uint64_t)(p[*off] & 0x7f) << shift;
		if ((p[(*off)++] & 0x80) == 0)
			return (0);
	}
	return (-1);
}

/* Into out: n printable ASCII bytes; 0 or -EINVAL. */
static int
gobuildinfo_copy(const uint8_t *p, uint64_t n, char *out, size_t outlen)
{
	size_t i;

	if (n == 0 || n >= outlen || n >= GOBUILDINFO_VER_MAX)
		return (-EINVAL);
	/* It goes into JSON and logs: plain printable ASCII only. */
	for (i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			return (-EINVAL);
	memcpy(out, p, n);
	out[n] = '\0';
	return (0);
}

/* A little-endian pointer of size ps (4 or 8). */
uint64_t
gobuildinfo_ptr(const uint8_t *p, unsigned ps)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < ps; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return (v);
}

int
gobuildinfo_version_at(const void *buf, size_t len, gobuildinfo_read_fn read,
    void *arg, char *out, size_t outlen)
{
	const uint8_t *p = buf;
	uint8_t hdr[16], str[GOBUILDINFO_VER_MAX];
	uint64_t addr, n;
	unsigned ps;
	int r;

	if ((r = gobuildinfo_version(buf, len, out, outlen)) != -ENOTSUP)
		return (r);
	ps = p[14];
	/* flags bit 0: big-endian, not read here */
	if ((ps != 4 && ps != 8) || (p[15] & 0x1) != 0 || read == NULL)
		return (-ENOTSUP);
	/* The version's string header, then its bytes. */
	addr = gobuildinfo_ptr(p + 16, ps);
	if (read(arg, addr, hdr, 2 * ps) != 0)
		return (-EINVAL);
	addr = gobuildinfo_ptr(hdr, ps);
	n = gobuildinfo_ptr(hdr + ps, ps);
	if (n == 0 || n >= sizeof(str) || read(arg, addr, str, n) != 0)
		return (-EINVAL);
	return (gobuildinfo_copy(str, n, out, outlen));
}

int
gobuildinfo_version(const void *buf, size_t len, char *out, size_t outlen)
{
	const uint8_t *p = buf;
	uint64_t n;
	size_t off = GOBUILDINFO_HDR;

	if (outlen > 0)
		out[0] = '\0';
	if (len < sizeof(gobuildinfo_magic) ||
	    memcmp(p, gobuildinfo_magic, sizeof(gobuildinfo_magic)) != 0)
		return (-ENOENT);
	if (len < GOBUILDINFO_HDR)
		return (-EINVAL);
	if ((p[15] & GOBUILDINFO_FLAG_INLINE) == 0)
		return (-ENOTSUP);
	if (gobuildinfo_uvarint(p, len, &off, &n) != 0 || n > len - off)
		return (-EINVAL);
	return (gobuildinfo_copy(p + off, n, out, outlen));
}
