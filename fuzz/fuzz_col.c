/*
 * libFuzzer target for the .col parser and the flame graph JSON built from
 * it: arbitrary bytes must never crash, and the JSON must never contain a
 * raw '<' or '>' (it is embedded in a <script> element).
 *
 * FUZZ_SOURCES: core/output/col_parse.c core/output/flamegraph.c core/base/textesc.c core/base/xmalloc.c core/base/log.c data/flamegraph_html.c
 * FUZZ_LIBS: -ljson-c
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output/col_parse.h"
#include "output/output.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
fuzz_line(const struct col_line *l, void *arg)
{
	uint64_t *sum = arg;
	uint32_t i;

	for (i = 0; i < l->nframes; i++)
		*sum += l->frames[i].len;
	return (0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct col_result res;
	uint64_t sum = 0;
	size_t len;
	char *json;

	col_parse((const char *)data, size, fuzz_line, &sum, &res);
	if (sum > size || res.nkept > COL_BAD_KEEP)
		abort();
	json = flamegraph_json((const char *)data, size, NULL, NULL, &len);
	if (memchr(json, '<', len) != NULL || memchr(json, '>', len) != NULL)
		abort();
	free(json);
	return (0);
}
