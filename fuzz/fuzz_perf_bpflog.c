/*
 * libFuzzer target: libbpf's messages and verifier logs, cut into log
 * lines and searched for the refused helper (plugins/perf/sampler/bpflog.c).
 * FUZZ_SOURCES: plugins/perf/sampler/bpflog.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpflog.h"

static void
sink(void *arg, const char *line, size_t len)
{
	size_t *total = arg;

	if (len == 0 || len > 64)
		abort();
	*total += (size_t)(unsigned char)line[len - 1];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[32];
	size_t total = 0;

	bpflog_lines((const char *)data, size, 64, 5, sink, &total);
	if (bpflog_refused_helper((const char *)data, size, name,
	    sizeof(name)) >= 0 && strlen(name) >= sizeof(name))
		abort();
	return (0);
}
