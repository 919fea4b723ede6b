/*
 * The fuzzers' target memory: the input mapped at a fixed address, read
 * through image_read (a runtime reader's read callback: -EFAULT outside
 * the input), each read counted so a target can bound a walk's cost.
 */
#ifndef GP_FUZZ_IMAGE_H
#define GP_FUZZ_IMAGE_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#define BASE	0x100000ull

struct image {
	const uint8_t *data;
	size_t len;
	uint64_t reads;
};

static int
image_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct image *im = arg;

	im->reads++;
	if (addr < BASE || addr - BASE > im->len ||
	    len > im->len - (addr - BASE))
		return (-EFAULT);
	memcpy(buf, im->data + (addr - BASE), len);
	return (0);
}

#endif
