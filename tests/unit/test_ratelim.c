/* Unit tests of lib/ratelim.h, the plugins' rate limit of repeated lines. */
#include "config.h"

#include "ratelim.h"
#include "testing.h"

int
main(void)
{
	struct ratelim r = RATELIM_INIT(2, 60000), c = RATELIM_INIT(1, 0);
	unsigned held = 99, i, out = 0;

	CHECK(ratelim_admit(&r, 1000, &held) && held == 0, "first line out");
	CHECK(ratelim_admit(&r, 1001, &held) && held == 0, "second line out");
	CHECK(!ratelim_admit(&r, 1002, &held), "third held back");
	CHECK(!ratelim_admit(&r, 60999, &held), "fourth held back, same "
	    "window");
	CHECK(ratelim_admit(&r, 61000, &held) && held == 2,
	    "a new window: out, owning up to the 2 held back");
	CHECK(ratelim_admit(&r, 61001, &held) && held == 0, "then none");
	CHECK(!ratelim_admit(&r, 61002, &held), "held back again");
	CHECK_INTEQ((int)ratelim_end(&r), 1, "the end says 1 held back");
	CHECK(ratelim_admit(&r, 61003, &held) && held == 0,
	    "an ended window opens anew");
	CHECK(ratelim_admit(&r, 0, &held), "time 0 is a time like another");
	CHECK(ratelim_admit(&r, 1, &held), "the window's second line out");
	CHECK(!ratelim_admit(&r, 2, &held), "its third held back");
	ratelim_next(&r);
	CHECK(ratelim_admit(&r, 3, &held) && held == 1, "a window opened "
	    "early: out, owning up to the one held back");

	/* A window the owner ends (a cycle): the time does not end it. */
	for (i = 0; i < 5; i++)
		out += (unsigned)ratelim_admit(&c, 1000u * i * 1000u, &held);
	CHECK_INTEQ((int)out, 1, "one line a cycle, however long");
	CHECK_INTEQ((int)ratelim_end(&c), 4, "4 held back this cycle");
	CHECK_INTEQ((int)ratelim_end(&c), 0, "none after");
	CHECK(ratelim_admit(&c, 5, &held) && held == 0, "next cycle: out");
	return (testing_done());
}
