/*
 * libFuzzer target: cgroup v2 cpu.stat texts and cgroup directory names
 * (plugins/perf/cgsel.c, --perf-use-cgroups).
 * FUZZ_SOURCES: plugins/perf/cgsel.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgroups.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[128];
	uint64_t usec;
	size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;

	(void)cgstat_parse_usage((const char *)data, size, &usec);
	memcpy(name, data, n);
	name[n] = '\0';
	(void)cgsel_is_docker(name, "docker");
	(void)cgsel_is_docker(name, NULL);
	return (0);
}
