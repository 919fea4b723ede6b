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
	unsigned	 shift, i;

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

int
gobuildinfo_version(const void *buf, size_t len, char *out, size_t outlen)
{
	const uint8_t	*p = buf;
	uint64_t	 n;
	size_t		 off = GOBUILDINFO_HDR, i;

	if (outlen > 0)
		out[0] = '\0';
	if (len < sizeof(gobuildinfo_magic) ||
	    memcmp(p, gobuildinfo_magic, sizeof(gobuildinfo_magic)) != 0)
		return (-ENOENT);
	if (len < GOBUILDINFO_HDR)
		return (-EINVAL);
	if ((p[15] & GOBUILDINFO_FLAG_INLINE) == 0)
		return (-ENOTSUP);
	if (gobuildinfo_uvarint(p, len, &off, &n) != 0 || n == 0 ||
	    n > len - off || n >= outlen || n >= GOBUILDINFO_VER_MAX)
		return (-EINVAL);
	/* It goes into JSON and logs: plain printable ASCII only. */
	for (i = 0; i < n; i++)
		if (p[off + i] < 0x20 || p[off + i] > 0x7e)
			return (-EINVAL);
	memcpy(out, p + off, n);
	out[n] = '\0';
	return (0);
}
