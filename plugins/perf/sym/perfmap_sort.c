/*
 * Sorting newly fed perf map lines into the table in slices, so that no
 * loop turn pays for a whole table: a bottom-up merge sort whose state
 * (phase, run width, pair, cursors) survives between calls.  Lookups keep
 * using v[0..sorted) until the round ends and the merged table replaces
 * it; lines fed meanwhile (appended after ig_end) wait for the next round.
 *
 *   phase 1  sort chunks of PERFMAP_SORT_CHUNK entries of v[sorted..ig_end)
 *   phase 2  merge runs pairwise, v <-> ig_tmp, doubling the width
 *   phase 3  merge v[0..sorted) with the sorted new entries into ig_new
 *   phase 4  copy what was fed meanwhile into ig_new (a slice at a time:
 *            a round spans many turns, each feeding lines), then swap
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfmap.h"

#define PERFMAP_SORT_CHUNK	4096

enum { IG_NONE, IG_CHUNKS, IG_PASSES, IG_FINAL, IG_TAIL };


/* Start a round over what was fed since the last one. */
static int
perfmap_ig_begin(struct perfmap *pm)
{
	size_t p = pm->n - pm->sorted;

	pm->ig_end = pm->n;
	pm->ig_phase = IG_CHUNKS;
	pm->ig_in_tmp = 0;
	pm->ig_width = PERFMAP_SORT_CHUNK;
	pm->ig_lo = 0;
	pm->ig_a = pm->ig_b = pm->ig_o = 0;
	if (p <= pm->ig_tmp_cap)
		return (0);
	/* Room for a few rounds' growth at once. */
	if (p < 2 * pm->ig_tmp_cap)
		p = 2 * pm->ig_tmp_cap;
	if (p > PERFMAP_MAX_ENTRIES && pm->n - pm->sorted <= PERFMAP_MAX_ENTRIES)
		p = PERFMAP_MAX_ENTRIES;
	free(pm->ig_tmp);
	pm->ig_tmp_cap = 0;
	if ((pm->ig_tmp = reallocarray(NULL, p, sizeof(*pm->ig_tmp))) == NULL) {
		pm->ig_phase = IG_NONE;
		pm->ig_end = 0;
		return (-ENOMEM);
	}
	pm->ig_tmp_cap = p;
	return (0);
}

/*
 * Merge a[0..na) and b[0..nb) into o from the cursors (*ia, *ib), at most
 * `budget` moves; 1 when both are used up.  *used counts the moves.
 */
static int
perfmap_merge(const struct perfmap_entry *a, size_t na,
    const struct perfmap_entry *b, size_t nb, struct perfmap_entry *o,
    size_t *ia, size_t *ib, size_t budget, size_t *used)
{
	size_t i = *ia, j = *ib, k = 0;

	while (k < budget && (i < na || j < nb)) {
		if (j == nb || (i < na && perfmap_cmp(&a[i], &b[j]) <= 0))
			o[i + j] = a[i], i++;
		else
			o[i + j] = b[j], j++;
		k++;
	}
	*ia = i;
	*ib = j;
	*used += k;
	return (i == na && j == nb);
}

/* Phase 2: one slice of the current pass over the new entries. */
static void
perfmap_ig_pass(struct perfmap *pm, size_t budget, size_t *used)
{
	size_t p = pm->ig_end - pm->sorted, lo, mid, hi;
	struct perfmap_entry *src, *dst;

	src = pm->ig_in_tmp ? pm->ig_tmp : pm->v + pm->sorted;
	dst = pm->ig_in_tmp ? pm->v + pm->sorted : pm->ig_tmp;
	while (*used < budget && pm->ig_lo < p) {
		lo = pm->ig_lo;
		mid = lo + pm->ig_width < p ? lo + pm->ig_width : p;
		hi = mid + pm->ig_width < p ? mid + pm->ig_width : p;
		if (!perfmap_merge(src + lo, mid - lo, src + mid, hi - mid,
		    dst + lo, &pm->ig_a, &pm->ig_b, budget - *used, used))
			return;
		pm->ig_lo = hi;
		pm->ig_a = pm->ig_b = 0;
	}
	if (pm->ig_lo < p)
		return;
	pm->ig_in_tmp = !pm->ig_in_tmp;
	pm->ig_width *= 2;
	pm->ig_lo = 0;
	if (pm->ig_width >= p)
		pm->ig_phase = IG_FINAL;
}

/*
 * Phase 4: what was fed since the round began, copied into ig_new from
 * ig_o on, at most `budget` entries; then the merged table replaces v.
 * 1 when done.
 */
