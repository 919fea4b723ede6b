/* col_parse: the .col parser over bytes (header, stacks, bad lines). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output/col_parse.h"
#include "testing.h"

struct seen {
	char text[16][128];	/* "f1|f2|... =count" */
	unsigned n;
	unsigned lines[16];
};

static int
record(const struct col_line *l, void *arg)
{
	struct seen *s = arg;
	char *p;
	uint32_t i;

	if (s->n >= 16)
		return (0);
	p = s->text[s->n];
	*p = '\0';
	for (i = 0; i < l->nframes; i++)
		snprintf(p + strlen(p), 128 - strlen(p), "%s%.*s",
		    i ? "|" : "", (int)l->frames[i].len, l->frames[i].p);
	snprintf(p + strlen(p), 128 - strlen(p), " =%llu",
	    (unsigned long long)l->count);
	s->lines[s->n++] = l->lineno;
	return (0);
}

static int
stop_at_two(const struct col_line *l, void *arg)
{
	unsigned *n = arg;

	return (++*n == 2 ? 42 : 0);
}

static void
test_normal(void)
{
	static const char col[] = "# {\"a\": 1}\n"
	    "0;;python3;appid: x;main (/a.py:1)_[p];run 7\n"
	    "2;web;java;Thread.run()V_[j];do_syscall_64_[k] 3";
	struct col_result res;
	struct seen s;

	memset(&s, 0, sizeof(s));
	CHECK_INTEQ(col_parse(col, strlen(col), record, &s, &res), 0,
	    "parse returns 0");
	CHECK(res.header.p != NULL && res.header.len == 8 &&
	    memcmp(res.header.p, "{\"a\": 1}", 8) == 0, "header after '# '");
	CHECK_INTEQ(s.n, 2, "two stacks");
	CHECK_STREQ(s.text[0], "0||python3|appid: x|main (/a.py:1)_[p]|run =7",
	    "frames split on ';', empty container kept, spaces in names");
	CHECK_STREQ(s.text[1], "2|web|java|Thread.run()V_[j]|do_syscall_64_[k] =3",
	    "no trailing newline needed");
	CHECK_INTEQ(s.lines[1], 3, "line numbers are 1-based, header is 1");
	CHECK_INTEQ(res.total, 10, "total");
	CHECK_INTEQ(res.nstacks, 2, "nstacks");
	CHECK_INTEQ(res.nbad, 0, "no bad lines");
}

static void
test_bad(void)
{
	static const char col[] = "a;b 1\r\n"
	    "no_count_here\n"
	    "a;b x12\n"
	    "\n"
	    "a;b 99999999999999999999\n"
	    " 5\n"
	    "a;c 0\n"
	    "# late header\n"
	    "a;b -3\n"
	    "x 2\n";
	struct col_result res;
	struct seen s;

	memset(&s, 0, sizeof(s));
	col_parse(col, strlen(col), record, &s, &res);
	CHECK(res.header.p == NULL, "no header unless line 1 starts with #");
	CHECK_INTEQ(s.n, 2, "good lines still delivered");
	CHECK_STREQ(s.text[0], "a|b =1", "CR stripped");
	CHECK_STREQ(s.text[1], "x =2", "single frame");
	CHECK_INTEQ(res.nbad, 6, "bad lines counted (zero count and blank "
	    "are not bad)");
	CHECK_INTEQ(res.nkept, COL_BAD_KEEP, "first few kept");
	CHECK_INTEQ(res.bad[0].lineno, 2, "first bad line number");
	CHECK_STREQ(res.bad[0].why, "no count", "reason");
	CHECK_STREQ(res.bad[0].text, "no_count_here", "text kept");
	CHECK_STREQ(res.bad[1].why, "count is not a number", "x12");
	CHECK_STREQ(res.bad[2].why, "count too large", "overflow");
	CHECK_STREQ(res.bad[3].why, "no frames", "only a count");
	CHECK_STREQ(res.bad[4].why, "header not on line 1", "late header");
}

static void
test_edges(void)
{
	struct col_result res;
	struct seen s;
	char big[400];
	unsigned n = 0;
	const char *huge = "a 9223372036854775807\nb 9223372036854775807\n"
	    "c 9223372036854775807";

	memset(&s, 0, sizeof(s));
	CHECK_INTEQ(col_parse("", 0, record, &s, &res), 0, "empty input");
	CHECK(res.nstacks == 0 && res.nbad == 0 && res.header.p == NULL,
	    "empty: nothing");
	col_parse("#", 1, record, &s, &res);
	CHECK(res.header.p != NULL && res.header.len == 0, "bare #");
	col_parse(huge, strlen(huge), record, &s, &res);
	CHECK_INTEQ(res.nbad, 0, "INT64_MAX counts accepted");
	CHECK(res.total == UINT64_MAX, "total saturates");
	col_parse("a 1\nb 1\nc 1", 11, stop_at_two, &n, &res);
	CHECK_INTEQ(n, 2, "callback's non-zero return stops");
	memset(big, 'x', sizeof(big));
	memcpy(big + sizeof(big) - 3, " zz", 3);
	col_parse(big, sizeof(big), NULL, NULL, &res);
	CHECK_INTEQ(strlen(res.bad[0].text), COL_BAD_TEXT,
	    "long bad line cut");
	memset(big, ';', sizeof(big));
	memcpy(big + sizeof(big) - 2, " 1", 2);
	memset(&s, 0, sizeof(s));
	col_parse(big, sizeof(big), record, &s, &res);
	CHECK_INTEQ(res.nstacks, 1, "399 empty frames: one stack");
}

int
main(void)
{
	test_normal();
	test_bad();
	test_edges();
	return (testing_done());
}
