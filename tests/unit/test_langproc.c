/*
 * Unit tests for plugins/lang/common/langproc.c: /proc/PID/maps lines,
 * whose paths a user names (their /proc/PID/stat: test_procstat).
 */
#include <errno.h>

#include "testing.h"
#include "langmaps.h"
#include "langproc.h"

int
main(void)
{
	{
		static const char l1[] = "7f00a000-7f00b000 r-xp 00002000 "
		    "fd:01 1234567   /usr/lib/libruby.so.3.1 (deleted)";
		static const char l2[] = "7ffd0000-7ffd2000 rw-p 00000000 "
		    "00:00 0";
		uint64_t s0, e0, o0, i0;
		const char *pa;
		size_t pl;

		CHECK(langproc_parse_map_line(l1, sizeof(l1) - 1, &s0, &e0,
		    &o0, &i0, &pa, &pl) == 0 && s0 == 0x7f00a000 &&
		    e0 == 0x7f00b000 && o0 == 0x2000 && i0 == 1234567 &&
		    pl == strlen("/usr/lib/libruby.so.3.1 (deleted)") &&
		    memcmp(pa, "/usr/lib/libruby.so.3.1 (deleted)",
		    pl) == 0, "a maps line: numbers and the whole path");
		CHECK(langproc_parse_map_line(l2, sizeof(l2) - 1, &s0, &e0,
		    &o0, &i0, &pa, &pl) == 0 && pa == NULL && pl == 0,
		    "an anonymous mapping: no path");
		CHECK_INTEQ(langproc_parse_map_line("7f00b000-7f00a000 r-xp "
		    "0 0:0 1 /x", 28, &s0, &e0, &o0, &i0, &pa, &pl), -EINVAL,
		    "end before start");
		CHECK_INTEQ(langproc_parse_map_line("garbage", 7, &s0, &e0,
		    &o0, &i0, &pa, &pl), -EINVAL, "not a maps line");
	}
	{
		/* ld.so at work: libruby (first needed) not mapped yet */
		static const char linking[] =
		    "55d0c0a00000-55d0c0a01000 r--p 00000000 fe:01 123 "
		    "/usr/bin/ruby3.1\n"
		    "7f1c2e000000-7f1c2e001000 r--p 00000000 fe:01 9 "
		    "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n"
		    "7ffd1000-7ffd2000 r-xp 00000000 00:00 0 [vdso]";
		static const char loaded[] =
		    "55d0c0a00000-55d0c0a01000 r--p 00000000 fe:01 123 "
		    "/usr/bin/ruby3.1\n"
		    "7f1c2d000000-7f1c2d001000 r--p 00000000 fe:01 8 "
		    "/usr/lib/x86_64-linux-gnu/libc.so.6 (deleted)\n"
		    "7f1c2e000000-7f1c2e001000 r--p 00000000 fe:01 9 "
		    "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n";
		static const char stat_[] =
		    "00400000-00401000 r-xp 00000000 fe:01 5 /opt/go/app\n";

		CHECK(langmaps_linking(linking, strlen(linking)),
		    "ld.so mapped, libc not yet: still linking");
		CHECK(!langmaps_linking(loaded, strlen(loaded)),
		    "libc mapped (even deleted): loaded");
		CHECK(!langmaps_linking(stat_, strlen(stat_)),
		    "a static program: never linking");
		CHECK(!langmaps_linking(linking, 40), "only its bytes (the "
		    "ld.so line cut off)");
		CHECK(!langmaps_linking("", 0), "empty");
		CHECK(!langmaps_linking("/", 1) && !langmaps_linking(
		    "x /ld-linux", 5), "a path cut at the end");
	}
	return (testing_done());
}
