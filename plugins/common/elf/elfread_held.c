/*
 * The held ELF reader (elfread.h): a file kept open across loop turns by
 * the perf plugin's symbol loader, with the caller's budget, 32-bit
 * files widened to the 64-bit forms, symbols and relocations read in
 * chunks; a reader that failed marks its file bad by identity when freed.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfread.h"
#include "elfread_int.h"
#include "elfbad.h"

/* The held reader: see elfread.h. */
static int
elfread_held(struct elfread *le, uint64_t max_bytes, uint64_t max_reads,
    struct elfread **out)
{
	struct elfread *h;
	int rc;

	le->held = 1;
	le->max_bytes = max_bytes;
	le->max_reads = max_reads;
	if ((rc = elfread_open(le)) == 0 && le->error != 0)
		rc = le->error;
	if (rc == 0 && (h = malloc(sizeof(*h))) == NULL)
		rc = -ENOMEM;
	if (rc != 0) {
		elfread_close(le);
		return (rc);
	}
	*h = *le;
	*out = h;
	return (0);
}

/* What was read was one file: the same size and mtime as at open. */
static int
elfread_same(int fd, const struct stat *st, struct stat *st2)
{
	if (fstat(fd, st2) != 0) {
		*st2 = *st;
		return (1);
	}
	return (st2->st_size == st->st_size &&
	    st2->st_mtim.tv_sec == st->st_mtim.tv_sec &&
	    st2->st_mtim.tv_nsec == st->st_mtim.tv_nsec);
}

int
elfread_open_fd(int fd, uint64_t max_bytes, uint64_t max_reads,
    struct elfread **out)
{
	struct elfread le;
	struct stat st2;
	int rc;

	*out = NULL;
	memset(&le, 0, sizeof(le));
	if (fstat(fd, &le.st) != 0)
		return (-errno);
	if (!S_ISREG(le.st.st_mode) || le.st.st_size <= 0)
		return (-ENOEXEC);
	if ((rc = elfbad_find(&le.st)) != 0)
		return (rc);
	le.fd = fd;
	le.size = (uint64_t)le.st.st_size;
	if ((rc = elfread_held(&le, max_bytes, max_reads, out)) == 0)
		return (0);
	if (rc != -EIO && !elfread_same(fd, &le.st, &st2))
		rc = -ESTALE;
	if (elfread_is_bad(rc) && elfbad_mark(&st2, rc))
		elfread_log_bad(fd, &st2, rc);
	return (rc);
}

int
elfread_open_mem(const void *buf, size_t len, uint64_t max_bytes,
    uint64_t max_reads, struct elfread **out)
{
	struct elfread le;

	*out = NULL;
	memset(&le, 0, sizeof(le));
	le.fd = -1;
	le.mem = buf;
	le.size = len;
	return (elfread_held(&le, max_bytes, max_reads, out));
}

int
elfread_free(struct elfread *le)
{
	struct stat st2;
	int rc;

	if (le == NULL)
		return (0);
	rc = le->error;
	if (le->fd >= 0) {
		if (rc != -EIO && !elfread_same(le->fd, &le->st, &st2))
			rc = -ESTALE;
		if (elfread_is_bad(rc) && elfbad_mark(&st2, rc))
			elfread_log_bad(le->fd, &st2, rc);
	}
	elfread_close(le);
	free(le);
	return (rc);
}

int
elfread_read_at(struct elfread *le, uint64_t off, void *buf, size_t len)
{
	return (elfread_pread(le, off, buf, len));
}

uint64_t
elfread_nsyms(const struct elfread *le, size_t i)
{
	const Elf64_Shdr *sh;

	if (i >= le->nsh)
		return (0);
	sh = &le->sh[i];
	if ((sh->sh_type != SHT_SYMTAB && sh->sh_type != SHT_DYNSYM) ||
	    sh->sh_entsize != sizeof(Elf64_Sym))
		return (0);
	return (sh->sh_size / (le->class32 ? sizeof(Elf32_Sym) :
	    sizeof(Elf64_Sym)));
}

