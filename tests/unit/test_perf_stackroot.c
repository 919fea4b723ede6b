/*
 * Unit tests for plugins/perf/stackroot.c: a user stack ends at its
 * entry frames; what a frame-pointer walk read past them is not kept,
 * and a stack without them is kept whole.
 */
#include <stddef.h>

#include "testing.h"
#include "stackroot.h"

#define N(a)	(sizeof(a) / sizeof((a)[0]))

int
main(void)
{
	/* leaf first, as the sampler gives them */
	const char *stat[] = { "leaf", "main", "__libc_start_call_main",
	    "__do_global_dtors_aux", "[unknown]" };
	const char *dwarf[] = { "leaf", "main", "__libc_start_call_main",
	    "__libc_start_main@@GLIBC_2.34", "_start" };
	const char *thread[] = { "work", "start_thread", "clone3" };
	const char *thread_junk[] = { "work", "start_thread", "clone3",
	    "[unknown]", "[unknown]" };
	const char *none[] = { "leaf", "mid", "[unknown]", "[unknown]" };
	const char *musl[] = { "leaf", "main", "libc_start_main_stage2",
	    "_start_c", "_start", "junk" };
	/* a function of the program's own named like no entry, under one
	 * that is: the walk reads on only within entry frames */
	const char *inner[] = { "leaf", "_start", "__libc_start_call_main",
	    "x" };

	CHECK(stackroot_keep(stat, N(stat)) == 3,
	    "a static binary's walk ends at __libc_start_call_main");
	CHECK(stackroot_keep(dwarf, N(dwarf)) == 5,
	    "DWARF's whole root (versioned names matched) is kept");
	CHECK(stackroot_keep(thread, N(thread)) == 3,
	    "a thread's start_thread;clone3 is kept");
	CHECK(stackroot_keep(thread_junk, N(thread_junk)) == 3,
	    "what was read past clone3 is not");
	CHECK(stackroot_keep(none, N(none)) == 4,
	    "a stack without entry frames is kept whole");
	CHECK(stackroot_keep(musl, N(musl)) == 5,
	    "musl's entry frames are entry frames");
	CHECK(stackroot_keep(inner, N(inner)) == 3,
	    "entry frames in a row, then a stop");
	CHECK(stackroot_keep(stat, 0) == 0, "no frames, none kept");
	{
		const char *nul[] = { "leaf", NULL, "main" };

		CHECK(stackroot_keep(nul, N(nul)) == 3,
		    "a frame without a name is no entry frame");
	}
	return (testing_done());
}
