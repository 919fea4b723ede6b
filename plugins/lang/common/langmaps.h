/*
 * What a process's /proc/PID/maps says about its loading, and the files
 * it maps (langmaps.c).
 */
#ifndef GP_LANGMAPS_H
#define GP_LANGMAPS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Whether a /proc/PID/maps text shows a program the dynamic linker is
 * still loading: ld.so mapped, libc not yet (its other libraries, the
 * runtime's among them, may be missing: try again).  Pure over bytes.
 */
int langmaps_linking(const char *maps, size_t len);

/* A mapping of a file from its start (offset 0), by absolute path. */
struct langmaps_file {
	uint64_t start, end, ino;
	const char *path, *base;	/* in the text; base: the file name */
	size_t plen, blen;
};

/*
 * The next such mapping of a /proc/PID/maps text from *pos (0 at first)
 * on: 1 with *f filled, 0 at the end.  Pure over bytes.
 */
int langmaps_next_file(const char *maps, size_t len, size_t *pos,
	    struct langmaps_file *f);
/* Whether f is a shared library whose name begins with prefix ("libphp"
 * for libphp8.2.so, libphp.so). */
int langmaps_is_lib(const struct langmaps_file *f, const char *prefix);
/* f's range and path (cut to size - 1 bytes) into an object's fields. */
void langmaps_keep(const struct langmaps_file *f, uint64_t *start,
	    uint64_t *end, char *path, size_t size);

#endif
