/*
 * The Python plugin's process table: which processes are CPython (found
 * by langfind.c: the processes the system profiler reports, or a /proc
 * scan each second), the attach and its outcome, and which are sampled
 * (the top --max-processes by CPU).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "langmaps.h"
#include "py_plugin.h"

static void pyp_retry_cb(void *);

struct pyp_proc *
pyp_find(struct pyp *p, pid_t pid)
{
	return (PYP(langtab_find(&p->tab, pid)));
}

/* The table lets an entry go: the host stops reporting its samples. */
void
pyp_release(void *arg, struct langtab_proc *lp)
{
	struct pyp *p = arg;
	struct pyp_proc *pr = PYP(lp);

	if (pr->watched)
		(void)p->api->sample_watch(p->ctx, lp->pid, 0);
	pyp_walk_set(p, pr, 0);
	py_target_release(&pr->t);
	free(pr);
}

/* The mount namespace of pid: the files its frames name are in it. */
static uint64_t
pyp_mntns(pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	return (stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0);
}

static void
pyp_attach(struct pyp *p, struct pyp_proc *pr, const char *maps, size_t len,
    double age)
{
	int rc;

	rc = py_target_attach_maps(pr->lp.pid, &pr->t, maps, len, pr->reason,
	    sizeof(pr->reason));
	py_discover_comm(pr->lp.pid, pr->comm, sizeof(pr->comm));
	if (rc == 0) {
		pr->lp.state = LANGTAB_ACTIVE;
		pr->mntns = pyp_mntns(pr->lp.pid);
		/* The line executing, in gProfiler's "name (file:line)_[p]"
		 * (issue 13 #5; perf-like: where the time goes). */
		pr->t.line_mode = PY_LINE_CURRENT;
		py_discover_appid(pr->lp.pid, pr->appid, sizeof(pr->appid));
		p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d: Python %d.%d.%d "
		    "in %s", (int)pr->lp.pid, pr->t.ver.major, pr->t.ver.minor,
		    pr->t.ver.micro, pr->t.object);
		return;
	}
	if (rc == -ESRCH) {
		pr->lp.state = LANGTAB_GONE;
		return;
	}
	py_target_release(&pr->t);
	if (rc == -EINPROGRESS) {
		/* the ELF reader's turn was spent: tried again at the next
		 * retry, whatever the process's age (elfread.h) */
		pr->lp.state = LANGTAB_NEW;
		p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d: %s", (int)pr->lp.pid,
		    pr->reason);
		return;
	}
	/* Mid-execve: the new maps but the old comm (a gprofiler child
	 * becoming perfspect's Python), or the interpreter not set up. */
	pr->lp.state = langtab_settle(rc == -ENOTSUP || rc == -ENOENT ?
	    LANGTAB_SKIPPED : LANGTAB_ERROR, age);
	if (pr->lp.state == LANGTAB_NEW)
		p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d (%.1f s old): %s; "
		    "trying again", (int)pr->lp.pid, age, pr->reason);
	else
		p->api->log(p->ctx, pr->lp.state == LANGTAB_SKIPPED ?
		    GP_LOG_DEBUG : GP_LOG_INFO, "pid %d%s: %s",
		    (int)pr->lp.pid, pr->lp.state == LANGTAB_SKIPPED ?
		    " skipped" : "", pr->reason);
}

/* Read the maps once for both the candidate test and the attach. */
static void
pyp_examine(void *arg, struct langtab_proc *lp, double age)
{
	struct pyp *p = arg;
	struct pyp_proc *pr = PYP(lp);
	char *maps;
	size_t len;

	if ((maps = langproc_read_maps(pr->lp.pid, &len)) == NULL)
		/* deferred by the host's budget: tried again */
		pr->lp.state = errno == EAGAIN ? LANGTAB_NEW :
		    LANGTAB_IGNORED;
	else if (!py_discover_candidate_maps(pr->lp.pid, maps, len))
		/* libpython may be mapped in a moment, just after an
		 * execve: the dynamic linker is at work */
		pr->lp.state = langmaps_linking(maps, len) ?
		    langtab_settle(LANGTAB_IGNORED, age) : LANGTAB_IGNORED;
	else
		pyp_attach(p, pr, maps, len, age);
	free(maps);
}

/* Its CPU use, for --max-processes-runtime-profiler. */
static void
pyp_ticks(void *arg, struct langtab_proc *lp, int fresh, double age,
    uint64_t ticks)
{
	(void)arg;
	if (fresh)
		langcpu_first(&PYP(lp)->cpu, age, ticks);
	else
		langcpu_update(&PYP(lp)->cpu, age, ticks);
}

static int
pyp_cmp_rate(const void *a, const void *b)
{
	const struct pyp_proc *x = *(struct pyp_proc *const *)a;
	const struct pyp_proc *y = *(struct pyp_proc *const *)b;

	if (x->cpu.rate != y->cpu.rate)
		return (x->cpu.rate > y->cpu.rate ? -1 : 1);
	return (x->lp.pid < y->lp.pid ? -1 : x->lp.pid > y->lp.pid);
}