static int
perfmap_ig_tail(struct perfmap *pm, size_t budget, size_t *used)
{
	struct perfmap_entry *nv = pm->ig_new;
	size_t k = pm->n - pm->ig_o;

	/* ig_new has v's capacity as the round began: a copy of the whole
	 * table happens only if more than that was fed since. */
	if (pm->n > pm->ig_new_cap) {
		if ((nv = reallocarray(nv, pm->cap, sizeof(*nv))) == NULL)
			return (-ENOMEM);
		pm->ig_new = nv;
		pm->ig_new_cap = pm->cap;
	}
	if (k > budget)
		k = budget;
	memcpy(nv + pm->ig_o, pm->v + pm->ig_o, k * sizeof(*nv));
	pm->ig_o += k;
	*used += k + 1;
	if (pm->ig_o < pm->n)
		return (0);
	free(pm->ig_spare);
	pm->ig_spare = pm->v;
	pm->ig_spare_cap = pm->cap;
	pm->v = nv;
	pm->cap = pm->ig_new_cap;
	pm->ig_new = NULL;
	pm->sorted = pm->ig_end;
	pm->ig_end = 0;
	pm->ig_phase = IG_NONE;
	return (1);
}

static int
perfmap_sort_slice(struct perfmap *pm, size_t budget, size_t *used)
{
	struct perfmap_entry *b;
	size_t k, p;
	int r;

	while (*used < budget) {
		switch (pm->ig_phase) {
		case IG_NONE:
			if (pm->n == pm->sorted)
				return (0);
			if ((r = perfmap_ig_begin(pm)) != 0)
				return (r);
			break;
		case IG_CHUNKS:
			p = pm->ig_end - pm->sorted;
			k = p - pm->ig_lo < PERFMAP_SORT_CHUNK ? p - pm->ig_lo :
			    PERFMAP_SORT_CHUNK;
			qsort(pm->v + pm->sorted + pm->ig_lo, k,
			    sizeof(*pm->v), perfmap_cmp);
			pm->ig_lo += k;
			*used += 16 * k;	/* ~ k log k compares */
			if (pm->ig_lo >= p) {
				pm->ig_lo = 0;
				pm->ig_phase = pm->ig_width >= p ? IG_FINAL :
				    IG_PASSES;
			}
			break;
		case IG_PASSES:
			perfmap_ig_pass(pm, budget, used);
			break;
		case IG_FINAL:
			if (pm->ig_new == NULL && pm->ig_spare != NULL &&
			    pm->ig_spare_cap >= pm->cap) {
				pm->ig_new = pm->ig_spare;
				pm->ig_new_cap = pm->ig_spare_cap;
				pm->ig_spare = NULL;
				pm->ig_a = pm->ig_b = 0;
			}
			if (pm->ig_new == NULL) {
				free(pm->ig_spare);
				pm->ig_spare = NULL;
				pm->ig_new = reallocarray(NULL, pm->cap,
				    sizeof(*pm->ig_new));
				if (pm->ig_new == NULL)
					return (-ENOMEM);
				pm->ig_new_cap = pm->cap;
				pm->ig_a = pm->ig_b = 0;
			}
			b = pm->ig_in_tmp ? pm->ig_tmp : pm->v + pm->sorted;
			if (perfmap_merge(pm->v, pm->sorted, b, pm->ig_end -
			    pm->sorted, pm->ig_new, &pm->ig_a, &pm->ig_b,
			    budget - *used, used)) {
				pm->ig_phase = IG_TAIL;
				pm->ig_o = pm->ig_end;
			}
			break;
		case IG_TAIL:
			if ((r = perfmap_ig_tail(pm, budget - *used, used)) < 0)
				return (r);
			break;
		}
	}
	return (pm->ig_phase != IG_NONE || pm->n != pm->sorted);
}

int
perfmap_sort_step(struct perfmap *pm, size_t budget, size_t *usedp)
{
	size_t used = 0;
	int r;

	r = perfmap_sort_slice(pm, budget, &used);
	if (usedp != NULL)
		*usedp = used;
	return (r);
}

int
perfmap_reserve(struct perfmap *pm, size_t n)
{
	struct perfmap_entry *v;

	if (n > PERFMAP_MAX_ENTRIES)
		n = PERFMAP_MAX_ENTRIES;
	if (n <= pm->cap)
		return (0);
	if ((v = reallocarray(pm->v, n, sizeof(*v))) == NULL)
		return (-ENOMEM);
	pm->v = v;
	pm->cap = n;
	return (0);
}

int
perfmap_sort(struct perfmap *pm)
{
	int r;

	while ((r = perfmap_sort_step(pm, SIZE_MAX / 2, NULL)) == 1)
		;
	return (r);
}
