/*
 * Unit tests for plugins/lang/common/langfind.c, how a runtime plugin
 * finds its processes, against real /proc and a host that records what it
 * is asked: a walk finds this test's own process and a child; a refresh
 * of the young keeps the one still itself, gives up the exec'd and the
 * exited; a refresh of all counts CPU time and re-examines nothing; the
 * host's reports are listened to once a source exists, replacing the
 * scan timer, and a report of a new process examines it; one of no
 * interest reported again is not examined; a plugin that scans at its own
 * times has no timer; a candidate test keeps the refused out.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testing.h"
#include "langfind.h"
#include "langproc.h"

struct gp_plugin_ctx { int unused; };
struct gp_timer { int unused; };

struct entry {
	struct langtab_proc lp;
	int examined;
	unsigned ticks_first, ticks_more;
};

static struct gp_plugin_ctx ctx;
static struct gp_timer the_timer;
static int32_t wanted[2];	/* the PIDs the host wants */
static int source;		/* a system profiler reports processes */
static void (*report_cb)(void *, int32_t);
static unsigned ntimers, nexamined, nscanned;

static void
h_log(struct gp_plugin_ctx *c, int level, const char *fmt, ...)
{
	(void)c;
	(void)level;
	(void)fmt;
}

static struct gp_timer *
h_timer_add(struct gp_plugin_ctx *c, uint64_t ms, int32_t persist,
    void (*cb)(void *), void *arg)
{
	(void)c;
	(void)ms;
	(void)persist;
	(void)cb;
	(void)arg;
	ntimers++;
	return (&the_timer);
}

static void
h_timer_del(struct gp_timer *t)
{
	if (t != NULL)
		ntimers--;
}

static int32_t
h_pid_wanted(struct gp_plugin_ctx *c, int32_t pid)
{
	(void)c;
	return (pid == wanted[0] || pid == wanted[1]);
}

static int32_t
h_process_subscribe(struct gp_plugin_ctx *c, void (*cb)(void *, int32_t),
    void *arg)
{
	(void)c;
	(void)arg;
	report_cb = cb;
	return (source || cb == NULL ? 0 : -ENOENT);
}

static int
t_open(void *arg, const struct gp_open_spec *spec, struct gp_file_info *info)
{
	int fd;

	(void)arg;
	if (info != NULL)
		memset(info, 0, sizeof(*info));
	fd = open(spec->path, O_RDONLY | O_CLOEXEC);
	return (fd < 0 ? -errno : fd);
}

static void
t_examine(void *arg, struct langtab_proc *lp, double age)
{
	(void)arg;
	(void)age;
	((struct entry *)lp)->examined++;
	nexamined++;
	lp->state = LANGTAB_ACTIVE;
}

static void
t_ticks(void *arg, struct langtab_proc *lp, int fresh, double age,
    uint64_t ticks)
{
	struct entry *e = (struct entry *)lp;

	(void)arg;
	(void)age;
	(void)ticks;
	if (fresh)
		e->ticks_first++;
	else
		e->ticks_more++;
}

static void
t_report(void *arg, int32_t pid)
{
	struct langtab_proc *lp;

	(void)langfind_report(arg, pid, &lp);
}

static void
t_scanned(void *arg)
{
	(void)arg;
	nscanned++;
}

static void
t_release(void *arg, struct langtab_proc *lp)
{
	(void)arg;
	free(lp);
}

static const struct langfind_ops ops = {
	.proc_size = sizeof(struct entry),
	.rescan_ms = 1000,
	.examine = t_examine,
	.ticks = t_ticks,
	.report = t_report,
	.scanned = t_scanned,
};

static pid_t candidate_pid;
static unsigned ncandidate, ncandidate_pid;

static int
t_candidate(void *arg, pid_t pid)
{
	(void)arg;
	ncandidate++;
	ncandidate_pid += pid == candidate_pid;
	return (pid == candidate_pid);
}

/* Node's: a cheap test before the stat. */
static const struct langfind_ops ops_cand = {
	.proc_size = sizeof(struct entry),
	.examine = t_examine,
	.candidate = t_candidate,
};

/* Java's: scanned at its own times, nothing after a scan. */
static const struct langfind_ops ops_own = {
	.proc_size = sizeof(struct entry),
	.examine = t_examine,
	.report = t_report,
};

/* A child that sleeps until killed. */
static pid_t
child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	return (pid);
}

