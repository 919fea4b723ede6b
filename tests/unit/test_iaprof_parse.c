/*
 * Unit tests of the iaprof stream parser (plugins/iaprof/parse.c) against
 * docs/specs/iaprof.md §4 and §5: folding, chunking, malformed lines, limits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"
#include "../../plugins/iaprof/parse.h"

#define FEED(p, s)	iaprof_parser_feed((p), (s), strlen(s))

struct out {
	char buf[65536];
	size_t len;
	int ticks;
	struct iaprof_parser *p;
	int take_on_tick;	/* cut a snapshot at each tick */
	char cut[65536];	/* what the tick-time takes collected */
};

static int
collect(void *arg, int pid, const char *const *frames, unsigned n,
    unsigned long long count)
{
	struct out *o = arg;
	unsigned i;

	o->len += snprintf(o->buf + o->len, sizeof(o->buf) - o->len, "%d ",
	    pid);
	for (i = 0; i < n; i++)
		o->len += snprintf(o->buf + o->len, sizeof(o->buf) - o->len,
		    "%s%s", i ? ";" : "", frames[i]);
	o->len += snprintf(o->buf + o->len, sizeof(o->buf) - o->len,
	    " %llu\n", count);
	return (0);
}

static int
collect_cb(void *arg, int32_t pid, const char *const *frames,
    uint32_t n, uint64_t count)
{
	return (collect(arg, pid, frames, n, (unsigned long long)count));
}

static void
on_tick(void *arg, uint64_t n)
{
	struct out *o = arg;

	o->ticks++;
	if (o->take_on_tick) {
		o->len = 0;
		o->buf[0] = '\0';
		iaprof_parser_take(o->p, collect_cb, o);
		snprintf(o->cut + strlen(o->cut), sizeof(o->cut) -
		    strlen(o->cut), "%s--\n", o->buf);
	}
}

static int
line_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* Take the counts as text, lines sorted (eustall order is undefined). */
static char *
take_sorted(struct iaprof_parser *p, struct out *o)
{
	char *lines[4096], *s, *res;
	size_t n = 0, i, len = 0;

	o->len = 0;
	o->buf[0] = '\0';
	iaprof_parser_take(p, collect_cb, o);
	for (s = strtok(o->buf, "\n"); s != NULL && n < 4096;
	    s = strtok(NULL, "\n"))
		lines[n++] = s;
	qsort(lines, n, sizeof(*lines), line_cmp);
	res = calloc(1, sizeof(o->buf) + n + 1);
	for (i = 0; i < n; i++)
		len += sprintf(res + len, "%s\n", lines[i]);
	return (res);
}

/* Parse text in pieces of `chunk` bytes (0: at once) and take. */
static char *
run(const char *text, size_t chunk, struct out *o, uint64_t *malformed)
{
	struct iaprof_parser *p = iaprof_parser_new(NULL, on_tick, o);
	size_t len = strlen(text), off, n;
	char *res;

	memset(o, 0, sizeof(*o));
	o->p = p;
	if (chunk == 0)
		chunk = len;
	for (off = 0; off < len; off += n) {
		n = len - off < chunk ? len - off : chunk;
		iaprof_parser_feed(p, text + off, n);
	}
	iaprof_parser_finish(p);
	if (malformed != NULL)
		*malformed = iaprof_parser_malformed(p);
	res = take_sorted(p, o);
	iaprof_parser_free(p);
	return (res);
}

#define SAMPLE								\
	"string\t1\tpython3\n"						\
	"string\t2\t_start;__libc_start_main;main;run;"			\
	"zeCommandListAppendLaunchKernel\n"				\
	"interval\t0\t51234.560123\n"					\
	"metric\teu-stall-active\t0\n"					\
	"metric\tfrequency-MHz\t0\n"					\
	"metric\tbusy-percent\t0\n"					\
	"string\t3\t/src/matmul.cpp\n"					\
	"string\t4\tmatmul_kernel(float*, float*, float*)\n"		\
	"interval\t1\t51234.570140\n"					\
	"kernel\t0xffff800012340000\t1\t4242\t2\t3\t4\n"		\
	"string\t5\tmad\n"						\
	"eustall\t0x1a0\t5\t3\t0\t0\t0\t1\t12\t0\t0\t0\t0\n"		\
	"metric\teu-stall-active\t3\n"					\
	"metric\tfrequency-MHz\t2400\n"					\
	"metric\tbusy-percent\t87\n"					\
	"interval\t2\t51234.580155\n"

#define PFX "4242 python3;_start;__libc_start_main;main;run;"		\
	"zeCommandListAppendLaunchKernel;-;/src/matmul.cpp_[G];"	\
	"matmul_kernel(float*, float*, float*)_[G];mad_[g];"

