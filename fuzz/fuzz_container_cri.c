/*
 * libFuzzer target: a CRI ListContainersResponse gRPC body, and k8s_
 * names split back into pod and namespace.
 * FUZZ_SOURCES: core/meta/container_cri.c core/meta/container_grpc.c core/meta/container_cri.pb-c.c core/base/xmalloc.c core/base/log.c core/base/textesc.c
 * FUZZ_LIBS: -lprotobuf-c -ljson-c
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meta/container.h"
#include "meta/meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fuzz_put(void *arg, const char *key, const char *name)
{
	char pod[64], ns[64];

	(void)arg;
	if (*key == '\0')
		__builtin_trap();
	if (container_k8s_split(name, pod, sizeof(pod), ns, sizeof(ns)) == 0 &&
	    (*pod == '\0' || *ns == '\0'))
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct container_sink sink = { fuzz_put, NULL };
	char *s;

	container_cri_parse(data, len, &sink);
	s = malloc(len + 1);
	memcpy(s, data, len);
	s[len] = '\0';
	fuzz_put(NULL, "k", s);
	free(s);
	return (0);
}
