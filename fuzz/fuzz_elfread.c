/*
 * Fuzz the plugins' bounded ELF reader: headers, section names, named
 * symbols, notes and bytes at an address, over any bytes; and the reader
 * held across loop turns (perf's), 64- or 32-bit, its symbols and
 * relocations read in chunks within a small budget.
 * FUZZ_SOURCES: plugins/common/elf/elfread.c plugins/common/elf/elfread_held.c plugins/common/elf/elfbad.c
 */
#include <stdint.h>
#include <string.h>

#include "elfread.h"

static const char *const fuzz_names[] = { "_PyRuntime", "ruby_version",
    "executor_globals", "" };

static void
fuzz_sym(void *arg, size_t which, const Elf64_Sym *s)
{
	*(uint64_t *)arg += which + s->st_value;
}

static int
fuzz_walk(struct elfread *le, void *arg)
{
	uint8_t id[64], buf[64];
	uint64_t sum = 0, v;
	size_t i;

	(void)arg;
	(void)elfread_first_load(le, &v);
	(void)elfread_build_id(le, id, sizeof(id));
	for (i = 0; i < le->nsh; i++)
		sum += elfread_section_is(le, i, ".PyRuntime");
	(void)elfread_symbols(le, SHT_DYNSYM, fuzz_names, 4, fuzz_sym, &sum);
	(void)elfread_symbols(le, SHT_SYMTAB, fuzz_names, 4, fuzz_sym, &sum);
	(void)elfread_read_vaddr(le, sum, buf, sizeof(buf), 0);
	(void)elfread_read_vaddr(le, sum, buf, sizeof(buf), 1);
	return (0);
}

/* The held reader: every symbol and relocation section in chunks. */
static void
fuzz_held(const uint8_t *data, size_t size)
{
	struct elfread *le;
	Elf64_Sym syms[16];
	Elf64_Rela rel[16];
	uint64_t k, n;
	size_t i;
	int64_t got;

	if (elfread_open_mem(data, size, 1u << 16, 256, &le) != 0)
		return;
	for (i = 0; i < le->nsh; i++) {
		n = elfread_nsyms(le, i);
		for (k = 0; k < n; k += (uint64_t)got)
			if ((got = elfread_read_syms(le, i, k, syms, 16)) <= 0)
				break;
		n = elfread_nrelas(le, i);
		for (k = 0; k < n; k += (uint64_t)got)
			if ((got = elfread_read_relas(le, i, k, rel, 16)) <= 0)
				break;
	}
	(void)fuzz_walk(le, NULL);
	(void)elfread_free(le);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t id[64];

	(void)elfread_read_mem(data, size, fuzz_walk, NULL);
	fuzz_held(data, size);
	(void)elfread_note_build_id(data, size, id, sizeof(id));
	return (0);
}
