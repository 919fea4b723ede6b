/* perfmap.c: parsing, incremental feeding, overlap rules, bad lines. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/perfmap.h"
#include "testing.h"

#define CHECK_EQ(a, b)	CHECK_INTEQ(a, b, #a " == " #b)

static void
test_parse(void)
{
	static const char text[] =
	    "0x00007f54ecec7640 0x0000000000000150 long Hot.fib(int)\n"
	    "7f878c023f40 378 JS:~work /tmp/nd/app.js:2:14\n"
	    "not a line\n"
	    "1000 0 zero size\n"
	    "2000 10\n"
	    "ffffffffffffffff 10 wraps\n"
	    "3000 10 py::f:/x.py\r\n"
	    "\n"
	    "4000 10 partial";
	struct perfmap pm;
	size_t used;

	memset(&pm, 0, sizeof(pm));
	CHECK_EQ(perfmap_feed(&pm, text, sizeof(text) - 1, 0, &used), 0);
	CHECK(pm.sorted == 0 && perfmap_lookup(&pm, 0x3005) == NULL,
	    "fed lines are seen after perfmap_sort only");
	CHECK_EQ(perfmap_sort(&pm), 0);
	CHECK_EQ(pm.n, 3);
	CHECK_EQ(pm.bad_lines, 4);
	CHECK_EQ(used, sizeof(text) - 1 - strlen("4000 10 partial"));
	CHECK_STREQ(perfmap_lookup(&pm, 0x7f54ecec7640ull),
	    "long Hot.fib(int)_[j]", "HotSpot 0x form, name with spaces");
	CHECK_STREQ(perfmap_lookup(&pm, 0x7f54ecec778full),
	    "long Hot.fib(int)_[j]", "last byte");
	CHECK(perfmap_lookup(&pm, 0x7f54ecec7790ull) == NULL, "past the end");
	CHECK_STREQ(perfmap_lookup(&pm, 0x7f878c024000ull),
	    "JS:~work /tmp/nd/app.js:2:14_[j]", "V8 bare hex");
	CHECK_STREQ(perfmap_lookup(&pm, 0x3005), "py::f:/x.py_[j]", "CR");
	CHECK(perfmap_lookup(&pm, 0x4000) == NULL, "partial line waits");
	CHECK_EQ(perfmap_feed(&pm, "4000 10 partial", 15, 1, &used), 0);
	perfmap_sort(&pm);
	CHECK_STREQ(perfmap_lookup(&pm, 0x4001), "partial_[j]", "final");
	perfmap_free(&pm);
}

/* Code reuse: a later entry over the same or overlapping range wins. */
static void
test_overlap(void)
{
	static const char a[] = "1000 100 old\n1200 10 other\n";
	static const char b[] = "1000 100 new\n1040 20 inner\n";
	struct perfmap pm;
	size_t used;

	memset(&pm, 0, sizeof(pm));
	perfmap_feed(&pm, a, sizeof(a) - 1, 0, &used);
	perfmap_sort(&pm);
	CHECK_STREQ(perfmap_lookup(&pm, 0x1050), "old_[j]", "before reuse");
	perfmap_feed(&pm, b, sizeof(b) - 1, 0, &used);
	perfmap_sort(&pm);
	CHECK_STREQ(perfmap_lookup(&pm, 0x1010), "new_[j]", "same start");
	CHECK_STREQ(perfmap_lookup(&pm, 0x1045), "inner_[j]", "inner newer");
	CHECK_STREQ(perfmap_lookup(&pm, 0x1070), "new_[j]", "after inner");
	CHECK_STREQ(perfmap_lookup(&pm, 0x1205), "other_[j]", "untouched");
	perfmap_free(&pm);
}

static void
test_many(void)
{
	struct perfmap pm;
	char line[64];
	size_t used, i;
	int ok = 1;

	memset(&pm, 0, sizeof(pm));
	for (i = 0; i < 20000; i++) {
		snprintf(line, sizeof(line), "%zx 10 f%zu\n", 0x100000 +
		    (20000 - i) * 0x10, i);
		perfmap_feed(&pm, line, strlen(line), 0, &used);
		if (i % 1000 == 999)
			perfmap_sort(&pm);	/* merges into the sorted part */
	}
	perfmap_sort(&pm);
	for (i = 0; i < 20000 && ok; i++) {
		snprintf(line, sizeof(line), "f%zu_[j]", i);
		ok = perfmap_lookup(&pm, 0x100000 + (20000 - i) * 0x10 + 3) !=
		    NULL && strcmp(perfmap_lookup(&pm, 0x100000 + (20000 - i) *
		    0x10 + 3), line) == 0;
	}
	CHECK(ok, "20000 entries fed one by one, in reverse order");
	perfmap_free(&pm);
}

