/*
 * The files the runtime plugins read, all through one opener
 * (langfile.c): the host's safe open (gp_host_api file_open, which
 * refuses a FIFO, a device or a magic link unless asked for one), or a
 * test's.  Until it is set nothing opens (-ENOSYS).  Compiled into each
 * plugin (its own opener).
 */
#ifndef GP_LANGFILE_H
#define GP_LANGFILE_H

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

typedef int (*langfile_open_fn)(void *, const struct gp_open_spec *,
		    struct gp_file_info *);

void langfile_set_opener(langfile_open_fn, void *);
/*
 * fd or -errno: root NULL for the host's "/"; owner the file's (or, with
 * GP_OPEN_READABLE_BY, the user who must be able to read it), -1 for
 * anyone; what was opened in *info (if not NULL).
 */
int langfile_open(const char *root, const char *path, uint32_t flags,
	    uint64_t max_size, int64_t owner, struct gp_file_info *info);
/*
 * A /proc file, at most max bytes of it: malloc'ed and NUL-terminated
 * (the caller frees), its length in *lenp, *more (if not NULL) set when
 * it may have more.  NULL when it cannot be opened or memory runs out.
 */
char *langfile_read(const char *path, size_t max, size_t *lenp, int *more);

#endif
