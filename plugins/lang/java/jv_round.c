/*
 * The Java plugin: the round.  A few seconds before each cycle ends, each
 * JVM to ask (see jv_watch.c) is planned its operations (the INFO commands
 * once, a perf map when it needs one), at most JV_MAX_JOBS jattach runs
 * at a time; an answer sets the JVM's appid, metadata or perf map state,
 * a failure its report.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_plugin.h"

static int jv_absorb(struct jv_jvm *, uint32_t, const struct jv_result *);
static void jv_pump(struct jv *);

void
jv_report(struct jv_jvm *j, int kind, const char *reason)
{
	struct jv *p = j->p;

	snprintf(j->reason, sizeof(j->reason), "%s", reason);
	j->rkind = kind;
	/* Rate limit: a JVM's reason is logged once until it changes. */
	if (strcmp(j->logged, j->reason) != 0) {
		p->api->log(p->ctx, GP_LOG_INFO, "pid %d (%s): %s%s",
		    (int)j->pid, j->comm, j->reason, j->skip ?
		    "; not trying again" : "");
		snprintf(j->logged, sizeof(j->logged), "%s", j->reason);
	} else
		p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d: %s", (int)j->pid,
		    j->reason);
}

static void
jv_skip(struct jv_jvm *j, const char *reason)
{
	j->skip = 1;
	j->ops = 0;
	jv_report(j, GP_PID_SKIPPED, reason);
}

/* The combined answer: each part as its own command's; the parts not
 * understood are asked one by one. */
static int
jv_absorb_all(struct jv_jvm *j, const struct jv_result *r)
{
	static const uint32_t ops[] = { JV_OP_VERSION, JV_OP_FLAGS,
	    JV_OP_CMDLINE };
	struct jv_info_parts ip;
	struct jv_result part;
	uint32_t i;

	if (jv_split_info(r->body, r->bodylen, &ip) != 0) {
		j->no_allinfo = 1;
		j->ops |= JV_OP_INFO & ~j->done;
		return (0);
	}
	for (i = 0; i < 3; i++) {
		part = *r;
		part.body = i == 0 ? ip.version : i == 1 ? ip.flags :
		    ip.cmdline;
		part.bodylen = i == 0 ? ip.version_len : i == 1 ?
		    ip.flags_len : ip.cmdline_len;
		if (jv_absorb(j, ops[i], &part) == 0)
			j->done |= ops[i];
		else
			j->no_allinfo = 1;
	}
	j->ops |= JV_OP_INFO & ~j->done;	/* not understood: one by one */
	return (0);
}

/* Parse a successful answer; returns 0 or -EINVAL (unexpected answer). */
static int
jv_absorb(struct jv_jvm *j, uint32_t op, const struct jv_result *r)
{
	struct jv *p = j->p;
	struct jv_cmdline *cl;
	int rc;

	switch (op) {
	case JV_OP_CMDLINE:
		if ((cl = malloc(sizeof(*cl))) == NULL)
			return (-ENOMEM);
		rc = jv_parse_command_line(r->body, r->bodylen, cl);
		if (rc == 0)
			rc = jv_appid_build(cl, p->filters, p->nfilters,
			    j->appid, sizeof(j->appid));
		free(cl);
		return (rc);
	case JV_OP_VERSION:
		return (jv_parse_version(r->body, r->bodylen, j->version,
		    sizeof(j->version)));
	case JV_OP_FLAGS:
		rc = jv_parse_flags(r->body, r->bodylen, j->flags,
		    sizeof(j->flags), &j->fp);
		if (rc == 0 && !j->fp)
			p->api->log(p->ctx, GP_LOG_INFO, "pid %d (%s): started "
			    "without -XX:+PreserveFramePointer: its Java "
			    "stacks will be cut short at JIT frames",
			    (int)j->pid, j->comm);
		return (rc);
	case JV_OP_PERFMAP:
		p->perfmaps++;
		return (0);
	case JV_OP_ALLINFO:
		return (jv_absorb_all(j, r));
	}
	return (-EINVAL);
}