/* Names handed out survive growth and a detach (ASan would object). */
static void
test_stable_names(void)
{
	struct perfmap pm;
	struct perfmap_chunk *old;
	const char *first;
	char line[64];
	size_t used, i;

	memset(&pm, 0, sizeof(pm));
	perfmap_feed(&pm, "10 10 first\n", 12, 0, &used);
	perfmap_sort(&pm);
	first = perfmap_lookup(&pm, 0x12);
	for (i = 0; i < 10000; i++) {
		snprintf(line, sizeof(line), "%zx 10 a_rather_long_name_%zu\n",
		    0x1000 + i * 0x10, i);
		perfmap_feed(&pm, line, strlen(line), 0, &used);
	}
	CHECK_STREQ(first, "first_[j]", "name valid after growth");
	old = perfmap_detach_names(&pm);
	CHECK(pm.n == 0 && perfmap_lookup(&pm, 0x12) == NULL, "detached");
	CHECK_STREQ(first, "first_[j]", "name valid after detach");
	perfmap_chunks_free(old);
	perfmap_free(&pm);
}

/*
 * A line over PERFMAP_MAX_NAME split across feeds: skipped to its end, the
 * next line parses (it used to resume in the middle of the long one).
 */
static void
test_long_line(void)
{
	struct perfmap pm;
	static char buf[3 * PERFMAP_MAX_NAME];
	static char work[PERFMAP_MAX_NAME + 64 + 1024];
	size_t used, off, n, carry = 0;
	const char *tail;

	memset(&pm, 0, sizeof(pm));
	memcpy(buf, "1000 10 ", 8);
	memset(buf + 8, 'x', sizeof(buf) - 8);
	/* Inside the long name, text that parses as a line of its own. */
	memcpy(buf + PERFMAP_MAX_NAME + 200, "2000 10 fake\n", 13);
	memset(buf + PERFMAP_MAX_NAME + 213, 'y', 100);
	tail = "\n3000 10 real\n";
	memcpy(buf + sizeof(buf) - 16, tail, strlen(tail));
	buf[sizeof(buf) - 1] = '\n';
	/* Fed as symjit does: 1 KiB reads after the unconsumed carry. */
	for (off = 0; off < sizeof(buf); off += n) {
		n = sizeof(buf) - off < 1024 ? sizeof(buf) - off : 1024;
		memcpy(work + carry, buf + off, n);
		perfmap_feed(&pm, work, carry + n, 0, &used);
		carry = carry + n - used;
		if (carry > PERFMAP_MAX_NAME + 64) {
			CHECK(0, "the parser keeps an over-long line");
			break;
		}
		memmove(work, work + used, carry);
	}
	perfmap_sort(&pm);
	CHECK(perfmap_lookup(&pm, 0x1005) == NULL, "the long line is bad");
	CHECK(perfmap_lookup(&pm, 0x2005) == NULL, "its middle is not parsed "
	    "as a line");
	CHECK_STREQ(perfmap_lookup(&pm, 0x3005), "real_[j]", "the next line "
	    "parses");
	perfmap_free(&pm);
}

/*
 * Sorting in slices: 60000 lines in random order fed in batches while
 * small steps run; lookups see only whole rounds, and in the end exactly
 * what one full sort gives.
 */
