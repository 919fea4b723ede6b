/*
 * libFuzzer target: --perf-event names and tracefs tracepoint ids
 * (plugins/perf/sampler/perfevent.c).
 * FUZZ_SOURCES: plugins/perf/sampler/perfevent.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfevent.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfevent ev;
	char name[256], err[512];
	uint64_t id;
	size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;

	(void)perfevent_tp_id((const char *)data, size, &id);
	memcpy(name, data, n);
	name[n] = '\0';
	if (perfevent_parse(name, &ev, err, sizeof(err)) == 0)
		(void)perfevent_kind(&ev);
	return (0);
}
