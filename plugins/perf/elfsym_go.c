/*
 * What a Go binary adds to its ELF symbol table: a stripped one
 * (-ldflags='-s -w') is named from the runtime's own function table in
 * .gopclntab, and .go.buildinfo gives the Go version for the metadata.
 */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
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
	go->e = e;
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
		else if (strcmp(n, ".noptrdata") == 0 && go->noptrdata == NULL)
			go->noptrdata = scn;
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

/* An allocated section's bytes holding addr. */
struct elfsym_goscn {
	uint64_t	 addr;
	const uint8_t	*p;
	size_t		 len;
};

/*
 * The bytes of [lo, hi) (cut at the end of the allocated section holding
 * lo): the inline trees lie among go:func.* in .rodata, and reading only
 * their span keeps the rest of .rodata out of memory.
 */
static int
elfsym_go_span(Elf *e, uint64_t lo, uint64_t hi, struct elfsym_goscn *s)
{
	Elf_Scn		*scn = NULL;
	GElf_Shdr	 sh;
	Elf_Data	*d;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    sh.sh_type != SHT_PROGBITS || (sh.sh_flags & SHF_ALLOC) == 0 ||
		    lo < sh.sh_addr || lo - sh.sh_addr >= sh.sh_size)
			continue;
		if (hi > sh.sh_addr + sh.sh_size)
			hi = sh.sh_addr + sh.sh_size;
		if (hi - lo > ELFSYM_GO_MAX || (d = elf_getdata_rawchunk(e,
		    (int64_t)(sh.sh_offset + (lo - sh.sh_addr)),
		    (size_t)(hi - lo), ELF_T_BYTE)) == NULL ||
		    d->d_buf == NULL || d->d_size != hi - lo)
			return (-1);
		s->addr = lo;
		s->p = d->d_buf;
		s->len = d->d_size;
		return (0);
	}
	return (-1);
}

/*
 * moduledata.gofunc (Go 1.18+: the base of funcdata offsets): the linker's
 * runtime.firstmoduledata in .noptrdata begins with the pcHeader's address
 * (.gopclntab's) and the funcnametab slice; gofunc is its word 38 (40
 * from Go 1.20, which added covctrs, ecovctrs).  Go 1.19's
 * -buildmode=pie writes them too; a linker that left them to relocations
 * (0 in the file) gives no gofunc, and no inline frames.
 */
static uint64_t
elfsym_go_gofunc(const struct elfsym_go *go, const struct gopclntab *g,
    uint64_t pcaddr)
{
	GElf_Shdr	 sh;
	Elf_Data	*d;
	const uint8_t	*p;
	size_t		 ps = g->ptrsize, at, k, i, n;
	uint64_t	 w, f;

	if (go->noptrdata == NULL || gelf_getshdr(go->noptrdata, &sh) == NULL ||
	    sh.sh_type != SHT_PROGBITS ||
	    (d = elf_getdata(go->noptrdata, NULL)) == NULL || d->d_buf == NULL)
		return (0);
	p = d->d_buf;
	at = (g->version >= 120 ? 40 : 38) * ps;
	for (k = 0; k + at + ps <= d->d_size; k += ps) {
		for (i = 0, w = 0, f = 0; i < ps; i++) {
			w |= (uint64_t)p[k + i] << (8 * i);
			f |= (uint64_t)p[k + ps + i] << (8 * i);
		}
		if (w != pcaddr || f != pcaddr + g->funcname)
			continue;
		for (i = 0, w = 0, n = k + at; i < ps; i++)
			w |= (uint64_t)p[n + i] << (8 * i);
		return (w);
	}
	return (0);
}

/* Append n uint32 to the chain array; the index of the first. */
static int
elfsym_go_chain_add(struct elfsym_table *t, size_t *cap, const uint32_t *v,
    size_t n, uint32_t *at)
{
	uint32_t	*c;
	size_t		 ncap;

	if (t->go_nchain + n > UINT32_MAX)
		return (-ENOMEM);
	if (t->go_nchain + n > *cap) {
		ncap = *cap ? *cap * 2 : 1024;
		while (ncap < t->go_nchain + n)
			ncap *= 2;
		if ((c = reallocarray(t->go_chain, ncap, sizeof(*c))) == NULL)
			return (-ENOMEM);
		t->go_chain = c;
		*cap = ncap;
	}
	memcpy(t->go_chain + t->go_nchain, v, n * sizeof(*v));
	*at = (uint32_t)t->go_nchain;
	t->go_nchain += n;
	return (0);
}

