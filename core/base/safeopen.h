/*
 * The one way to open a file the agent does not trust (core/base/safeopen.c).
 * Self-contained (libc only) so that test drivers standing in for the
 * daemon can offer plugins the same implementation through their host
 * table.  The rules are gp_open_spec's, in include/gprofiler/plugin.h.
 */
#ifndef GP_SAFEOPEN_H
#define GP_SAFEOPEN_H

#include <sys/types.h>

#include <stddef.h>

#include <gprofiler/plugin.h>

/* An fd open for reading, or -errno; info (may be NULL) filled when a
 * file was found, refused or not. */
int safeopen_open(const struct gp_open_spec *,
		    struct gp_file_info *);
/* safeopen_open as a callback (arg unused): test drivers hand it to
 * plugin code in place of gp_host_api.file_open. */
int safeopen_open_cb(void *, const struct gp_open_spec *,
		    struct gp_file_info *);
/* Open, then read at most len bytes from offset 0: the count or -errno. */
ssize_t safeopen_read(const struct gp_open_spec *, void *, size_t);
/* At most len bytes of fd from off, looping over short reads: the count
 * or -errno. */
ssize_t safeopen_pread(int, void *, size_t, off_t);
/* A phrase for safeopen's refusals ("not a regular file (a FIFO)"). */
const char *safeopen_strerror(int, const struct gp_file_info *);
/* The process in whose root safeopen_open now looks paths up (0: none),
 * for the stop guard's thread should a look-up hold the loop. */
int safeopen_target(void);
/* Tests: 1 forces the per-component walk used without openat2(2); either
 * way the /proc judged before is forgotten (a test in a new namespace). */
void safeopen_set_fallback(int);

#endif
