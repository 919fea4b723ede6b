/*
 * Unit tests for plugins/lang/common/langproc.c: the start time and other
 * fields of a /proc/PID/stat text, whose comm a user names, and
 * /proc/PID/maps lines.
 */
#include <errno.h>

#include "testing.h"
#include "langmaps.h"
#include "langproc.h"

static int
st(const char *s, uint64_t *v)
{
	return (langproc_parse_starttime(s, strlen(s), v));
}

int
main(void)
{
	/* fields 3..22 after the comm: state ppid ... starttime */
	static const char ok[] = "123 (ruby) S 1 123 123 0 -1 4194560 100 0 "
	    "0 0 5 6 0 0 20 0 2 0 987654 1000 200";
	static const char nasty[] = "123 (a) b) S 1 ) 3 4) S 1 123 123 0 -1 "
	    "4194560 100 0 0 0 5 6 0 0 20 0 2 0 42 1000";
	uint64_t v = 0;

	CHECK(st(ok, &v) == 0 && v == 987654, "the start time (field 22)");
	CHECK(st(nasty, &v) == 0 && v == 42, "a comm with ') ' in it: "
	    "fields counted from the last ')'");
	CHECK_INTEQ(st("123 (x) S 1 2 3", &v), -EINVAL, "too few fields");
	CHECK_INTEQ(st("123 x S 1 2 3", &v), -EINVAL, "no comm");
	CHECK_INTEQ(st("", &v), -EINVAL, "empty");
	CHECK_INTEQ(st("1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 "
	    "99999999999999999999999", &v), -EINVAL, "a start time over 64 "
	    "bits");
	CHECK_INTEQ(st("1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -5",
	    &v), -EINVAL, "not a number");
	CHECK_INTEQ(langproc_parse_starttime(ok, 40, &v), -EINVAL,
	    "only its bytes");
	CHECK(langproc_parse_stat_field(ok, sizeof(ok) - 1, 23, &v) == 0 &&
	    v == 1000, "the virtual size (field 23)");
	CHECK(langproc_parse_stat_field(nasty, sizeof(nasty) - 1, 3, &v) ==
	    -EINVAL, "field 3 (the state) is no number");
	CHECK(langproc_parse_stat_field(ok, sizeof(ok) - 1, 4, &v) == 0 &&
	    v == 1, "the parent (field 4)");
	CHECK_INTEQ(langproc_parse_stat_field(ok, sizeof(ok) - 1, 2, &v),
	    -EINVAL, "the comm is not a number field");
	CHECK_INTEQ(langproc_parse_stat_field(ok, sizeof(ok) - 1, 60, &v),
	    -EINVAL, "past the last field");
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