static int
elfsym_go_range_add(struct elfsym_table *t, size_t *cap, uint64_t lo,
    uint64_t hi, uint32_t chain)
{
	struct elfsym_goinl	*r;
	size_t			 ncap;

	r = t->go_ninl > 0 ? &t->go_inl[t->go_ninl - 1] : NULL;
	if (r != NULL && r->chain == chain && r->addr + r->size == lo &&
	    hi - r->addr <= UINT32_MAX) {
		r->size = (uint32_t)(hi - r->addr);
		return (0);
	}
	if (hi - lo > UINT32_MAX)
		return (0);
	if (t->go_ninl == *cap) {
		ncap = *cap ? *cap * 2 : 1024;
		if ((r = reallocarray(t->go_inl, ncap, sizeof(*r))) == NULL)
			return (-ENOMEM);
		t->go_inl = r;
		*cap = ncap;
	}
	r = &t->go_inl[t->go_ninl++];
	r->addr = lo;
	r->size = (uint32_t)(hi - lo);
	r->chain = chain;
	return (0);
}

static int
elfsym_go_inl_cmp(const void *a, const void *b)
{
	const struct elfsym_goinl *x = a, *y = b;

	return (x->addr < y->addr ? -1 : x->addr > y->addr);
}

#define ELFSYM_GO_TREE_SLACK	(64u << 10)	/* past the last tree */

/* One function's inline-index ranges, while its chains are built. */
struct elfsym_go_rng {
	uint64_t	 lo;
	uint64_t	 hi;
	int32_t		 ix;
	uint32_t	 chain;		/* UINT32_MAX: not built yet */
};

struct elfsym_go_fnw {
	struct elfsym_go_rng	*r;
	size_t			 n;
	size_t			 cap;
	uint32_t		*ixc;		/* chain per inline index */
	size_t			 nixc;
};

