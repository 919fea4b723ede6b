/* Unit tests for plugins/perf/stackagg.c: stack aggregation. */
#include <stdint.h>

#include "testing.h"
#include "stackagg.h"

struct sum {
	uint64_t total;
	size_t n;
	int pid7_found;
};

static int
sum_cb(const struct stack_entry *e, void *arg)
{
	struct sum *s = arg;

	s->total += e->count;
	s->n++;
	if (e->pid == 7 && e->gen == 0 && e->nkern == 2 && e->nuser == 1 &&
	    e->ips[0] == 0xffff1 && e->ips[1] == 0xffff2 && e->ips[2] == 0x401000)
		s->pid7_found = (int)e->count;
	return (0);
}

int
main(void)
{
	struct stackagg *a;
	struct sum s = { 0 };
	uint64_t k[2] = { 0xffff1, 0xffff2 }, u[3] = { 0x401000, 2, 3 };
	uint64_t big[127];
	int i, rc = 0;

	a = stackagg_new();
	CHECK(a != NULL, "new");
	stackagg_add(a, 7, k, 2, u, 1, 1);
	stackagg_add(a, 7, k, 2, u, 1, 4);
	stackagg_add(a, 8, k, 2, u, 1, 1);	/* other pid: other entry */
	stackagg_add(a, 7, k, 1, u, 1, 1);	/* shorter kernel stack */
	stackagg_add(a, 7, k, 2, u, 2, 1);	/* deeper user stack */
	/* same ip sequence split differently between kernel and user */
	stackagg_add(a, 7, k, 0, k, 2, 1);
	stackagg_add(a, 7, k, 2, NULL, 0, 1);
	/* another exec generation of pid 7: another image, another entry */
	stackagg_add_gen(a, 7, 1, k, 2, u, 1, 1);
	stackagg_add_gen(a, 7, 0, k, 2, u, 1, 0);	/* = stackagg_add */
	CHECK_INTEQ(stackagg_entries(a), 7, "distinct keys are distinct");
	CHECK_INTEQ(stackagg_samples(a), 11, "samples summed");
	stackagg_foreach(a, sum_cb, &s);
	CHECK_INTEQ(s.n, 7, "foreach visits every entry");
	CHECK_INTEQ(s.total, 11, "foreach counts");
	CHECK_INTEQ(s.pid7_found, 5, "identical stacks summed, ips kept");

	/* growth: many distinct stacks, then all found again */
	for (i = 0; i < 127; i++)
		big[i] = (uint64_t)i * 4096;
	for (i = 0; i < 20000 && rc == 0; i++) {
		big[0] = (uint64_t)i;
		rc = stackagg_add(a, 1, NULL, 0, big, 127, 1);
	}
	for (i = 0; i < 20000 && rc == 0; i++) {
		big[0] = (uint64_t)i;
		rc = stackagg_add(a, 1, NULL, 0, big, 127, 1);
	}
	CHECK_INTEQ(rc, 0, "adds succeed");
	CHECK_INTEQ(stackagg_entries(a), 20007, "growth keeps entries unique");
	CHECK_INTEQ(stackagg_samples(a), 40011, "growth keeps counts");

	stackagg_clear(a);
	CHECK_INTEQ(stackagg_entries(a), 0, "clear empties");
	CHECK_INTEQ(stackagg_samples(a), 0, "clear resets samples");
	stackagg_add(a, 7, k, 2, u, 1, 3);
	memset(&s, 0, sizeof(s));
	stackagg_foreach(a, sum_cb, &s);
	CHECK_INTEQ(s.pid7_found, 3, "usable after clear");

	/* Threads: kept apart by tid, merged with tid 0 (the default). */
	stackagg_clear(a);
	stackagg_add_thread(a, 9, 0, 100, "w", k, 2, u, 1, 1);
	stackagg_add_thread(a, 9, 0, 101, "w", k, 2, u, 1, 1);
	stackagg_add_thread(a, 9, 0, 100, "w", k, 2, u, 1, 1);
	CHECK_INTEQ(stackagg_entries(a), 2, "two tids: two entries");
	stackagg_add_sample(a, 9, 0, "w", k, 2, u, 1, 1);
	stackagg_add_thread(a, 9, 0, 0, "w", k, 2, u, 1, 1);
	CHECK_INTEQ(stackagg_entries(a), 3, "tid 0 is one more, shared");
	CHECK_INTEQ(stackagg_samples(a), 5, "every sample counted");
	stackagg_free(a);
	stackagg_free(NULL);
	return (testing_done());
}
