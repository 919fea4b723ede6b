/*
 * Fuzz the /proc parsers: maps, status and stat from the same bytes.
 * FUZZ_SOURCES: plugins/perf/sym/procmaps.c lib/procstat.c
 */
#include <stddef.h>
#include <stdint.h>

#include "procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct procmaps m;
	struct procstatus st;
	uint64_t t;
	int32_t pp;
	size_t i;

	if (procmaps_parse((const char *)data, size, &m) == 0) {
		for (i = 0; i < m.n; i++) {
			(void)procmaps_path(&m, &m.v[i]);
			(void)procmaps_find(&m, m.v[i].start);
			(void)procmaps_find(&m, m.v[i].end - 1);
		}
		procmaps_free(&m);
	}
	(void)procstatus_parse((const char *)data, size, &st);
	(void)procstat_starttime((const char *)data, size, &t);
	(void)procstat_ppid((const char *)data, size, &pp);
	return (0);
}
