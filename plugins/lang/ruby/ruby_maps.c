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

#include "langmaps.h"
#include "rubyreader.h"

static void
ruby_maps_set(struct ruby_object *ob, const struct langmaps_file *f)
{
	langmaps_keep(f, &ob->start, &ob->end, ob->path, sizeof(ob->path));
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
	struct langmaps_file f;
	size_t pos = 0;

	memset(ob, 0, sizeof(*ob));
	while (langmaps_next_file(maps, len, &pos, &f)) {
		if (!any.found && exe_ino != 0 && f.ino == exe_ino)
			ruby_maps_set(&any, &f);
		if (!ob->found && langmaps_is_lib(&f, "libruby"))
			ruby_maps_set(ob, &f);
		if (!exe.found && exe_ino != 0 && f.ino == exe_ino &&
		    f.blen >= 4 && memcmp(f.base, "ruby", 4) == 0)
			ruby_maps_set(&exe, &f);
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
