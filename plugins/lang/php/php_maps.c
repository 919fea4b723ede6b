/*
 * Which mapped object of a process holds the Zend engine, from the text
 * of /proc/PID/maps: a libphp*.so (apache's mod_php, embedders) if one is
 * mapped, else the executable (php, php-fpm, php-cgi).  Pure over bytes.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "langproc.h"
#include "phpreader.h"

static void
php_maps_set(struct php_object *ob, uint64_t start, uint64_t end,
    const char *path, size_t plen)
{
	size_t n = plen < sizeof(ob->path) - 1 ? plen : sizeof(ob->path) - 1;

	ob->start = start;
	ob->end = end;
	memcpy(ob->path, path, n);
	ob->path[n] = '\0';
	ob->found = 1;
}

/* 0 with *ob filled, or -ENOENT. */
int
php_maps_find(const char *maps, size_t len, uint64_t exe_ino,
    struct php_object *ob)
{
	struct php_object exe = { 0 };
	const char *line = maps, *nl, *path, *base;
	uint64_t start, end, off, ino;
	size_t plen;

	memset(ob, 0, sizeof(*ob));
	while (line < maps + len) {
		nl = memchr(line, '\n', (size_t)(maps + len - line));
		if (nl == NULL)
			nl = maps + len;
		if (langproc_parse_map_line(line, (size_t)(nl - line), &start, &end,
		    &off, &ino, &path, &plen) == 0 && path != NULL &&
		    off == 0 && path[0] == '/') {
			base = path + plen;
			while (base > path && base[-1] != '/')
				base--;
			if ((size_t)(path + plen - base) > 6 &&
			    memcmp(base, "libphp", 6) == 0 &&
			    memmem(base, (size_t)(path + plen - base), ".so",
			    3) != NULL) {
				php_maps_set(ob, start, end, path, plen);
				return (0);
			}
			if (!exe.found && exe_ino != 0 && ino == exe_ino)
				php_maps_set(&exe, start, end, path, plen);
		}
		line = nl + 1;
	}
	if (!exe.found)
		return (-ENOENT);
	*ob = exe;
	return (0);
}
