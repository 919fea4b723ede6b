/* Unit tests for plugins/perf/pidlist.c: the pids option. */
#include <errno.h>
#include <stdint.h>

#include "testing.h"
#include "perf_int.h"

int
main(void)
{
	int32_t *p;
	uint32_t n;

	CHECK_INTEQ(pidlist_parse("12,345, 6789", &p, &n), 0, "list");
	CHECK(n == 3 && p[0] == 12 && p[1] == 345 && p[2] == 6789, "values");
	free(p);
	CHECK_INTEQ(pidlist_parse("1,,2,", &p, &n), 0, "empty items skipped");
	CHECK_INTEQ(n, 2, "two pids");
	free(p);
	CHECK_INTEQ(pidlist_parse("", &p, &n), -EINVAL, "empty");
	CHECK(p == NULL && n == 0, "nothing returned on error");
	CHECK_INTEQ(pidlist_parse("1,x", &p, &n), -EINVAL, "not a number");
	CHECK_INTEQ(pidlist_parse("12a", &p, &n), -EINVAL, "trailing junk");
	CHECK_INTEQ(pidlist_parse("0", &p, &n), -EINVAL, "pid 0");
	CHECK_INTEQ(pidlist_parse("-5", &p, &n), -EINVAL, "negative");
	CHECK_INTEQ(pidlist_parse("99999999999", &p, &n), -EINVAL, "overflow");
	CHECK_INTEQ(pidlist_parse("1 2", &p, &n), 0, "blank separated");
	CHECK_INTEQ(n, 2, "two");
	free(p);
	return (testing_done());
}