static void
jv_op_failed(struct jv_jvm *j, uint32_t op, const struct jv_result *r)
{
	char why[320];

	if (r->body == NULL && strncmp(r->reason, "JVM error", 9) == 0) {
		/* The JVM answered but refused the command: not transient. */
		if (op == JV_OP_ALLINFO) {
			j->no_allinfo = 1;
			j->ops |= JV_OP_INFO & ~j->done;
			return;
		}
		if (op == JV_OP_PERFMAP) {
			j->perfmap_unsupported = 1;
			snprintf(why, sizeof(why), "Compiler.perfmap refused "
			    "(JDK 17+ needed): %s", r->reason);
			jv_report(j, GP_PID_SKIPPED, why);
		}
		j->done |= op;
		return;
	}
	j->ops = 0;	/* one attempt per cycle */
	if (r->permanent || ++j->fails >= JV_MAX_FAILS)
		jv_skip(j, r->reason);
	else
		jv_report(j, GP_PID_ERROR, r->reason);
}

static void
jv_op_done(void *arg, const struct jv_result *r)
{
	struct jv_jvm *j = arg;
	struct jv *p = j->p;
	uint32_t op = j->job_op;

	j->job = NULL;
	p->running--;
	if (r->ok && jv_absorb(j, op, r) == 0) {
		j->done |= op & JV_OP_INFO;
		if (op == JV_OP_PERFMAP)
			j->fails = 0;
	} else if (r->ok) {
		/* An answer we do not understand: do not ask again. */
		j->done |= op & JV_OP_INFO;
		p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d: unexpected answer "
		    "to op %#x", (int)j->pid, op);
	} else
		jv_op_failed(j, op, r);
	if (p->stopping) {
		if (p->running == 0)
			p->api->stop_done(p->ctx);
		return;
	}
	jv_pump(p);
}

static const char *const *
jv_op_argv(uint32_t op)
{
	static const char *const cmdline[] = { "jcmd", "VM.command_line",
	    NULL };
	static const char *const version[] = { "jcmd", "VM.version", NULL };
	static const char *const flags[] = { "jcmd", "VM.flags", NULL };
	static const char *const perfmap[] = { "jcmd", "Compiler.perfmap",
	    NULL };
	static const char *const allinfo[] = { "jcmd",
	    "VM.version\nVM.flags\nVM.command_line", NULL };

	switch (op) {
	case JV_OP_ALLINFO:
		return (allinfo);
	case JV_OP_CMDLINE:
		return (cmdline);
	case JV_OP_VERSION:
		return (version);
	case JV_OP_FLAGS:
		return (flags);
	default:
		return (perfmap);
	}
}

static void
jv_start_op(struct jv *p, struct jv_jvm *j)
{
	uint32_t op = j->ops & -j->ops;	/* lowest bit first */
	char why[256];

	j->ops &= ~op;
	j->job_op = op;
	if (op == JV_OP_PERFMAP)
		p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d: asking for its "
		    "perf map", (int)j->pid);
	j->job = jv_job_start(p->ctx, p->api, p->jattach, j->pid,
	    jv_op_argv(op), p->timeout_ms, jv_op_done, j);
	if (j->job == NULL) {
		snprintf(why, sizeof(why), "cannot run %.160s: %s", p->jattach,
		    strerror(errno));
		j->ops = 0;
		jv_report(j, GP_PID_ERROR, why);
		return;
	}
	p->running++;
}

/* Start queued operations, JV_MAX_JOBS at a time, one per JVM. */
static void
jv_pump(struct jv *p)
{
	uint32_t i;

	for (i = 0; i < p->njvms && p->running < JV_MAX_JOBS; i++) {
		struct jv_jvm *j = p->jvms[i];

		if (j->ops != 0 && j->job == NULL && !j->gone && !j->skip)
			jv_start_op(p, j);
	}
}

