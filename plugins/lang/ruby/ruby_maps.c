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

#include "rubyreader.h"

/* "start-end perms offset dev inode path": -EINVAL if malformed. */
static int
ruby_maps_line(const char *s, size_t len, uint64_t *start, uint64_t *end,
    uint64_t *off, uint64_t *ino, const char **path, size_t *plen)
{
	char buf[128], *p, *q;
	size_t n, i, field;
	const char *e = s + len;

	/* The numeric fields fit in 128 bytes; copy them to parse safely. */
	n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*start = strtoull(buf, &p, 16);
	if (*p != '-')
		return (-EINVAL);
	*end = strtoull(p + 1, &q, 16);
	if (*q != ' ' || *end <= *start)
		return (-EINVAL);
	while (*q == ' ')
		q++;
	while (*q != ' ' && *q != '\0')	/* perms */
		q++;
	*off = strtoull(q, &p, 16);
	if (p == q || *p != ' ')
		return (-EINVAL);
	while (*p == ' ')
		p++;
	while (*p != ' ' && *p != '\0')	/* dev */
		p++;
	*ino = strtoull(p, &q, 10);
	if (q == p)
		return (-EINVAL);
	/* The path starts after the inode and spaces, in the original. */
	field = (size_t)(q - buf);
	for (i = field; s + i < e && s[i] == ' '; i++)
		;
	*path = s + i < e ? s + i : NULL;
	*plen = s + i < e ? (size_t)(e - (s + i)) : 0;
	return (0);
}

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
		if (ruby_maps_line(line, (size_t)(nl - line), &start, &end,
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
