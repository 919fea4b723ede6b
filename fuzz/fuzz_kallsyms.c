/*
 * Fuzz the /proc/kallsyms parser and lookups.
 * FUZZ_SOURCES: plugins/perf/sym/kallsyms.c
 */
#include <stddef.h>
#include <stdint.h>

#include "kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kallsyms k;
	size_t i;

	if (kallsyms_parse((const char *)data, size, &k) != 0) {
		kallsyms_free(&k);
		return (0);
	}
	for (i = 0; i < k.n; i++) {
		(void)kallsyms_lookup(&k, k.addr[i]);
		(void)kallsyms_lookup(&k, k.addr[i] - 1);
	}
	kallsyms_free(&k);
	return (0);
}
