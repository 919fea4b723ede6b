/*
 * What a Go binary adds to its ELF symbol table: a stripped one
 * (-ldflags='-s -w') is named from the runtime's own function table in
 * .gopclntab, and .go.buildinfo gives the Go version for the metadata.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsym_int.h"
#include "gobuildinfo.h"
#include "gopclntab.h"

void
elfsym_go_probe(struct elfread *le, struct elfsym_go *go)
{
	const Elf64_Shdr *sh;
	size_t i;

	memset(go, 0, sizeof(*go));
	go->le = le;
	for (i = 1; i < le->nsh; i++) {
		sh = &le->sh[i];
		if (sh->sh_type == SHT_SYMTAB)
			go->symtab = 1;
		if (sh->sh_type != SHT_PROGBITS)
			continue;
		/* -buildmode=pie puts it in relro (it holds textStart). */
		if ((elfread_section_is(le, i, ".gopclntab") ||
		    elfread_section_is(le, i, ".data.rel.ro.gopclntab")) &&
		    go->scn == 0)
			go->scn = i;
		else if (elfread_section_is(le, i, ".text") && go->text == 0)
			go->text = sh->sh_addr;
		else if (elfread_section_is(le, i, ".noptrdata") &&
		    go->noptrdata == 0)
			go->noptrdata = i;
		else if (elfread_section_is(le, i, ".go.buildinfo") &&
		    go->buildinfo == 0)
			go->buildinfo = i;
	}
}

struct elfsym_va {
	struct elfread *le;
	const struct elfsym_table *t;
};

/* Bytes at a link-time address, from the file through PT_LOAD. */
static int
elfsym_read_va(void *arg, uint64_t addr, void *buf, size_t n)
{
	const struct elfsym_va *va = arg;
	const struct elfsym_seg *sg;
	size_t i;

	for (i = 0; i < va->t->nsegs; i++) {
		sg = &va->t->segs[i];
		if (addr < sg->vaddr || addr - sg->vaddr > sg->filesz ||
		    n > sg->filesz - (addr - sg->vaddr))
			continue;
		return (elfread_read_at(va->le, sg->off + (addr - sg->vaddr),
		    buf, n));
	}
	return (-1);
}

/*
 * The Go version from .go.buildinfo: only its head is read (the header
 * and the inline version string, or for Go before 1.18 the two strings
 * its pointers lead to), not the module info.
 */
void
elfsym_go_buildinfo(struct elfsym_table *t, const struct elfsym_go *go)
{
	struct elfsym_va va;
	uint8_t buf[GOBUILDINFO_HDR + 2 + GOBUILDINFO_VER_MAX];
	const Elf64_Shdr *sh;
	size_t n;

	t->go_buildinfo = -ENOENT;
	if (go->buildinfo == 0)
		return;
	t->go_buildinfo = -EINVAL;
	sh = &go->le->sh[go->buildinfo];
	if (sh->sh_size == 0)
		return;
	/* header, a uvarint length (<= 2 bytes here), the string */
	n = sizeof(buf);
	if (sh->sh_size < n)
		n = (size_t)sh->sh_size;
	if (elfread_read_at(go->le, sh->sh_offset, buf, n) != 0)
		return;
	va.le = go->le;
	va.t = t;
	t->go_buildinfo = gobuildinfo_version_at(buf, n, elfsym_read_va, &va,
	    t->go_buildver, sizeof(t->go_buildver));
}

/*
 * moduledata.gofunc (Go 1.18+: the base of funcdata offsets): the linker's
 * runtime.firstmoduledata in .noptrdata begins with the pcHeader's address
 * (.gopclntab's) and the funcnametab slice; gofunc is its word 38 (40
 * from Go 1.20, which added covctrs, ecovctrs).  Go 1.19's
 * -buildmode=pie writes them too; a linker that left them to relocations
 * (0 in the file) gives no gofunc, and no inline frames.  The section is
 * scanned ELFSYM_GO_SCAN bytes a step from r->i (it was copied whole: a
 * user's 256 MB one too): 1 while more remains, 0 done (r->gofunc 0 when
 * not found), -ENOMEM.
 */
