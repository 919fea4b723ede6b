/*
 * Go's inlined frames, built per function when a look-up first lands in it
 * from what the reader (elfsym_go.c) copied: its PCDATA_InlTreeIndex
 * table and inline tree give ranges of pcs, each with the chain of
 * functions inlined there, innermost first.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym_int.h"
#include "gopclntab.h"
#include "sorted.h"

/* Append n uint32 to the chain array; the index of the first. */
static int
elfsym_go_chain_add(struct elfsym_table *t, size_t *cap, const uint32_t *v,
    size_t n, uint32_t *at)
{
	uint32_t *c;
	size_t ncap;

	/* Indexes stay below ELFSYM_GOINL_LAZY, which marks the unbuilt. */
	if (t->go_nchain + n >= ELFSYM_GOINL_LAZY)
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

int
elfsym_go_inl_cmp(const void *a, const void *b)
{
	const struct elfsym_goinl *x = a, *y = b;

	return (x->addr < y->addr ? -1 : x->addr > y->addr);
}

/* One function's inline-index ranges, while its chains are built. */
struct elfsym_go_rng {
	uint64_t lo;
	uint64_t hi;
	int32_t ix;
	uint32_t chain;	/* UINT32_MAX: none */
};

struct elfsym_go_fnw {
	struct elfsym_go_rng *r;
	size_t n;
	size_t cap;
	uint32_t *ixc;	/* chain per inline index */
	size_t nixc;
};

/* The inline index at pc (the ranges are in pc order); -1 outside. */
static int32_t
elfsym_go_ix_at(const struct elfsym_go_fnw *w, uint64_t pc)
{
	size_t lo = sorted_upper(w->r, w->n, sizeof(*w->r),
	    offsetof(struct elfsym_go_rng, lo), pc);

	if (lo == 0 || pc >= w->r[lo - 1].hi)
		return (-1);
	return (w->r[lo - 1].ix);
}

/*
 * The ranges of one function's inlined code and their chains: the
 * inline-index table is read once into w, then each index's chain is
 * walked through the tree (runtime's inline unwinder), a 1.20+ parent
 * found by a binary search of w, and built once per index; w->r[i].chain
 * is then the range's chain (UINT32_MAX: none).
 */
static int
elfsym_go_inl_func(struct elfsym_table *t, const struct gopclntab *g,
    const struct gopclntab_fn *fn, const uint8_t *tree, size_t tlen,
    struct elfsym_go_fnw *w)
{
	struct elfsym_golazy *L = t->go_lazy;
	struct gopclntab_pciter it;
	struct elfsym_go_rng *nr;
	uint32_t v[GOPCLNTAB_INL_DEPTH + 1], no, ppc, chain, *nc;
	uint64_t lo, hi;
	int32_t ix, parent;
	size_t i, n;
	int r;
	int32_t maxix = -1;

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
		w->r[w->n].chain = UINT32_MAX;
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
				    no >= L->names_len)
					break;
				v[1 + n] = no;
				ix = parent != INT32_MIN ? parent :
				    elfsym_go_ix_at(w, fn->entry + ppc);
			}
			if (n == 0 || (ix >= 0 && n < GOPCLNTAB_INL_DEPTH))
				continue;	/* a bad entry: no frames */
			v[0] = (uint32_t)n;
			if ((r = elfsym_go_chain_add(t, &L->ccap, v, n + 1,
			    &chain)) != 0)
				return (r);
			w->ixc[w->r[i].ix] = chain;
		}
		w->r[i].chain = chain;
	}
	return (0);
}

/*
 * Build the inline ranges of function f (its chain ELFSYM_GOINL_LAZY | k):
 * the chains, then the list of ranges, adjacent ones of one chain merged.
 * A function that fails (no memory, past the chains' index space) is
 * left with none rather than retried on every sample.
 */