/*
 * --max-processes-runtime-profiler N (docs/specs/gprofiler-compat.md §10):
 * sample only the N Python processes that used the most CPU since the previous
 * scan; the choice follows the load from scan to scan.
 */
static void
pyp_choose(struct pyp *p)
{
	struct pyp_proc **act;
	uint32_t i, n = 0;

	for (i = 0; i < p->tab.n; i++)
		PYP_AT(p, i)->chosen = p->max_procs == 0;
	if (p->max_procs == 0)
		return;
	if ((act = calloc(p->tab.n + 1, sizeof(*act))) == NULL) {
		for (i = 0; i < p->tab.n; i++)
			PYP_AT(p, i)->chosen = 1;
		return;
	}
	for (i = 0; i < p->tab.n; i++)
		if (p->tab.procs[i]->state == LANGTAB_ACTIVE)
			act[n++] = PYP_AT(p, i);
	qsort(act, n, sizeof(*act), pyp_cmp_rate);
	for (i = 0; i < n && i < p->max_procs; i++)
		act[i]->chosen = 1;
	if (n > p->max_procs)
		p->api->log(p->ctx, GP_LOG_DEBUG, "sampling the %u busiest of "
		    "%u Python processes (--max-processes-runtime-profiler)",
		    p->max_procs, n);
	free(act);
}

/*
 * Ask the system profiler for reports of the processes sampled, and stop
 * those of the rest.  Sampling follows the reports while a source exists.
 */
static void
pyp_watch_sync(struct pyp *p)
{
	struct pyp_proc *pr;
	uint32_t i;
	int want, rc, src = -1;

	if (!p->subscribed)
		return;
	for (i = 0; i < p->tab.n; i++) {
		pr = PYP_AT(p, i);
		want = pr->lp.state == LANGTAB_ACTIVE && pr->chosen;
		if (want == pr->watched)
			continue;
		rc = p->api->sample_watch(p->ctx, pr->lp.pid, want);
		pr->watched = want;
		pyp_walk_set(p, pr, want && rc == 0);
		if (want)
			src = rc == 0;
	}
	/* a watch call says whether a source reports; ask if none made */
	if (src < 0)
		src = p->api->sample_watch(p->ctx, 0, 0) == 0;
	if (src != p->by_reports)
		p->api->log(p->ctx, GP_LOG_INFO, "%s", src ? "sampling the "
		    "threads the system profiler finds on CPU" : "no system "
		    "profiler reports samples: sampling running threads at "
		    "-f Hz");
	p->by_reports = src;
}

/*
 * The -f Hz timer samples only what no report covers: while a system
 * profiler reports, every sampled process is watched and the loop need
 * not wake at -f Hz at all.
 */
void
pyp_timer_sync(struct pyp *p)
{
	if (p->by_reports == 1) {
		p->api->timer_del(p->sample_timer);
		p->sample_timer = NULL;
	} else if (p->sample_timer == NULL && (p->find.scan_timer != NULL ||
	    p->find.discover))
		p->sample_timer = p->api->timer_add(p->ctx, 1000 / p->freq, 1,
		    pyp_sample_cb, p);
	langtab_retry_sync(&p->tab, p->api, p->ctx, pyp_retry_cb, p);
}

/* Young processes whose attach failed, tried again (langtab.h). */
static void
pyp_retry_cb(void *arg)
{
	struct pyp *p = arg;
	uint32_t n = langtab_count(&p->tab, LANGTAB_ACTIVE);

	langfind_refresh(&p->find, 1);
	if (langtab_count(&p->tab, LANGTAB_ACTIVE) != n) {
		pyp_choose(p);
		pyp_watch_sync(p);
	}
	pyp_timer_sync(p);
}

/* After a scan: the busiest chosen, watched, sampled. */
static void
pyp_scanned(void *arg)
{
	struct pyp *p = arg;

	pyp_choose(p);
	pyp_watch_sync(p);
	pyp_timer_sync(p);
}

void
pyp_scan(struct pyp *p)
{
	langfind_scan(&p->find);
	pyp_scanned(p);
}

/*
 * The system profiler sampled pid (its first sample of the cycle, or of a
 * new image): examined if it is new or re-exec'd; a known one costs a
 * lookup.  A new Python process is watched from now on.
 */
static void
pyp_process_cb(void *arg, int32_t pid)
{
	struct pyp *p = arg;
	struct langtab_proc *lp;

	/* new, replaced, or looked at again and attached (langtab_recheck):
	 * sampled from now, not from the next scan */
	if (p->enabled && langfind_report(&p->find, pid, &lp))
		pyp_scanned(p);
}

static const struct langfind_ops pyp_find_ops = {
	.proc_size = sizeof(struct pyp_proc),
	.rescan_ms = PYP_RESCAN_MS,
	.examine = pyp_examine,
	.ticks = pyp_ticks,
	.report = pyp_process_cb,
	.scanned = pyp_scanned,
};

void
pyp_find_init(struct pyp *p)
{
	langfind_init(&p->find, &p->tab, p->api, p->ctx, &pyp_find_ops, p);
}
