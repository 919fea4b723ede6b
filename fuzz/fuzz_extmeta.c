/*
 * libFuzzer target: --external-metadata's parser (core/config/extmeta.c).  Also
 * asserts its promise: success gives an object, failure gives nothing and
 * a reason.
 * FUZZ_SOURCES: core/config/extmeta.c core/base/xmalloc.c core/base/log.c core/base/textesc.c
 * FUZZ_SOURCES: core/base/safeopen.c core/base/procstr.c core/base/mapsread.c core/base/safefs.c lib/fsguard.c
 * FUZZ_LIBS: -ljson-c
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "config/configuration.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *st;
	char err[256] = "";

	if (extmeta_parse((const char *)data, size, &st, err,
	    sizeof(err)) == 0) {
		if (st == NULL || !json_object_is_type(st, json_type_object))
			abort();
		json_object_put(st);
	} else if (st != NULL || err[0] == '\0')
		abort();
	return (0);
}
