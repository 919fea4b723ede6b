/*
 * A target process's memory as the runtime readers' tests lay it out: an
 * image of MEMIMG_SIZE bytes at address MEMIMG_BASE, written little-endian
 * (put64, put32) and read through img_read, the readers' read callback
 * (-EFAULT outside the image).  Define both before including, once per
 * test program.
 */
#ifndef GP_TEST_MEMIMG_H
#define GP_TEST_MEMIMG_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

static uint8_t img[MEMIMG_SIZE];

static int
img_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	if (addr < MEMIMG_BASE || addr - MEMIMG_BASE > MEMIMG_SIZE ||
	    len > MEMIMG_SIZE - (addr - MEMIMG_BASE))
		return (-EFAULT);
	memcpy(buf, img + (addr - MEMIMG_BASE), len);
	return (0);
}

static void
put64(uint64_t addr, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		img[addr - MEMIMG_BASE + i] = (uint8_t)(v >> (8 * i));
}

static void
put32(uint64_t addr, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		img[addr - MEMIMG_BASE + i] = (uint8_t)(v >> (8 * i));
}

#endif
