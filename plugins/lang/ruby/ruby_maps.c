/*
 * Which mapped object of a process holds the Ruby VM, from the text of
 * /proc/PID/maps: a libruby*.so if one is mapped (distro rubies, and any
 * embedder), else the executable when its name starts with "ruby" (a
 * static build: gProfiler also picks Ruby processes by a mapped file
 * named ruby*).  Pure over bytes.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "langproc.h"
#include "rubyreader.h"

static void
ruby_maps_set(struct ruby_object *ob, uint64_t start, uint64_t end,
    const char *path, size_t plen)
{
	size_t n = plen < sizeof(ob->path) - 1 ? plen : sizeof(ob->path) - 1;

	ob->start = start;
	ob->end = end;
	memcpy(ob->path, path, n);
	ob->path[n] = '\0';
	ob->found = 1;
}

/*
 * 0 with *ob filled, or -ENOENT; *exe_out (if not NULL) is the
 * executable's mapping whatever its name (found = 0 if not mapped).
 */
int
ruby_maps_find(const char *maps, size_t len, uint64_t exe_ino,
    struct ruby_object *ob, struct ruby_object *exe_out)
{
	struct ruby_object exe = { 0 }, any = { 0 };
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
			if (!any.found && exe_ino != 0 && ino == exe_ino)
				ruby_maps_set(&any, start, end, path, plen);
			if (!ob->found && (size_t)(path + plen - base) > 7 &&
			    memcmp(base, "libruby", 7) == 0 &&
			    memmem(base, (size_t)(path + plen - base), ".so",
			    3) != NULL)
				ruby_maps_set(ob, start, end, path, plen);
			if (!exe.found && exe_ino != 0 && ino == exe_ino &&
			    (size_t)(path + plen - base) >= 4 &&
			    memcmp(base, "ruby", 4) == 0)
				ruby_maps_set(&exe, start, end, path, plen);
		}
		line = nl + 1;
	}
	if (exe_out != NULL)
		*exe_out = any;
	if (ob->found)
		return (0);
	if (!exe.found)
		return (-ENOENT);
	*ob = exe;
	return (0);
}
