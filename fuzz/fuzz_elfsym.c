/*
 * Fuzz the ELF symbol-table loader (libelf from memory), then look up
 * addresses around every symbol and segment.
 * FUZZ_SOURCES: plugins/perf/elfsym.c plugins/perf/gopclntab.c
 * FUZZ_SOURCES: plugins/perf/gobuildinfo.c plugins/perf/elfsym_go.c
 * FUZZ_LIBS: -lelf
 */
#include <stddef.h>
#include <stdint.h>

#include "elfsym.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfsym_table	*t;
	uint64_t		 v;
	char			 hex[2 * ELFSYM_BUILD_ID_MAX + 1];
	size_t			 i;

	if (elfsym_load_mem(data, size, &t) != 0)
		return (0);
	for (i = 0; i < t->nsyms; i++) {
		(void)elfsym_lookup(t, t->syms[i].addr, NULL);
		(void)elfsym_lookup(t, t->syms[i].addr + t->syms[i].size, NULL);
	}
	for (i = 0; i < t->nsegs; i++)
		if (elfsym_file_to_vaddr(t, t->segs[i].off, &v) == 0)
			(void)elfsym_lookup(t, v, NULL);
	elfsym_build_id_hex(t, hex, sizeof(hex));
	elfsym_free(t);
	return (0);
}
