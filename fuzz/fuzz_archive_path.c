/*
 * libFuzzer target: the installer's archive entry check
 * (plugins/perfspect/archive_path.c).  Input: type byte, then path and
 * link target separated by a NUL.  Also asserts the promise: an accepted
 * name is relative and has no ".." component.
 * FUZZ_SOURCES: plugins/perfspect/archive_path.c
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../plugins/perfspect/perfspect.h"

static int
has_dotdot(const char *p, size_t len)
{
	size_t i = 0, s;

	while (i <= len) {
		s = i;
		while (i < len && p[i] != '/')
			i++;
		if (i - s == 2 && p[s] == '.' && p[s + 1] == '.')
			return (1);
		i++;
	}
	return (0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path, *link = "", *nul;
	size_t plen, llen = 0;
	char why[128];
	int type;

	if (size < 1)
		return (0);
	type = data[0] % 6;
	path = (const char *)data + 1;
	plen = size - 1;
	if ((nul = memchr(path, '\0', plen)) != NULL) {
		link = nul + 1;
		llen = plen - (nul - path) - 1;
		plen = nul - path;
	}
	if (ps_archive_path_check(path, plen, type, link, llen, why,
	    sizeof(why)) == 0) {
		if (plen == 0 || path[0] == '/' || has_dotdot(path, plen))
			abort();
		if (type == PS_ENT_OTHER)
			abort();
		if (type == PS_ENT_SYMLINK && llen > 0 && link[0] == '/')
			abort();
	}
	return (0);
}
