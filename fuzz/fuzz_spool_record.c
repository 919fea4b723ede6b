/*
 * libFuzzer target: a spool file's bytes as read back from disk (the
 * checksum framing, then the record's meta line and body).  A frame made of
 * the input must unframe to the input.
 * FUZZ_SOURCES: core/studio/spool.c core/base/trust.c core/base/fileio.c core/base/xmalloc.c core/base/log.c core/base/textesc.c
 * FUZZ_LIBS: -lz -ljson-c
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "studio/studio.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	const unsigned char *rec, *body;
	const char *meta;
	unsigned char *framed;
	size_t reclen, metalen, bodylen, flen;
	char err[128];

	if (spool_unframe(data, len, &rec, &reclen, err, sizeof(err)) == 0) {
		if (rec < data || rec + reclen > data + len)
			__builtin_trap();
		(void)spool_record_split(rec, reclen, &meta, &metalen, &body,
		    &bodylen);
	}
	framed = spool_frame(data, len, &flen);
	if (spool_unframe(framed, flen, &rec, &reclen, err,
	    sizeof(err)) != 0 || reclen != len ||
	    (len > 0 && memcmp(rec, data, len) != 0))
		__builtin_trap();
	free(framed);
	return (0);
}
