/*
 * Unit tests for plugins/lang/common/langtab.c: a runtime plugin's process
 * table -- identity across scans (a reused PID, an exec), the retry of a
 * young process whose attach failed, and what is kept until its stacks go
 * out in a snapshot.
 */
#include <sys/types.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testing.h"
#include "langtab.h"

struct entry {
	struct langtab_proc lp;
	char plugin_state[32];
};

static void
release(void *arg, struct langtab_proc *lp)
{
	int *count = arg;

	(*count)++;
	free(lp);
}

static struct langtab_proc *
add(struct langtab *tab, pid_t pid, uint64_t start, uint64_t exe, int state)
{
	struct entry *e = calloc(1, sizeof(*e));

	e->lp.pid = pid;
	e->lp.starttime = start;
	e->lp.exe_id = exe;
	e->lp.state = state;
	e->lp.seen = 1;
	if (langtab_add(tab, &e->lp) != 0) {
		free(e);
		return (NULL);
	}
	return (&e->lp);
}

static int walked;

static void
walk_cb(void *arg, pid_t pid, double uptime)
{
	if (pid == *(pid_t *)arg && uptime > 0)
		walked++;
}

/* The log a due recheck writes to. */
static char logged[256];
static int nlogged;

static void due_log(struct gp_plugin_ctx *, int, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

static void
due_log(struct gp_plugin_ctx *ctx, int level, const char *fmt, ...)
{
	va_list ap;

	(void)ctx;
	(void)level;
	va_start(ap, fmt);
	vsnprintf(logged, sizeof(logged), fmt, ap);
	va_end(ap);
	nlogged++;
}

static const struct gp_host_api due_api = { .log = due_log };

int
main(void)
{
	struct langtab tab;
	struct langtab_proc *a, *b, *lp;
	int freed = 0, i;
	pid_t self = getpid();

	CHECK(langtab_init(&tab, release, &freed) == 0, "init");

	/* find: a live entry before a gone one of the same PID */
	a = add(&tab, 100, 5, 7, LANGTAB_GONE);
	a->samples = 3;
	b = add(&tab, 100, 9, 7, LANGTAB_ACTIVE);
	CHECK(langtab_find(&tab, 100) == b, "the live entry of a PID first");
	b->state = LANGTAB_GONE;
	CHECK(langtab_find(&tab, 100) != NULL, "a gone one when no live one");
	CHECK(langtab_find(&tab, 101) == NULL, "an unknown PID");

	/* same: an exec (new executable) or a reused PID ends the entry */
	lp = add(&tab, 200, 10, 1, LANGTAB_ACTIVE);
	CHECK(langtab_same(&tab, &lp, 10, 1) == 1 && lp != NULL && lp->seen,
	    "the same process: seen");
	CHECK(langtab_same(&tab, &lp, 10, 2) == 0 && lp == NULL && freed == 1,
	    "exec'd, no stacks waiting: dropped at once");
	lp = add(&tab, 201, 10, 1, LANGTAB_ACTIVE);
	lp->samples = 1;
	CHECK(langtab_same(&tab, &lp, 11, 1) == 0 && lp != NULL &&
	    lp->state == LANGTAB_GONE && freed == 1, "PID reused with stacks "
	    "waiting: kept, gone, until the snapshot");
	lp = NULL;
	CHECK(langtab_same(&tab, &lp, 1, 1) == 0, "no entry: not the same");

	/* settle: a failed attach is final only once the process is older */
	CHECK_INTEQ(langtab_settle(LANGTAB_IGNORED, 0.01), LANGTAB_NEW,
	    "young, no runtime mapped yet: try again");
	CHECK_INTEQ(langtab_settle(LANGTAB_ERROR, 1.9), LANGTAB_NEW,
	    "young, error: try again");
	CHECK_INTEQ(langtab_settle(LANGTAB_SKIPPED, LANGTAB_SETTLE_S),
	    LANGTAB_SKIPPED, "settled: final");
	CHECK_INTEQ(langtab_settle(LANGTAB_IGNORED, -1), LANGTAB_IGNORED,
	    "age unknown: final (never retried forever)");
	CHECK_INTEQ(langtab_settle(LANGTAB_GONE, 0.1), LANGTAB_GONE,
	    "gone stays gone");
	CHECK_INTEQ(langtab_settle(LANGTAB_ACTIVE, 0.1), LANGTAB_ACTIVE,
	    "attached");

	/* prune: the unseen go; the gone with stacks stay until cleared */
	b->state = LANGTAB_ACTIVE;
	(void)add(&tab, 300, 1, 1, LANGTAB_ACTIVE);
	langtab_unsee(&tab);
	b->seen = 1;
	CHECK(tab.n == 4, "four entries before the prune");
	langtab_prune(&tab);
	CHECK(tab.n == 3 && freed == 2 && langtab_find(&tab, 300) == NULL &&
	    langtab_find(&tab, 100) == b, "unseen without stacks dropped, the "
	    "seen and those with stacks waiting kept");
	for (i = 0; i < (int)tab.n; i++)
		tab.procs[i]->samples = 0;
	langtab_prune(&tab);
	CHECK(tab.n == 1 && freed == 4 && tab.procs[0] == b, "after the "
	    "snapshot: only the live one stays");

	/* add: bounded */
	for (i = 0; i < LANGTAB_MAX; i++)
		(void)add(&tab, 1000 + i, 1, 1, LANGTAB_IGNORED);
	CHECK(tab.n == LANGTAB_MAX && add(&tab, 1, 1, 1, 0) == NULL,
	    "the table is bounded");
	langtab_free(&tab);
	CHECK(freed == 4 + LANGTAB_MAX && tab.procs == NULL,
	    "free releases every entry");

	/* a full table: the ignored entry due soonest gives its place to a
	 * new one; a table of none ignored takes no more */
	{
		struct langtab full;
		struct langtab_proc *lp;
		int nfreed = 0;

		CHECK(langtab_init(&full, release, &nfreed) == 0, "a table");
		for (i = 0; i < LANGTAB_MAX; i++) {
			lp = langtab_new(&full, sizeof(struct entry), 5000 + i,
			    1, 1);
			lp->state = LANGTAB_IGNORED;
			lp->recheck_at = i == 7 ? 1.0 : 100.0 + i;
		}
		full.procs[9]->state = LANGTAB_ACTIVE;
		full.procs[9]->recheck_at = 0;
		lp = langtab_new(&full, sizeof(struct entry), 4, 1, 1);
		CHECK(lp != NULL && full.n == LANGTAB_MAX && nfreed == 1 &&
		    langtab_find(&full, 5007) == NULL &&
		    langtab_find(&full, 5009) != NULL &&
		    langtab_find(&full, 4) == lp,
		    "full: the ignored one due soonest makes room, not an "
		    "attached one");
		for (i = 0; i < (int)full.n; i++)
			full.procs[i]->state = LANGTAB_ACTIVE;
		CHECK(langtab_new(&full, sizeof(struct entry), 5, 1, 1) ==
		    NULL && full.n == LANGTAB_MAX && nfreed == 1,
		    "full of attached processes: no room");
		langtab_free(&full);
	}

	/* attach outcomes */
	CHECK_INTEQ(langtab_attach_state(0, 0.1), LANGTAB_ACTIVE, "attached");
	CHECK_INTEQ(langtab_attach_state(-ESRCH, 0.1), LANGTAB_GONE, "gone");
	CHECK_INTEQ(langtab_attach_state(-ENOENT, 0.1), LANGTAB_IGNORED,
	    "not this runtime: final even when young (no retry cost)");
	CHECK_INTEQ(langtab_attach_state(-EAGAIN, 0.1), LANGTAB_NEW,
	    "not yet, young: try again");
	CHECK_INTEQ(langtab_attach_state(-EAGAIN, 5), LANGTAB_IGNORED,
	    "not yet, settled: ignored");
	CHECK_INTEQ(langtab_attach_state(-ENOTSUP, 5), LANGTAB_SKIPPED,
	    "skipped");
	CHECK_INTEQ(langtab_attach_state(-EIO, 5), LANGTAB_ERROR, "error");
	CHECK_INTEQ(langtab_attach_state(-EINPROGRESS, 5), LANGTAB_NEW,
	    "the ELF reader's turn spent: tried again, however old");
	CHECK_INTEQ(langtab_attach_state(-EIO, 0.5), LANGTAB_NEW,
	    "error while young: try again");

	/* a read's outcome: torn reads, a run of them, a refused one */
	{
		struct langtab_proc e;
		uint32_t fails = 0;
		int k, errs = 0;

		memset(&e, 0, sizeof(e));
		e.state = LANGTAB_ACTIVE;
		for (k = 0; k < 4; k++)
			errs += langtab_read_done(&e, -EFAULT, &fails, 5);
		CHECK(errs == 0 && fails == 4 && e.state == LANGTAB_ACTIVE,
		    "torn reads below the limit: still attached");
		CHECK(langtab_read_done(&e, 0, &fails, 5) == 0 && fails == 0,
		    "a read that worked starts the count over");
		for (k = 0; k < 5; k++)
			errs += langtab_read_done(&e, -EFAULT, &fails, 5);
		CHECK(errs == 1 && e.state == LANGTAB_ERROR,
		    "the limit in a row: an error, said once");
		e.state = LANGTAB_ACTIVE;
		fails = 0;
		CHECK(langtab_read_done(&e, -EREMOTE, &fails, 5) == 1 &&
		    e.state == LANGTAB_ERROR, "refused by the guard: an error "
		    "at once");
		e.state = LANGTAB_ACTIVE;
		CHECK(langtab_read_done(&e, -EPERM, &fails, 5) == 1,
		    "refused by the kernel: at once too");
		e.state = LANGTAB_ACTIVE;
		CHECK(langtab_read_done(&e, -ESRCH, &fails, 5) == 0 &&
		    e.state == LANGTAB_GONE, "exited: gone, no error");
	}

	/* new entries */
	freed = 0;
	CHECK(langtab_init(&tab, release, &freed) == 0, "init again");
	a = langtab_new(&tab, sizeof(struct entry), 1, 10, 1);
	b = langtab_new(&tab, sizeof(struct entry), 2, 10, 1);
	lp = langtab_new(&tab, sizeof(struct entry), 3, 10, 1);
	CHECK(a != NULL && b != NULL && lp != NULL && tab.n == 3 &&
	    a->pid == 1 && a->seen && a->state == LANGTAB_NEW,
	    "langtab_new: identity set, seen, state 0 (new)");
	CHECK(langtab_new(&tab, 4, 4, 1, 1) == NULL, "an entry smaller than "
	    "its langtab_proc is refused");
	langtab_free(&tab);

	/* an ignored process looked at again when its mappings change,
	 * less and less often */
	{
		struct langtab_proc e;
		double t;
		int n = 0;

		memset(&e, 0, sizeof(e));
		langtab_looked(&e, 1000, 100.0);
		e.state = LANGTAB_IGNORED;
		CHECK(!langtab_recheck(&e, 1000, 200.0), "the same virtual "
		    "size: not looked at again");
		CHECK(!langtab_recheck(&e, 2000, 100.5), "another, but within "
		    "a second of the last look: not yet");
		CHECK(langtab_recheck(&e, 2000, 101.0) && e.vsize == 2000,
		    "another, a second after: looked at again, the size kept");
		CHECK(!langtab_recheck(&e, 3000, 102.5), "then not within two "
		    "seconds");
		CHECK(langtab_recheck(&e, 3000, 103.0), "but after them");
		for (t = 103.0; t < 103.0 + 3600; t += 1.0)
			n += langtab_recheck(&e, (uint64_t)t, t);
		CHECK(n >= 55 && n <= 66, "a heap that changes every second: "
		    "looked at about once a minute");
		e.state = LANGTAB_ACTIVE;
		CHECK(!langtab_recheck(&e, 1, 1e9), "only ignored ones");
		/* due: a new entry, or a recheck, said in one line */
		CHECK(!langtab_due(&e, 2, 2e9, &due_api, NULL) && nlogged == 0,
		    "an attached one is not due");
		e.state = LANGTAB_NEW;
		CHECK(langtab_due(&e, 2, 2e9, &due_api, NULL) && nlogged == 0,
		    "a new one is, silently");
		e.state = LANGTAB_IGNORED;
		CHECK(langtab_due(&e, 3, 3e9, &due_api, NULL) && nlogged == 1 &&
		    strstr(logged, "its mappings changed") != NULL,
		    "an ignored one whose mappings changed is, said once");
		CHECK(!langtab_due(&e, 3, 3e9 + 1, &due_api, NULL) &&
		    nlogged == 1, "not again with the same mappings");
	}

	/* the walk of /proc finds this process, with an uptime */
	CHECK(langtab_walk_proc(walk_cb, &self) == 0 && walked == 1,
	    "walk of /proc");
	CHECK(langtab_age(0, 100.0) == 100.0 && langtab_age(1, -1) < 0,
	    "age from start ticks and uptime");
	return (testing_done());
}
