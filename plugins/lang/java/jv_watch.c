/*
 * The Java plugin: which JVMs.
 *
 * Which JVMs: with a system profiler that reports the processes it samples
 * (ABI 1.4), only those it sampled this cycle are asked for a perf map (a
 * JVM that did not run has no frame to name), and JVMs are found from the
 * reports instead of two walks of /proc a cycle, each reading the maps of
 * every process that is not a JVM.  A JVM sampled only after the round
 * (the last JV_LEAD_MS of a cycle) waits for the next cycle's.
 *
 * Which of those: a sampled JVM is watched (host API sample_watch, ABI
 * 1.3) and asked for a new map only when one of its samples this cycle
 * has a user frame the symbolizer could not name ("[unknown]": JIT code
 * the map we have does not cover).  An idle JVM's VM threads wake every
 * few tens of milliseconds and get sampled in every cycle, all in libjvm
 * and libc: before, each was asked for its map every cycle (a jattach
 * run, a few milliseconds of CPU, and the JVM's safepoint to write it)
 * for no frame at all.  A JVM is watched until its first unnamed frame or
 * JV_WATCH_MAX reports in a cycle, so a busy one wakes us a bounded
 * number of times a cycle.  Without sample reports (no system profiler
 * reporting them), every sampled JVM is asked, as before.
 *
 * The processes are found and told apart by the runtimes' common finder
 * (langfind.h): the reports, or a walk of /proc at each round and
 * snapshot without them; identity, --min-duration and the PID filter;
 * the vanished forgotten.  A JVM's record (its jattach runs, answers and
 * reports) hangs off its entry and outlives it while a run points at it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_plugin.h"
#include "langproc.h"

static struct jv_jvm *
jv_find(struct jv *p, pid_t pid)
{
	uint32_t i;

	for (i = 0; i < p->njvms; i++)
		if (p->jvms[i]->pid == pid)
			return (p->jvms[i]);
	return (NULL);
}

/* Sample reports of j on or off; on only while a source reports them. */
static void
jv_watch(struct jv *p, struct jv_jvm *j, int on)
{
	if (!p->stacks || j->watched == on)
		return;
	if (p->api->sample_watch(p->ctx, (int32_t)j->pid, on) == 0 && on) {
		j->watched = 1;
		j->judged = 1;
		return;
	}
	if (on)	/* no source: the watch is not kept */
		(void)p->api->sample_watch(p->ctx, (int32_t)j->pid, 0);
	j->watched = 0;
}

/*
 * An entry of the table goes (the process exited, exec'd or its PID was
 * reused; or a reset): its JVM's record goes with it once no jattach run
 * points at it (jv_prune).
 */
static void
jv_proc_release(void *arg, struct langtab_proc *lp)
{
	struct jv_proc *e = (struct jv_proc *)lp;

	(void)arg;
	if (e->jvm != NULL)
		e->jvm->gone = 1;
	free(e);
}

/* Its CPU time at each look: a JVM's rate ranks it for
 * --max-processes-runtime-profiler. */
static void
jv_ticks(void *arg, struct langtab_proc *lp, int fresh, double age,
    uint64_t ticks)
{
	struct jv_proc *e = (struct jv_proc *)lp;

	(void)arg;
	(void)fresh;
	e->ticks = ticks;
	if (e->jvm != NULL)
		langcpu_update(&e->jvm->cpu, age < 0 ? 0 : age, ticks);
}

/*
 * Whether a process found (new, exec'd, or due again) is a JVM: libjvm
 * mapped.  One that is not is remembered by its identity (start time and
 * executable: a wrapper that execs java is a new process) while it runs,
 * and its maps -- up to JV_MAPS_MAX of text the kernel writes for us --
 * are read again only when its virtual size changed, at most once a
 * minute at length (langtab_due: libjvm may still be loaded late, by an
 * application that embeds a JVM).  Before, each process sampled in a
 * cycle that was not a JVM had its maps read again in every cycle.
 */
static void
jv_examine(void *arg, struct langtab_proc *lp, double age)
{
	struct jv *p = arg;
	struct jv_proc *e = (struct jv_proc *)lp;
	struct jv_jvm *j;
	int rc;

	/* full, or its maps deferred by the host's budget: not an answer,
	 * asked again at the next look */
	lp->state = LANGTAB_NEW;
	if (p->njvms >= JV_MAX_JVMS || (rc = jv_proc_is_jvm(lp->pid)) ==
	    -EAGAIN)
		return;
	if (rc == 0) {
		lp->state = LANGTAB_IGNORED;
		return;
	}
	if ((j = calloc(1, sizeof(*j))) == NULL)
		return;
	j->p = p;
	j->pid = lp->pid;
	j->rkind = JV_NO_REPORT;
	langcpu_first(&j->cpu, age < 0 ? 0 : age, e->ticks);
	if (langproc_comm(lp->pid, j->comm, sizeof(j->comm)) != 0 ||
	    j->comm[0] == '\0')
		snprintf(j->comm, sizeof(j->comm), "java");
	e->jvm = j;
	lp->state = LANGTAB_ACTIVE;
	p->jvms[p->njvms++] = j;
	p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d (%s): JVM found",
	    (int)j->pid, j->comm);
}

