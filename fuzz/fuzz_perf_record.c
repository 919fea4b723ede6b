/*
 * libFuzzer target: sampler ring-buffer records
 * (plugins/perf/sampler/record.c).
 * FUZZ_SOURCES: plugins/perf/sampler/record.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"

volatile uint64_t fuzz_sink;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sample_view v;
	uint64_t sum = 0;
	void *copy;
	size_t i;

	/* the ring buffer hands out 8-byte aligned records */
	copy = malloc(size + 1);
	if (copy == NULL)
		return (0);
	memcpy(copy, data, size);
	if (sample_record_parse(copy, size, &v) == 0) {
		for (i = 0; i < v.hdr.nkern; i++)
			sum += v.kips[i];
		for (i = 0; i < v.hdr.nuser; i++)
			sum += v.uips[i];
		for (i = 0; i < 2 * (size_t)v.hdr.nwalk; i++)
			sum += v.walk[i];
		if (v.regs != NULL)
			sum += v.regs[SAMPLE_NREGS - 1] +
			    (v.hdr.stack_len ? v.stack[v.hdr.stack_len - 1] : 0);
	}
	free(copy);
	fuzz_sink = sum;
	return (0);
}
