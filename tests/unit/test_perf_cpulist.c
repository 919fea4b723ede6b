/*
 * Unit tests for plugins/perf/sampler/cpulist.c: the kernel's CPU list
 * format.
 */
#include <errno.h>
#include <stdint.h>

#include "testing.h"
#include "sampler/sampler.h"

static int
parse(const char *s, uint8_t *set, size_t n)
{
	return (cpulist_parse(s, strlen(s), set, n));
}

int
main(void)
{
	uint8_t set[16];

	CHECK_INTEQ(parse("0-3,5\n", set, 16), 5, "range and single");
	CHECK(set[0] && set[3] && !set[4] && set[5] && !set[6], "members");
	CHECK_INTEQ(parse("0\n", set, 16), 1, "one CPU");
	CHECK_INTEQ(parse("0-1,1-2", set, 16), 3, "overlap counted once");
	CHECK_INTEQ(parse("2-100", set, 16), 14, "clipped to the array");
	CHECK_INTEQ(parse("", set, 16), -EINVAL, "empty");
	CHECK_INTEQ(parse("\n", set, 16), -EINVAL, "newline only");
	CHECK_INTEQ(parse("3-1", set, 16), -EINVAL, "reversed range");
	CHECK_INTEQ(parse("1,", set, 16), -EINVAL, "trailing comma");
	CHECK_INTEQ(parse(",1", set, 16), -EINVAL, "leading comma");
	CHECK_INTEQ(parse("a", set, 16), -EINVAL, "not a number");
	CHECK_INTEQ(parse("1-", set, 16), -EINVAL, "open range");
	CHECK_INTEQ(parse("99999999999", set, 16), -EINVAL, "huge");
	CHECK_INTEQ(cpulist_parse("0,1", 1, set, 16), 1, "length respected");
	return (testing_done());
}
