/*
 * Fuzz the perf map parser: fed whole, then in two pieces (the split
 * taken from the first byte), then looked up around every entry.
 * FUZZ_SOURCES: plugins/perf/sym/perfmap.c plugins/perf/sym/perfmap_sort.c
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap pm;
	size_t used, split, i;

	memset(&pm, 0, sizeof(pm));
	split = size > 0 ? data[0] % (size + 1) : 0;
	(void)perfmap_feed(&pm, (const char *)data, split, 0, &used);
	(void)perfmap_sort(&pm);
	(void)perfmap_feed(&pm, (const char *)data + used, size - used, 1,
	    &used);
	(void)perfmap_sort(&pm);
	for (i = 0; i < pm.n; i++) {
		(void)perfmap_lookup(&pm, pm.v[i].start);
		(void)perfmap_lookup(&pm, pm.v[i].end - 1);
		(void)perfmap_lookup(&pm, pm.v[i].end);
	}
	perfmap_free(&pm);
	return (0);
}
