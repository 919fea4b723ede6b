/*
 * What a process's /proc/PID/maps says about its loading (langmaps.c).
 */
#ifndef GP_LANGMAPS_H
#define GP_LANGMAPS_H

#include <stddef.h>

/*
 * Whether a /proc/PID/maps text shows a program the dynamic linker is
 * still loading: ld.so mapped, libc not yet (its other libraries, the
 * runtime's among them, may be missing: try again).  Pure over bytes.
 */
int	 langmaps_linking(const char *maps, size_t len);

#endif
