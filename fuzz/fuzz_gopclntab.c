/*
 * Fuzz the .gopclntab reader: open the bytes as a table, read every
 * function, look up around each entry and end; read each _func record,
 * walk its inline-index table, and ask the inline chain (the input's own
 * bytes standing in for the inline tree) and file:line at a few pcs.
 * FUZZ_SOURCES: plugins/perf/sym/gopclntab.c
 */
#include <stddef.h>
#include <stdint.h>

#include "gopclntab.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gopclntab	 g;
	struct gopclntab_fn	 fn;
	struct gopclntab_pciter	 it;
	uint32_t		 no[GOPCLNTAB_INL_DEPTH];
	uint64_t		 e, end, lo, hi, pc;
	int32_t			 v, line;
	size_t			 fl, steps;
	const char		*file;
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
		if (gopclntab_fn(&g, i, &fn) != 0)
			continue;
		gopclntab_pcstart(&it, &g, fn.pcinl, fn.entry);
		for (steps = 0; steps < 4096 &&
		    gopclntab_pcnext(&it, &lo, &hi, &v) == 1; steps++)
			sum += (size_t)(uint32_t)v;
		for (pc = fn.entry; pc < fn.end && pc - fn.entry < 256;
		    pc += 16) {
			sum += (size_t)gopclntab_inline(&g, &fn, data, size, pc,
			    no, GOPCLNTAB_INL_DEPTH);
			if (gopclntab_line(&g, &fn, pc, &file, &fl, &line) == 0 &&
			    fl > 0)
				sum += (unsigned char)file[fl - 1];
		}
	}
	(void)gopclntab_version(&g);
	return (0);
}
