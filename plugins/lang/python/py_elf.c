/*
 * The ELF facts the reader needs from the object holding the interpreter
 * (specs/cpython.md §3-4): _PyRuntime (or the .PyRuntime section),
 * Py_Version, PyCode_Type, Py_GetVersion.version, the first PT_LOAD for the
 * load bias, and the build id for app metadata.  libelf does the parsing;
 * every value taken from the file is bounds-checked here.
 */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "langelf.h"
#include "pyreader.h"

#define PY_ELF_MAX_SYMS	(4u << 20)

static void
py_elf_symbol(struct py_elf *pe, const char *name, const GElf_Sym *sym)
{
	if (sym->st_shndx == SHN_UNDEF || sym->st_value == 0)
		return;
	if (strcmp(name, "_PyRuntime") == 0 && pe->runtime == 0)
		pe->runtime = sym->st_value;
	else if (strcmp(name, "Py_Version") == 0 && pe->py_version == 0)
		pe->py_version = sym->st_value;
	else if (strcmp(name, "PyCode_Type") == 0 && pe->code_type == 0)
		pe->code_type = sym->st_value;
	else if (strcmp(name, "version.0") == 0 ||
	    strcmp(name, "Py_GetVersion.version") == 0) {
		/* GCC names the static local "version.0" in .symtab. */
		if (pe->version_buf == 0 && sym->st_size >= 64 &&
		    GELF_ST_TYPE(sym->st_info) == STT_OBJECT)
			pe->version_buf = sym->st_value;
	}
}

/*
 * A symbol's name from its string table's data, if it ends within
 * NAME_MAX bytes (the names looked for are short).  Not elf_strptr: on a
 * table whose last byte is not NUL it scans the whole rest of the table
 * for each symbol, hours over a large unstripped binary.
 */
static const char *
py_elf_name(const Elf_Data *str, size_t off)
{
	const char	*s;
	size_t		 left;

	if (str == NULL || str->d_buf == NULL || off >= str->d_size)
		return (NULL);
	s = (const char *)str->d_buf + off;
	left = str->d_size - off;
	return (memchr(s, '\0', left < 256 ? left : 256) != NULL ? s : NULL);
}

static void
py_elf_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct py_elf *pe)
{
	Elf_Data *data, *str;
	Elf_Scn *strscn;
	GElf_Sym sym;
	const char *name;
	size_t i, n;

	if (sh->sh_entsize == 0 || (data = elf_getdata(scn, NULL)) == NULL)
		return;
	strscn = elf_getscn(elf, sh->sh_link);
	str = strscn != NULL ? elf_getdata(strscn, NULL) : NULL;
	n = sh->sh_size / sh->sh_entsize;
	if (n > PY_ELF_MAX_SYMS)
		n = PY_ELF_MAX_SYMS;
	for (i = 0; i < n; i++) {
		if (gelf_getsym(data, (int)i, &sym) == NULL)
			break;
		name = py_elf_name(str, sym.st_name);
		if (name != NULL)
			py_elf_symbol(pe, name, &sym);
	}
}

static void
py_elf_note(Elf_Scn *scn, struct py_elf *pe)
{
	Elf_Data *data;
	GElf_Nhdr nh;
	size_t off = 0, noff, doff;
	int guard = 0;

	if ((data = elf_getdata(scn, NULL)) == NULL)
		return;
	while (guard++ < 64 &&
	    (off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)data->d_buf + noff, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= sizeof(pe->build_id)) {
			memcpy(pe->build_id, (char *)data->d_buf + doff,
			    nh.n_descsz);
			pe->build_id_len = nh.n_descsz;
			return;
		}
	}
}

/* Py_Version's value when it lies in a PROGBITS section of the file. */
static void
py_elf_version_value(Elf *elf, struct py_elf *pe)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	uint64_t off;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    sh.sh_type != SHT_PROGBITS || pe->py_version < sh.sh_addr ||
		    pe->py_version - sh.sh_addr + 8 > sh.sh_size)
			continue;
		off = pe->py_version - sh.sh_addr;
		if ((data = elf_getdata(scn, NULL)) == NULL ||
		    data->d_buf == NULL || off + 8 > data->d_size)
			return;
		pe->py_version_value = py_u64(data->d_buf, off);
		pe->has_py_version_value = 1;
		return;
	}
}

static int
py_elf_read(Elf *elf, struct py_elf *pe)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	GElf_Shdr sh;
	size_t i, nph, shstrndx;
	uint64_t runtime_section = 0;
	const char *name;
	int found_load = 0;

	memset(pe, 0, sizeof(*pe));
	if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &eh) == NULL ||
	    gelf_getclass(elf) != ELFCLASS64)
		return (-ENOEXEC);
	pe->is_exec = eh.e_type == ET_EXEC;
	if (elf_getphdrnum(elf, &nph) != 0)
		return (-ENOEXEC);
	for (i = 0; i < nph && i < 4096; i++) {
		if (gelf_getphdr(elf, (int)i, &ph) == NULL)
			return (-ENOEXEC);
		if (ph.p_type == PT_LOAD && !found_load) {
			uint64_t align = ph.p_align > 1 ? ph.p_align : 1;

			if ((align & (align - 1)) != 0)
				return (-ENOEXEC);
			pe->first_load_vaddr = ph.p_vaddr & ~(align - 1);
			found_load = 1;
		}
	}
	if (!found_load || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return (-ENOEXEC);
	/* .dynsym first: it is what stripped and distro builds keep. */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_DYNSYM)
			py_elf_symtab(elf, scn, &sh, pe);
		else if (sh.sh_type == SHT_NOTE && pe->build_id_len == 0)
			py_elf_note(scn, pe);
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name != NULL && strcmp(name, ".PyRuntime") == 0)
			runtime_section = sh.sh_addr;
	}
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL &&
		    sh.sh_type == SHT_SYMTAB)
			py_elf_symtab(elf, scn, &sh, pe);
	if (pe->runtime == 0)
		pe->runtime = runtime_section;
	if (pe->py_version != 0)
		py_elf_version_value(elf, pe);
	return (pe->runtime != 0 ? 0 : -ENOENT);
}

static int
py_elf_walk(Elf *elf, void *pe)
{
	return (py_elf_read(elf, pe));
}

/* -ENOEXEC: not a 64-bit ELF; -ENOENT: no _PyRuntime (pe still filled). */
int
py_elf_read_fd(int fd, struct py_elf *pe)
{
	return (langelf_read_fd(fd, py_elf_walk, pe));
}

int
py_elf_read_mem(const void *buf, size_t len, struct py_elf *pe)
{
	return (langelf_read_mem(buf, len, py_elf_walk, pe));
}
