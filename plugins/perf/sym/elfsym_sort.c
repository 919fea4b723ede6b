/*
 * The order of a loaded symbol table, in steps: a large library's sort
 * (tens of thousands of symbols, names compared between aliases) took
 * milliseconds of one loop callback, so it runs as a merge sort that a
 * loader can stop and resume.  Because the order is total (ties go to
 * the position in the table), any run of steps gives what one qsort did.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "elfsym.h"
#include "elfsym_int.h"

enum {
	SORT_ALLOC,	/* the index arrays */
	SORT_RUNS,	/* runs of ELFSYM_SORT_RUN sorted at once */
	SORT_MERGE,	/* merged pairwise, wider each pass */
	SORT_KEEP,	/* the preferred symbol per address */
	SORT_GAPS,	/* unsized symbols sized to the next */
	SORT_NAMES,	/* the kept symbols' names measured */
	SORT_COPY,	/* and copied, when that saves enough */
	SORT_TRIM,
	SORT_DONE
};

/* A symbol's name while building (copied, or in the strings read when
 * lazy: elfsym_push took only offsets inside them). */
static const char *
elfsym_build_name(const struct elfsym_build *b, const struct elfsym_sym *v)
{
	const char *str;

	if (!b->lazy)
		return (b->t->names + v->name);
	str = b->str[v->name >> 31];
	return (str != NULL ? str + (v->name & 0x7fffffffu) : "");
}

/*
 * perf's choose_best_symbol (tools/perf/util/symbol.c), so a frame reads
 * as in perf script: sized over unsized, not weak over weak, global over
 * not global, fewer leading '_', the longer name; then the first in the
 * symbol table (perf keeps the first of equals: clock_nanosleep@GLIBC_2.2.5
 * before clock_nanosleep@@GLIBC_2.17 in glibc 2.36's table, the other way
 * round for clock_gettime), .symtab before .dynsym.
 */
static int
elfsym_prefer(const struct elfsym_build *bld, size_t ia, size_t ib)
{
	const struct elfsym_table *t = bld->t;
	const struct elfsym_sym *a = &t->syms[ia], *b = &t->syms[ib];
	const char *na = elfsym_build_name(bld, a);
	const char *nb = elfsym_build_name(bld, b);
	uint8_t ta = t->attr[ia], tb = t->attr[ib];
	size_t ua = strspn(na, "_"), ub = strspn(nb, "_");

	if ((a->size == 0) != (b->size == 0))
		return (a->size == 0 ? 1 : -1);
	if ((ta & ELFSYM_A_WEAK) != (tb & ELFSYM_A_WEAK))
		return ((ta & ELFSYM_A_WEAK) ? 1 : -1);
	if ((ta & ELFSYM_A_NONGLOBAL) != (tb & ELFSYM_A_NONGLOBAL))
		return ((ta & ELFSYM_A_NONGLOBAL) ? 1 : -1);
	if (ua != ub)
		return (ua < ub ? -1 : 1);
	if (strlen(na) != strlen(nb))
		return (strlen(na) > strlen(nb) ? -1 : 1);
	if ((ta & ELFSYM_A_DYNSYM) != (tb & ELFSYM_A_DYNSYM))
		return ((ta & ELFSYM_A_DYNSYM) ? 1 : -1);
	return (ia < ib ? -1 : ia > ib);
}

/* Order of symbol indexes: by address, the preferred alias first. */
static int
elfsym_cmp(const void *va, const void *vb, void *arg)
{
	const struct elfsym_build *b = arg;
	uint32_t ia = *(const uint32_t *)va, ib = *(const uint32_t *)vb;
	uint64_t aa = b->t->syms[ia].addr, ab = b->t->syms[ib].addr;

	if (aa != ab)
		return (aa < ab ? -1 : 1);
	return (elfsym_prefer(b, ia, ib));
}

void
elfsym_sort_begin(struct elfsym_sort *s)
{
	memset(s, 0, sizeof(*s));
	s->phase = SORT_ALLOC;
}

