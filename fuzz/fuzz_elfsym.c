/*
 * Fuzz the ELF symbol-table loader (libelf from memory), then look up
 * addresses around every symbol and segment; and the sliced loader of
 * lazy tables (its own reads of string and symbol sections) from a file,
 * in small steps, reading every name back.
 * FUZZ_SOURCES: plugins/perf/elfsym.c plugins/perf/gopclntab.c
 * FUZZ_SOURCES: plugins/perf/gobuildinfo.c plugins/perf/elfsym_go.c
 * FUZZ_SOURCES: plugins/perf/elfsym_load.c
 * FUZZ_LIBS: -lelf
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/mman.h>

#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "elfsym.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_lazy(const uint8_t *data, size_t size)
{
	struct elfsym_loader	*ld;
	struct elfsym_table	*t = NULL;
	char			 name[256];
	size_t			 i;
	int			 fd, r;

	if ((fd = memfd_create("fuzz_elfsym", MFD_CLOEXEC)) < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size ||
	    elfsym_load_begin(fd, 1, &ld) != 0) {
		close(fd);
		return;
	}
	close(fd);
	while ((r = elfsym_load_step(ld, 64, NULL)) == 1)
		;
	if (r == 0 && elfsym_load_end(ld, &t) == 0) {
		for (i = 0; i < t->nsyms; i++) {
			(void)elfsym_name(t, i, name, sizeof(name));
			(void)elfsym_find(t, t->syms[i].addr);
		}
		elfsym_free(t);
	}
	elfsym_load_free(ld);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfsym_table	*t;
	uint64_t		 v;
	char			 hex[2 * ELFSYM_BUILD_ID_MAX + 1];
	size_t			 i;

	fuzz_lazy(data, size);
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
