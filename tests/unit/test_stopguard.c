/*
 * The stop guard's reading of its loop's state (core/base/stopguard.c):
 * the letter after the command in /proc/.../stat, whatever the command
 * holds.  Its thread and its exit are tested on the daemon itself
 * (tests/integration/125-stop-stalled.sh).
 */
#include "config.h"

#include <string.h>

#include "testing.h"
#include "base/stopguard.h"

static char
state(const char *s)
{
	return (stopguard_task_state(s, strlen(s)));
}

static int
sysc(const char *s, long *nr, unsigned long long a[6])
{
	return (stopguard_parse_syscall(s, strlen(s), nr, a));
}

static void
test_syscall(void)
{
	unsigned long long a[6] = { 0 };
	long nr = -7;

	CHECK(sysc("310 0x1e61 0x7ffc9d1c 0x1 0x7ffc9d2c 0x1 0x0 "
	    "0x7ffc9d08 0x7f01", &nr, a) == 0 && nr == 310 && a[0] == 0x1e61 &&
	    a[2] == 1 && a[5] == 0, "a call: its number and arguments");
	CHECK(sysc("0 0x3 0x5616fabad510 0x2000 0x0 0x0 0x0 0x7ffe 0x7f29\n",
	    &nr, a) == 0 && nr == 0 && a[0] == 3 && a[2] == 0x2000,
	    "read(2): number 0");
	CHECK(sysc("running\n", &nr, a) == -1, "running: none");
	CHECK(sysc("-1 0x7ffe 0x7f29\n", &nr, a) == -1,
	    "blocked outside a call: none");
	CHECK(sysc("17 0x3 0x4", &nr, a) == -1, "cut short: none");
	CHECK(sysc("17 0x3 0x4 zz 0x0 0x0 0x0", &nr, a) == -1,
	    "not hex: none");
	CHECK(sysc("", &nr, a) == -1, "empty: none");
}

int
main(void)
{
	CHECK_INTEQ(state("4242 (gprofiler) S 1 4242 4242 0 -1"), 'S',
	    "a plain command: its state");
	CHECK_INTEQ(state("4242 (gprofiler) D 1"), 'D', "a wait in the kernel");
	CHECK_INTEQ(state("7 (a) R (b) S 1 7"), 'S',
	    "a command holding ') R (': the last ')' ends it");
	CHECK_INTEQ(state("7 (x)"), 0, "cut after the command: none");
	CHECK_INTEQ(state("7 (x) "), 0, "cut after the space: none");
	CHECK_INTEQ(state("7 (x)S 1"), 0, "no space after the command: none");
	CHECK_INTEQ(state("no parenthesis"), 0, "not a stat line: none");
	CHECK_INTEQ(state(""), 0, "empty: none");
	test_syscall();
	return (testing_done());
}
