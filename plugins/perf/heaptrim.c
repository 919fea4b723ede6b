/*
 * malloc_trim after a cycle gave back the pages of its strings, snapshot
 * and parse buffers, but walks every free chunk of the heap and madvises
 * each free run (18-29 ms in one loop callback on a busy host, every
 * cycle), and the next cycle faulted the same pages in again.  Now it runs
 * in a turn of its own, and only when the memory resident beyond what
 * malloc has in use grew by more than HEAPTRIM_SLACK since the last trim:
 * a small cycle's pages are kept for the next, and the agent's memory
 * still levels off (130-soak).  Free bytes alone cannot tell: pages given
 * back stay counted as free.
 */
#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "heaptrim.h"

int
heaptrim_wanted(size_t slack, size_t base, int based)
{
	return (!based || slack > base + HEAPTRIM_SLACK);
}

static double
heaptrim_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6);
}

/* Anonymous memory resident (RssAnon: resident less file and shmem
 * pages), from /proc/self/statm; 0 if unknown. */
static size_t
heaptrim_anon(void)
{
	unsigned long size, resident, shared;
	long page = sysconf(_SC_PAGESIZE);
	FILE *f;
	int n;

	if ((f = fopen("/proc/self/statm", "re")) == NULL)
		return (0);
	n = fscanf(f, "%lu %lu %lu", &size, &resident, &shared);
	fclose(f);
	if (n != 3 || page <= 0 || shared > resident)
		return (0);
	return ((size_t)(resident - shared) * (size_t)page);
}

/* The slack now: anonymous memory beyond what malloc has in use. */
static size_t
heaptrim_slack(size_t *used)
{
	size_t anon = heaptrim_anon();
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	struct mallinfo2 mi = mallinfo2();

	*used = mi.uordblks + mi.hblkhd;
#else
	*used = anon;	/* unknown: never worth a trim */
#endif
	return (anon > *used ? anon - *used : 0);
}

void
heaptrim_run(struct heaptrim *h)
{
	double t0;

	h->trimmed = 0;
	h->ms = 0;
	h->slack = heaptrim_slack(&h->used);
	if (h->based && h->slack < h->base)
		h->base = h->slack;	/* follows it down */
	if (!heaptrim_wanted(h->slack, h->base, h->based))
		return;
	t0 = heaptrim_now_ms();
	malloc_trim(0);
	h->ms = heaptrim_now_ms() - t0;
	h->trimmed = 1;
	h->base = heaptrim_slack(&h->used);
	h->based = 1;
}
