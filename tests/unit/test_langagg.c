/*
 * Unit tests for plugins/lang/common/langagg.c, the runtime plugins'
 * per-PID stack counts between two snapshots: equal stacks of one PID are
 * counted once, the same frames of another PID are not; empty and too deep
 * stacks are refused; the table grows past its first size without losing
 * a count; each stack reaches the callback once, with the snapshot it was
 * handed; a clear forgets everything.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "testing.h"
#include "langagg.h"

struct gp_snapshot { int unused; };

struct seen {
	struct gp_snapshot *snap;	/* what every call must get */
	int calls, wrong_snap;
	uint64_t total;
	int32_t pid;			/* the stack looked for */
	const char *leaf;
	uint64_t count;			/* its count, when found */
	uint32_t n;
};

static void
record(void *arg, struct gp_snapshot *snap, int32_t pid,
    const char *const *frames, uint32_t n, uint64_t count)
{
	struct seen *s = arg;

	s->calls++;
	s->total += count;
	if (snap != s->snap)
		s->wrong_snap++;
	if (pid == s->pid && strcmp(frames[n - 1], s->leaf) == 0) {
		s->count = count;
		s->n = n;
	}
}

/* Each stack of agg handed over for snap, pid's leaf looked for. */
static void
walk(struct langagg *agg, struct gp_snapshot *snap, struct seen *s,
    int32_t pid, const char *leaf)
{
	memset(s, 0, sizeof(*s));
	s->snap = snap;
	s->pid = pid;
	s->leaf = leaf;
	langagg_foreach(agg, snap, record, s);
}

int
main(void)
{
	const char *a[] = { "main", "work", "leaf_a" };
	const char *b[] = { "main", "work", "leaf_b" };
	const char *deep[5] = { "1", "2", "3", "4", "5" };
	struct gp_snapshot snap;
	struct seen s;
	struct langagg *agg = langagg_new(4);
	char name[32];
	const char *one[1] = { name };
	int i, bad = 0;

	CHECK(agg != NULL, "new");
	CHECK_INTEQ(langagg_add(agg, 10, a, 3, 2), 0, "add");
	CHECK_INTEQ(langagg_add(agg, 10, a, 3, 5), 0, "add the same stack");
	CHECK_INTEQ(langagg_add(agg, 11, a, 3, 1), 0, "same frames, pid 11");
	CHECK_INTEQ(langagg_add(agg, 10, b, 3, 1), 0, "another leaf");
	CHECK_INTEQ(langagg_add(agg, 10, a, 2, 1), 0, "a prefix is another");
	CHECK_INTEQ(langagg_add(agg, 10, a, 0, 1), -EINVAL, "empty refused");
	CHECK_INTEQ(langagg_add(agg, 10, deep, 5, 1), -EINVAL,
	    "deeper than max_frames refused");
	CHECK_INTEQ(langagg_count(agg), 4, "4 distinct stacks");
	CHECK_INTEQ(langagg_pid_total(agg, 10), 9, "pid 10's samples");
	CHECK_INTEQ(langagg_pid_total(agg, 12), 0, "an unknown pid's");

	walk(agg, &snap, &s, 10, "leaf_a");
	CHECK_INTEQ(s.calls, 4, "each stack once");
	CHECK_INTEQ(s.wrong_snap, 0, "with the snapshot it was handed");
	CHECK_INTEQ(s.total, 10, "every sample");
	CHECK_INTEQ(s.count, 7, "pid 10's leaf_a counted once, 7 times");
	CHECK_INTEQ(s.n, 3, "with its 3 frames");

	/* Past the first 256 slots: nothing lost, nothing merged. */
	for (i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		bad += langagg_add(agg, 20, one, 1, (uint64_t)i + 1) != 0;
	}
	CHECK_INTEQ(bad, 0, "2000 more stacks taken");
	CHECK_INTEQ(langagg_count(agg), 2004, "all kept through growth");
	CHECK_INTEQ(langagg_pid_total(agg, 20), 2000 * 2001 / 2,
	    "their counts kept");
	walk(agg, &snap, &s, 20, "f1234");
	CHECK_INTEQ(s.calls, 2004, "each once after growth");
	CHECK_INTEQ(s.count, 1235, "a moved entry's count");

	langagg_clear(agg);
	CHECK_INTEQ(langagg_count(agg), 0, "clear empties");
	walk(agg, &snap, &s, 10, "leaf_a");
	CHECK_INTEQ(s.calls, 0, "nothing after clear");
	CHECK_INTEQ(langagg_add(agg, 10, a, 3, 1), 0, "usable after clear");
	langagg_free(agg);
	langagg_free(NULL);
	return (testing_done());
}