static void
test_sort_steps(void)
{
	struct perfmap pm, ref;
	char line[64];
	size_t used, i, steps = 0, seen_during = 0;
	uint64_t a;
	int ok = 1, r;

	memset(&pm, 0, sizeof(pm));
	memset(&ref, 0, sizeof(ref));
	srand(7);
	for (i = 0; i < 60000; i++) {
		a = 0x100000 + (uint64_t)(rand() % 200000) * 0x10;
		snprintf(line, sizeof(line), "%llx 10 f%zu\n",
		    (unsigned long long)a, i);
		perfmap_feed(&pm, line, strlen(line), 0, &used);
		perfmap_feed(&ref, line, strlen(line), 0, &used);
		if (i % 7 == 0) {
			r = perfmap_sort_step(&pm, 1000, NULL);
			steps++;
			ok &= r >= 0;
			seen_during += pm.sorted > 0 && pm.sorted < pm.n;
			ok &= pm.sorted == 0 || perfmap_cmp(&pm.v[0],
			    &pm.v[pm.sorted - 1]) <= 0;
		}
	}
	while ((r = perfmap_sort_step(&pm, 1000, NULL)) == 1)
		steps++;
	CHECK(ok && r == 0, "steps of 1000 moves, interleaved with feeds");
	CHECK(seen_during > 0, "lookups saw finished rounds while lines "
	    "were still being fed");
	perfmap_sort(&ref);
	CHECK_EQ(pm.n, ref.n);
	for (i = 0; i < 200000 && ok; i++) {
		const char *x = perfmap_lookup(&pm, 0x100000 + i * 0x10 + 3);
		const char *y = perfmap_lookup(&ref, 0x100000 + i * 0x10 + 3);

		ok = (x == NULL && y == NULL) || (x != NULL && y != NULL &&
		    strcmp(x, y) == 0);
	}
	CHECK(ok, "the same answers as one full sort (the latest line wins)");
	printf("# %zu steps\n", steps);
	perfmap_free(&pm);
	perfmap_free(&ref);
}

/*
 * Lines fed while a round merges (a large map is read as it is sorted):
 * their copy into the new table is sliced like the merge, not done at
 * once when the merge ends; lookups then see every line.
 */
static void
test_tail_slices(void)
{
	struct perfmap pm, ref;
	char line[64];
	size_t used, moves, i, fed = 0, o, tail_steps = 0;
	int r, ok = 1, bounded = 1;
	const char *x, *y;

	memset(&pm, 0, sizeof(pm));
	memset(&ref, 0, sizeof(ref));
	for (i = 0; i < 7000; i++) {
		snprintf(line, sizeof(line), "%zx 10 t%zu\n",
		    0x100000 + ((i * 7919) % 7000) * 0x10, i);
		perfmap_feed(&ref, line, strlen(line), 0, &used);
		perfmap_feed(&pm, line, strlen(line), 0, &used);
		if (i == 4999)
			perfmap_sort(&pm);
	}
	perfmap_sort(&ref);
	/* 2000 lines to merge, 300 more fed after every step of 500. */
	do {
		o = pm.ig_o;
		r = perfmap_sort_step(&pm, 500, &moves);
		if (pm.ig_phase == 4 || (o != 0 && pm.ig_o == 0 && r == 0)) {
			tail_steps++;
			if (pm.ig_phase == 4 && pm.ig_o - (o > pm.ig_end ?
			    o : pm.ig_end) > 500)
				bounded = 0;
		}
		for (i = 0; i < 300 && fed < 3000; i++, fed++) {
			snprintf(line, sizeof(line), "%zx 10 u%zu\n",
			    0x100000 + ((fed * 104729) % 7000) * 0x10 + 8, fed);
			perfmap_feed(&ref, line, strlen(line), 0, &used);
			perfmap_feed(&pm, line, strlen(line), 0, &used);
		}
	} while (r == 1 || fed < 3000);
	perfmap_sort(&ref);
	CHECK(tail_steps > 1 && bounded, "lines fed during a round copied "
	    "in slices of the budget");
	for (i = 0; i < 7000 * 16 && ok; i++) {
		x = perfmap_lookup(&pm, 0x100000 + i);
		y = perfmap_lookup(&ref, 0x100000 + i);
		ok = (x == NULL && y == NULL) || (x != NULL && y != NULL &&
		    strcmp(x, y) == 0);
	}
	CHECK(ok, "then every line is seen, as after one full sort");
	CHECK_EQ(pm.sorted, pm.n);
	perfmap_free(&pm);
	perfmap_free(&ref);
}

int
main(void)
{
	test_sort_steps();
	test_long_line();
	test_stable_names();
	test_parse();
	test_overlap();
	test_many();
	test_tail_slices();
	return (testing_done());
}