static void
test_sample(void)
{
	struct out o;
	uint64_t bad;
	char *r = run(SAMPLE, 0, &o, &bad);

	CHECK_STREQ(r, PFX "active_[g];0x1a0_[g] 3\n"
	    PFX "dist_acc_[g];0x1a0_[g] 1\n"
	    PFX "sbid_[g];0x1a0_[g] 12\n", "spec 4.5 sample folds as 5");
	CHECK_INTEQ(bad, 0, "spec sample has no malformed line");
	CHECK_INTEQ(o.ticks, 3, "three ticks");
	free(r);
}

/* A longer stream: 2 pids, several kernels, ids 0, strings mid-block. */
static const char *multi =
    "string\t1\tpython3\n"
    "string\t2\tmain;run;zeLaunch\n"
    "string\t3\tk.cpp\n"
    "string\t4\tgemm\n"
    "string\t5\tbench\n"
    "string\t6\t conv;2d \n"
    "interval\t0\t1.000000\n"
    "kernel\t0x1000\t1\t100\t2\t3\t4\n"
    "string\t7\tsend\n"
    "eustall\t0x10\t7\t0\t0\t0\t5\t0\t0\t0\t0\t0\t0\n"
    "string\t8\tmov\n"
    "eustall\t0x20\t8\t1\t0\t0\t0\t0\t0\t0\t0\t0\t2\n"
    "eustall\t0x10\t0\t0\t4\t0\t0\t0\t0\t0\t0\t0\t0\n"
    "kernel\t0x2000\t5\t200\t0\t0\t6\n"
    "eustall\t0x30\t7\t0\t0\t0\t0\t0\t0\t9\t0\t0\t0\n"
    "kernel\t4096\t0\t201\t2\t0\t0\n"
    "eustall\t0x40\t8\t0\t0\t0\t0\t0\t0\t0\t1\t0\t0\n"
    "metric\tfrequency-MHz\t1500\n"
    "metric\tbusy-percent\t12.5\n"
    "interval\t1\t1.010000\n"
    "kernel\t0x1000\t1\t100\t2\t3\t4\n"
    "eustall\t0x10\t7\t0\t0\t0\t2\t0\t0\t0\t0\t0\t0\n"
    "interval\t2\t1.020000\n";

static const char *multi_expect =
    "100 python3;main;run;zeLaunch;-;k.cpp_[G];gemm_[G];"
	"[unknown]_[g];control_[g];0x10_[g] 4\n"
    "100 python3;main;run;zeLaunch;-;k.cpp_[G];gemm_[G];"
	"mov_[g];active_[g];0x20_[g] 1\n"
    "100 python3;main;run;zeLaunch;-;k.cpp_[G];gemm_[G];"
	"mov_[g];tdr_[g];0x20_[g] 2\n"
    "100 python3;main;run;zeLaunch;-;k.cpp_[G];gemm_[G];"
	"send_[g];send_[g];0x10_[g] 7\n"
    "200 bench;-;[unknown]_[G];conv|2d_[G];send_[g];sync_[g];0x30_[g] 9\n"
    "201 [unknown];main;run;zeLaunch;-;[unknown]_[G];[unknown]_[G];"
	"mov_[g];inst_fetch_[g];0x40_[g] 1\n";

static void
test_multi_and_chunks(void)
{
	static const size_t chunks[] = { 0, 1, 2, 3, 7, 64, 4096 };
	struct out o;
	uint64_t bad;
	char *r, what[64];
	size_t i;

	r = run(multi, 0, &o, &bad);
	CHECK_STREQ(r, multi_expect, "several pids, kernels, ids 0, clean()");
	CHECK_INTEQ(bad, 0, "strings mid-block are not malformed");
	free(r);
	for (i = 1; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		snprintf(what, sizeof(what), "same result in %zu-byte chunks",
		    chunks[i]);
		r = run(multi, chunks[i], &o, &bad);
		CHECK(strcmp(r, multi_expect) == 0 && bad == 0, what);
		free(r);
	}
}