/* The size of section i's relocations in the file, 0 when it holds
 * none of this class. */
static size_t
elfread_rel_size(const struct elfread *le, size_t i)
{
	const Elf64_Shdr *sh;

	if (i >= le->nsh)
		return (0);
	sh = &le->sh[i];
	if (sh->sh_type == SHT_RELA && sh->sh_entsize == sizeof(Elf64_Rela))
		return (le->class32 ? sizeof(Elf32_Rela) : sizeof(Elf64_Rela));
	if (sh->sh_type == SHT_REL && sh->sh_entsize == sizeof(Elf64_Rel))
		return (le->class32 ? sizeof(Elf32_Rel) : sizeof(Elf64_Rel));
	return (0);
}

uint64_t
elfread_nrelas(const struct elfread *le, size_t i)
{
	size_t esz = elfread_rel_size(le, i);

	return (esz == 0 ? 0 : le->sh[i].sh_size / esz);
}

/*
 * Entries [first, first + n) of an array section of total entries,
 * each esz bytes in the file, read in place into out (n of osz bytes;
 * esz <= osz): the count read, or -1.
 */
static int64_t
elfread_entries(struct elfread *le, size_t i, uint64_t total, size_t esz,
    uint64_t first, void *out, size_t n)
{
	if (first >= total)
		return (0);
	if (n > total - first)
		n = (size_t)(total - first);
	if (n == 0)
		return (0);
	if (elfread_read_section(le, i, first * esz, out, n * esz) != 0)
		return (-1);
	return ((int64_t)n);
}

int64_t
elfread_read_syms(struct elfread *le, size_t i, uint64_t first,
    Elf64_Sym *out, size_t n)
{
	Elf32_Sym s;
	int64_t got;
	size_t k;

	got = elfread_entries(le, i, elfread_nsyms(le, i), le->class32 ?
	    sizeof(Elf32_Sym) : sizeof(Elf64_Sym), first, out, n);
	if (got <= 0 || !le->class32)
		return (got);
	/* widened from the last: each 32-bit entry read before its place
	 * is written */
	for (k = (size_t)got; k-- > 0; ) {
		memcpy(&s, (uint8_t *)out + k * sizeof(s), sizeof(s));
		out[k].st_name = s.st_name;
		out[k].st_info = s.st_info;
		out[k].st_other = s.st_other;
		out[k].st_shndx = s.st_shndx;
		out[k].st_value = s.st_value;
		out[k].st_size = s.st_size;
	}
	return (got);
}

int64_t
elfread_read_relas(struct elfread *le, size_t i, uint64_t first,
    Elf64_Rela *out, size_t n)
{
	Elf32_Rela r;
	Elf64_Rel r64;
	size_t esz = elfread_rel_size(le, i), k;
	int64_t got;
	uint8_t *b = (uint8_t *)out;

	if (esz == 0)
		return (0);
	got = elfread_entries(le, i, elfread_nrelas(le, i), esz, first, out,
	    n);
	if (got <= 0 || esz == sizeof(Elf64_Rela))
		return (got);
	/* widened from the last: each entry read before its place is
	 * written (REL's addend, for PLT slots, is in the slot: 0 here) */
	for (k = (size_t)got; k-- > 0; ) {
		memset(&r, 0, sizeof(r));
		if (esz == sizeof(Elf64_Rel)) {
			memcpy(&r64, b + k * esz, esz);
			out[k].r_offset = r64.r_offset;
			out[k].r_info = r64.r_info;
			out[k].r_addend = 0;
			continue;
		}
		memcpy(&r, b + k * esz, esz);	/* Elf32_Rel is its start */
		out[k].r_offset = r.r_offset;
		out[k].r_info = ELF64_R_INFO(ELF32_R_SYM(r.r_info),
		    ELF32_R_TYPE(r.r_info));
		out[k].r_addend = esz == sizeof(Elf32_Rela) ? r.r_addend : 0;
	}
	return (got);
}
