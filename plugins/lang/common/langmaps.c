/*
 * What a process's /proc/PID/maps says about its loading, and the files
 * it maps, for the runtime readers: compiled into each (Python, Ruby,
 * PHP), pure over bytes.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "langmaps.h"
#include "langproc.h"

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


int
langmaps_next_file(const char *maps, size_t len, size_t *pos,
    struct langmaps_file *f)
{
	const char *line, *nl;
	uint64_t off;

	while (*pos < len) {
		line = maps + *pos;
		if ((nl = memchr(line, '\n', len - *pos)) == NULL)
			nl = maps + len;
		*pos = (size_t)(nl - maps) + 1;
		if (langproc_parse_map_line(line, (size_t)(nl - line),
		    &f->start, &f->end, &off, &f->ino, &f->path,
		    &f->plen) != 0 || f->path == NULL || off != 0 ||
		    f->path[0] != '/')
			continue;
		f->base = f->path + f->plen;
		while (f->base > f->path && f->base[-1] != '/')
			f->base--;
		f->blen = (size_t)(f->path + f->plen - f->base);
		return (1);
	}
	return (0);
}

int
langmaps_is_lib(const struct langmaps_file *f, const char *prefix)
{
	size_t n = strlen(prefix);

	return (f->blen > n && memcmp(f->base, prefix, n) == 0 &&
	    memmem(f->base, f->blen, ".so", 3) != NULL);
}

void
langmaps_keep(const struct langmaps_file *f, uint64_t *start, uint64_t *end,
    char *path, size_t size)
{
	size_t n = f->plen < size - 1 ? f->plen : size - 1;

	*start = f->start;
	*end = f->end;
	memcpy(path, f->path, n);
	path[n] = '\0';
}