static void
elfsym_go_build(struct elfsym_table *t, struct elfsym_goinl *f)
{
	struct elfsym_golazy *L = t->go_lazy;
	struct elfsym_go_fnw w = { NULL, 0, 0, NULL, 0 };
	struct gopclntab_fn fn;
	uint32_t k = f->chain & ~ELFSYM_GOINL_LAZY, at;
	const uint32_t *c = &t->go_chain[3 * (size_t)k];
	uint32_t *list = NULL;
	size_t i, n = 0;

	memset(&fn, 0, sizeof(fn));
	fn.entry = f->addr;
	fn.end = f->addr + f->size;
	fn.pcinl = c[0];
	fn.has_inltree = 1;
	f->chain = (uint32_t)(3 * L->nfn);	/* the shared empty list */
	if (elfsym_go_inl_func(t, &L->g, &fn, L->tree + c[1], c[2], &w) != 0 ||
	    (list = reallocarray(NULL, 1 + 3 * w.n, sizeof(*list))) == NULL)
		goto out;
	for (i = 0; i < w.n; i++) {
		if (w.r[i].chain == UINT32_MAX)
			continue;
		if (n > 0 && list[3 * n] == w.r[i].chain &&
		    f->addr + list[3 * n - 2] + list[3 * n - 1] == w.r[i].lo &&
		    w.r[i].hi - f->addr - list[3 * n - 2] <= UINT32_MAX) {
			list[3 * n - 1] = (uint32_t)(w.r[i].hi - f->addr -
			    list[3 * n - 2]);
			continue;
		}
		if (w.r[i].hi - w.r[i].lo > UINT32_MAX)
			continue;
		list[1 + 3 * n] = (uint32_t)(w.r[i].lo - f->addr);
		list[2 + 3 * n] = (uint32_t)(w.r[i].hi - w.r[i].lo);
		list[3 + 3 * n] = w.r[i].chain;
		n++;
	}
	list[0] = (uint32_t)n;
	if (n > 0 && elfsym_go_chain_add(t, &L->ccap, list, 1 + 3 * n,
	    &at) == 0)
		f->chain = at;
out:
	free(list);
	free(w.r);
	free(w.ixc);
}

/* No inline frames after all: what was allocated for them goes. */
void
elfsym_go_inl_none(struct elfsym_table *t)
{
	free(t->go_inl);
	free(t->go_chain);
	free(t->go_names);	/* go_lazy is at its start */
	t->go_inl = NULL;
	t->go_chain = NULL;
	t->go_names = NULL;
	t->go_lazy = NULL;
	t->go_ninl = t->go_nchain = t->go_names_len = 0;
}

/* The function with inline ranges holding vaddr, built; NULL if none. */
static const struct elfsym_goinl *
elfsym_go_fn_at(const struct elfsym_table *t, uint64_t vaddr)
{
	struct elfsym_goinl *f;
	size_t lo = sorted_upper(t->go_inl, t->go_ninl, sizeof(*t->go_inl),
	    offsetof(struct elfsym_goinl, addr), vaddr);

	if (lo == 0 || vaddr - t->go_inl[lo - 1].addr >= t->go_inl[lo - 1].size)
		return (NULL);
	/* The cache is built on demand: the table is const to readers,
	 * not to this (it was allocated writable). */
	f = (struct elfsym_goinl *)(uintptr_t)&t->go_inl[lo - 1];
	if ((f->chain & ELFSYM_GOINL_LAZY) != 0)
		elfsym_go_build((struct elfsym_table *)(uintptr_t)t, f);
	return (f);
}

size_t
elfsym_go_inlined(const struct elfsym_table *t, uint64_t vaddr,
    const char **names, size_t max)
{
	const struct elfsym_goinl *f;
	const uint32_t *list;
	size_t lo, hi, mid, n, k;
	uint32_t c, off;

	if ((f = elfsym_go_fn_at(t, vaddr)) == NULL)
		return (0);
	list = t->go_chain + f->chain;
	off = (uint32_t)(vaddr - f->addr);
	for (lo = 0, hi = list[0]; lo < hi; ) {
		mid = lo + (hi - lo) / 2;
		if (list[1 + 3 * mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || off - list[1 + 3 * (lo - 1)] >= list[2 + 3 * (lo - 1)])
		return (0);
	c = list[3 + 3 * (lo - 1)];
	n = t->go_chain[c];
	if (n > max)
		n = max;
	for (k = 0; k < n; k++)
		names[k] = t->names + t->go_nbase + t->go_chain[c + 1 + k];
	return (n);
}

size_t
elfsym_go_inl_ranges(const struct elfsym_table *t, uint64_t *lo, size_t max)
{
	const struct elfsym_goinl *f;
	const uint32_t *list;
	size_t i, k, n = 0;

	for (i = 0; i < t->go_ninl; i++) {
		if ((f = elfsym_go_fn_at(t, t->go_inl[i].addr)) == NULL)
			continue;
		list = t->go_chain + f->chain;
		for (k = 0; k < list[0]; k++, n++)
			if (n < max)
				lo[n] = f->addr + list[1 + 3 * k];
	}
	return (n);
}
