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
	return (testing_done());
}
