/* Unit tests of plugins/perfspect/csv.c: PerfSpect's raw and summary CSV. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "../../plugins/perfspect/perfspect.h"
#include "testing.h"

#define S(x)	x, sizeof(x) - 1

static const char raw_system[] =
    "TS,SKT,CPU,CID,CPU operating frequency (in GHz),CPU utilization %,"
    "CPI,TMA_Frontend_Bound(%),TMA_......MEM_Bandwidth(%)\n"
    "1754500005,,,,2.3991563,12.48,1.6112,,\n"
    "1754500010,,,,2.4010331,13.02,1.5987,21.337,\n"
    "1754500015,,,,1.2345678e+09,0.00012345678,+Inf,20,\n";

static void
test_raw_system(void)
{
	struct ps_raw raw;
	struct ps_stats st;
	char err[128], buf[64];

	CHECK_INTEQ(ps_raw_parse(S(raw_system), &raw, err, sizeof(err)), 0,
	    "raw: system granularity parses");
	CHECK_INTEQ(raw.nmetrics, 5, "raw: five metrics");
	CHECK_INTEQ(raw.nrows, 3, "raw: three rows");
	CHECK_STREQ(raw.names[0], "CPU operating frequency (in GHz)",
	    "raw: name with spaces and parentheses");
	CHECK_STREQ(raw.names[1], "CPU utilization %", "raw: name with %");
	CHECK_STREQ(raw.names[4], "TMA_......MEM_Bandwidth(%)",
	    "raw: TMA depth dots kept");
	CHECK_INTEQ(raw.rows[1].ts, 1754500010, "raw: TS");
	CHECK_STREQ(raw.rows[0].group, "", "raw: no group at system level");
	CHECK(raw.vals[0] == 2.3991563, "raw: %g value");
	CHECK(isnan(raw.vals[3]), "raw: empty field is NaN");
	CHECK(raw.vals[2 * 5 + 0] == 1.2345678e+09, "raw: exponent");
	CHECK(isinf(raw.vals[2 * 5 + 2]) && raw.vals[2 * 5 + 2] > 0,
	    "raw: +Inf");
	CHECK(!raw.partial, "raw: complete file");

	ps_raw_stats(&raw, 3, NULL, &st);
	CHECK_INTEQ(st.n, 2, "stats: NaN skipped");
	CHECK(fabs(st.mean - 20.6685) < 1e-9, "stats: mean");
	CHECK(fabs(st.stddev - 0.6685) < 1e-9, "stats: population stddev");
	ps_raw_stats(&raw, 2, NULL, &st);
	CHECK_INTEQ(st.n, 2, "stats: Inf skipped");
	ps_raw_stats(&raw, 4, NULL, &st);
	ps_format_stat(st.mean, st.n, buf, sizeof(buf));
	CHECK_STREQ(buf, "NaN", "stats: no valid value gives literal NaN");
	ps_format_stat(2.3991563, 1, buf, sizeof(buf));
	CHECK_STREQ(buf, "2.399156", "stats: Go %f");
	ps_raw_free(&raw);
}

static void
test_raw_shapes(void)
{
	static const char sock[] =
	    "TS,SKT,CPU,CID,CPI,IPC\n"
	    "1754500005,0,,,1.5,0.66\n"
	    "1754500005,1,,,2.5,0.4\n"
	    "TS,SKT,CPU,CID,CPI,IPC\n"
	    "1754500010,0,,,1.7,0.6\n"
	    "1754500010,1,,,2.7,0.3\n"
	    "1754500015,0,,,1.";
	static const char cpu[] =
	    "TS,SKT,CPU,CID,CPI\r\n1754500005,,3,,1.5\r\n";
	struct ps_raw raw;
	struct ps_stats st;
	char err[128];

	CHECK_INTEQ(ps_raw_parse(S(sock), &raw, err, sizeof(err)), 0,
	    "raw: per-socket rows, repeated header, partial line");
	CHECK_INTEQ(raw.nrows, 4, "raw: repeated header and partial skipped");
	CHECK(raw.partial, "raw: partial last line noticed");
	CHECK_STREQ(raw.rows[1].group, "SKT1", "raw: socket group");
	ps_raw_stats(&raw, 0, "SKT0", &st);
	CHECK(st.n == 2 && fabs(st.mean - 1.6) < 1e-9, "stats: one group");
	ps_raw_free(&raw);

	CHECK_INTEQ(ps_raw_parse(S(cpu), &raw, err, sizeof(err)), 0,
	    "raw: per-CPU, CRLF");
	CHECK_STREQ(raw.rows[0].group, "CPU3", "raw: cpu group");
	ps_raw_free(&raw);
}

static void
test_raw_bad(void)
{
	static const struct {
		const char *in;
		const char *msg;
	} bad[] = {
		{ "", "no header" },
		{ "TS,SKT,CPU\n", "header has no metric columns" },
		{ "ts,SKT,CPU,CID,CPI\n", "header must start" },
		{ "TS,SKT,CPU,CID,CPI\n1,,,,abc\n", "line 2: column 5 (CPI)" },
		{ "TS,SKT,CPU,CID,CPI\n1,,,,1,2\n", "line 2: 6 fields" },
		{ "TS,SKT,CPU,CID,CPI\nx,,,,1\n", "TS is not an integer" },
		{ "TS,SKT,CPU,CID,CPI\n1,0,1,,1\n", "bad SKT/CPU/CID" },
		{ "TS,SKT,CPU,CID,CPI\n1,,,,0x10\n", "not a number" },
		{ "TS,SKT,CPU,CID,,CPI\n", "empty name" },
		{ "TS,SKT,CPU,CID,CPI\nTS,SKT,CPU,CID,IPC\n", "line 2" },
	};
	struct ps_raw raw;
	char err[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK(ps_raw_parse(bad[i].in, strlen(bad[i].in), &raw, err,
		    sizeof(err)) == -EINVAL && strstr(err, bad[i].msg) != NULL,
		    bad[i].msg);
		if (strstr(err, bad[i].msg) == NULL)
			printf("#   err: %s\n", err);
	}
}

static void
test_summary(void)
{
	static const char sys[] =
	    "metric,mean,min,max,stddev\n"
	    "CPU operating frequency (in GHz),2.399156,2.390102,2.410033,"
	    "0.006532\n"
	    "CPU utilization %,12.750000,12.480000,13.020000,0.270000\n"
	    "TMA_......MEM_Bandwidth(%),NaN,NaN,NaN,NaN\n";
	static const char groups[] =
	    "metric,SKT0,SKT1\nCPI,1.600000,2.600000\nIPC,NaN,0.350000\n";
	static const char groups4[] =
	    "metric,SKT0,SKT1,SKT2,SKT3\nCPI,1,2,3,4\n";
	static const char one[] =
	    "SKT,metric,mean,min,max,stddev\n0,CPI,1.6,1.5,1.7,0.1\n";
	struct ps_summary sum;
	char err[128];

	CHECK_INTEQ(ps_summary_parse(S(sys), &sum, err, sizeof(err)), 0,
	    "summary: system shape parses");
	CHECK_INTEQ(sum.shape, PS_SUMMARY_SYSTEM, "summary: system shape");
	CHECK_INTEQ(sum.nrows, 3, "summary: rows");
	CHECK_STREQ(sum.rows[0].text[0], "2.399156", "summary: mean text");
	CHECK_STREQ(sum.rows[1].name, "CPU utilization %", "summary: name");
	CHECK_STREQ(sum.rows[2].text[0], "NaN", "summary: literal NaN");
	CHECK(isnan(sum.rows[2].val[3]), "summary: NaN value");
	CHECK(sum.rows[0].val[3] == 0.006532, "summary: stddev value");
	ps_summary_free(&sum);

	CHECK_INTEQ(ps_summary_parse(S(groups), &sum, err, sizeof(err)), 0,
	    "summary: per-socket shape parses");
	CHECK_INTEQ(sum.shape, PS_SUMMARY_GROUPS, "summary: groups shape");
	CHECK_STREQ(sum.cols[1], "SKT1", "summary: group column");
	CHECK_STREQ(sum.rows[1].text[1], "0.350000", "summary: group mean");
	ps_summary_free(&sum);

	CHECK_INTEQ(ps_summary_parse(S(groups4), &sum, err, sizeof(err)), 0,
	    "summary: four sockets are not the system shape");
	CHECK_INTEQ(sum.shape, PS_SUMMARY_GROUPS, "summary: 4 groups");
	ps_summary_free(&sum);

	CHECK_INTEQ(ps_summary_parse(S(one), &sum, err, sizeof(err)), 0,
	    "summary: single-group shape parses");
	CHECK_INTEQ(sum.shape, PS_SUMMARY_ONE_GROUP, "summary: one group");
	CHECK_STREQ(sum.rows[0].group, "0", "summary: group field");
	CHECK_STREQ(sum.rows[0].name, "CPI", "summary: name after group");
	CHECK_STREQ(sum.rows[0].text[0], "1.6", "summary: its mean");
	ps_summary_free(&sum);

	CHECK(ps_summary_parse(S("metric,mean,min,max,stddev\nCPI,nan?,1,1,1\n"),
	    &sum, err, sizeof(err)) == -EINVAL && strstr(err, "line 2") != NULL,
	    "summary: bad number rejected with line");
	CHECK(ps_summary_parse(S("metric,mean,min,max,stddev\nCPI,1,1\n"),
	    &sum, err, sizeof(err)) == -EINVAL, "summary: short row");
	CHECK(ps_summary_parse(S("name,value\n"), &sum, err, sizeof(err)) ==
	    -EINVAL, "summary: foreign header");
	CHECK(ps_summary_parse(S(""), &sum, err, sizeof(err)) == -EINVAL,
	    "summary: empty file");
}

int
main(void)
{
	test_raw_system();
	test_raw_shapes();
	test_raw_bad();
	test_summary();
	return (testing_done());
}
