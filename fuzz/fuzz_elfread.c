/*
 * Fuzz the runtime plugins' bounded ELF reader: headers, section names,
 * named symbols, notes and bytes at an address, over any bytes.
 * FUZZ_SOURCES: plugins/common/elf/elfread.c plugins/common/elf/elfbad.c
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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t id[64];

	(void)elfread_read_mem(data, size, fuzz_walk, NULL);
	(void)elfread_note_build_id(data, size, id, sizeof(id));
	return (0);
}
