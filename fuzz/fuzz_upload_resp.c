/*
 * libFuzzer target: the upload answer and error-message parsers, and the
 * body builder's truncation over arbitrary .col text.
 * FUZZ_SOURCES: core/studio/upload_body.c core/base/textesc.c core/base/gzip.c core/base/xmalloc.c core/base/log.c
 * FUZZ_LIBS: -ljson-c -lz -lm
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "studio/studio.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct upload_body_args a;
	char gpid[32], msg[256];
	unsigned char *b;
	size_t blen;
	unsigned t;

	if (upload_parse_response((const char *)data, len, gpid,
	    sizeof(gpid)) == 0 && strspn(gpid, "0123456789") != strlen(gpid))
		__builtin_trap();
	upload_error_message((const char *)data, len, msg, sizeof(msg));
	memset(&a, 0, sizeof(a));
	a.col = (const char *)data;
	a.collen = len;
	a.start_time = a.end_time = "2025-01-08T11:00:00";
	a.gpid = "";
	a.cpu_avg = a.mem_avg = NAN;
	/* A tiny limit exercises the truncation path. */
	b = upload_build_body(&a, 256, &blen, &t);
	if (b != NULL && blen > 256)
		__builtin_trap();
	free(b);
	return (0);
}