#define ELFSYM_GO_SCAN	(64u << 10)

static int
elfsym_go_gofunc(struct elfsym_goread *r, size_t *budget)
{
	const struct elfsym_go *go = r->go;
	const struct gopclntab *g = &r->g;
	const Elf64_Shdr *sh;
	uint8_t *p;
	size_t ps = g->ptrsize, at, k, size, len;

	r->gofunc = 0;
	if (go->noptrdata == 0)
		return (0);
	sh = &go->le->sh[go->noptrdata];
	at = (g->version >= 120 ? 40 : 38) * ps;
	if (sh->sh_type != SHT_PROGBITS || sh->sh_size > ELFSYM_GO_MAX ||
	    sh->sh_size < at + ps || r->i > sh->sh_size - at - ps)
		return (0);
	size = (size_t)sh->sh_size;
	len = size - r->i < ELFSYM_GO_SCAN + at + ps ? size - r->i :
	    ELFSYM_GO_SCAN + at + ps;
	if ((p = malloc(len)) == NULL)
		return (-ENOMEM);
	if (elfread_read_section(go->le, go->noptrdata, r->i, p, len) != 0) {
		free(p);
		return (0);
	}
	*budget -= *budget > len / ELFSYM_GO_UNIT_BYTES ?
	    len / ELFSYM_GO_UNIT_BYTES : *budget;
	for (k = 0; k < ELFSYM_GO_SCAN && k + at + ps <= len; k += ps)
		if (gobuildinfo_ptr(p + k, (unsigned)ps) == r->pcaddr &&
		    gobuildinfo_ptr(p + k + ps, (unsigned)ps) == r->pcaddr + g->funcname) {
			r->gofunc = gobuildinfo_ptr(p + k + at, (unsigned)ps);
			free(p);
			return (0);
		}
	free(p);
	r->i += k;
	return (1);
}

/*
 * Inlined frames: for each function with inlined code, what building its
 * ranges later reads, copied (its PCDATA_InlTreeIndex table, the entries
 * of its inline tree that table names, funcnametab); the ranges are built
 * when a look-up first lands in the function (Go's compiler has 6.5k
 * such functions: building them all took 50-90 ms of one loop callback).
 * Only those bytes are kept: the copies of pctab and of the trees' span
 * would be 3.5 MB for the compiler, and on some hosts every fresh page
 * costs 25 us to fault in.  All of it in slices (elfsym_go_step).
 */
enum {
	GR_READ,	/* .gopclntab's header, read in place */
	GR_FNAMES,	/* funcnametab copied into the table's names */
	GR_FUNCS,	/* its functions added */
	GR_GOFUNC,	/* moduledata.gofunc found */
	GR_INL1,	/* those with inlined code, their tables' lengths */
	GR_ALLOC,
	GR_INL2,	/* tables and trees copied */
	GR_FIN,
	GR_DONE
};

void
elfsym_go_begin(struct elfsym_goread *r, const struct elfsym_go *go)
{
	memset(r, 0, sizeof(*r));
	r->go = go;
	r->phase = GR_READ;
}

void
elfsym_go_free(struct elfsym_goread *r)
{
	gopclntab_src_free(&r->src);
	r->phase = GR_DONE;
}

/* .gopclntab's bytes at off, for its windows. */
static int
elfsym_go_src_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct elfsym_goread *r = arg;

	return (elfread_read_at(r->go->le, r->pcoff + off, buf, len) != 0 ?
	    -1 : 0);
}

/* The windows read since the last charge, in units: at most budget. */
static size_t
elfsym_go_charge(struct elfsym_goread *r, size_t budget)
{
	uint64_t u = (r->src.fills - r->fills) *
	    (GOPCLNTAB_WIN / ELFSYM_GO_UNIT_BYTES);

	r->fills = r->src.fills;
	return (u < budget ? (size_t)u : budget);
}

