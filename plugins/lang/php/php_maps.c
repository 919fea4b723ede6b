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

#include "langmaps.h"
#include "phpreader.h"

static void
php_maps_set(struct php_object *ob, const struct langmaps_file *f)
{
	langmaps_keep(f, &ob->start, &ob->end, ob->path, sizeof(ob->path));
	ob->found = 1;
}

/* 0 with *ob filled, or -ENOENT. */
int
php_maps_find(const char *maps, size_t len, uint64_t exe_ino,
    struct php_object *ob)
{
	struct php_object exe = { 0 };
	struct langmaps_file f;
	size_t pos = 0;

	memset(ob, 0, sizeof(*ob));
	while (langmaps_next_file(maps, len, &pos, &f)) {
		if (langmaps_is_lib(&f, "libphp")) {
			php_maps_set(ob, &f);
			return (0);
		}
		if (!exe.found && exe_ino != 0 && f.ino == exe_ino)
			php_maps_set(&exe, &f);
	}
	if (!exe.found)
		return (-ENOENT);
	*ob = exe;
	return (0);
}
