/*
 * The stop guard's reading of its loop's state (core/base/stopguard.c):
 * the letter after the command in /proc/.../stat, whatever the command
 * holds; and that a stop signal repeated within STOPGUARD_REPEAT_MS is one
 * stop (timeout(1)'s signal to its child and to its process group), one
 * later another.  Its exit is tested on the daemon itself
 * (tests/integration/125-stop-stalled.sh).
 */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "testing.h"
#include "base/stopguard.h"

/* The repeat test's steps, each run from a timer in the loop. */
static struct {
	struct event_base *base;
	struct event *step;
	int got;		/* stop signals handed to the loop */
	int at;			/* the step a timer runs next */
	int got_after_repeat;
} rp;

static void
rp_after(int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	evtimer_add(rp.step, &tv);
}

static void
rp_signal(int sig, void *arg)
{
	(void)arg;
	if (sig != SIGTERM)
		return;
	rp.got++;
	if (rp.got == 1) {
		/* the second of the same request, 20 ms on */
		rp.at = 1;
		rp_after(20);
	} else
		event_base_loopbreak(rp.base);
}

static void
rp_step(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	switch (rp.at) {
	case 1:
		kill(getpid(), SIGTERM);
		rp.at = 2;
		rp_after(400);
		break;
	case 2:
		rp.got_after_repeat = rp.got;
		rp.at = 4;
		rp_after(STOPGUARD_REPEAT_MS);
		break;
	case 4:
		/* past the window: an operator's second signal */
		kill(getpid(), SIGTERM);
		rp.at = 3;
		rp_after(3000);
		break;
	default:
		event_base_loopbreak(rp.base);	/* never came */
	}
}

static void
test_repeat(void)
{
	memset(&rp, 0, sizeof(rp));
	rp.base = event_base_new();
	rp.step = evtimer_new(rp.base, rp_step, NULL);
	CHECK(stopguard_start(rp.base, rp_signal, NULL) == 0,
	    "the stop guard starts");
	kill(getpid(), SIGTERM);
	rp.at = 3;		/* a bound, until the first comes */
	rp_after(5000);
	event_base_dispatch(rp.base);
	stopguard_stop();
	CHECK_INTEQ(rp.got_after_repeat, 1,
	    "a SIGTERM 20 ms after the first: the same stop, not handed on");
	CHECK_INTEQ(rp.got, 2, "one after the window: handed on");
	event_free(rp.step);
	event_base_free(rp.base);
}

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
	test_repeat();
	return (testing_done());
}
