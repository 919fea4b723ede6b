/*
 * Unit tests for plugins/lang/common/langproc.c: the start time in a
 * /proc/PID/stat text, whose comm a user names.
 */
#include <errno.h>

#include "testing.h"
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
	return (testing_done());
}
