/*
 * Fuzz the runtime plugins' bounded ELF reader: headers, section names,
 * named symbols, notes and bytes at an address, over any bytes.
 * FUZZ_SOURCES: plugins/lang/common/langelf.c plugins/lang/common/langelfbad.c
 */
#include <stdint.h>
#include <string.h>

#include "plugins/lang/common/langelf.h"

static const char *const fuzz_names[] = { "_PyRuntime", "ruby_version",
    "executor_globals", "" };

static void
fuzz_sym(void *arg, size_t which, const Elf64_Sym *s)
{
	*(uint64_t *)arg += which + s->st_value;
}

static int
fuzz_walk(struct langelf *le, void *arg)
{
	uint8_t id[64], buf[64];
	uint64_t sum = 0, v;
	size_t i;

	(void)arg;
	(void)langelf_first_load(le, &v);
	(void)langelf_build_id(le, id, sizeof(id));
	for (i = 0; i < le->nsh; i++)
		sum += langelf_section_is(le, i, ".PyRuntime");
	(void)langelf_symbols(le, SHT_DYNSYM, fuzz_names, 4, fuzz_sym, &sum);
	(void)langelf_symbols(le, SHT_SYMTAB, fuzz_names, 4, fuzz_sym, &sum);
	(void)langelf_read_vaddr(le, sum, buf, sizeof(buf), 0);
	(void)langelf_read_vaddr(le, sum, buf, sizeof(buf), 1);
	return (0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t id[64];

	(void)langelf_read_mem(data, size, fuzz_walk, NULL);
	(void)langelf_note_build_id(data, size, id, sizeof(id));
	return (0);
}
