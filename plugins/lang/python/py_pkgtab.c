/*
 * The memory of the package-version index: a directory's file table with
 * its names in an arena (one count of bytes covers all it holds, so the
 * index can keep to its budget), the window file lists are parsed
 * through, and the choice of the directory that gives way.  Pure: no
 * file, no clock (py_pkgtab.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "py_pkgtab.h"
#include "py_pkgver.h"

struct py_pkgchunk {
	struct py_pkgchunk *next;
	size_t used;
	char data[];
};

uint64_t
py_pkgtab_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return (h);
}

const char *
py_pkgtab_store(struct py_pkgtab *t, const char *s, size_t n, size_t limit)
{
	struct py_pkgchunk *c = t->chunks;
	size_t sz;
	char *p;

	if (n >= PY_PKGTAB_CHUNK)
		return (NULL);
	if (c == NULL || c->used + n + 1 > PY_PKGTAB_CHUNK) {
		sz = sizeof(*c) + PY_PKGTAB_CHUNK;
		if (t->bytes + sz > limit || (c = malloc(sz)) == NULL)
			return (NULL);
		c->used = 0;
		c->next = t->chunks;
		t->chunks = c;
		t->bytes += sz;
	}
	p = c->data + c->used;
	memcpy(p, s, n);
	p[n] = '\0';
	c->used += n + 1;
	return (p);
}

static struct py_pkgkey *
pkgtab_slot(const struct py_pkgtab *t, const char *k, size_t n, uint64_t h)
{
	uint32_t j;

	if (t->cap == 0)
		return (NULL);
	for (j = (uint32_t)h & (t->cap - 1); t->slots[j].key != NULL;
	    j = (j + 1) & (t->cap - 1))
		if (t->slots[j].hash == h && t->slots[j].len == n &&
		    memcmp(t->slots[j].key, k, n) == 0)
			return (&t->slots[j]);
	return (NULL);
}

static int
pkgtab_grow(struct py_pkgtab *t, size_t limit)
{
	struct py_pkgkey *nk;
	uint32_t cap = t->cap ? t->cap * 2 : 256, i, j;
	size_t after = t->bytes - t->cap * sizeof(*nk) + cap * sizeof(*nk);

	if (cap == 0 || after > limit)
		return (-ENOSPC);
	if ((nk = calloc(cap, sizeof(*nk))) == NULL)
		return (-ENOMEM);
	for (i = 0; i < t->cap; i++) {
		if (t->slots[i].key == NULL)
			continue;
		for (j = (uint32_t)t->slots[i].hash & (cap - 1);
		    nk[j].key != NULL; j = (j + 1) & (cap - 1))
			;
		nk[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = nk;
	t->cap = cap;
	t->bytes = after;
	return (0);
}

int
py_pkgtab_add(struct py_pkgtab *t, const char *k, size_t n, uint32_t dist,
    size_t limit)
{
	uint64_t h = py_pkgtab_hash(k, n);
	const char *dup;
	uint32_t j;
	int rc;

	if (n > UINT32_MAX)
		return (-ENOSPC);
	if (pkgtab_slot(t, k, n, h) != NULL)
		return (0);
	if ((t->used + 1) * 4 > t->cap * 3 && (rc = pkgtab_grow(t, limit)) != 0)
		return (rc);
	if ((dup = py_pkgtab_store(t, k, n, limit)) == NULL)
		return (t->bytes + sizeof(struct py_pkgchunk) +
		    PY_PKGTAB_CHUNK > limit ? -ENOSPC : -ENOMEM);
	for (j = (uint32_t)h & (t->cap - 1); t->slots[j].key != NULL;
	    j = (j + 1) & (t->cap - 1))
		;
	t->slots[j] = (struct py_pkgkey){ h, dup, (uint32_t)n, dist };
	t->used++;
	return (1);
}

int64_t
py_pkgtab_find(const struct py_pkgtab *t, const char *k, size_t n)
{
	const struct py_pkgkey *s = pkgtab_slot(t, k, n, py_pkgtab_hash(k, n));

	return (s != NULL ? (int64_t)s->dist : -1);
}

void
py_pkgtab_clear(struct py_pkgtab *t)
{
	struct py_pkgchunk *c, *next;

	for (c = t->chunks; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* --- the window ------------------------------------------------------- */

