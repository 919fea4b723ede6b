/*
 * Fuzz the ELF symbol-table loader (libelf from memory), then look up
 * addresses around every symbol and segment, and a stripped Go binary's
 * inlined frames (each function's ranges built on its first look-up).
 * FUZZ_SOURCES: plugins/perf/elfsym.c plugins/perf/gopclntab.c
 * FUZZ_SOURCES: plugins/perf/gobuildinfo.c plugins/perf/elfsym_go.c
 * FUZZ_LIBS: -lelf
 */
#include <stddef.h>
#include <stdint.h>

#include "elfsym.h"
#include "gopclntab.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfsym_table	*t;
	uint64_t		 v;
	char			 hex[2 * ELFSYM_BUILD_ID_MAX + 1];
	const char		*names[GOPCLNTAB_INL_DEPTH];
	size_t			 i;

	if (elfsym_load_mem(data, size, &t) != 0)
		return (0);
	for (i = 0; i < t->nsyms; i++) {
		(void)elfsym_lookup(t, t->syms[i].addr, NULL);
		(void)elfsym_lookup(t, t->syms[i].addr + t->syms[i].size, NULL);
		/* a Go function's inline ranges, built on this first ask */
		(void)elfsym_go_inlined(t, t->syms[i].addr + t->syms[i].size /
		    2, names, GOPCLNTAB_INL_DEPTH);
	}
	(void)elfsym_go_inl_ranges(t, NULL, 0);
	for (i = 0; i < t->go_ninl; i++)
		(void)elfsym_go_inlined(t, t->go_inl[i].addr, names, 4);
	for (i = 0; i < t->nsegs; i++)
		if (elfsym_file_to_vaddr(t, t->segs[i].off, &v) == 0)
			(void)elfsym_lookup(t, v, NULL);
	elfsym_build_id_hex(t, hex, sizeof(hex));
	elfsym_free(t);
	return (0);
}
