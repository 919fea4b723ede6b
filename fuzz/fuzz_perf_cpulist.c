/*
 * libFuzzer target: CPU lists as in /sys/devices/system/cpu/online
 * (plugins/perf/sampler/cpulist.c).
 * FUZZ_SOURCES: plugins/perf/sampler/cpulist.c
 */
#include <stdint.h>
#include <stdlib.h>

#include "sampler.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t set[64];

	cpulist_parse((const char *)data, size, set, sizeof(set));
	return (0);
}
