/*
 * libFuzzer target: containerd's Namespaces/List and Containers/ListStream
 * gRPC bodies.
 * FUZZ_SOURCES: core/meta/container_containerd.c core/meta/container_grpc.c core/meta/container_containerd.pb-c.c core/base/xmalloc.c core/base/log.c core/base/textesc.c
 * FUZZ_LIBS: -lprotobuf-c -ljson-c
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "meta/container.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_put(void *arg, const char *key, const char *name)
{
	(void)arg;
	(void)name;
	if (*key == '\0' || strlen(key) >= CONTAINER_KEY_MAX)
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct container_sink sink = { fuzz_put, NULL };

	container_strv_free(container_containerd_parse_ns(data, len));
	container_containerd_parse_list(data, len, "default", &sink);
	return (0);
}
