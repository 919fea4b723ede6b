/*
 * Fuzz the .gopclntab reader: open the bytes as a table, read every
 * function, look up around each entry and end; read each _func record,
 * walk its inline-index table, and ask the inline chain (the input's own
 * bytes standing in for the inline tree) and file:line at a few pcs;
 * then the same read in place, through windows whose reads fail after as
 * many as the first byte says (a file cut while read).
 * FUZZ_SOURCES: plugins/perf/sym/gopclntab.c
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gopclntab.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct src {
	const uint8_t *data;
	size_t size;
	unsigned left;
};

static int
src_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct src *s = arg;

	if (s->left == 0 || off > s->size || len > s->size - off)
		return (-1);
	s->left--;
	memcpy(buf, s->data + off, len);
	return (0);
}

static void
walk(const struct gopclntab *g, const uint8_t *data, size_t size)
{
	struct gopclntab_fn fn;
	struct gopclntab_pciter it;
	uint32_t no[GOPCLNTAB_INL_DEPTH];
	uint64_t e, end, lo, hi, pc;
	int32_t v, line;
	size_t fl, steps;
	const char *file;
	const char *name;
	size_t i, len;
	volatile size_t sum = 0;

	for (i = 0; i < g->nfunc; i++) {
		if (gopclntab_func(g, i, &e, &end, &name, &len) != 0)
			continue;
		if (len > 0)
			sum += (unsigned char)name[len - 1];
		(void)gopclntab_find(g, e);
		(void)gopclntab_find(g, e - 1);
		(void)gopclntab_find(g, end);
		if (gopclntab_fn(g, i, &fn) != 0)
			continue;
		gopclntab_pcstart(&it, g, fn.pcinl, fn.entry);
		for (steps = 0; steps < 4096 &&
		    gopclntab_pcnext(&it, &lo, &hi, &v) == 1; steps++)
			sum += (size_t)(uint32_t)v;
		for (pc = fn.entry; pc < fn.end && pc - fn.entry < 256;
		    pc += 16) {
			sum += (size_t)gopclntab_inline(g, &fn, data, size, pc,
			    no, GOPCLNTAB_INL_DEPTH);
			if (gopclntab_line(g, &fn, pc, &file, &fl, &line) == 0 &&
			    fl > 0)
				sum += (unsigned char)file[fl - 1];
		}
	}
	(void)gopclntab_version(g);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gopclntab g;
	struct gopclntab_src gs;
	struct src s;

	if (gopclntab_open(&g, data, size, 0x401000) == 0)
		walk(&g, data, size);
	if (size == 0)
		return (0);
	s.data = data;
	s.size = size;
	s.left = data[0] < 0xf0 ? 1000 : data[0] - 0xf0u;
	if (gopclntab_src_init(&gs, src_read, &s, size) != 0)
		return (0);
	if (gopclntab_open_src(&g, &gs, size, 0x401000) == 0)
		walk(&g, data, size);
	gopclntab_src_free(&gs);
	return (0);
}
