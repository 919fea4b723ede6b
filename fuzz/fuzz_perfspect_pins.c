/*
 * libFuzzer target: the list of pinned PerfSpect release digests
 * (plugins/perfspect/pins.c).  Input: the list's bytes.  Also asserts the
 * promise: a digest is found only if its 64 hex digits appear in the input
 * followed by a version.
 * FUZZ_SOURCES: plugins/perfspect/pins.c
 */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../plugins/perfspect/perfspect.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char hex[65], v[32], *low;
	size_t n, i;

	/* Look for the first 64 input bytes as a digest, when they are hex. */
	if (size >= 64) {
		memcpy(hex, data, 64);
		hex[64] = '\0';
		for (i = 0; i < 64 && isxdigit((unsigned char)hex[i]); i++)
			;
		if (i < 64)
			memset(hex, 'a', 64);
	} else
		memset(hex, 'a', 64), hex[64] = '\0';
	if (ps_pins_find((const char *)data, size, hex, v, sizeof(v), &n) ==
	    1) {
		if (n == 0 || v[0] == '\0' || strlen(v) >= sizeof(v))
			abort();
		/* Case-insensitively, the digest is in the input. */
		if ((low = malloc(size + 1)) == NULL)
			return (0);
		for (i = 0; i < size; i++)
			low[i] = tolower(data[i]);
		low[size] = '\0';
		for (i = 0; i < 64; i++)
			hex[i] = tolower((unsigned char)hex[i]);
		if (memmem(low, size, hex, 64) == NULL)
			abort();
		free(low);
	}
	return (0);
}