int
main(void)
{
	struct gp_host_api api;
	struct langtab tab;
	struct langfind f;
	struct langtab_proc *me, *kid, *lp;
	struct entry *e;
	uint64_t start, exe;
	pid_t self = getpid(), kpid, dead;
	int status;

	memset(&api, 0, sizeof(api));
	api.size = sizeof(api);
	api.abi_major = GP_ABI_MAJOR;
	api.abi_minor = GP_ABI_MINOR;
	api.log = h_log;
	api.timer_add = h_timer_add;
	api.timer_del = h_timer_del;
	api.pid_wanted = h_pid_wanted;
	api.process_subscribe = h_process_subscribe;
	langproc_set_opener(t_open, NULL);
	CHECK(langtab_init(&tab, t_release, NULL) == 0, "table");
	langfind_init(&f, &tab, &api, &ctx, &ops, &f);

	/* a walk of /proc: only what the host wants, each examined once */
	kpid = child();
	wanted[0] = self;
	wanted[1] = kpid;
	langfind_walk(&f);
	me = langtab_find(&tab, self);
	kid = langtab_find(&tab, kpid);
	CHECK(tab.n == 2 && me != NULL && kid != NULL,
	    "the walk found the wanted processes, no other");
	e = (struct entry *)me;
	CHECK(e->examined == 1 && e->ticks_first == 1 && e->ticks_more == 0 &&
	    me->state == LANGTAB_ACTIVE, "a new one: its CPU time first, "
	    "then examined");
	langfind_walk(&f);
	CHECK(tab.n == 2 && e->examined == 1 && e->ticks_more == 1,
	    "walked again: known, its CPU time counted, not re-examined");

	/* --min-duration: a process younger than it waits */
	while (tab.n > 0)
		langtab_remove(&tab, tab.procs[tab.n - 1]);
	f.min_duration = 1e9;
	langfind_walk(&f);
	CHECK(tab.n == 0, "--min-duration: too young, not considered");
	f.min_duration = 0;

	/* the refresh of the young: still itself, exec'd, exited */
	CHECK(langproc_stat(self, &start, &exe) == 0, "own identity");
	dead = fork();
	if (dead == 0)
		_exit(0);
	(void)waitpid(dead, &status, 0);
	me = langtab_new(&tab, sizeof(struct entry), self, start, exe);
	kid = langtab_new(&tab, sizeof(struct entry), kpid, start, exe + 1);
	lp = langtab_new(&tab, sizeof(struct entry), dead, start, exe);
	CHECK(me != NULL && kid != NULL && lp != NULL &&
	    me->state == LANGTAB_NEW, "three young entries");
	nexamined = 0;
	langfind_refresh(&f, 1);
	CHECK(nexamined == 1 && me->state == LANGTAB_ACTIVE &&
	    kid->state == LANGTAB_GONE && lp->state == LANGTAB_GONE,
	    "refresh of the young: the one still itself examined, the "
	    "exec'd and the exited gone");
	CHECK(((struct entry *)me)->ticks_more == 0,
	    "a retry counts no CPU time (the rate is per scan)");
	langtab_prune(&tab);
	CHECK(tab.n == 1, "and pruned");
	me->seen = 0;
	langfind_refresh(&f, 1);
	CHECK(nexamined == 1 && !me->seen, "young only: a settled entry is "
	    "not looked at");
	langfind_refresh(&f, 0);
	CHECK(nexamined == 1 && me->seen &&
	    ((struct entry *)me)->ticks_more == 1,
	    "all: seen again, its CPU time counted, not re-examined");

	/* no source: a scan timer; a source: its reports, no timer */
	langfind_discover_sync(&f);
	CHECK(!f.discover && f.scan_timer != NULL && ntimers == 1,
	    "no system profiler reports: the scan timer");
	source = 1;
	langfind_discover_sync(&f);
	CHECK(f.discover && f.scan_timer == NULL && ntimers == 0 &&
	    f.walk_once, "reports: the timer gone, one walk owed for what "
	    "came before");
	langfind_scan(&f);
	CHECK(!f.walk_once && langtab_find(&tab, kpid) != NULL,
	    "the walk owed, once");
	langtab_remove(&tab, langtab_find(&tab, kpid));
	CHECK(langtab_find(&tab, kpid) == NULL, "the child forgotten");
	report_cb(&f, kpid);
	CHECK(langtab_find(&tab, kpid) != NULL &&
	    ((struct entry *)langtab_find(&tab, kpid))->examined == 1,
	    "reported: found and examined");
	CHECK(langfind_report(&f, kpid, &lp) == 0 &&
	    lp == langtab_find(&tab, kpid), "reported again: no change");
	/* one of no interest, its mappings as they were: nothing read */
	lp->state = LANGTAB_IGNORED;
	nexamined = 0;
	CHECK(langfind_report(&f, kpid, &lp) == 0 && nexamined == 0 &&
	    f.spared == 1, "an ignored one reported again: not examined, "
	    "counted as spared");

	langfind_stop(&f);
	CHECK(!f.discover && report_cb == NULL, "stop: no more reports");

	/* rescan_ms 0: the plugin scans at its own times, no timer */
	source = 0;
	langfind_init(&f, &tab, &api, &ctx, &ops_own, &f);
	langfind_discover_sync(&f);
	CHECK(!f.discover && f.scan_timer == NULL && ntimers == 0 &&
	    f.spared == 0, "no reports, rescan_ms 0: no scan timer");
	while (tab.n > 0)
		langtab_remove(&tab, tab.procs[tab.n - 1]);
	langfind_scan(&f);
	CHECK(langtab_find(&tab, kpid) != NULL, "its own scan walks /proc");
	langfind_stop(&f);

	/* a candidate test: the refused are not even read, nor kept */
	while (tab.n > 0)
		langtab_remove(&tab, tab.procs[tab.n - 1]);
	candidate_pid = kpid;
	ncandidate = 0;
	langfind_init(&f, &tab, &api, &ctx, &ops_cand, &f);
	langfind_walk(&f);
	CHECK(tab.n == 1 && langtab_find(&tab, kpid) != NULL && ncandidate > 2,
	    "a candidate test: only the process it takes is kept");
	ncandidate = ncandidate_pid = 0;
	langfind_walk(&f);
	CHECK(tab.n == 1 && ((struct entry *)langtab_find(&tab,
	    kpid))->examined == 1 && ncandidate > 0 && ncandidate_pid == 0,
	    "walked again: the known one is not asked about, nor examined");
	langfind_stop(&f);
	(void)kill(kpid, SIGKILL);
	(void)waitpid(kpid, &status, 0);
	langtab_free(&tab);
	return (testing_done());
}
