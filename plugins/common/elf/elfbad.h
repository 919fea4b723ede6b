/*
 * The files the ELF reader gave up on, by identity (dev, inode, size,
 * mtime): a hostile or broken file costs its budget once, not at every
 * attempt to attach to each process that maps it.  A file that changes
 * (another size or mtime) is a new file and is read again.
 */
#ifndef GP_ELFBAD_H
#define GP_ELFBAD_H

#include <sys/stat.h>

#define ELFBAD_SLOTS	64	/* the oldest forgotten first */

/* The answer given when it was marked (-errno), 0 when not bad. */
int elfbad_find(const struct stat *);
/* Remember it with that answer; 1 if new (to be logged), 0 if known. */
int elfbad_mark(const struct stat *, int);
void elfbad_clear(void);

#endif
