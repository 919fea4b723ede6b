/*
 * Fuzz the .gopclntab reader: open the bytes as a table, read every
 * function, look up around each entry and end.
 * FUZZ_SOURCES: plugins/perf/gopclntab.c
 */
#include <stddef.h>
#include <stdint.h>

#include "gopclntab.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gopclntab	 g;
	uint64_t		 e, end;
	const char		*name;
	size_t			 i, len;
	volatile size_t		 sum = 0;

	if (gopclntab_open(&g, data, size, 0x401000) != 0)
		return (0);
	for (i = 0; i < g.nfunc; i++) {
		if (gopclntab_func(&g, i, &e, &end, &name, &len) != 0)
			continue;
		if (len > 0)
			sum += (unsigned char)name[len - 1];
		(void)gopclntab_find(&g, e);
		(void)gopclntab_find(&g, e - 1);
		(void)gopclntab_find(&g, end);
	}
	(void)gopclntab_version(&g);
	return (0);
}
