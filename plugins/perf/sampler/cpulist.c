/*
 * Parse a kernel CPU list ("0-3,5,7-8\n", /sys/devices/system/cpu/online):
 * a pure function over bytes, so it is unit tested and fuzzed.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "sampler.h"

static int
cpulist_number(const char *buf, size_t len, size_t *i, uint32_t *out)
{
	uint64_t v = 0;
	size_t start = *i;

	while (*i < len && buf[*i] >= '0' && buf[*i] <= '9') {
		v = v * 10 + (uint64_t)(buf[*i] - '0');
		if (v > 1000000)
			return (-EINVAL);
		(*i)++;
	}
	if (*i == start)
		return (-EINVAL);
	*out = (uint32_t)v;
	return (0);
}

int
cpulist_parse(const char *buf, size_t len, uint8_t *set, size_t n)
{
	size_t i = 0;
	uint32_t lo, hi, c;
	int count = 0;

	memset(set, 0, n);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\0' ||
	    buf[len - 1] == ' '))
		len--;
	if (len == 0)
		return (-EINVAL);
	while (i < len) {
		if (cpulist_number(buf, len, &i, &lo) != 0)
			return (-EINVAL);
		hi = lo;
		if (i < len && buf[i] == '-') {
			i++;
			if (cpulist_number(buf, len, &i, &hi) != 0 || hi < lo)
				return (-EINVAL);
		}
		if (i < len) {
			if (buf[i] != ',' || i + 1 == len)
				return (-EINVAL);
			i++;
		}
		for (c = lo; c <= hi && c < n; c++) {
			if (!set[c])
				count++;
			set[c] = 1;
		}
	}
	return (count);
}
