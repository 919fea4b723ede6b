/*
 * What a Go binary adds to its ELF symbol table: a stripped one
 * (-ldflags='-s -w') is named from the runtime's own function table in
 * .gopclntab, and .go.buildinfo gives the Go version for the metadata.
 */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <string.h>

#include "elfsym_int.h"
#include "gobuildinfo.h"
#include "gopclntab.h"

void
elfsym_go_probe(Elf *e, struct elfsym_go *go)
{
	Elf_Scn		*scn = NULL;
	GElf_Shdr	 sh;
	const char	*n;
	size_t		 shstrndx;

	memset(go, 0, sizeof(*go));
	if (elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			go->symtab = 1;
		if (sh.sh_type != SHT_PROGBITS ||
		    (n = elf_strptr(e, shstrndx, sh.sh_name)) == NULL)
			continue;
		/* -buildmode=pie puts it in relro (it holds textStart). */
		if ((strcmp(n, ".gopclntab") == 0 ||
		    strcmp(n, ".data.rel.ro.gopclntab") == 0) && go->scn == NULL)
			go->scn = scn;
		else if (strcmp(n, ".text") == 0 && go->text == 0)
			go->text = sh.sh_addr;
		else if (strcmp(n, ".go.buildinfo") == 0 &&
		    go->buildinfo == NULL)
			go->buildinfo = scn;
	}
}

struct elfsym_va {
	Elf				*e;
	const struct elfsym_table	*t;
};

/* Bytes at a link-time address, from the file through PT_LOAD. */
static int
elfsym_read_va(void *arg, uint64_t addr, void *buf, size_t n)
{
	const struct elfsym_va	*va = arg;
	const struct elfsym_seg	*sg;
	Elf_Data		*d;
	size_t			 i;

	for (i = 0; i < va->t->nsegs; i++) {
		sg = &va->t->segs[i];
		if (addr < sg->vaddr || addr - sg->vaddr > sg->filesz ||
		    n > sg->filesz - (addr - sg->vaddr))
			continue;
		if ((d = elf_getdata_rawchunk(va->e, (int64_t)(sg->off +
		    (addr - sg->vaddr)), n, ELF_T_BYTE)) == NULL ||
		    d->d_buf == NULL || d->d_size != n)
			return (-1);
		memcpy(buf, d->d_buf, n);
		return (0);
	}
	return (-1);
}

/*
 * The Go version from .go.buildinfo: only its head is read (the header
 * and the inline version string, or for Go before 1.18 the two strings
 * its pointers lead to), not the module info.
 */
void
elfsym_go_buildinfo(Elf *e, struct elfsym_table *t,
    const struct elfsym_go *go)
{
	struct elfsym_va va;
	GElf_Shdr	 sh;
	Elf_Data	*d;
	size_t		 n;

	t->go_buildinfo = -ENOENT;
	if (go->buildinfo == NULL)
		return;
	t->go_buildinfo = -EINVAL;
	if (gelf_getshdr(go->buildinfo, &sh) == NULL || sh.sh_size == 0)
		return;
	/* header, a uvarint length (<= 2 bytes here), the string */
	n = GOBUILDINFO_HDR + 2 + GOBUILDINFO_VER_MAX;
	if (sh.sh_size < n)
		n = (size_t)sh.sh_size;
	if ((d = elf_getdata_rawchunk(e, (int64_t)sh.sh_offset, n,
	    ELF_T_BYTE)) == NULL || d->d_buf == NULL)
		return;
	va.e = e;
	va.t = t;
	t->go_buildinfo = gobuildinfo_version_at(d->d_buf, d->d_size,
	    elfsym_read_va, &va, t->go_buildver, sizeof(t->go_buildver));
}

/* Add the functions of .gopclntab; a table it cannot read adds none. */
int
elfsym_go_read(struct elfsym_build *b, const struct elfsym_go *go)
{
	struct gopclntab	 g;
	GElf_Shdr		 sh;
	Elf_Data		*d;
	const char		*name;
	uint64_t		 entry, end;
	size_t			 i, len;
	int			 r;

	if (gelf_getshdr(go->scn, &sh) == NULL || sh.sh_size == 0 ||
	    sh.sh_size > ELFSYM_GO_MAX ||
	    (d = elf_getdata(go->scn, NULL)) == NULL || d->d_buf == NULL ||
	    gopclntab_open(&g, d->d_buf, d->d_size, go->text) != 0)
		return (0);
	b->t->go_version = g.version;
	for (i = 0; i < g.nfunc; i++) {
		if (gopclntab_func(&g, i, &entry, &end, &name, &len) != 0 ||
		    len == 0 || entry == 0 || end <= entry)
			continue;
		if ((r = elfsym_push(b, entry, end - entry, name, 0, 0)) != 0)
			return (r);
		b->t->go_funcs++;
	}
	return (0);
}

