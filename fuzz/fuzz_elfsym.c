/*
 * Fuzz the ELF symbol-table loader (plugins/common/elf's reader, from
 * memory; 64- and 32-bit), then look up addresses around every symbol
 * and segment, and a stripped Go binary's
 * inlined frames (each function's ranges built on its first look-up);
 * the Go part also read in slices from a file (elfsym_go_step), and the
 * whole table loaded from a file in steps (elfsym_load_step) compared
 * with the load in one go.
 * FUZZ_SOURCES: plugins/perf/sym/elfsym.c plugins/perf/sym/gopclntab.c
 * FUZZ_SOURCES: plugins/perf/sym/gobuildinfo.c plugins/perf/sym/elfsym_go.c
 * FUZZ_SOURCES: plugins/perf/sym/elfsym_goinl.c plugins/perf/sym/elfsym_load.c
 * FUZZ_SOURCES: plugins/perf/sym/elfsym_sort.c
 * FUZZ_SOURCES: plugins/common/elf/elfread.c plugins/common/elf/elfread_held.c plugins/common/elf/elfbad.c
 */
#include <sys/mman.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "elfsym_int.h"
#include "gopclntab.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* A stripped Go binary's table read in slices from a file (pread). */
static void
fuzz_go_sliced(const uint8_t *data, size_t size)
{
	struct elfsym_build b;
	struct elfsym_goread r;
	struct elfsym_go go;
	const char *names[4];
	struct elfread *e;
	size_t i;
	int fd;

	if ((fd = memfd_create("fuzz", MFD_CLOEXEC)) < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size ||
	    elfread_open_fd(fd, ELFSYM_READ_BYTES, ELFSYM_READ_CALLS,
	    &e) != 0) {
		close(fd);
		return;
	}
	elfsym_go_probe(e, &go);
	memset(&b, 0, sizeof(b));
	if (go.scn != 0 && !go.symtab &&
	    (b.t = calloc(1, sizeof(*b.t))) != NULL) {
		b.t->fd = -1;
		elfsym_go_begin(&r, &go);
		while (elfsym_go_step(&r, &b, 7) == 1)
			;
		elfsym_go_free(&r);
		for (i = 0; i < b.t->go_ninl; i++)
			(void)elfsym_go_inlined(b.t, b.t->go_inl[i].addr +
			    b.t->go_inl[i].size / 2, names, 4);
		elfsym_free(b.t);
	}
	(void)elfread_free(e);
	close(fd);
}

/* The table loaded from a file in steps of 7 units, as the loop does,
 * against the same load in one go: the same symbols, or a bug. */
static void
fuzz_load_steps(const uint8_t *data, size_t size)
{
	struct elfsym_load *l;
	struct elfsym_table *one, *t;
	char name[64];
	size_t i;
	int fd, lazy, r;

	if ((fd = memfd_create("fuzz", MFD_CLOEXEC)) < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	for (lazy = 0; lazy <= 1; lazy++) {
		t = NULL;
		if ((lazy ? elfsym_load_fd_lazy(fd, &one) :
		    elfsym_load_fd(fd, &one)) != 0)
			one = NULL;
		if (elfsym_load_begin(fd, lazy, &l) == 0) {
			while ((r = elfsym_load_step(l, 7, &t)) == 1)
				;
			elfsym_load_free(l);
		}
		/* (no symbols: syms may be NULL, not for memcmp) */
		if ((one == NULL) != (t == NULL) || (one != NULL &&
		    (one->nsyms != t->nsyms || (one->nsyms > 0 &&
		    memcmp(one->syms, t->syms, one->nsyms *
		    sizeof(*one->syms)) != 0))))
			abort();
		for (i = 0; t != NULL && i < t->nsyms; i++)
			(void)elfsym_name(t, i, name, sizeof(name));
		elfsym_free(one);
		elfsym_free(t);
	}
	close(fd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfsym_table *t;
	uint64_t v;
	char hex[2 * ELFSYM_BUILD_ID_MAX + 1];
	const char *names[GOPCLNTAB_INL_DEPTH];
	size_t i;

	fuzz_go_sliced(data, size);
	fuzz_load_steps(data, size);
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
