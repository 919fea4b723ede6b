/*
 * The ELF facts the reader needs from the object holding the interpreter
 * (docs/specs/cpython.md §3-4): _PyRuntime (or the .PyRuntime section),
 * Py_Version, PyCode_Type, Py_GetVersion.version, the first PT_LOAD for the
 * load bias, and the build id for app metadata.  Read through the runtime
 * plugins' one bounded ELF reader (elfread.c); every value taken from the
 * file is bounds-checked here.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elfread.h"
#include "pyreader.h"

enum {
	PY_SYM_RUNTIME,
	PY_SYM_VERSION,
	PY_SYM_CODE_TYPE,
	PY_SYM_VERSION_0,
	PY_SYM_GETVERSION
};

static const char *const py_elf_names[] = {
	"_PyRuntime",
	"Py_Version",
	"PyCode_Type",
	"version.0",
	"Py_GetVersion.version"
};

static void
py_elf_symbol(void *arg, size_t which, const Elf64_Sym *sym)
{
	struct py_elf *pe = arg;

	if (sym->st_value == 0)
		return;
	switch (which) {
	case PY_SYM_RUNTIME:
		if (pe->runtime == 0)
			pe->runtime = sym->st_value;
		break;
	case PY_SYM_VERSION:
		if (pe->py_version == 0)
			pe->py_version = sym->st_value;
		break;
	case PY_SYM_CODE_TYPE:
		if (pe->code_type == 0)
			pe->code_type = sym->st_value;
		break;
	case PY_SYM_VERSION_0:		/* GCC's name in .symtab */
	case PY_SYM_GETVERSION:
		if (pe->version_buf == 0 && sym->st_size >= 64 &&
		    ELF64_ST_TYPE(sym->st_info) == STT_OBJECT)
			pe->version_buf = sym->st_value;
		break;
	}
}

/* Py_Version's value when it lies in a PROGBITS section of the file. */
static void
py_elf_version_value(struct elfread *le, struct py_elf *pe)
{
	uint8_t buf[8];

	if (elfread_read_vaddr(le, pe->py_version, buf, sizeof(buf), 0) !=
	    (int64_t)sizeof(buf))
		return;
	pe->py_version_value = py_u64(buf, 0);
	pe->has_py_version_value = 1;
}

static int
py_elf_read(struct elfread *le, struct py_elf *pe)
{
	size_t i, n = sizeof(py_elf_names) / sizeof(py_elf_names[0]);
	uint64_t runtime_section = 0;
	int rc;

	memset(pe, 0, sizeof(*pe));
	pe->is_exec = le->eh.e_type == ET_EXEC;
	if (elfread_first_load(le, &pe->first_load_vaddr) != 0 ||
	    le->sh == NULL)
		return (-ENOEXEC);
	pe->build_id_len = elfread_build_id(le, pe->build_id,
	    sizeof(pe->build_id));
	for (i = 0; i < le->nsh && runtime_section == 0; i++)
		if (elfread_section_is(le, i, ".PyRuntime"))
			runtime_section = le->sh[i].sh_addr;
	/* .dynsym first: it is what stripped and distro builds keep. */
	if ((rc = elfread_symbols(le, SHT_DYNSYM, py_elf_names, n,
	    py_elf_symbol, pe)) != 0 ||
	    (rc = elfread_symbols(le, SHT_SYMTAB, py_elf_names, n,
	    py_elf_symbol, pe)) != 0)
		return (rc);
	if (pe->runtime == 0)
		pe->runtime = runtime_section;
	if (pe->py_version != 0)
		py_elf_version_value(le, pe);
	return (pe->runtime != 0 ? 0 : -ENOENT);
}

static int
py_elf_walk(struct elfread *le, void *pe)
{
	return (py_elf_read(le, pe));
}

/* -ENOEXEC: not a 64-bit ELF; -ENOENT: no _PyRuntime (pe still filled);
 * elfread.h's codes for a file that cannot be read. */
int
py_elf_read_fd(int fd, struct py_elf *pe)
{
	memset(pe, 0, sizeof(*pe));	/* whatever the answer */
	return (elfread_read_fd(fd, py_elf_walk, pe));
}

int
py_elf_read_mem(const void *buf, size_t len, struct py_elf *pe)
{
	memset(pe, 0, sizeof(*pe));	/* whatever the answer */
	return (elfread_read_mem(buf, len, py_elf_walk, pe));
}