void
elfsym_sort_free(struct elfsym_sort *s)
{
	free(s->ix);
	free(s->tmp);
	free(s->ns);
	free(s->na);
	free(s->nn);
	s->nn = NULL;
	s->ix = s->tmp = NULL;
	s->ns = NULL;
	s->na = NULL;
	s->phase = SORT_DONE;
}

/* Whether a names offset lies in funcnametab's copy. */
static int
elfsym_in_block(const struct elfsym_sort *s, uint32_t off)
{
	return (off >= s->blo && off - s->blo < s->blen);
}

/* Without memory for the order the table is unusable unsorted: empty. */
static void
elfsym_sort_drop(struct elfsym_sort *s, struct elfsym_table *t)
{
	t->dropped += t->nsyms;
	t->nsyms = 0;
	elfsym_sort_free(s);
}

/* One pass's merge of [lo, lo + w) and [lo + w, lo + 2w), resumed. */
static size_t
elfsym_sort_merge(struct elfsym_sort *s, struct elfsym_build *b,
    size_t budget)
{
	size_t mid, hi, used = 0;

	mid = s->w < s->n - s->lo ? s->lo + s->w : s->n;
	hi = s->w < s->n - mid ? mid + s->w : s->n;
	if (!s->inpair) {
		s->i = s->lo;
		s->j = mid;
		s->k = s->lo;
		s->inpair = 1;
	}
	while (s->k < hi && used < budget) {
		if (s->j >= hi || (s->i < mid &&
		    elfsym_cmp(&s->ix[s->i], &s->ix[s->j], b) < 0))
			s->tmp[s->k++] = s->ix[s->i++];
		else
			s->tmp[s->k++] = s->ix[s->j++];
		used++;
	}
	if (s->k == hi) {
		s->lo = hi;
		s->inpair = 0;
	}
	return (used > 0 ? used : 1);
}

