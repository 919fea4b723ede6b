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

/*
 * A process's maps are read through fn(arg, pid, max, &text, &len), the
 * host's maps_read (its budget: 0 whole, 1 cut, -EAGAIN deferred,
 * -errno; -ENOSYS an older host), else as a /proc file.
 */
typedef int (*langfile_maps_fn)(void *, int32_t, size_t, char **,
		    size_t *);
void langfile_set_maps_reader(langfile_maps_fn, void *);
/* pid's /proc/PID/maps as langfile_read gives it, cut after a whole
 * line; NULL with errno EAGAIN while the host's budget defers it. */
char *langfile_read_maps(int32_t pid, size_t max, size_t *lenp, int *more);

#endif