/* Read up to *budget units of [got, len) of a file range into own. */
static int
elfsym_go_pread(struct elfread *le, uint8_t *own, uint64_t off, size_t len,
    size_t *got, size_t *budget)
{
	size_t want;

	while (*got < len && *budget > 0) {
		want = len - *got;
		if (want / ELFSYM_GO_UNIT_BYTES > *budget)
			want = *budget * ELFSYM_GO_UNIT_BYTES;
		if (elfread_read_at(le, off + *got, own + *got, want) != 0)
			return (-1);	/* an error, or the file shrank */
		*got += want;
		*budget -= want / ELFSYM_GO_UNIT_BYTES < *budget ?
		    want / ELFSYM_GO_UNIT_BYTES + 1 : *budget;
	}
	return (0);
}

/*
 * A function's inline-index table longer than this gives no inlined
 * frames (Go's compiler's longest is 2.9 KB): its ranges are built by a
 * sample, and this bounds that cost, and the step, for a hostile one.
 */
#define ELFSYM_GO_INL_TAB_MAX	(64u << 10)

/* Pass 1 for function i (see GR_GOFUNC); the units it took in *u. */
static int
elfsym_go_inl1(struct elfsym_goread *r, struct elfsym_table *t, size_t i,
    size_t *u)
{
	const struct gopclntab *g = &r->g;
	struct gopclntab_fn fn;
	struct gopclntab_pciter it;
	uint64_t at, plo, phi;
	struct elfsym_goinl *ni;
	uint32_t *c, maxix;
	int32_t ix;
	size_t end, es = GOPCLNTAB_INL_SIZE(g), ncap;

	*u = 4;
	if (gopclntab_fn(g, i, &fn) != 0 || !fn.has_inltree ||
	    fn.end <= fn.entry || fn.end - fn.entry > UINT32_MAX)
		return (0);
	at = g->version >= 118 ? r->gofunc + fn.inltree : fn.inltree;
	if (at < r->gofunc)
		return (0);
	gopclntab_pcstart(&it, g, fn.pcinl, fn.entry);
	for (end = it.p, maxix = 0, ix = -1; gopclntab_pcnext(&it, &plo,
	    &phi, &ix) == 1 && plo < fn.end && it.p - (g->pctab +
	    fn.pcinl) <= ELFSYM_GO_INL_TAB_MAX; end = it.p)
		if (ix >= 0 && ix < GOPCLNTAB_INL_IDX_MAX &&
		    (uint32_t)ix + 1 > maxix)
			maxix = (uint32_t)ix + 1;
	if (it.p > g->pctab + fn.pcinl)
		*u += (it.p - g->pctab - fn.pcinl) / ELFSYM_GO_UNIT_BYTES;
	if (maxix == 0 || it.p - (g->pctab + fn.pcinl) >
	    ELFSYM_GO_INL_TAB_MAX)
		return (0);	/* nothing inlined here, or too much */
	/* Room as they come (not nfunc's: a hostile count is large). */
	if (r->n == r->cap) {
		ncap = r->cap ? r->cap * 2 : 256;
		if ((ni = reallocarray(t->go_inl, ncap, sizeof(*ni))) == NULL)
			return (-ENOMEM);
		t->go_inl = ni;
		if ((c = reallocarray(t->go_chain, 4 * ncap + 1,
		    sizeof(*c))) == NULL)
			return (-ENOMEM);
		t->go_chain = c;
		r->cap = ncap;
	}
	r->lo = at < r->lo ? at : r->lo;
	r->hi = at + es * maxix > r->hi ? at + es * maxix : r->hi;
	t->go_inl[r->n].addr = fn.entry;
	t->go_inl[r->n].size = (uint32_t)(fn.end - fn.entry);
	t->go_inl[r->n].chain = maxix;
	c = &t->go_chain[4 * r->n++];
	c[0] = fn.pcinl;
	c[1] = (uint32_t)(end - (g->pctab + fn.pcinl));
	c[2] = (uint32_t)at;
	c[3] = (uint32_t)(at >> 32);
	r->ptot += c[1] + 1;	/* and a 0 that ends it */
	return (0);
}

/* The trees' bytes function i needs, cut at the span (a tree past it
 * reads as cut and gives no frames); 0: its tree is outside. */
