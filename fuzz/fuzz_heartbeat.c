/*
 * libFuzzer target: heartbeat answers (docs/specs/studio-api.md §5).
 * FUZZ_SOURCES: core/studio/heartbeat_state.c core/base/fileio.c core/base/xmalloc.c core/base/log.c core/base/textesc.c
 * FUZZ_LIBS: -ljson-c
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "studio/studio.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct hb_command c;
	char err[256];

	if (heartbeat_parse_response((const char *)data, len, &c, err,
	    sizeof(err)) == 1 && strlen(c.command_id) == 0)
		__builtin_trap();
	hb_command_clear(&c);
	return (0);
}
