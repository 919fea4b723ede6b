/*
 * Separate debug info for a binary whose table has no .symtab: found by
 * build-id under the host's debug root, or by .gnu_debuglink beside the
 * binary in the process's root, and merged into the binary's table
 * (symbin.c asks, once per binary).  Who may own such a file, and why,
 * is sym_debug_try's comment.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "symbolize_int.h"

/*
 * Merge the debug file at path if it is not the binary itself.  In the
 * process's root (root != NULL) the file is the binary owner's or root's,
 * reached without a symlink: the binary's directory as maps shows it is
 * already free of links, and a link there is someone's trick.  Under the
 * host's debug root, links are the distribution's (Fedora's .build-id
 * tree) and the file must be root's.  Either way the process's user must
 * be able to read it (its mode bits): a root-owned 0644 file under
 * /usr/lib/debug is the normal case, a root-only file bind-mounted at
 * the debuglink's path in the process's mount namespace is not, and its
 * symbols would become the process's frame names.
 */
static int
sym_debug_try(struct symbolizer *s, struct elfsym_table *t,
    const struct sym_binary *bin, const char *root, const char *path)
{
	struct gp_file_info info;
	int fd, r;

	if (root != NULL)
		fd = sym_open_for(s, root, path, GP_OPEN_NO_SYMLINKS |
		    GP_OPEN_OWNER_OR_ROOT, SYM_MAX_BINARY, bin->uid,
		    bin->reader, &info);
	else
		fd = sym_open_for(s, NULL, path, GP_OPEN_OWNER_OR_ROOT,
		    SYM_MAX_BINARY, 0, bin->reader, &info);
	if (fd < 0) {
		if (fd != -ENOENT && fd != -ENOTDIR)
			sym_log(s, GP_LOG_WARN, "symbolizer: pid %d: debug file "
			    "%s%s refused: %s", (int)bin->pid, root != NULL ?
			    root : "", path, sym_open_strerror(fd, &info));
		return (fd);
	}
	if ((dev_t)info.dev == bin->dev && (ino_t)info.ino == bin->ino) {
		close(fd);
		return (-ENOENT);
	}
	r = elfsym_add_debug_fd(t, fd);
	close(fd);
	if (r != 0)
		sym_log(s, GP_LOG_DEBUG, "symbolizer: debug file %s: %s", path,
		    strerror(-r));
	return (r);
}

/* snprintf that says whether the whole path fit. */
static int __attribute__((format(printf, 3, 4)))
sym_path_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return (n >= 0 && (size_t)n < len);
}

/*
 * Separate debug info: by build-id under the debug root, then by
 * .gnu_debuglink next to the binary (in the process's root), in its
 * .debug/ directory, and under the debug root.
 */
void
sym_debug_find(struct symbolizer *s, struct sym_binary *b,
    struct elfsym_table *t)
{
	const struct sym_binary *sb = b;
	const char *path = b->path;
	char bid[2 * ELFSYM_BUILD_ID_MAX + 1], dir[PATH_MAX];
	char cand[PATH_MAX], root[64];
	const char *slash;
	size_t dlen;

	elfsym_build_id_hex(t, bid, sizeof(bid));
	if (strlen(bid) > 2) {
		if (sym_path_fmt(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug",
		    s->debug_root, bid, bid + 2) &&
		    sym_debug_try(s, t, sb, NULL, cand) == 0)
			return;
	}
	if (t->debuglink == NULL || path == NULL || path[0] != '/' ||
	    (slash = strrchr(path, '/')) == NULL)
		return;
	dlen = (size_t)(slash - path);
	if (dlen >= sizeof(dir))
		return;
	memcpy(dir, path, dlen);
	dir[dlen] = '\0';
	snprintf(root, sizeof(root), "/proc/%d/root", (int)b->pid);
	if (sym_path_fmt(cand, sizeof(cand), "%s/%s", dir, t->debuglink) &&
	    sym_debug_try(s, t, sb, root, cand) == 0)
		return;
	if (sym_path_fmt(cand, sizeof(cand), "%s/.debug/%s", dir,
	    t->debuglink) && sym_debug_try(s, t, sb, root, cand) == 0)
		return;
	if (sym_path_fmt(cand, sizeof(cand), "%s%s/%s", s->debug_root, dir,
	    t->debuglink))
		(void)sym_debug_try(s, t, sb, NULL, cand);
}