static size_t
elfsym_go_tree_len(const struct elfsym_goread *r,
    const struct elfsym_table *t, size_t i, uint64_t *at)
{
	const uint32_t *c = &t->go_chain[4 * i];
	size_t tl;

	*at = (uint64_t)c[3] << 32 | c[2];
	if (*at < r->saddr || *at - r->saddr >= r->slen)
		return (0);
	tl = GOPCLNTAB_INL_SIZE(&r->g) * (size_t)t->go_inl[i].chain;
	return (tl < r->slen - (*at - r->saddr) ? tl :
	    r->slen - (size_t)(*at - r->saddr));
}

/*
 * Pass 2 for function i: copy its table and read its tree entries from
 * the file (the span holding all trees is as large as .gopclntab in a big
 * binary, 8.5 MB for containerd: read whole, it doubled the load's
 * peak); its go_chain triple becomes (table offset in the copy, tree
 * offset, tree length) and its chain ELFSYM_GOINL_LAZY | k (k kept
 * through the sort).  A triple is written where pass 1's quads have been
 * read.  The units it took, 0 when the file no longer holds the tree.
 */
static size_t
elfsym_go_inl2(struct elfsym_goread *r, struct elfsym_table *t, size_t i)
{
	struct elfsym_golazy *L = t->go_lazy;
	struct elfsym_goinl *f;
	uint8_t *tabs = (uint8_t *)(L + 1);
	uint32_t *c = &t->go_chain[4 * i], pcinl, tblen;
	uint64_t at;
	size_t tl;

	pcinl = c[0];
	tblen = c[1];
	if ((tl = elfsym_go_tree_len(r, t, i, &at)) == 0)
		return (1);
	if (elfread_read_at(r->go->le, r->off + (at - r->saddr),
	    (uint8_t *)L->tree + r->tp, tl) != 0)
		return (0);	/* an error, or the file shrank */
	if (elfread_read_at(r->go->le, r->pcoff + r->g.pctab + pcinl,
	    tabs + r->pp, tblen) != 0)
		return (0);
	tabs[r->pp + tblen] = 0;
	f = &t->go_inl[r->k];
	*f = t->go_inl[i];
	f->chain = ELFSYM_GOINL_LAZY | (uint32_t)r->k;
	c = &t->go_chain[3 * r->k];
	c[0] = (uint32_t)r->pp;
	c[1] = (uint32_t)r->tp;
	c[2] = (uint32_t)tl;
	if (r->k > 0 && f[-1].addr >= f->addr)
		r->sorted = 0;
	r->pp += tblen + 1;
	r->tp += tl;
	r->k++;
	return (1 + (tblen + tl) / ELFSYM_GO_UNIT_BYTES);
}

/* Function i added: named in funcnametab's copy, or (a hostile offset
 * past funcnametab) its name copied on its own; one it cannot read, not. */
static int
elfsym_go_func(struct elfsym_goread *r, struct elfsym_build *b, size_t i)
{
	struct elfsym_table *t = b->t;
	const char *name;
	uint64_t entry, end;
	uint32_t off;
	size_t len;
	int e;

	if (gopclntab_func_off(&r->g, i, &entry, &end, &off) != 0 ||
	    entry == 0 || end <= entry)
		return (0);
	if (off < r->nlen) {
		name = t->names + r->nbase + off;
		len = strnlen(name, GOPCLNTAB_NAME_MAX + 1);
		if (len == 0 || len > GOPCLNTAB_NAME_MAX)
			return (0);
		e = elfsym_push_at(b, entry, end - entry, r->nbase + off, 0);
	} else {
		if (gopclntab_name(&r->g, off, &name, &len) != 0 || len == 0)
			return (0);
		e = elfsym_push(b, entry, end - entry, name, 0, 0);
	}
	if (e == 0)
		t->go_funcs++;
	return (e);
}

