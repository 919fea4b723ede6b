/*
 * The ELF facts the PHP reader needs from the object holding the Zend
 * engine (php, php-fpm, libphp*.so): executor_globals, whether the build
 * is ZTS (executor_globals_offset: the globals live in thread-local
 * storage, which this reader does not follow), the version string, and
 * the first PT_LOAD for the load bias.  libelf parses; every value taken
 * from the file is bounds-checked here.
 */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "langelf.h"
#include "phpreader.h"

#define PHP_ELF_MAX_SYMS	(4u << 20)
#define PHP_ELF_MAX_SCAN	(64u << 20)	/* searched for the version */

/*
 * A symbol's name from its string table's data, if it ends within
 * NAME_MAX bytes (the names looked for are short).  Not elf_strptr: on a
 * table whose last byte is not NUL it scans the whole rest of the table
 * for each symbol, hours over a large unstripped binary.
 */
static const char *
php_elf_name(const Elf_Data *str, size_t off)
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
php_elf_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
    struct php_elf *pe)
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
	if (n > PHP_ELF_MAX_SYMS)
		n = PHP_ELF_MAX_SYMS;
	for (i = 0; i < n; i++) {
		if (gelf_getsym(data, (int)i, &sym) == NULL)
			break;
		if (sym.st_shndx == SHN_UNDEF ||
		    (name = php_elf_name(str, sym.st_name)) == NULL)
			continue;
		if (strcmp(name, "executor_globals") == 0 &&
		    sym.st_value != 0 && pe->executor_globals == 0)
			pe->executor_globals = sym.st_value;
		else if (strcmp(name, "executor_globals_offset") == 0)
			pe->zts = 1;
	}
}

/* The version string lies in read-only data. */
static void
php_elf_version(Elf_Scn *scn, const GElf_Shdr *sh, struct php_elf *pe,
    size_t *budget)
{
	Elf_Data *data;

	if (pe->has_ver || sh->sh_type != SHT_PROGBITS ||
	    !(sh->sh_flags & SHF_ALLOC) || (sh->sh_flags & SHF_EXECINSTR) ||
	    (data = elf_getdata(scn, NULL)) == NULL || data->d_buf == NULL ||
	    data->d_size > *budget)
		return;
	*budget -= data->d_size;
	pe->has_ver = php_version_find(data->d_buf, data->d_size,
	    &pe->ver) == 0;
}

static int
php_elf_read(Elf *elf, struct php_elf *pe)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	GElf_Shdr sh;
	size_t i, nph, budget = PHP_ELF_MAX_SCAN;
	int found_load = 0;

	memset(pe, 0, sizeof(*pe));
	if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &eh) == NULL ||
	    gelf_getclass(elf) != ELFCLASS64 || eh.e_machine != EM_X86_64)
		return (-ENOEXEC);
	if (elf_getphdrnum(elf, &nph) != 0)
		return (-ENOEXEC);
	for (i = 0; i < nph && i < 4096 && !found_load; i++) {
		if (gelf_getphdr(elf, (int)i, &ph) == NULL)
			return (-ENOEXEC);
		if (ph.p_type == PT_LOAD) {
			uint64_t align = ph.p_align > 1 ? ph.p_align : 1;

			if ((align & (align - 1)) != 0)
				return (-ENOEXEC);
			pe->first_load_vaddr = ph.p_vaddr & ~(align - 1);
			found_load = 1;
		}
	}
	if (!found_load)
		return (-ENOEXEC);
	/* .dynsym first: it is what stripped and distro builds keep. */
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL &&
		    sh.sh_type == SHT_DYNSYM)
			php_elf_symtab(elf, scn, &sh, pe);
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			php_elf_symtab(elf, scn, &sh, pe);
		else
			php_elf_version(scn, &sh, pe, &budget);
	}
	return (pe->executor_globals != 0 || pe->zts ? 0 : -ENOENT);
}

static int
php_elf_walk(Elf *elf, void *pe)
{
	return (php_elf_read(elf, pe));
}

/* -ENOEXEC: not an x86-64 ELF; -ENOENT: no Zend engine in it. */
int
php_elf_read_fd(int fd, struct php_elf *pe)
{
	return (langelf_read_fd(fd, php_elf_walk, pe));
}

int
php_elf_read_mem(const void *buf, size_t len, struct php_elf *pe)
{
	return (langelf_read_mem(buf, len, php_elf_walk, pe));
}