/* The bytes str.splitlines ends a line at (ASCII ones), as py_pkgver.c. */
static int
pkglist_iseol(char c)
{
	return (c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
	    c == '\x1c' || c == '\x1d' || c == '\x1e');
}

/*
 * The end of the last whole line in [from, len): just past its
 * terminator, or `from` when there is none.  A '\r' as the last byte is
 * not one yet: a '\n' may follow in the next bytes ("\r\n" is one).
 */
static size_t
pkglist_whole(const char *s, size_t from, size_t len, int eof)
{
	size_t i;

	if (eof)
		return (len);
	for (i = len; i > from; i--)
		if (pkglist_iseol(s[i - 1]) && !(s[i - 1] == '\r' && i == len))
			return (i);
	return (from);
}

void
py_pkglist_start(struct py_pkglist *l, int legacy, const char *info)
{
	l->len = l->pos = 0;
	l->eof = l->skipping = 0;
	l->legacy = legacy;
	l->info = info;
	l->fed = 0;
	l->records = 0;
}

int
py_pkglist_next(struct py_pkglist *l, char *out, size_t outlen)
{
	size_t lim, p;
	int rc;

	if (l->skipping) {
		/* the rest of an over-long line, to its terminator */
		while (l->pos < l->len && !pkglist_iseol(l->buf[l->pos]))
			l->pos++;
		if (l->pos == l->len && !l->eof)
			return (0);
		l->skipping = 0;
	}
	lim = pkglist_whole(l->buf, l->pos, l->len, l->eof);
	if (lim == l->pos) {
		if (l->eof || l->pos > 0 || l->len < l->cap)
			return (0);
		/* A full window and no line's end in it. */
		l->pos = l->len;
		l->skipping = 1;
		l->records++;
		return (-ENAMETOOLONG);
	}
	p = l->pos;
	rc = l->legacy ? py_pkgver_legacy_next(l->buf, lim, &p, l->info, out,
	    outlen) : py_pkgver_record_next(l->buf, lim, &p, out, outlen);
	/*
	 * A record that ran to the last whole line may go on past it (a
	 * quoted field over a line's end): parsed again once more bytes are
	 * in, unless none can come.
	 */
	if (rc != 0 && p >= lim && !l->eof && (l->pos > 0 || l->len < l->cap))
		return (0);
	l->pos = p;	/* rc 0: blank lines up to lim */
	if (rc != 0)
		l->records++;
	return (rc);
}

char *
py_pkglist_room(struct py_pkglist *l, size_t *room)
{
	if (l->pos > 0) {
		memmove(l->buf, l->buf + l->pos, l->len - l->pos);
		l->len -= l->pos;
		l->pos = 0;
	}
	*room = l->cap - l->len;
	return (l->buf + l->len);
}

void
py_pkglist_fed(struct py_pkglist *l, size_t n)
{
	if (n == 0) {
		l->eof = 1;
		return;
	}
	l->len += n;
	l->fed += n;
}

/* --- who gives way ------------------------------------------------------ */

int
py_pkgbudget_victim(const struct py_pkguse *u, uint32_t n, uint32_t self)
{
	uint32_t i;
	int v = -1;

	for (i = 0; i < n; i++)
		if (i != self && u[i].evictable && u[i].bytes > 0 &&
		    (self >= n || u[i].bytes > u[self].bytes) &&
		    (v < 0 || u[i].used_at < u[(uint32_t)v].used_at))
			v = (int)i;
	return (v);
}
