/* The window a .col header states (upload-file dates uploads with it). */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "output/col_header.h"
#include "testing.h"

static int
win(const char *s, struct timespec *a, struct timespec *b)
{
	char err[160];

	return (col_header_window(s, strlen(s), a, b, err, sizeof(err)));
}

static void
test_time(void)
{
	struct timespec ts;
	const char *bad[] = { "", "2025-01-08", "2025-13-08T11:00:00",
	    "2025-02-30T11:00:00", "2025-01-08T24:00:00", "2025-01-08T11:00",
	    "2025-01-08T11:00:00.", "2025-01-08T11:00:00+0100",
	    "2025-01-08T11:00:00 junk", "1969-12-31T23:59:59",
	    "2025-0a-08T11:00:00", "2025-01-08T11:00:00+01:00x" };
	size_t i;

	CHECK(col_time_parse("2025-01-08T11:00:00", 19, &ts) == 0 &&
	    ts.tv_sec == 1736334000 && ts.tv_nsec == 0, "naive = UTC");
	CHECK(col_time_parse("2025-01-08T11:00:00.123456", 26, &ts) == 0 &&
	    ts.tv_sec == 1736334000 && ts.tv_nsec == 123456000,
	    "microseconds");
	CHECK(col_time_parse("2025-01-08T11:00:00.1234567891", 30, &ts) == 0 &&
	    ts.tv_nsec == 123456789, "beyond nanoseconds: cut");
	CHECK(col_time_parse("2025-01-08T11:00:00Z", 20, &ts) == 0 &&
	    ts.tv_sec == 1736334000, "Z");
	CHECK(col_time_parse("2025-01-08T12:30:00+01:30", 25, &ts) == 0 &&
	    ts.tv_sec == 1736334000, "an offset");
	CHECK(col_time_parse("2025-01-08T09:00:00-02:00", 25, &ts) == 0 &&
	    ts.tv_sec == 1736334000, "a negative offset");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(col_time_parse(bad[i], strlen(bad[i]), &ts) == -EINVAL,
		    bad[i]);
}

static void
test_window(void)
{
	struct timespec a, b;

	CHECK(win("# {\"start_time\": \"2025-01-08T11:00:00.500000\", "
	    "\"end_time\": \"2025-01-08T11:01:00.250000\", \"metadata\": "
	    "{\"current_time\": \"2025-01-08T11:01:00\"}}\n;a;b 1", &a, &b) ==
	    0 && a.tv_sec == 1736334000 && a.tv_nsec == 500000000 &&
	    b.tv_sec == 1736334060 && b.tv_nsec == 250000000,
	    "start_time and end_time from the header");
	CHECK(win("#{\"metadata\": {\"current_time\": \"2025-01-08T11:01:00\"}}",
	    &a, &b) == 1 && a.tv_sec == 1736334060 && b.tv_sec == 1736334060,
	    "gProfiler's header: metadata.current_time, start = end");
	CHECK(win("# {\"start_time\": \"2025-01-08T11:00:00\", \"metadata\": "
	    "{\"current_time\": \"2025-01-08T11:01:00\"}}", &a, &b) == 0 &&
	    a.tv_sec == 1736334000 && b.tv_sec == 1736334060,
	    "start_time with current_time as the end");
	CHECK(win("# {\"start_time\": \"2025-01-08T11:02:00\", \"end_time\": "
	    "\"2025-01-08T11:01:00\"}", &a, &b) == -EINVAL,
	    "a window running backwards is refused");
	CHECK(win("# {\"start_time\": 17}", &a, &b) == -EINVAL,
	    "a non-string time is refused");
	CHECK(win("# {\"metadata\": {}}", &a, &b) == -EINVAL,
	    "no time at all");
	CHECK(win(";a;b 1\n", &a, &b) == -EINVAL, "no header line");
	CHECK(win("# {\"start_time\": \"2025-01-08T11:00:00\"} trailing\n",
	    &a, &b) == -EINVAL, "garbage after the object");
	CHECK(win("# [1]\n", &a, &b) == -EINVAL, "not an object");
	CHECK(win("# {\"end_time\": \"2025-01-08T11:01:00\"}  \r\n;x 1", &a,
	    &b) == 1 && a.tv_sec == 1736334060, "end_time alone, CRLF");
}

int
main(void)
{
	test_time();
	test_window();
	return (testing_done());
}
