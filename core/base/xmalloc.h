/* xmalloc.c: allocation wrappers that abort on OOM (tmux style). */
#ifndef GP_XMALLOC_H
#define GP_XMALLOC_H

#include <stddef.h>

/*
 * Blocks of at least this size are mmap'd, and unmapped when freed.  A
 * Go binary's symbol table is built from a copy of its 12 MB .gopclntab
 * and arrays grown by doubling: glibc's own threshold follows the largest
 * block freed, so after the first such table every later one came from
 * the heap and left it fragmented, 12-22 MiB resident beyond what malloc
 * had in use at the end of each cycle of a whole-host DWARF profile.
 */
#define XMALLOC_MMAP_THRESHOLD	(512u << 10)

/* The allocator's policy for the daemon, first thing in main. */
void xmalloc_policy(void);
void *xmalloc(size_t);
void *xcalloc(size_t, size_t);
void *xreallocarray(void *, size_t, size_t);
char *xstrdup(const char *);
char *xstrndup(const char *, size_t);
int xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
