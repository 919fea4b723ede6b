/*
 * libFuzzer target: /proc/PID/stat texts, whose comm a user names
 * (lib/procstat.c, read by the core and every plugin).
 * FUZZ_SOURCES: lib/procstat.c
 */
#include <stdint.h>
#include <stdlib.h>

#include "procstat.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	uint64_t v;
	size_t at;
	char state;
	int want;

	for (want = 3; want < 26; want++) {
		if (procstat_at(s, size, want, &at) == 0 && at >= size)
			abort();	/* a field begins within the text */
		(void)procstat_u64(s, size, want, &v);
	}
	(void)procstat_state(s, size, &state);
	(void)procstat_cpu(s, size, &v);
	return (0);
}
