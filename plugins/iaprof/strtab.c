/*
 * String table of one iaprof process: ids are dense from 1 in practice but
 * come from outside, so they are hashed, never used as array indexes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash64.h"
#include "parse.h"
#include "strtab.h"

struct strtab {
	uint32_t max_entries;
	size_t max_bytes;
	size_t bytes;
	struct strtab_entry *e;
	uint32_t n, cap;
	uint32_t *slot;	/* index + 1, 0 empty */
	uint32_t mask;
};

struct strtab *
strtab_new(uint32_t max_entries, size_t max_bytes)
{
	struct strtab *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return (NULL);
	t->max_entries = max_entries;
	t->max_bytes = max_bytes;
	return (t);
}

void
strtab_clear(struct strtab *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		free(t->e[i].raw);
	free(t->e);
	free(t->slot);
	t->e = NULL;
	t->slot = NULL;
	t->n = t->cap = t->mask = 0;
	t->bytes = 0;
}

void
strtab_free(struct strtab *t)
{
	if (t == NULL)
		return;
	strtab_clear(t);
	free(t);
}

/* The slot holding id, or the empty slot where it would go. */
static uint32_t
strtab_find(const struct strtab *t, uint64_t id)
{
	uint32_t j = (uint32_t)hash64_fmix(id) & t->mask;

	while (t->slot[j] != 0 && t->e[t->slot[j] - 1].id != id)
		j = (j + 1) & t->mask;
	return (j);
}

static int
strtab_grow(struct strtab *t)
{
	uint32_t cap, i, *old = t->slot, oldmask = t->mask;
	struct strtab_entry *e;

	if (t->n >= t->cap) {
		cap = t->cap == 0 ? 256 : t->cap * 2;
		if ((e = realloc(t->e, cap * sizeof(*e))) == NULL)
			return (-ENOMEM);
		t->e = e;
		t->cap = cap;
	}
	if (old != NULL && t->n < (oldmask + 1) / 2)
		return (0);
	t->mask = old == NULL ? 511 : oldmask * 2 + 1;
	if ((t->slot = calloc(t->mask + 1, sizeof(*t->slot))) == NULL) {
		t->slot = old;
		t->mask = oldmask;
		return (-ENOMEM);
	}
	for (i = 0; i < t->n; i++)
		t->slot[strtab_find(t, t->e[i].id)] = i + 1;
	free(old);
	return (0);
}

/* raw and clean in one allocation; clean: iaprof.md §5, strip, ';' -> '|'. */
static char *
strtab_copy(const char *text, size_t len, struct strtab_entry *e)
{
	size_t start, clen, i;
	char *p;

	if ((p = malloc(2 * len + 2)) == NULL)
		return (NULL);
	memcpy(p, text, len);
	p[len] = '\0';
	clen = iaprof_text_strip(text, len, &start);
	e->raw = p;
	e->rawlen = (uint32_t)len;
	e->clean = p + len + 1;
	for (i = 0; i < clen; i++)
		e->clean[i] = text[start + i] == ';' ? '|' : text[start + i];
	e->clean[clen] = '\0';
	e->cleanlen = (uint32_t)clen;
	return (p);
}

int
strtab_set(struct strtab *t, uint64_t id, const char *text, size_t len)
{
	struct strtab_entry ne, *e;
	uint32_t j;

	if (len > UINT32_MAX / 2)
		return (-ENOSPC);
	if (t->slot != NULL && t->slot[j = strtab_find(t, id)] != 0) {
		e = &t->e[t->slot[j] - 1];
		if (t->bytes - e->rawlen + len > t->max_bytes)
			return (-ENOSPC);
		if (strtab_copy(text, len, &ne) == NULL)
			return (-ENOMEM);
		t->bytes = t->bytes - e->rawlen + len;
		free(e->raw);
		ne.id = id;
		*e = ne;
		return (0);
	}
	if (t->n >= t->max_entries || t->bytes + len > t->max_bytes)
		return (-ENOSPC);
	if (strtab_grow(t) != 0 || strtab_copy(text, len, &ne) == NULL)
		return (-ENOMEM);
	ne.id = id;
	t->e[t->n] = ne;
	t->slot[strtab_find(t, id)] = ++t->n;
	t->bytes += len;
	return (0);
}

const struct strtab_entry *
strtab_get(const struct strtab *t, uint64_t id)
{
	uint32_t j;

	if (t->slot == NULL || t->slot[j = strtab_find(t, id)] == 0)
		return (NULL);
	return (&t->e[t->slot[j] - 1]);
}

uint32_t
strtab_count(const struct strtab *t)
{
	return (t->n);
}

size_t
strtab_memory(const struct strtab *t)
{
	return (2 * t->bytes + (size_t)t->cap * sizeof(*t->e) +
	    (t->slot != NULL ? (t->mask + 1) * sizeof(*t->slot) : 0));
}
