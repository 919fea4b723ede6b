/*
 * What a process's /proc/PID/maps says about its loading, for the runtime
 * readers: compiled into each (Python, Ruby, PHP), pure over bytes.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "langmaps.h"

/* Whether the line's path (after the fifth field) names a file whose
 * base name begins with prefix. */
static int
langmaps_line_is(const char *s, size_t len, const char *prefix)
{
	size_t i, base, plen = strlen(prefix);

	for (i = len; i > 0 && s[i - 1] != '/'; i--)
		;
	if (i == 0)	/* no path: anonymous or [special] */
		return (0);
	base = i;
	return (len - base >= plen && memcmp(s + base, prefix, plen) == 0);
}

int
langmaps_linking(const char *maps, size_t len)
{
	const char *s = maps, *end = maps + len, *nl;
	int ldso = 0, libc = 0;

	while (s < end) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		if (langmaps_line_is(s, (size_t)(nl - s), "ld-linux") ||
		    langmaps_line_is(s, (size_t)(nl - s), "ld.so"))
			ldso = 1;
		else if (langmaps_line_is(s, (size_t)(nl - s), "libc.so") ||
		    langmaps_line_is(s, (size_t)(nl - s), "libc-"))
			libc = 1;
		s = nl + 1;
	}
	return (ldso && !libc);
}

