/* Unit tests for plugins/perf/pidtab.c: the cycle's processes. */
#include <stdint.h>
#include <stdlib.h>

#include "testing.h"
#include "pidtab.h"

int
main(void)
{
	struct pidtab *t = pidtab_new();
	struct pidinfo *a, *b, *c;
	int isnew;

	CHECK(t != NULL, "new");
	CHECK(pidtab_find_newest(t, 100) == NULL, "nothing yet");
	a = pidtab_get_gen(t, 100, 1, &isnew);
	CHECK(a != NULL && isnew && a->pid == 100 && a->gen == 1 &&
	    a->wanted == -1 && a->report_ns == 0, "created, zeroed");
	CHECK(pidtab_get_gen(t, 100, 1, &isnew) == a && !isnew, "found again");
	/* PIDs sharing a bucket (the hash is of the PID alone) */
	c = pidtab_get_gen(t, 100 + 1024 * 1024, 0, &isnew);
	CHECK(c != NULL && isnew && c != a, "another PID");
	/* an exec: a second image of the PID, the newest found first */
	b = pidtab_get_gen(t, 100, 2, &isnew);
	CHECK(b != NULL && isnew && b != a, "the new image's own entry");
	CHECK(pidtab_find_newest(t, 100) == b, "the newest image");
	CHECK(pidtab_find_gen(t, 100, 1) == a, "the old one kept");
	CHECK(pidtab_find_gen(t, 100, 3) == NULL, "no such image");
	CHECK(pidtab_find_newest(t, 100 + 1024 * 1024) == c, "by PID");
	CHECK(pidtab_find_newest(t, 101) == NULL, "an unknown PID");
	CHECK_INTEQ(pidtab_count(t), 3, "three images");
	pidtab_clear(t);
	CHECK_INTEQ(pidtab_count(t), 0, "cleared");
	CHECK(pidtab_find_newest(t, 100) == NULL, "gone with the cycle");
	pidtab_free(t);
	pidtab_free(NULL);
	return (testing_done());
}
