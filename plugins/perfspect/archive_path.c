/*
 * Whether an entry of a downloaded PerfSpect tarball may be extracted: a
 * pure function over the entry's name, type and link target, so that a
 * hostile archive (absolute paths, "..", links leading out of the install
 * directory, device nodes) is refused before anything touches the disk.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "perfspect.h"

#define PS_PATH_MAX	1024

static int
why_set(char *why, size_t len, const char *msg)
{
	if (why != NULL && len > 0)
		snprintf(why, len, "%s", msg);
	return (-EPERM);
}

/*
 * Walk the '/'-separated components of p, starting `depth` levels below
 * the root: "." and empty components stay, ".." goes up.  Returns the
 * final depth, or -1 when the walk would leave the root.  ".." is allowed
 * (for link targets) only before the first name: after a name, which may
 * itself be a link, the lexical walk would no longer match the real one
 * ("b/.." with b -> "." leaves the root).
 */
static int
path_depth(const char *p, size_t len, int depth, int allow_dotdot)
{
	size_t i = 0, start;
	int named = 0;

	while (i < len) {
		start = i;
		while (i < len && p[i] != '/')
			i++;
		if (i - start == 2 && p[start] == '.' && p[start + 1] == '.') {
			if (!allow_dotdot || named || --depth < 0)
				return (-1);
		} else if (i - start > 1 || (i - start == 1 &&
		    p[start] != '.')) {
			depth++;
			named = 1;
		}
		i++;
	}
	return (depth);
}

static int
path_plain(const char *p, size_t len)
{
	size_t i;

	if (len == 0 || len > PS_PATH_MAX)
		return (0);
	for (i = 0; i < len; i++)
		if (p[i] == '\0' || (unsigned char)p[i] < 0x20)
			return (0);
	return (1);
}

int
ps_archive_path_check(const char *path, size_t pathlen, int type,
    const char *link, size_t linklen, char *why, size_t whylen)
{
	int depth;

	if (!path_plain(path, pathlen))
		return (why_set(why, whylen, "empty, overlong or "
		    "control characters in the name"));
	if (path[0] == '/')
		return (why_set(why, whylen, "absolute path"));
	if ((depth = path_depth(path, pathlen, 0, 0)) < 0)
		return (why_set(why, whylen, "\"..\" in the path"));
	if (depth == 0 && type != PS_ENT_DIR)
		return (why_set(why, whylen, "names the top directory"));
	switch (type) {
	case PS_ENT_FILE:
	case PS_ENT_DIR:
		return (0);
	case PS_ENT_HARDLINK:
		/* A hard link names another entry of the archive. */
		if (!path_plain(link, linklen) || link[0] == '/' ||
		    path_depth(link, linklen, 0, 0) <= 0)
			return (why_set(why, whylen,
			    "hard link to outside the archive"));
		return (0);
	case PS_ENT_SYMLINK:
		/* Resolved from the link's own directory (depth - 1). */
		if (!path_plain(link, linklen) || link[0] == '/' ||
		    path_depth(link, linklen, depth - 1, 1) < 0)
			return (why_set(why, whylen,
			    "symbolic link pointing outside"));
		return (0);
	default:
		return (why_set(why, whylen,
		    "device, fifo or socket entries are not allowed"));
	}
}
