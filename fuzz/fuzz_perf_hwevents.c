/*
 * libFuzzer target: gProfiler's custom PMU event files (--hw-events-file,
 * plugins/perf/hwevents.c).
 * FUZZ_SOURCES: plugins/perf/hwevents.c
 * FUZZ_LIBS: -ljson-c
 */
#include <stdint.h>
#include <stdlib.h>

#include "hwevents.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const plats[] = { "AMD EPYC", "icelake", "" };
	char raw[64], err[512], model[128];

	(void)hwevents_lookup((const char *)data, size, "X", plats, 3, raw,
	    sizeof(raw), err, sizeof(err));
	(void)hwevents_lookup((const char *)data, size, "L2_MISS", plats, 2,
	    raw, sizeof(raw), err, sizeof(err));
	hwevents_cpuinfo_model((const char *)data, size, model,
	    sizeof(model));
	hwevents_first_line((const char *)data, size, model, sizeof(model));
	return (0);
}