/* The inline index at pc (the ranges are in pc order); -1 outside. */
static int32_t
elfsym_go_ix_at(const struct elfsym_go_fnw *w, uint64_t pc)
{
	size_t	 lo = 0, hi = w->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (w->r[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= w->r[lo - 1].hi)
		return (-1);
	return (w->r[lo - 1].ix);
}

/*
 * The ranges of one function's inlined code and their chains: the
 * inline-index table is read once into w, then each index's chain is
 * walked through the tree (runtime's inline unwinder), a 1.20+ parent
 * found by a binary search of w, and built once per index.
 */
static int
elfsym_go_inl_func(struct elfsym_table *t, const struct gopclntab *g,
    const struct gopclntab_fn *fn, const uint8_t *tree, size_t tlen,
    struct elfsym_go_fnw *w, size_t *rcap, size_t *ccap)
{
	struct gopclntab_pciter	 it;
	struct elfsym_go_rng	*nr;
	uint32_t		 v[GOPCLNTAB_INL_DEPTH + 1], no, ppc, chain, *nc;
	uint64_t		 lo, hi;
	int32_t			 ix, parent;
	size_t			 i, n;
	int			 r;
	int32_t			 maxix = -1;

	w->n = 0;
	gopclntab_pcstart(&it, g, fn->pcinl, fn->entry);
	while ((r = gopclntab_pcnext(&it, &lo, &hi, &ix)) == 1) {
		if (lo >= fn->end)
			break;
		if (hi > fn->end)
			hi = fn->end;
		if (ix >= GOPCLNTAB_INL_IDX_MAX)
			continue;
		if (w->n == w->cap) {
			n = w->cap ? w->cap * 2 : 256;
			if ((nr = reallocarray(w->r, n, sizeof(*nr))) == NULL)
				return (-ENOMEM);
			w->r = nr;
			w->cap = n;
		}
		w->r[w->n].lo = lo;
		w->r[w->n].hi = hi;
		w->r[w->n++].ix = ix;
		if (ix > maxix)
			maxix = ix;
	}
	if (maxix < 0)
		return (0);
	if ((size_t)maxix >= w->nixc) {
		if ((nc = reallocarray(w->ixc, (size_t)maxix + 1,
		    sizeof(*nc))) == NULL)
			return (-ENOMEM);
		w->ixc = nc;
		w->nixc = (size_t)maxix + 1;
	}
	memset(w->ixc, 0xff, ((size_t)maxix + 1) * sizeof(*w->ixc));
	for (i = 0; i < w->n; i++) {
		if (w->r[i].ix < 0)
			continue;
		/* each index's chain is built once */
		if ((chain = w->ixc[w->r[i].ix]) == UINT32_MAX) {
			for (n = 0, ix = w->r[i].ix; ix >= 0 &&
			    n < GOPCLNTAB_INL_DEPTH; n++) {
				if (gopclntab_inl_entry(g, tree, tlen, ix, &no,
				    &parent, &ppc) != 0 ||
				    no >= t->go_names_len)
					break;
				v[1 + n] = no;
				ix = parent != INT32_MIN ? parent :
				    elfsym_go_ix_at(w, fn->entry + ppc);
			}
			if (n == 0 || (ix >= 0 && n < GOPCLNTAB_INL_DEPTH))
				continue;	/* a bad entry: no frames */
			v[0] = (uint32_t)n;
			if ((r = elfsym_go_chain_add(t, ccap, v, n + 1,
			    &chain)) != 0)
				return (r);
			w->ixc[w->r[i].ix] = chain;
		}
		w->r[i].chain = chain;
		if ((r = elfsym_go_range_add(t, rcap, w->r[i].lo, w->r[i].hi,
		    chain)) != 0)
			return (r);
	}
	return (0);
}

/*
 * Inlined frames: for each function with an inline tree, the ranges of
 * its PCDATA_InlTreeIndex table that run inlined code, each with the
 * chain of functions there (runtime's inline unwinder, done once at load
 * so a sample costs a binary search).
 */
static int
elfsym_go_inl_read(struct elfsym_table *t, const struct elfsym_go *go,
    const struct gopclntab *g, uint64_t pcaddr)
{
	struct elfsym_goscn	 s;
	struct gopclntab_fn	 fn;
	struct elfsym_go_fnw	 w = { NULL, 0, 0, NULL, 0 };
	uint64_t		 gofunc = 0, at, lo, hi;
	size_t			 i, end, rcap = 0, ccap = 0, tlen;
	int			 r, sorted = 1;

	t->go_inl_state = -ENOENT;
	if (g->version >= 118 &&
	    (gofunc = elfsym_go_gofunc(go, g, pcaddr)) == 0)
		return (0);
	/* funcnametab runs up to cutab, the next table. */
	end = g->cutab > g->funcname ? g->cutab : g->len;
	if ((t->go_names = malloc(end - g->funcname + 1)) == NULL)
		return (-ENOMEM);
	memcpy(t->go_names, g->p + g->funcname, end - g->funcname);
	t->go_names[end - g->funcname] = '\0';
	t->go_names_len = end - g->funcname;
	/* The span of the trees, read once (the last one's length is not
	 * known: a tree past the slack reads as cut and gives no frames). */
	for (i = 0, lo = UINT64_MAX, hi = 0; i < g->nfunc; i++) {
		if (gopclntab_fn(g, i, &fn) != 0 || !fn.has_inltree)
			continue;
		at = g->version >= 118 ? gofunc + fn.inltree : fn.inltree;
		if (at < gofunc)
			continue;
		lo = at < lo ? at : lo;
		hi = at > hi ? at : hi;
	}
	memset(&s, 0, sizeof(s));
	if (lo > hi)
		t->go_inl_state = 0;	/* nothing inlined (-gcflags=-l) */
	if (lo > hi || elfsym_go_span(go->e, lo, hi + ELFSYM_GO_TREE_SLACK,
	    &s) != 0) {
		free(t->go_names);
		t->go_names = NULL;
		t->go_names_len = 0;
		return (0);
	}
	for (i = 0; i < g->nfunc; i++) {
		if (gopclntab_fn(g, i, &fn) != 0 || !fn.has_inltree ||
		    fn.end <= fn.entry)
			continue;
		at = g->version >= 118 ? gofunc + fn.inltree : fn.inltree;
		if (at < s.addr || at - s.addr >= s.len)
			continue;
		tlen = s.len - (size_t)(at - s.addr);
		if (tlen > GOPCLNTAB_INL_IDX_MAX * 20)
			tlen = GOPCLNTAB_INL_IDX_MAX * 20;
		if (t->go_ninl > 0 && t->go_inl[t->go_ninl - 1].addr >=
		    fn.entry)
			sorted = 0;
		if ((r = elfsym_go_inl_func(t, g, &fn, s.p + (at - s.addr),
		    tlen, &w, &rcap, &ccap)) != 0) {
			free(w.r);
			free(w.ixc);
			return (r);
		}
	}
	free(w.r);
	free(w.ixc);
	if (!sorted)
		qsort(t->go_inl, t->go_ninl, sizeof(*t->go_inl),
		    elfsym_go_inl_cmp);
	t->go_inl_state = 0;
	return (0);
}

size_t
elfsym_go_inlined(const struct elfsym_table *t, uint64_t vaddr,
    const char **names, size_t max)
{
	const struct elfsym_goinl	*r;
	size_t				 lo = 0, hi = t->go_ninl, mid, n, k;
	uint32_t			 c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->go_inl[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return (0);
	r = &t->go_inl[lo - 1];
	if (vaddr - r->addr >= r->size)
		return (0);
	c = r->chain;
	n = t->go_chain[c];
	if (n > max)
		n = max;
	for (k = 0; k < n; k++)
		names[k] = t->go_names + t->go_chain[c + 1 + k];
	return (n);
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
	return (elfsym_go_inl_read(b->t, go, &g, sh.sh_addr));
}

