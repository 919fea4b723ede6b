/*
 * The iaprof version gate (docs/specs/iaprof.md §6.2): a pure check of the text
 * `iaprof --version` printed.
 */
#ifndef IAPROF_VERSION_H
#define IAPROF_VERSION_H

#include <stddef.h>

#define IAPROF_MIN_VERSION	"2026.3"

/*
 * Pick the version text (stdout trimmed, else stderr trimmed), normalise
 * it into norm and check it against the minimum.  0 when supported;
 * -EINVAL ("Invalid version: '<text>'") or -ENOTSUP ("iaprof <v> is
 * unsupported; minimum version is 2026.3") with the message in err.
 */
int iaprof_version_check(const char *out, const char *err_text,
	    char *norm, size_t normsz, char *err, size_t errsz);

#endif