int
elfsym_sort_step(struct elfsym_sort *s, struct elfsym_build *b,
    size_t budget)
{
	struct elfsym_table *t = b->t;
	struct elfsym_sym *v;
	uint32_t *x;
	uint8_t *a;
	size_t i, len, u;
	uint64_t gap;
	char *p;

	while (budget > 0) {
		switch (s->phase) {
		case SORT_ALLOC:
			if ((s->n = t->nsyms) == 0) {
				s->phase = SORT_DONE;
				break;
			}
			s->ix = reallocarray(NULL, s->n, sizeof(*s->ix));
			s->tmp = reallocarray(NULL, s->n, sizeof(*s->tmp));
			s->ns = reallocarray(NULL, s->n, sizeof(*s->ns));
			s->na = malloc(s->n);
			if (s->ix == NULL || s->tmp == NULL || s->ns == NULL ||
			    s->na == NULL) {
				elfsym_sort_drop(s, t);
				return (0);
			}
			for (i = 0; i < s->n; i++)
				s->ix[i] = (uint32_t)i;
			u = s->n / 16 + 1;
			budget -= u < budget ? u : budget;
			s->phase = SORT_RUNS;
			break;
		case SORT_RUNS:
			/* about len log2(len) comparisons a run */
			len = s->n - s->lo < ELFSYM_SORT_RUN ? s->n - s->lo :
			    ELFSYM_SORT_RUN;
			qsort_r(s->ix + s->lo, len, sizeof(*s->ix), elfsym_cmp,
			    b);
			s->lo += len;
			u = len * 10;
			budget -= u < budget ? u : budget;
			if (s->lo == s->n) {
				s->w = ELFSYM_SORT_RUN;
				s->lo = 0;
				s->phase = SORT_MERGE;
			}
			break;
		case SORT_MERGE:
			if (s->w >= s->n) {
				s->i = s->o = 0;
				s->phase = SORT_KEEP;
				break;
			}
			if (s->lo >= s->n) {
				x = s->ix;
				s->ix = s->tmp;
				s->tmp = x;
				s->w = s->w <= s->n / 2 ? s->w * 2 : s->n;
				s->lo = 0;
				break;
			}
			budget -= elfsym_sort_merge(s, b, budget);
			break;
		case SORT_KEEP:
			/* the first of each address is the preferred one */
			for (; s->i < s->n && budget > 0; s->i++, budget--) {
				v = &t->syms[s->ix[s->i]];
				if (s->o > 0 && v->addr == s->ns[s->o - 1].addr)
					continue;
				s->ns[s->o] = *v;
				s->na[s->o++] = t->attr[s->ix[s->i]];
			}
			if (s->i < s->n)
				break;
			free(t->syms);
			free(t->attr);
			t->syms = s->ns;
			t->attr = s->na;
			t->nsyms = s->o;
			s->ns = NULL;
			s->na = NULL;
			s->i = 0;
			s->phase = SORT_GAPS;
			break;
		case SORT_GAPS:
			for (; s->i + 1 < t->nsyms && budget > 0; s->i++,
			    budget--) {
				if (t->syms[s->i].size != 0)
					continue;
				gap = t->syms[s->i + 1].addr -
				    t->syms[s->i].addr;
				t->syms[s->i].size = gap > UINT32_MAX ?
				    UINT32_MAX : (uint32_t)gap;
			}
			if (s->i + 1 < t->nsyms)
				break;
			s->i = 0;
			s->nlen = 0;
			/* Chains name funcnametab's entries by offset: its
			 * copy is kept whole. */
			s->blo = t->go_nbase;
			s->blen = t->go_lazy != NULL ? t->go_lazy->names_len +
			    1 : 0;
			s->phase = t->names != NULL ? SORT_NAMES : SORT_TRIM;
			break;
		case SORT_NAMES:
			/* The names of the symbols the keep dropped
			 * (aliases; a PIE Go binary's .dynsym, named again
			 * by .gopclntab: 3.3 MB of containerd's) stay in
			 * names until copied out. */
			for (; s->i < t->nsyms && budget > 0; s->i++, budget--)
				if (!elfsym_in_block(s, t->syms[s->i].name))
					s->nlen += strlen(t->names +
					    t->syms[s->i].name) + 1;
			if (s->i < t->nsyms)
				break;
			s->nlen += s->blen;
			if (s->nlen > t->names_len / 4 * 3 ||
			    (s->nn = malloc(s->nlen ? s->nlen : 1)) == NULL) {
				s->phase = SORT_TRIM;
				break;
			}
			memcpy(s->nn, t->names + s->blo, s->blen);
			u = s->blen / 4096;
			budget -= u < budget ? u : budget;
			s->i = 0;
			s->k = s->blen;
			s->phase = SORT_COPY;
			break;
		case SORT_COPY:
			for (; s->i < t->nsyms && budget > 0; s->i++, budget--) {
				v = &t->syms[s->i];
				if (elfsym_in_block(s, v->name)) {
					v->name -= (uint32_t)s->blo;
					continue;
				}
				len = strlen(t->names + v->name) + 1;
				memcpy(s->nn + s->k, t->names + v->name, len);
				v->name = (uint32_t)s->k;
				s->k += len;
			}
			if (s->i < t->nsyms)
				break;
			free(t->names);
			t->names = s->nn;
			t->names_len = s->nlen;
			t->go_nbase = 0;
			s->nn = NULL;
			s->phase = SORT_TRIM;
			break;
		case SORT_TRIM:
			if ((v = reallocarray(t->syms, t->nsyms,
			    sizeof(*v))) != NULL)
				t->syms = v;
			if ((a = realloc(t->attr, t->nsyms)) != NULL)
				t->attr = a;
			if (t->names != NULL &&
			    (p = realloc(t->names, t->names_len)) != NULL)
				t->names = p;
			elfsym_sort_free(s);
			return (0);
		case SORT_DONE:
		default:
			elfsym_sort_free(s);
			return (0);
		}
	}
	return (1);
}
