/*
 * libFuzzer target: the time window of a .col header (upload-file).
 * FUZZ_SOURCES: core/output/col_header.c
 * FUZZ_LIBS: -ljson-c
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "output/col_header.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct timespec s, e;
	char err[160];
	int rc;

	rc = col_header_window((const char *)data, len, &s, &e, err,
	    sizeof(err));
	/* A window never runs backwards; nanoseconds stay in range. */
	if (rc >= 0 && (e.tv_sec < s.tv_sec || (e.tv_sec == s.tv_sec &&
	    e.tv_nsec < s.tv_nsec) || s.tv_nsec < 0 ||
	    s.tv_nsec > 999999999 || e.tv_nsec < 0 || e.tv_nsec > 999999999))
		__builtin_trap();
	if (rc < 0 && memchr(err, '\0', sizeof(err)) == NULL)
		__builtin_trap();
	(void)col_time_parse((const char *)data, len, &s);
	return (0);
}