/* A JVM's record goes only when no jattach run still points at it. */
void
jv_prune(struct jv *p)
{
	uint32_t i;

	for (i = 0; i < p->njvms;) {
		struct jv_jvm *j = p->jvms[i];

		if (j->gone && j->job == NULL) {
			jv_watch(p, j, 0);
			free(j);
			p->jvms[i] = p->jvms[--p->njvms];
		} else
			i++;
	}
}

/* The known processes checked (with reports) or /proc walked (without),
 * the vanished forgotten. */
void
jv_scan(struct jv *p)
{
	langfind_scan(&p->find);
	jv_prune(p);
}

/* pid was sampled: if it is a JVM, one to consider this round. */
static void
jv_sampled(struct jv *p, pid_t pid)
{
	struct langtab_proc *lp;
	struct jv_jvm *j;

	(void)langfind_report(&p->find, (int32_t)pid, &lp);
	if (lp == NULL || (j = ((struct jv_proc *)lp)->jvm) == NULL ||
	    j->gone)
		return;
	j->sampled = 1;
	if (!j->needmap)
		jv_watch(p, j, 1);
}

void
jv_pending_flush(struct jv *p)
{
	uint32_t i;

	p->api->timer_del(p->pending_timer);
	p->pending_timer = NULL;
	for (i = 0; i < p->npending; i++)
		jv_sampled(p, p->pending[i]);
	p->npending = 0;
}

static void
jv_pending_cb(void *arg)
{
	jv_pending_flush(arg);
}

/*
 * The system profiler sampled pid (its first sample of the cycle, or of a
 * new image): a JVM to ask for a perf map this round.  A known JVM is
 * marked now; any other process is examined a second later (or at the
 * round, if sooner).
 */
static void
jv_process_cb(void *arg, int32_t pid)
{
	struct jv *p = arg;
	struct jv_jvm *j;
	uint32_t i;

	if (!p->enabled || p->stopping)
		return;
	if (!p->find.discover)	/* a source that started after us */
		langfind_discover_sync(&p->find);
	if (((j = jv_find(p, (pid_t)pid)) != NULL && !j->gone) ||
	    p->pending == NULL) {
		jv_sampled(p, (pid_t)pid);
		return;
	}
	for (i = 0; i < p->npending; i++)
		if (p->pending[i] == (pid_t)pid)
			return;
	if (p->npending == JV_PENDING_MAX)
		jv_pending_flush(p);
	p->pending[p->npending++] = (pid_t)pid;
	if (p->pending_timer == NULL &&
	    (p->pending_timer = p->api->timer_add(p->ctx, JV_PENDING_MS, 0,
	    jv_pending_cb, p)) == NULL)
		jv_pending_flush(p);
}

/*
 * A sample of a watched JVM, with its frames as the symbolizer names them
 * now: a frame it could not name is JIT code our map does not cover (or
 * an address it cannot place; asking then costs what it did before).
 */
void
jv_sample_cb(void *arg, int32_t pid, int32_t tid, uint64_t count,
    const struct gp_sample_stack *st)
{
	struct jv *p = arg;
	struct jv_jvm *j;
	uint32_t i;

	(void)tid;
	(void)count;
	if (!p->enabled || p->stopping || (j = jv_find(p, (pid_t)pid)) ==
	    NULL || !j->watched)
		return;
	j->reports++;
	if (st == NULL)
		j->needmap = 1;	/* no frames: cannot tell */
	else
		for (i = 0; i < st->nuser && !j->needmap; i++)
			if (st->user[i] == NULL ||
			    strcmp(st->user[i], "[unknown]") == 0)
				j->needmap = 1;
	if (j->needmap || j->reports >= JV_WATCH_MAX)
		jv_watch(p, j, 0);	/* judged: no more wake-ups */
}

static const struct langfind_ops jv_find_ops = {
	.proc_size = sizeof(struct jv_proc),
	.rescan_ms = 0,		/* scanned at each round and snapshot */
	.examine = jv_examine,
	.ticks = jv_ticks,
	.report = jv_process_cb,
};

int
jv_find_init(struct jv *p)
{
	if (langtab_init(&p->tab, jv_proc_release, p) != 0)
		return (-ENOMEM);
	langfind_init(&p->find, &p->tab, p->api, p->ctx, &jv_find_ops, p);
	return (0);
}