int
elfsym_go_step(struct elfsym_goread *r, struct elfsym_build *b, size_t budget)
{
	struct elfsym_table *t = b->t;
	const struct elfsym_go *go = r->go;
	struct elfsym_golazy *L;
	const struct gopclntab *g = &r->g;
	const Elf64_Shdr *sh;
	struct elfread *le = go->le;
	size_t scn;
	char *p;
	uint64_t at;
	size_t i, u;
	int e;

	while (budget > 0) {
		switch (r->phase) {
		case GR_READ:
			if (go->scn == 0 || go->scn >= le->nsh)
				goto done;
			sh = &le->sh[go->scn];
			if (sh->sh_size == 0 || sh->sh_size > ELFSYM_GO_MAX ||
			    sh->sh_type != SHT_PROGBITS ||
			    sh->sh_offset > le->size ||
			    sh->sh_size > le->size - sh->sh_offset)
				goto done;
			r->pcaddr = sh->sh_addr;
			r->pcoff = sh->sh_offset;
			if (gopclntab_src_init(&r->src, elfsym_go_src_read, r,
			    (size_t)sh->sh_size) != 0)
				return (-ENOMEM);
			budget--;
			if (gopclntab_open_src(&r->g, &r->src,
			    (size_t)sh->sh_size, go->text) != 0)
				goto done;
			t->go_version = g->version;
			t->go_inl_state = -ENOENT;
			/* funcnametab runs up to cutab, the next table:
			 * copied after the names the table has, with a NUL
			 * that ends a name cut at its end. */
			r->nlen = (g->cutab > g->funcname ? g->cutab :
			    g->len) - g->funcname;
			/* Bounded as a string table is, and in proportion
			 * to its functions (a hostile one could otherwise
			 * make the names the section's size). */
			if (b->lazy || t->names_len + r->nlen + 1 > UINT32_MAX ||
			    r->nlen > ELFSYM_MAX_STR || r->nlen > g->nfunc *
			    ELFSYM_STR_PER_SYM + ELFSYM_STR_SLACK)
				goto done;	/* names in the file: none */
			if ((p = realloc(t->names, t->names_len + r->nlen +
			    1)) == NULL)
				return (-ENOMEM);
			t->names = p;
			b->names_cap = t->names_len + r->nlen + 1;
			r->nbase = (uint32_t)t->names_len;
			t->names[r->nbase + r->nlen] = '\0';
			r->phase = GR_FNAMES;
			r->i = 0;
			break;
		case GR_FNAMES:
			if (elfsym_go_pread(le, (uint8_t *)t->names +
			    r->nbase, r->pcoff + g->funcname, r->nlen, &r->i,
			    &budget) != 0)
				goto done;
			if (r->i < r->nlen)
				break;
			t->names_len += r->nlen + 1;
			t->go_nbase = r->nbase;
			r->phase = GR_FUNCS;
			r->i = 0;
			break;
		case GR_FUNCS:
			/* two units a function: its name found, its
			 * symbol's room (fresh pages) */
			for (; r->i < g->nfunc && budget > 0; r->i++) {
				budget -= budget > 2 ? 2 : budget;
				e = elfsym_go_func(r, b, r->i);
				budget -= elfsym_go_charge(r, budget);
				if (e != 0)
					return (e);
			}
			if (r->i < g->nfunc)
				break;
			r->phase = GR_GOFUNC;
			r->i = 0;	/* .noptrdata's scan */
			break;
		case GR_GOFUNC:
			/* Per function with inlined code, in pass 1: in
			 * go_chain its table's offset and length, its
			 * tree's address; in go_inl its largest index
			 * plus one (a tree's entries follow their
			 * parents': its chains read none past it). */
			budget -= budget > 64 ? 64 : budget;
			if (g->version >= 118) {
				if ((e = elfsym_go_gofunc(r, &budget)) < 0)
					return (e);
				if (e == 1)
					break;
				if (r->gofunc == 0)
					goto done;
			}
			r->phase = GR_INL1;
			r->i = r->n = 0;
			r->lo = UINT64_MAX;
			r->hi = 0;
			r->ptot = 1;		/* offset 0 is no table */
			break;
		case GR_INL1:
			for (; r->i < g->nfunc && budget > 0; r->i++) {
				if ((e = elfsym_go_inl1(r, t, r->i, &u)) != 0)
					return (e);
				budget -= budget > u ? u : budget;
				budget -= elfsym_go_charge(r, budget);
			}
			if (r->i < g->nfunc)
				break;
			if (r->n == 0) {
				t->go_inl_state = 0;	/* -gcflags=-l */
				elfsym_go_inl_none(t);
				goto done;
			}
			/* The section holding the trees: their bytes. */
			for (sh = NULL, scn = 1; scn < le->nsh; scn++) {
				sh = &le->sh[scn];
				if (sh->sh_type == SHT_PROGBITS &&
				    (sh->sh_flags & SHF_ALLOC) != 0 &&
				    r->lo >= sh->sh_addr &&
				    r->lo - sh->sh_addr < sh->sh_size)
					break;
			}
			if (scn >= le->nsh)
				goto none;
			if (r->hi > sh->sh_addr + sh->sh_size)
				r->hi = sh->sh_addr + sh->sh_size;
			if (r->hi - r->lo > ELFSYM_GO_MAX)
				goto none;
			r->saddr = r->lo;
			r->slen = (size_t)(r->hi - r->lo);
			r->off = sh->sh_offset + (r->lo - sh->sh_addr);
			r->phase = GR_ALLOC;
			break;
		case GR_ALLOC:
			for (i = 0, r->ttot = 0; i < r->n; i++)
				r->ttot += elfsym_go_tree_len(r, t, i, &at);
			budget -= budget > r->n / 64 ? r->n / 64 : budget;
			if ((t->go_names = malloc(sizeof(*L) + r->ptot +
			    r->ttot)) == NULL)
				return (-ENOMEM);
			t->go_names_len = sizeof(*L) + r->ptot + r->ttot;
			L = t->go_lazy = (struct elfsym_golazy *)(void *)
			    t->go_names;
			memset(L, 0, sizeof(*L));
			L->tree = (const uint8_t *)(L + 1) + r->ptot;
			L->tlen = r->ttot;
			L->names_len = r->nlen;
			((uint8_t *)(L + 1))[0] = 0;
			r->phase = GR_INL2;
			r->i = r->k = 0;
			r->pp = 1;
			r->tp = 0;
			r->sorted = 1;
			break;
		case GR_INL2:
			for (; r->i < r->n && budget > 0; r->i++) {
				if ((u = elfsym_go_inl2(r, t, r->i)) == 0)
					goto none;
				budget -= budget > u ? u : budget;
			}
			if (r->i < r->n)
				break;
			r->phase = GR_FIN;
			break;
		case GR_FIN:
			/* A table over the tables' copy: only the pc-value
			 * walks and the tree entries read it, its other
			 * offsets point past its end. */
			L = t->go_lazy;
			L->g = *g;
			L->g.p = (const uint8_t *)(L + 1);
			L->g.src = NULL;
			L->g.len = r->pp;
			L->g.pctab = 0;
			L->g.funcname = L->g.cutab = L->g.filetab =
			    L->g.pcln = r->pp;
			L->g.nfunc = 0;
			L->nfn = r->k;
			t->go_chain[3 * r->k] = 0;	/* the empty list */
			t->go_nchain = 3 * r->k + 1;
			L->ccap = 4 * r->cap + 1;
			if (!r->sorted)
				qsort(t->go_inl, r->k, sizeof(*t->go_inl),
				    elfsym_go_inl_cmp);
			t->go_ninl = r->k;	/* now look-ups see them */
			t->go_inl_state = 0;
			budget -= budget > r->k / 64 ? r->k / 64 : budget;
			goto done;
		default:
			return (0);
		}
	}
	return (1);
none:
	elfsym_go_inl_none(t);
done:
	elfsym_go_free(r);
	return (0);
}

/* Add the functions of .gopclntab; a table it cannot read adds none. */
int
elfsym_go_read(struct elfsym_build *b, const struct elfsym_go *go)
{
	struct elfsym_goread r;
	int e;

	elfsym_go_begin(&r, go);
	while ((e = elfsym_go_step(&r, b, SIZE_MAX)) == 1)
		;
	elfsym_go_free(&r);
	return (e);
}
