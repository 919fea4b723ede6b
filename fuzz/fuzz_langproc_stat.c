/*
 * libFuzzer target: /proc/PID/stat texts, whose comm a user names
 * (plugins/lang/common/langproc.c, the runtime plugins' process identity).
 * FUZZ_SOURCES: plugins/lang/common/langproc.c
 */
#include <stdint.h>
#include <stdlib.h>

#include "langproc.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t start;

	(void)langproc_parse_starttime((const char *)data, size, &start);
	return (0);
}
