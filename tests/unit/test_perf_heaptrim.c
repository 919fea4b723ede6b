/*
 * Unit tests for plugins/perf/heaptrim.c: when the memory resident beyond
 * what malloc has in use is worth giving back after a cycle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"
#include "heaptrim.h"

#define MiB	((size_t)1 << 20)

/* seen from outside: the compiler keeps the allocations */
void * volatile sink;

int
main(void)
{
	struct heaptrim h = { 0 };

	CHECK(heaptrim_wanted(1 * MiB, 0, 0), "the first time: trimmed, to "
	    "measure what a trim leaves");
	CHECK(!heaptrim_wanted(5 * MiB + 128 * 1024, 5 * MiB, 1), "a cycle's slack under "
	    "HEAPTRIM_SLACK above what the last trim left: kept for the next");
	CHECK(heaptrim_wanted(5 * MiB + 512 * 1024, 5 * MiB, 1), "more than that: "
	    "trimmed (the memory levels off)");

#if defined(__SANITIZE_ADDRESS__)
#define HEAPTRIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAPTRIM_ASAN 1
#endif
#endif
#ifdef HEAPTRIM_ASAN
	/* ASan's allocator keeps freed blocks in quarantine: nothing to see */
	printf("ok %d # SKIP under ASan: its allocator, not glibc's\n",
	    ++testing_n);
	(void)h;
#else
	/* the real allocator: 64 MiB of freed small blocks are given back,
	 * and the next run, with nothing new, keeps its hands off */
	{
		enum { N = 64 * 1024 };
		void **v = malloc(N * sizeof(*v));
		int i;

		heaptrim_run(&h);	/* the base */
		CHECK(h.trimmed && h.based, "first run: trimmed, base taken");
		for (i = 0; i < N; i++)
			if ((v[i] = malloc(1000)) != NULL)
				memset(v[i], i, 1000);	/* resident */
		sink = malloc(1);	/* keeps the top from shrinking */
		for (i = 0; i < N; i++)
			free(v[i]);
		free(v);
		heaptrim_run(&h);
		printf("# %zu KiB resident beyond %zu KiB in use, %zu KiB left "
		    "after the trim\n", h.slack >> 10, h.used >> 10,
		    h.base >> 10);
		CHECK(h.slack >= 48 * MiB && h.trimmed, "after freeing 64 MiB "
		    "of small blocks: trimmed");
		CHECK(h.base < 16 * MiB, "and the pages went back");
		heaptrim_run(&h);
		CHECK(!h.trimmed, "not again at once");
		free(sink);
	}
#endif
	return (testing_done());
}
