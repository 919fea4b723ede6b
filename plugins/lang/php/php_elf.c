/*
 * The ELF facts the PHP reader needs from the object holding the Zend
 * engine (php, php-fpm, libphp*.so): executor_globals, whether the build
 * is ZTS (executor_globals_offset: the globals live in thread-local
 * storage, which this reader does not follow), the version string, and
 * the first PT_LOAD for the load bias.  Read through the runtime plugins'
 * one bounded ELF reader (elfread.c); every value taken from the file is
 * bounds-checked here.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elfread.h"
#include "phpreader.h"

/* Searched for the version: half the reader's budget per file, the rest
 * for the headers and symbols (php8.2's CLI finds it 600 KB in). */
#define PHP_ELF_MAX_SCAN	(ELFREAD_BUDGET_BYTES / 2)
#define PHP_ELF_CHUNK		(256u << 10)	/* read at once */
#define PHP_ELF_OVERLAP		128		/* a version across chunks */

enum {
	PHP_SYM_EG,
	PHP_SYM_EG_OFFSET
};

static const char *const php_elf_names[] = {
	"executor_globals",
	"executor_globals_offset"
};

static void
php_elf_symbol(void *arg, size_t which, const Elf64_Sym *sym)
{
	struct php_elf *pe = arg;

	if (which == PHP_SYM_EG && sym->st_value != 0 &&
	    pe->executor_globals == 0)
		pe->executor_globals = sym->st_value;
	else if (which == PHP_SYM_EG_OFFSET)
		pe->zts = 1;
}

/*
 * The first well-formed version tag of a chunk that starts before limit
 * (one starting later is whole in the next chunk, which overlaps this).
 */
static int
php_elf_find(const uint8_t *buf, size_t n, size_t limit, struct php_version *v)
{
	static const char tag[] = "X-Powered-By: PHP/";
	const size_t tlen = sizeof(tag) - 1;
	const uint8_t *p;
	size_t pos = 0, end;

	end = limit + tlen - 1 < n ? limit + tlen - 1 : n;
	while (pos < end && (p = memmem(buf + pos, end - pos, tag,
	    tlen)) != NULL) {
		pos = (size_t)(p - buf);
		if (php_version_parse((const char *)p + tlen, n - pos - tlen,
		    v) == 0)
			return (0);
		pos++;
	}
	return (-ENOENT);
}

/*
 * The version string lies in read-only data: each such section read in
 * chunks that overlap by more than the string's length.
 */
static void
php_elf_version(struct elfread *le, struct php_elf *pe)
{
	const Elf64_Shdr *sh;
	uint8_t *buf;
	uint64_t off, size, budget = PHP_ELF_MAX_SCAN;
	size_t i, n;

	if ((buf = malloc(PHP_ELF_CHUNK)) == NULL)
		return;
	for (i = 0; i < le->nsh && !pe->has_ver && le->error == 0; i++) {
		sh = &le->sh[i];
		if (sh->sh_type != SHT_PROGBITS ||
		    !(sh->sh_flags & SHF_ALLOC) ||
		    (sh->sh_flags & SHF_EXECINSTR) || sh->sh_size > budget)
			continue;
		size = sh->sh_size;
		budget -= size;
		for (off = 0; off < size && !pe->has_ver; off += n -
		    (n == PHP_ELF_CHUNK ? PHP_ELF_OVERLAP : 0)) {
			n = size - off < PHP_ELF_CHUNK ? (size_t)(size - off) :
			    PHP_ELF_CHUNK;
			if (elfread_read_section(le, i, off, buf, n) != 0)
				break;
			pe->has_ver = php_elf_find(buf, n, n == PHP_ELF_CHUNK ?
			    n - PHP_ELF_OVERLAP : n, &pe->ver) == 0;
			if (n < PHP_ELF_CHUNK)
				break;
		}
	}
	free(buf);
}

static int
php_elf_read(struct elfread *le, struct php_elf *pe)
{
	size_t n = sizeof(php_elf_names) / sizeof(php_elf_names[0]);
	int rc;

	memset(pe, 0, sizeof(*pe));
	if (le->eh.e_machine != EM_X86_64 ||
	    elfread_first_load(le, &pe->first_load_vaddr) != 0)
		return (-ENOEXEC);
	/* .dynsym first: it is what stripped and distro builds keep. */
	if ((rc = elfread_symbols(le, SHT_DYNSYM, php_elf_names, n,
	    php_elf_symbol, pe)) != 0 ||
	    (rc = elfread_symbols(le, SHT_SYMTAB, php_elf_names, n,
	    php_elf_symbol, pe)) != 0)
		return (rc);
	php_elf_version(le, pe);
	if (le->error != 0)
		return (le->error);
	return (pe->executor_globals != 0 || pe->zts ? 0 : -ENOENT);
}

static int
php_elf_walk(struct elfread *le, void *pe)
{
	return (php_elf_read(le, pe));
}

/* -ENOEXEC: not an x86-64 ELF; -ENOENT: no Zend engine in it; elfread.h's
 * codes for a file that cannot be read. */
int
php_elf_read_fd(int fd, struct php_elf *pe)
{
	memset(pe, 0, sizeof(*pe));	/* whatever the answer */
	return (elfread_read_fd(fd, php_elf_walk, pe));
}

int
php_elf_read_mem(const void *buf, size_t len, struct php_elf *pe)
{
	memset(pe, 0, sizeof(*pe));	/* whatever the answer */
	return (elfread_read_mem(buf, len, php_elf_walk, pe));
}
