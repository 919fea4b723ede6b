/*
 * libFuzzer target: container ids from /proc/PID/cgroup text and the
 * Docker container list.
 * FUZZ_SOURCES: core/container.c core/safeopen.c core/http.c core/curl_shim.c core/xmalloc.c core/log.c
 * FUZZ_LIBS: -ljson-c -lcurl -levent_core
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "gprofiler.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char	 id[65];

	if (container_id_parse((const char *)data, len, id) == 0 &&
	    strlen(id) != 64)
		__builtin_trap();
	container_parse_docker((const char *)data, len);
	container_fini();
	return (0);
}
