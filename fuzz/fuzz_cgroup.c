/*
 * libFuzzer target: container ids and containerd keys from
 * /proc/PID/cgroup text, and the Docker container list.
 * FUZZ_SOURCES: core/meta/container_cgroup.c core/meta/container_docker.c core/base/xmalloc.c core/base/log.c core/base/textesc.c
 * FUZZ_LIBS: -ljson-c
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "meta/container.h"
#include "meta/meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_put(void *arg, const char *key, const char *name)
{
	(void)arg;
	if (strlen(key) != 64 || strlen(name) > (1u << 20))
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct container_sink sink = { fuzz_put, NULL };
	char id[65], key[CONTAINER_KEY_MAX];

	if (container_id_parse((const char *)data, len, id) == 0 &&
	    strlen(id) != 64)
		__builtin_trap();
	if (container_key_parse((const char *)data, len, key) == 0 &&
	    (strlen(key) == 0 || strlen(key) >= CONTAINER_KEY_MAX))
		__builtin_trap();
	container_docker_parse((const char *)data, len, &sink);
	return (0);
}
