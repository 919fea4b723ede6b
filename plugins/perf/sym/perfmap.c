/*
 * Perf map parser and lookup.  Entries are sorted by (start, seq); a lookup
 * takes the last entry starting at or below the address and looks a few
 * entries back for the newest one covering it, which handles code reuse at
 * the same or nearby addresses without an interval tree.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perfmap.h"
#include "sorted.h"

#define PERFMAP_LOOKBACK	16

static int
perfmap_hex(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int n = 0, d;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < end; p++, n++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (n >= 16)
			return (-1);
		v = v << 4 | (uint64_t)d;
	}
	if (n == 0 || p == end || (*p != ' ' && *p != '\t'))
		return (-1);
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*pp = p;
	*out = v;
	return (0);
}

#define PERFMAP_CHUNK	(64 * 1024)

static char *
perfmap_name_alloc(struct perfmap *pm, size_t len)
{
	struct perfmap_chunk *c = pm->names;
	size_t size;
	char *p;

	if (c == NULL || c->size - c->used < len) {
		size = len > PERFMAP_CHUNK ? len : PERFMAP_CHUNK;
		if ((c = malloc(sizeof(*c) + size)) == NULL)
			return (NULL);
		c->size = size;
		c->used = 0;
		c->next = pm->names;
		pm->names = c;
	}
	p = c->data + c->used;
	c->used += len;
	pm->names_len += len;
	return (p);
}

static int
perfmap_add(struct perfmap *pm, uint64_t start, uint64_t end,
    const char *name, size_t len)
{
	const size_t slen = sizeof(PERFMAP_SUFFIX) - 1;
	struct perfmap_entry *v;
	size_t ncap;
	char *p;

	if (pm->n >= PERFMAP_MAX_ENTRIES) {
		pm->dropped++;
		return (0);
	}
	if (pm->n == pm->cap) {
		ncap = pm->cap ? pm->cap * 2 : 256;
		if ((v = reallocarray(pm->v, ncap, sizeof(*v))) == NULL)
			return (-ENOMEM);
		pm->v = v;
		pm->cap = ncap;
	}
	if ((p = perfmap_name_alloc(pm, len + slen + 1)) == NULL)
		return (-ENOMEM);
	memcpy(p, name, len);
	memcpy(p + len, PERFMAP_SUFFIX, slen + 1);
	pm->v[pm->n].start = start;
	pm->v[pm->n].end = end;
	pm->v[pm->n].name = p;
	pm->v[pm->n].seq = pm->seq++;
	pm->n++;
	return (0);
}

/* One line without its '\n'; bad lines are counted, not fatal. */
static int
perfmap_line(struct perfmap *pm, const char *p, const char *end)
{
	uint64_t start, size;

	while (end > p && (end[-1] == '\r' || end[-1] == ' ' ||
	    end[-1] == '\t'))
		end--;
	if (p == end)
		return (0);
	if (perfmap_hex(&p, end, &start) != 0 ||
	    perfmap_hex(&p, end, &size) != 0 || size == 0 ||
	    start + size < start || p == end ||
	    end - p > PERFMAP_MAX_NAME || memchr(p, '\0', (size_t)(end - p))) {
		pm->bad_lines++;
		return (0);
	}
	return (perfmap_add(pm, start, start + size, p, (size_t)(end - p)));
}

int
perfmap_cmp(const void *va, const void *vb)
{
	const struct perfmap_entry *a = va, *b = vb;

	if (a->start != b->start)
		return (a->start < b->start ? -1 : 1);
	return (a->seq < b->seq ? -1 : a->seq > b->seq);
}

/* The longest line that can parse: two 64-bit hex numbers with 0x and
 * blanks, and the longest name. */
#define PERFMAP_MAX_LINE	(PERFMAP_MAX_NAME + 64)

int
perfmap_feed(struct perfmap *pm, const char *buf, size_t len, int final,
    size_t *consumed)
{
	const char *line = buf, *nl;
	int r = 0;

	if (pm->skipping) {
		if ((nl = memchr(buf, '\n', len)) == NULL) {
			*consumed = len;
			return (0);
		}
		pm->skipping = 0;
		line = nl + 1;
	}
	while (line < buf + len) {
		nl = memchr(line, '\n', (size_t)(buf + len - line));
		if (nl == NULL && !final) {
			if ((size_t)(buf + len - line) > PERFMAP_MAX_LINE) {
				/* Cannot parse however it ends: drop it
				 * and what follows of it. */
				pm->bad_lines++;
				pm->skipping = 1;
				line = buf + len;
			}
			break;
		}
		if (nl == NULL)
			nl = buf + len;
		if ((r = perfmap_line(pm, line, nl)) != 0)
			break;
		line = nl + 1;
	}
	*consumed = line > buf + len ? len : (size_t)(line - buf);
	return (r);
}

const char *
perfmap_lookup(const struct perfmap *pm, uint64_t addr)
{
	const struct perfmap_entry *best = NULL, *e;
	size_t lo, k;

	lo = sorted_upper(pm->v, pm->sorted, sizeof(*pm->v),
	    offsetof(struct perfmap_entry, start), addr);
	for (k = 0; lo > 0 && k < PERFMAP_LOOKBACK; lo--, k++) {
		e = &pm->v[lo - 1];
		if (addr < e->end && (best == NULL || e->seq > best->seq))
			best = e;
	}
	return (best != NULL ? best->name : NULL);
}

void
perfmap_chunks_free(struct perfmap_chunk *c)
{
	struct perfmap_chunk *next;

	for (; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
}

struct perfmap_chunk *
perfmap_detach_names(struct perfmap *pm)
{
	struct perfmap_chunk *c = pm->names;

	pm->names = NULL;
	perfmap_free(pm);
	return (c);
}

void
perfmap_free(struct perfmap *pm)
{
	if (pm == NULL)
		return;
	free(pm->v);
	free(pm->ig_tmp);
	free(pm->ig_new);
	free(pm->ig_spare);
	perfmap_chunks_free(pm->names);
	memset(pm, 0, sizeof(*pm));
}
