/*
 * libFuzzer target: the kernel's side-band records (MMAP2, COMM, FORK,
 * EXIT, LOST) as mmapfollow.c hands them over, parsed and fed to the
 * per-image log (plugins/perf/sampler/execmaps.c), then looked up.
 * FUZZ_SOURCES: plugins/perf/sampler/execmaps.c
 */
#include <linux/perf_event.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "execmaps.h"

volatile uint64_t fuzz_sink;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_header h;
	struct execmaps *m = execmaps_new();
	struct execrec r;
	struct execmap x;
	uint64_t sum = 0, now = 0;
	size_t off = 0;
	uint8_t *copy;

	if (m == NULL)
		return (0);
	/* records back to back, each copied alone (as the drain does) */
	while (off + sizeof(h) <= size) {
		memcpy(&h, data + off, sizeof(h));
		if (h.size == 0 || h.size > size - off)
			break;
		if ((copy = malloc(h.size)) == NULL)
			break;
		memcpy(copy, data + off, h.size);
		if (execrec_parse(copy, h.size, &r) == 0) {
			(void)execmaps_feed(m, &r, now);
			now += 1000000000ull;
			if (execmaps_find(m, (int32_t)r.pid, (uint32_t)r.tid &
			    3, r.addr + r.len / 2, &x) == 0)
				sum += x.start + strlen(x.path);
			sum += (uint64_t)execmaps_parent(m, (int32_t)r.pid, 0);
		}
		free(copy);
		off += h.size;
	}
	execmaps_expire(m, now + EXECMAPS_KEEP_NS + 1);
	execmaps_free(m);
	fuzz_sink = sum;
	return (0);
}