static void
test_malformed(void)
{
	const char *text =
	    "string\t1\tc\n"
	    "bogus\t1\n"				/* unknown type */
	    "interval\t1\n"				/* wrong field count */
	    "eustall\t0x1\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\n" /* no kernel */
	    "kernel\t0x1\t9\t5\t0\t0\t0\n"		/* undefined id */
	    "kernel\t0x1\t1\t0\t0\t0\t0\n"		/* pid 0 */
	    "eustall\t0x1\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\n" /* after it */
	    "kernel\t0x1\t1\t7\t0\t0\t0\n"
	    "eustall\t0x1\t0\t-1\t0\t0\t0\t0\t0\t0\t0\t0\t0\n" /* negative */
	    "eustall\t0x1\t0\tx\t0\t0\t0\t0\t0\t0\t0\t0\t0\n" /* non-numeric */
	    "eustall\t0x2\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\n" /* good */
	    "interval\tzero\t1.0\n"			/* bad interval */
	    "eustall\t0x3\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\n" /* no kernel */
	    "kernel\t0x1\t1\t7\t0\t0\t0\n"
	    "string\t0\tzero id\n"
	    "metric\tx\tnot-a-number\n"
	    "kernel\t0x1\t1\t-3\t0\t0\t0\n"
	    "\n"
	    "eustall\t0x4\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t5\n";
	struct out o;
	struct iaprof_parser *p;
	uint64_t bad;
	char *r;

	r = run(text, 0, &o, &bad);
	CHECK_STREQ(r, "7 c;-;[unknown]_[G];[unknown]_[G];[unknown]_[g];"
	    "active_[g];0x2_[g] 1\n", "good lines still fold");
	CHECK_INTEQ(bad, 14, "every malformed line counted, empty ignored");
	CHECK_INTEQ(o.ticks, 0, "a bad interval is not a tick");
	free(r);

	p = iaprof_parser_new(NULL, NULL, NULL);
	iaprof_parser_feed(p, text, strlen(text));
	CHECK_STREQ(iaprof_parser_malformed_line(p, 0), "bogus\t1",
	    "first malformed line kept");
	CHECK_STREQ(iaprof_parser_malformed_line(p, 7),
	    "eustall\t0x1\t0\tx\t0\t0\t0\t0\t0\t0\t0\t0\t0",
	    "eighth malformed line kept");
	CHECK(iaprof_parser_malformed_line(p, 8) == NULL, "only 8 kept");
	iaprof_parser_take(p, NULL, NULL);
	CHECK_INTEQ(iaprof_parser_malformed(p), 0, "take resets the count");
	CHECK(iaprof_parser_malformed_line(p, 0) == NULL,
	    "take drops the kept lines");
	iaprof_parser_free(p);
}

static void
test_old_grammar(void)
{
	struct out o;
	uint64_t bad;
	char *r = run("interval_start\t1\ne\tfoo\t3\ninterval_end\t1\n",
	    0, &o, &bad);

	CHECK_INTEQ(o.ticks, 0, "old grammar: no tick");
	CHECK_INTEQ(bad, 3, "old grammar lines are malformed");
	free(r);
}

/* The snapshot cut at a tick must not see lines after it in the chunk. */
static void
test_tick_cut(void)
{
	struct out o;
	struct iaprof_parser *p;
	char *rest;
	const char *text =
	    "string\t1\ta\n"
	    "interval\t0\t1.0\n"
	    "kernel\t0x1\t1\t5\t0\t0\t0\n"
	    "eustall\t0x1\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\n"
	    "interval\t1\t1.1\n"
	    "kernel\t0x1\t1\t5\t0\t0\t0\n"
	    "eustall\t0x1\t0\t2\t0\t0\t0\t0\t0\t0\t0\t0\t0\n";

	memset(&o, 0, sizeof(o));
	p = iaprof_parser_new(NULL, on_tick, &o);
	o.p = p;
	o.take_on_tick = 1;
	iaprof_parser_feed(p, text, strlen(text));
	CHECK_STREQ(o.cut, "--\n5 a;-;[unknown]_[G];[unknown]_[G];"
	    "[unknown]_[g];active_[g];0x1_[g] 1\n--\n",
	    "each tick cuts exactly what came before it");
	o.take_on_tick = 0;
	rest = take_sorted(p, &o);
	CHECK_STREQ(rest, "5 a;-;[unknown]_[G];[unknown]_[G];[unknown]_[g];"
	    "active_[g];0x1_[g] 2\n", "the rest waits for the next take");
	free(rest);
	/* The string table survives a take, not a reset. */
	FEED(p, "kernel\t0x1\t1\t6\t0\t0\t0\n");
	CHECK_INTEQ(iaprof_parser_malformed(p), 0, "ids survive a take");
	iaprof_parser_reset(p);
	FEED(p, "kernel\t0x1\t1\t6\t0\t0\t0\n");
	CHECK_INTEQ(iaprof_parser_malformed(p), 1, "reset drops the ids");
	iaprof_parser_free(p);
}

