/*
 * Little-endian integers of a target's memory: see langmem.h.
 */
#include "config.h"

#include <errno.h>

#include "langmem.h"

int
langmem_read_u64(langmem_read_fn read, void *arg, uint64_t addr,
    uint64_t *out)
{
	uint8_t b[8];
	int rc, i;

	if (addr == 0 || addr + 8 < addr)
		return (-EFAULT);
	if ((rc = read(arg, addr, b, sizeof(b))) != 0)
		return (rc);
	*out = 0;
	for (i = 7; i >= 0; i--)
		*out = *out << 8 | b[i];
	return (0);
}

int
langmem_read_u32(langmem_read_fn read, void *arg, uint64_t addr,
    uint32_t *out)
{
	uint8_t b[4];
	int rc;

	if (addr == 0 || addr + 4 < addr)
		return (-EFAULT);
	if ((rc = read(arg, addr, b, sizeof(b))) != 0)
		return (rc);
	*out = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
	return (0);
}

int
langmem_read_text(langmem_read_fn read, void *arg, uint64_t addr,
    uint64_t n, char *buf, size_t len)
{
	size_t i;
	int rc;

	if (n > len - 1)
		n = len - 1;
	if (n > 0 && (rc = read(arg, addr, buf, (size_t)n)) != 0) {
		buf[0] = '\0';
		return (rc);
	}
	buf[n] = '\0';
	for (i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == ';' ||
		    buf[i] == 0x7f)
			buf[i] = '?';
	return (0);
}
