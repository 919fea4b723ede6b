/*
 * libFuzzer target for the iaprof stream parser (plugins/iaprof/parse.c).
 * Differential: the input parsed in one piece and in pieces cut where the
 * input says must fold to the same stacks and the same malformed count;
 * small limits reach the caps.  Snapshots are cut at ticks, as the plugin
 * does.
 *
 * FUZZ_SOURCES: plugins/iaprof/parse.c plugins/iaprof/text.c
 * FUZZ_SOURCES: plugins/iaprof/strtab.c plugins/iaprof/stacks.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/iaprof/parse.h"

struct sink {
	struct iaprof_parser *p;
	uint64_t hash, total;
};

static int
fold(void *arg, int32_t pid, const char *const *frames, uint32_t n,
    uint64_t count)
{
	struct sink *s = arg;
	uint32_t i;
	const char *c;

	s->hash = s->hash * 31 + (uint32_t)pid;
	for (i = 0; i < n; i++)
		for (c = frames[i]; *c != '\0'; c++)
			s->hash = s->hash * 131 + (unsigned char)*c;
	s->hash = s->hash * 7 + count;
	s->total += count;
	return (0);
}

static void
tick(void *arg, uint64_t n)
{
	struct sink *s = arg;

	iaprof_parser_take(s->p, fold, s);
}

static void
run(const uint8_t *data, size_t size, size_t step, struct sink *s,
    uint64_t *bad)
{
	struct iaprof_limits lim;
	size_t off, n;

	iaprof_limits_default(&lim);
	lim.max_line = 300;
	lim.max_strings = 64;
	lim.max_string_bytes = 4096;
	lim.max_stacks = 64;
	lim.max_stack_bytes = 1 << 20;
	memset(s, 0, sizeof(*s));
	if ((s->p = iaprof_parser_new(&lim, tick, s)) == NULL)
		abort();
	for (off = 0; off < size; off += n) {
		n = step == 0 ? size : 1 + (data[off] % step);
		if (n > size - off)
			n = size - off;
		iaprof_parser_feed(s->p, (const char *)data + off, n);
	}
	iaprof_parser_finish(s->p);
	*bad = iaprof_parser_malformed(s->p);
	iaprof_parser_take(s->p, fold, s);
	iaprof_parser_free(s->p);
}

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sink a, b;
	uint64_t bada, badb;

	run(data, size, 0, &a, &bada);
	run(data, size, 17, &b, &badb);
	/* Caps can cut differently only when a take comes between; the
	 * totals (kept + dropped) never differ. */
	if (a.hash != b.hash || bada != badb)
		abort();
	return (0);
}
