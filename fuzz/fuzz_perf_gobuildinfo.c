/*
 * Fuzz the .go.buildinfo version reader, into a buffer of the size the
 * symbolizer uses and into a tiny one.
 * FUZZ_SOURCES: plugins/perf/gobuildinfo.c
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gobuildinfo.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char			 v[GOBUILDINFO_VER_MAX], s[4];
	volatile size_t		 sum = 0;

	if (gobuildinfo_version(data, size, v, sizeof(v)) == 0)
		sum += strlen(v);
	if (gobuildinfo_version(data, size, s, sizeof(s)) == 0)
		sum += strlen(s);
	(void)sum;
	return (0);
}