/* Decide what to ask a JVM this cycle. */
static void
jv_plan(struct jv *p, struct jv_jvm *j)
{
	char why[256];
	int permanent;

	if (j->gone || j->skip || j->job != NULL)
		return;
	j->rkind = JV_NO_REPORT;	/* a new cycle, a new verdict */
	/* Not sampled: no JIT frame of it to name, nothing to ask. */
	if (p->find.discover && !j->sampled)
		return;
	if (p->jattach[0] == '\0') {
		jv_report(j, GP_PID_SKIPPED, "jattach not found: install the "
		    "jattach package for Java symbols");
		return;
	}
	if (jv_proc_attach_safe(j->pid, why, sizeof(why), &permanent) != 0) {
		if (permanent)
			jv_skip(j, why);
		else
			jv_report(j, GP_PID_SKIPPED, why);
		return;
	}
	j->ops = JV_OP_INFO & ~j->done;
	if (j->ops == JV_OP_INFO && !j->no_allinfo)
		j->ops = JV_OP_ALLINFO;
	if (j->perfmap_unsupported)
		return;
	/* Watched all along and every frame named: the map we have
	 * covers its samples (an idle JVM's VM threads).  No report at
	 * all (its one sample was the one that found it, before the
	 * watch) judges only a JVM that hardly ran since the last round. */
	if (j->judged && !j->needmap && (j->reports > 0 ||
	    j->cpu.rate < JV_IDLE_RATE)) {
		p->spared++;
		p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d: every frame of its "
		    "%u samples named: no new perf map", (int)j->pid,
		    j->reports);
		return;
	}
	j->ops |= JV_OP_PERFMAP;
}

static int
jv_cmp_rate(const void *a, const void *b)
{
	const struct jv_jvm *x = *(struct jv_jvm *const *)a;
	const struct jv_jvm *y = *(struct jv_jvm *const *)b;

	if (x->cpu.rate != y->cpu.rate)
		return (x->cpu.rate > y->cpu.rate ? -1 : 1);
	return (x->pid < y->pid ? -1 : x->pid > y->pid);
}

/*
 * Plan this cycle's requests; with --max-processes-runtime-profiler N
 * (docs/specs/gprofiler-compat.md §10) only for the N JVMs that used the most
 * CPU since the previous round: the others' JIT frames stay unnamed this cycle.
 */
static void
jv_plan_round(struct jv *p)
{
	struct jv_jvm **v;
	uint32_t i, n = 0;

	if (p->max_procs == 0 || p->njvms <= p->max_procs ||
	    (v = calloc(p->njvms, sizeof(*v))) == NULL) {
		for (i = 0; i < p->njvms; i++)
			jv_plan(p, p->jvms[i]);
		return;
	}
	for (i = 0; i < p->njvms; i++)
		if (!p->jvms[i]->gone && !p->jvms[i]->skip &&
		    (!p->find.discover || p->jvms[i]->sampled))
			v[n++] = p->jvms[i];
	qsort(v, n, sizeof(*v), jv_cmp_rate);
	for (i = 0; i < n && i < p->max_procs; i++)
		jv_plan(p, v[i]);
	if (n > p->max_procs)
		p->api->log(p->ctx, GP_LOG_DEBUG, "perf maps of the %u busiest "
		    "of %u JVMs (--max-processes-runtime-profiler)",
		    p->max_procs, n);
	free(v);
}

static void
jv_round_cb(void *arg)
{
	struct jv *p = arg;

	p->api->timer_del(p->round_timer);
	p->round_timer = NULL;
	p->rounds++;
	langfind_discover_sync(&p->find);
	jv_pending_flush(p);
	jv_scan(p);
	jv_plan_round(p);
	jv_pump(p);
}

void
jv_arm(struct jv *p)
{
	p->api->timer_del(p->round_timer);
	p->round_timer = p->api->timer_add(p->ctx, p->round_ms, 0,
	    jv_round_cb, p);
}
