/*
 * Fuzz the .go.buildinfo version reader, into a buffer of the size the
 * symbolizer uses and into a tiny one, and the pre-1.18 layout with the
 * input as the image its pointers lead into.
 * FUZZ_SOURCES: plugins/perf/sym/gobuildinfo.c
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gobuildinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct img {
	const uint8_t *p;
	size_t len;
};

/* The input doubles as the image: an address is an offset into it. */
static int
img_read(void *arg, uint64_t addr, void *buf, size_t n)
{
	const struct img *im = arg;

	if (addr > im->len || n > im->len - addr)
		return (-1);
	memcpy(buf, im->p + addr, n);
	return (0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct img im = { data, size };
	char v[GOBUILDINFO_VER_MAX], s[4];
	volatile size_t sum = 0;

	if (gobuildinfo_version(data, size, v, sizeof(v)) == 0)
		sum += strlen(v);
	if (gobuildinfo_version(data, size, s, sizeof(s)) == 0)
		sum += strlen(s);
	if (gobuildinfo_version_at(data, size, img_read, &im, v,
	    sizeof(v)) == 0)
		sum += strlen(v);
	(void)sum;
	return (0);
}