static void
test_text_rules(void)
{
	struct out o;
	uint64_t bad;
	char *r;

	/* Redefinition wins, invalid UTF-8 becomes U+FFFD, clean() trims
	 * and replaces ';', stack pieces drop empties, an unterminated last
	 * line is parsed at EOF. */
	r = run("string\t1\told\n"
	    "string\t1\t  c\xff" "d  \n"
	    "string\t2\t;a;;  ; b;\n"
	    "string\t3\tf;g\n"
	    "string\t4\t\n"
	    "kernel\t0x1\t1\t3\t2\t3\t4\n"
	    "eustall\t 0x5 \t3\t0\t0\t0\t0\t0\t0\t0\t0\t+2\t0",
	    0, &o, &bad);
	CHECK_STREQ(r, "3 c\xef\xbf\xbd" "d;a;[unknown];b;-;f|g_[G];"
	    "[unknown]_[G];f|g_[g];other_[g]; 0x5 _[g] 2\n",
	    "clean, U+FFFD, empty pieces, redefinition, EOF line");
	CHECK_INTEQ(bad, 0, "none of that is malformed");
	free(r);
}

static void
test_overlong_and_limits(void)
{
	struct iaprof_limits lim;
	struct iaprof_parser *p;
	struct out o;
	char *big, line[128], *r;
	int i;

	iaprof_limits_default(&lim);
	lim.max_line = 100;
	lim.max_stacks = 4;
	p = iaprof_parser_new(&lim, NULL, NULL);
	big = malloc(1000);
	memset(big, 'x', 1000);
	memcpy(big, "kernel\t", 7);
	FEED(p, "string\t1\tc\nkernel\t1\t1\t9\t0\t0\t0\n");
	iaprof_parser_feed(p, big, 600);
	iaprof_parser_feed(p, big + 600, 400);
	FEED(p, "\n");
	CHECK_INTEQ(iaprof_parser_malformed(p), 1, "over-long line counted");
	FEED(p, "eustall\t0x1\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\n");
	CHECK_INTEQ(iaprof_parser_malformed(p), 2,
	    "an over-long kernel line still ends the current kernel");
	FEED(p, "kernel\t1\t1\t9\t0\t0\t0\n");
	for (i = 0; i < 10; i++) {
		snprintf(line, sizeof(line), "eustall\t0x%x\t0\t1\t0\t0\t0\t0"
		    "\t0\t0\t0\t0\t0\n", i);
		iaprof_parser_feed(p, line, strlen(line));
	}
	CHECK_INTEQ(iaprof_parser_nstacks(p), 4, "stacks capped");
	CHECK_INTEQ(iaprof_parser_dropped(p), 6, "the rest counted dropped");
	memset(&o, 0, sizeof(o));
	r = take_sorted(p, &o);
	CHECK(strstr(r, "0x3_[g] 1") != NULL && strstr(r, "0x4_") == NULL,
	    "the first stacks are kept");
	free(r);
	iaprof_parser_free(p);
	free(big);
}

static void
test_numbers(void)
{
	uint64_t v;
	int neg;

	CHECK(iaprof_parse_int(" 42 ", 4, 0, &neg, &v) == 0 && v == 42,
	    "int with spaces");
	CHECK(iaprof_parse_int("-7", 2, 0, &neg, &v) == 0 && neg && v == 7,
	    "negative int");
	CHECK(iaprof_parse_int("0x1A0", 5, 1, &neg, &v) == 0 && v == 0x1a0,
	    "hex int");
	CHECK(iaprof_parse_int("0x1A0", 5, 0, &neg, &v) != 0,
	    "no hex where decimal is required");
	CHECK(iaprof_parse_int("18446744073709551616", 20, 0, &neg, &v) != 0,
	    "overflow is malformed");
	CHECK(iaprof_parse_int("", 0, 0, &neg, &v) != 0, "empty int");
	CHECK(iaprof_parse_int("1 2", 3, 0, &neg, &v) != 0, "inner space");
	CHECK(iaprof_parse_float("51234.560123", 12) == 0, "float");
	CHECK(iaprof_parse_float("1e5", 3) == 0 && iaprof_parse_float(".5",
	    2) == 0 && iaprof_parse_float("-Inf", 4) == 0, "float forms");
	CHECK(iaprof_parse_float("0x10", 4) != 0 && iaprof_parse_float(".",
	    1) != 0 && iaprof_parse_float("1e", 2) != 0 &&
	    iaprof_parse_float("", 0) != 0, "float rejects");
}

int
main(void)
{
	test_sample();
	test_multi_and_chunks();
	test_malformed();
	test_old_grammar();
	test_tick_cut();
	test_text_rules();
	test_overlong_and_limits();
	test_numbers();
	return (testing_done());
}
