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
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "jv_plugin.h"

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
 * Whether pid, started at start, is a JVM.  One found not to be is
 * remembered by its identity (start time and executable: a wrapper that
 * execs java is a new process) while it is seen (JV_OTHER_KEEP), and its maps
 * -- up to JV_MAPS_MAX of text the kernel writes for us -- are read again
 * only when its virtual size changed, at most once a minute at length
 * (langtab_recheck: libjvm may still be loaded late, by an application
 * that embeds a JVM).  Before, each process sampled in a cycle that was
 * not a JVM had its maps read again in every cycle.
 */
static int
jv_is_jvm(struct jv *p, pid_t pid, uint64_t start, uint64_t vsize)
{
	struct langtab_proc *lp = langtab_find(&p->others, pid);
	uint64_t exe_id = jv_proc_exe_id(pid);
	double uptime = langtab_uptime();

	if (langtab_same(&p->others, &lp, start, exe_id)) {
		lp->seen = JV_OTHER_KEEP;
		if (!langtab_recheck(lp, vsize, uptime)) {
			p->maps_spared++;
			return (0);
		}
	}
	switch (jv_proc_is_jvm(pid)) {
	case 1:
		if (lp != NULL)
			langtab_remove(&p->others, lp);
		return (1);
	case -EAGAIN:
		return (0);	/* not remembered: asked again */
	}
	if (lp == NULL && (lp = langtab_new(&p->others, sizeof(*lp), pid,
	    start, exe_id)) != NULL) {
		lp->state = LANGTAB_IGNORED;
		lp->seen = JV_OTHER_KEEP;
		langtab_looked(lp, vsize, uptime);
	}
	return (0);
}

/*
 * At each snapshot: a process not seen for JV_OTHER_KEEP snapshots is
 * forgotten.  Not at the first: one sampled late in a cycle is reported
 * when the system profiler drains its samples, and examined a second
 * later (JV_PENDING_MS), after the next snapshot.
 */
void
jv_others_age(struct jv *p)
{
	struct langtab_proc *lp;
	uint32_t i;

	for (i = 0; i < p->others.n;) {
		lp = p->others.procs[i];
		if (lp->seen-- > 0)
			i++;
		else
			langtab_remove(&p->others, lp);	/* the last moves to i */
	}
}

/* Consider one /proc entry: a new JVM, a reused PID, or a known one. */
static void
jv_scan_pid(struct jv *p, pid_t pid)
{
	struct jv_jvm *j = jv_find(p, pid);
	uint64_t start, ticks, vsize;
	double age;

	if (jv_proc_stat(pid, &start, &ticks, &vsize) != 0)
		return;
	if (j != NULL && j->starttime == start) {
		j->seen = 1;
		age = jv_proc_age(start);
		langcpu_update(&j->cpu, age, ticks);
		return;
	}
	if (j != NULL)
		j->gone = 1;	/* PID reused */
	if (!p->api->pid_wanted(p->ctx, (int32_t)pid) ||
	    p->njvms >= JV_MAX_JVMS || !jv_is_jvm(p, pid, start, vsize))
		return;
	age = jv_proc_age(start);	/* a JVM: worth reading uptime */
	if (p->min_duration > 0 && age < p->min_duration)
		return;
	if ((j = calloc(1, sizeof(*j))) == NULL)
		return;
	j->p = p;
	j->pid = pid;
	j->starttime = start;
	j->seen = 1;
	j->rkind = JV_NO_REPORT;
	langcpu_first(&j->cpu, age, ticks);
	jv_proc_comm(pid, j->comm, sizeof(j->comm));
	p->jvms[p->njvms++] = j;
	p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d (%s): JVM found",
	    (int)pid, j->comm);
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

/* JVMs from reports: the known ones checked, no walk of /proc. */
static void
jv_refresh(struct jv *p)
{
	struct jv_jvm *j;
	uint64_t start, ticks;
	double age;
	uint32_t i;

	for (i = 0; i < p->njvms; i++) {
		j = p->jvms[i];
		if (j->gone)
			continue;
		if (jv_proc_stat(j->pid, &start, &ticks, NULL) != 0 ||
		    start != j->starttime) {
			j->gone = 1;
			continue;
		}
		age = jv_proc_age(start);
		langcpu_update(&j->cpu, age, ticks);
	}
	jv_prune(p);
}

void
jv_scan(struct jv *p)
{
	struct dirent *de;
	uint32_t i;
	char *end;
	long pid;
	DIR *d;

	if (p->discover) {
		jv_refresh(p);
		return;
	}
	if ((d = opendir("/proc")) == NULL)
		return;
	for (i = 0; i < p->njvms; i++)
		p->jvms[i]->seen = 0;
	while ((de = readdir(d)) != NULL) {
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0 || pid > INT_MAX)
			continue;
		jv_scan_pid(p, (pid_t)pid);
	}
	closedir(d);
	for (i = 0; i < p->njvms; i++)
		if (!p->jvms[i]->seen)
			p->jvms[i]->gone = 1;
	jv_prune(p);
}

/* pid was sampled: if it is a JVM, one to consider this round. */
static void
jv_sampled(struct jv *p, pid_t pid)
{
	uint32_t i;

	jv_scan_pid(p, pid);
	for (i = 0; i < p->njvms; i++)
		if (p->jvms[i]->pid == pid && !p->jvms[i]->gone) {
			p->jvms[i]->sampled = 1;
			if (!p->jvms[i]->needmap)
				jv_watch(p, p->jvms[i], 1);
		}
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
	p->discover = 1;	/* a source, if one that started after us */
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

/* Whether a system profiler reports processes now (it may start after
 * us): asked again each round. */
void
jv_discover_sync(struct jv *p)
{
	if (GP_API_HAS(p->api, process_subscribe))
		p->discover = p->api->process_subscribe(p->ctx, jv_process_cb,
		    p) == 0;
}
