/*
 * Giving the heap's free pages back between cycles, only when it is worth
 * it (heaptrim.c).
 */
#ifndef PERF_HEAPTRIM_H
#define PERF_HEAPTRIM_H

#include <stddef.h>

#define HEAPTRIM_SLACK	(256u << 10)	/* resident free memory kept */

struct heaptrim {
	size_t base;	/* slack right after the last trim */
	int based;	/* base measured */
	/* the last heaptrim_run: */
	size_t slack;	/* anonymous memory beyond malloc's use */
	size_t used;	/* bytes malloc has in use */
	int trimmed;
	double ms;	/* malloc_trim's duration */
};

/*
 * Whether slack bytes of anonymous memory resident beyond what malloc has
 * in use are worth giving back: more than HEAPTRIM_SLACK above base, the
 * slack right after the last trim (thread stacks, ring buffers, what a
 * trim cannot return); the first time, to measure that base.  Pure.
 */
int heaptrim_wanted(size_t slack, size_t base, int based);
/* Trims the heap if heaptrim_wanted; the figures in *h. */
void heaptrim_run(struct heaptrim *h);

#endif
