/*
 * The Java process plugin.  It emits no stacks: perf samples the JVMs and
 * names JIT frames `_[j]` from /tmp/perf-<nspid>.map, and this plugin makes
 * each JVM (re)write that map once per cycle (`jattach PID jcmd
 * Compiler.perfmap`), a few seconds before the cycle ends so that methods
 * compiled during the cycle resolve when perf symbolizes at the snapshot.
 * It also sets the Java appid (VM.command_line) and application metadata
 * (VM.version, VM.flags), and reports JVMs it could not attach to as
 * "[Profiling skipped: ...]" / "[Profiling error: ...]".
 *
 * Safety: one jattach at a time per JVM, one attempt per cycle, every run
 * bounded (--java-jattach-timeout, then SIGTERM/SIGKILL of jattach), no
 * attach to a JVM that would die of SIGQUIT or that disabled attaching
 * (jv_proc.c), and a JVM that keeps failing is left alone for the rest of
 * the run.
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
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "jv_parse.h"
#include "jv_proc.h"

/* The round starts this long before the cycle ends: a JVM's usual answer
 * (well under a second) lands in the cycle's profile, and a run up to
 * JV_LEAD_CAP_MS too; a longer --java-jattach-timeout lets a slow JVM
 * answer for the next cycle rather than move every round earlier. */
#define JV_LEAD_CAP_MS	5000
#define JV_LEAD_MS	(JV_LEAD_CAP_MS + 1000)
#define JV_MAX_JOBS	4	/* jattach children at once */
#define JV_MAX_JVMS	1024
#define JV_MAX_FAILS	3	/* consecutive failed cycles: give up */
#define JV_MAX_FILTERS	16
#define JV_WATCH_MAX	64	/* sample reports judged a cycle, per JVM */
#define JV_IDLE_RATE	1.0	/* CPU ticks a second (1% of a CPU) */
#define JV_PENDING_MAX	4096	/* reported processes not yet examined */
#define JV_PENDING_MS	1000

/*
 * What to ask a JVM, in this order.  JV_OP_ALLINFO asks the three INFO
 * commands in one jattach run (jv_split_info): a run costs the agent a
 * fork and jattach an exec, a few milliseconds of CPU each, and a JVM met
 * for the first time took three; the commands one by one are the
 * fallback when the combined answer is refused or not understood.
 */
#define JV_OP_ALLINFO	0x1u
#define JV_OP_CMDLINE	0x2u
#define JV_OP_VERSION	0x4u
#define JV_OP_FLAGS	0x8u
#define JV_OP_PERFMAP	0x10u
#define JV_OP_INFO	(JV_OP_CMDLINE | JV_OP_VERSION | JV_OP_FLAGS)

#define JV_NO_REPORT	(-1)

struct jv;

struct jv_jvm {
	struct jv	*p;
	pid_t		 pid;
	uint64_t	 starttime;
	uint64_t	 cpu_ticks;	/* utime + stime at the last scan */
	double		 cpu_at;	/* its age then, seconds */
	double		 cpu_rate;	/* ticks a second since the scan before */
	int		 seen, gone;
	int		 sampled;	/* reported by the system profiler this
					 * cycle */
	int		 watched;	/* sample reports on (sample_watch) */
	int		 judged;	/* watched during this cycle */
	int		 needmap;	/* a sample with an unnamed frame */
	uint32_t	 reports;	/* sample reports this cycle */
	int		 skip;		/* for good: report reason each cycle */
	char		 comm[64];
	char		 reason[256];	/* reported at the next snapshot */
	int		 rkind;		/* GP_PID_* or JV_NO_REPORT */
	char		 logged[256];	/* last reason logged at INFO */
	uint32_t	 ops;		/* still to run this cycle */
	uint32_t	 done;		/* JV_OP_INFO answered (or refused) */
	struct jv_job	*job;
	uint32_t	 job_op;
	uint32_t	 fails;
	int		 perfmap_unsupported;
	int		 no_allinfo;	/* ask the INFO commands one by one */
	int		 fp;		/* -XX:+PreserveFramePointer */
	char		 appid[JV_APPID_MAX];
	char		 version[256];
	char		 flags[JV_FLAGS_MAX];
};

struct jv {
	struct gp_plugin_ctx	 *ctx;
	const struct gp_host_api *api;
	int			  enabled, stopping;
	int			  discover;	/* JVMs from the host's reports */
	int			  stacks;	/* sample reports subscribed */
	char			  jattach[PATH_MAX];
	regex_t			  filters[JV_MAX_FILTERS];
	size_t			  nfilters;
	double			  min_duration;
	uint32_t		  max_procs;	/* top N by CPU; 0: all */
	uint32_t		  timeout_ms;	/* one jattach run */
	uint64_t		  round_ms;
	struct gp_timer		 *round_timer;
	struct jv_jvm		**jvms;
	uint32_t		  njvms;
	/* Reported processes examined a second later: most of those a
	 * busy host starts (compilers, shells) are gone by then, and an
	 * exited process costs one failed open instead of its stat and
	 * maps. */
	pid_t			 *pending;
	uint32_t		  npending;
	struct gp_timer		 *pending_timer;
	uint32_t		  running;
	uint64_t		  rounds, perfmaps, spared;
};

static const struct gp_option jv_options[] = {
	{ "java-mode", GP_OPT_ENUM, 0, "perfmap", 0, 0,
	    "perfmap|ap|disabled|none",
	    "Java: perfmap (ask each JVM for its JIT perf map every cycle so "
	    "perf names Java frames; 'ap' is accepted as a synonym) or "
	    "disabled" },
	/* gProfiler's positive_integer: no upper bound (clamped to a day) */
	{ "java-jattach-timeout", GP_OPT_INT, 0, "30", 1,
	    0x7fffffffffffffffLL, NULL,
	    "seconds one jattach run may take before it is killed and the "
	    "JVM reported (gProfiler's default, 30)" },
};

static const char *const jv_jattach_paths[] = {
	"/usr/bin/jattach", "/usr/local/bin/jattach",
	"/usr/lib/gprofiler/jattach", NULL,
};

static void	jv_pump(struct jv *);

static void
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

/* Consider one /proc entry: a new JVM, a reused PID, or a known one. */
static void
jv_scan_pid(struct jv *p, pid_t pid)
{
	struct jv_jvm *j = jv_find(p, pid);
	uint64_t start, ticks;
	double age;

	if (jv_proc_starttime(pid, &start, &ticks) != 0)
		return;
	if (j != NULL && j->starttime == start) {
		j->seen = 1;
		age = jv_proc_age(start);
		if (age > j->cpu_at && ticks >= j->cpu_ticks)
			j->cpu_rate = (double)(ticks - j->cpu_ticks) /
			    (age - j->cpu_at);
		j->cpu_ticks = ticks;
		j->cpu_at = age;
		return;
	}
	if (j != NULL)
		j->gone = 1;	/* PID reused */
	if (!p->api->pid_wanted(p->ctx, (int32_t)pid) ||
	    p->njvms >= JV_MAX_JVMS || !jv_proc_is_jvm(pid))
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
	/* Until a second scan: its average over its life. */
	j->cpu_ticks = ticks;
	j->cpu_at = age;
	j->cpu_rate = age > 0 ? (double)ticks / age : 0;
	jv_proc_comm(pid, j->comm, sizeof(j->comm));
	p->jvms[p->njvms++] = j;
	p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d (%s): JVM found",
	    (int)pid, j->comm);
}

/* A JVM's record goes only when no jattach run still points at it. */
static void
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
		if (jv_proc_starttime(j->pid, &start, &ticks) != 0 ||
		    start != j->starttime) {
			j->gone = 1;
			continue;
		}
		age = jv_proc_age(start);
		if (age > j->cpu_at && ticks >= j->cpu_ticks)
			j->cpu_rate = (double)(ticks - j->cpu_ticks) /
			    (age - j->cpu_at);
		j->cpu_ticks = ticks;
		j->cpu_at = age;
	}
	jv_prune(p);
}

static void
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

static int	jv_absorb(struct jv_jvm *, uint32_t, const struct jv_result *);

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
	if (p->discover && !j->sampled)
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
	    j->cpu_rate < JV_IDLE_RATE)) {
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

	if (x->cpu_rate != y->cpu_rate)
		return (x->cpu_rate > y->cpu_rate ? -1 : 1);
	return (x->pid < y->pid ? -1 : x->pid > y->pid);
}

/*
 * Plan this cycle's requests; with --max-processes-runtime-profiler N
 * (gprofiler-compat §10) only for the N JVMs that used the most CPU since
 * the previous round: the others' JIT frames stay unnamed this cycle.
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
		    (!p->discover || p->jvms[i]->sampled))
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

static void
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
static void
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
static void
jv_discover_sync(struct jv *p)
{
	if (GP_API_HAS(p->api, process_subscribe))
		p->discover = p->api->process_subscribe(p->ctx, jv_process_cb,
		    p) == 0;
}

static void
jv_round_cb(void *arg)
{
	struct jv *p = arg;

	p->api->timer_del(p->round_timer);
	p->round_timer = NULL;
	p->rounds++;
	jv_discover_sync(p);
	jv_pending_flush(p);
	jv_scan(p);
	jv_plan_round(p);
	jv_pump(p);
}

static void
jv_arm(struct jv *p)
{
	p->api->timer_del(p->round_timer);
	p->round_timer = p->api->timer_add(p->ctx, p->round_ms, 0,
	    jv_round_cb, p);
}

static void
jv_deliver(struct jv *p, struct gp_snapshot *snap, struct jv_jvm *j)
{
	const struct gp_host_api *api = p->api;
	struct gp_json *md;

	if (j->appid[0] != '\0')
		api->snapshot_set_appid(snap, j->pid, j->appid);
	if ((j->done & (JV_OP_VERSION | JV_OP_FLAGS)) != 0 &&
	    (md = api->json_new()) != NULL) {
		if (j->version[0] != '\0')
			api->json_set_string(md, "java_version", j->version);
		else
			api->json_set_null(md, "java_version");
		api->json_set_null(md, "libjvm_elfid");
		if (j->flags[0] != '\0')
			api->json_set_string(md, "jvm_flags", j->flags);
		else
			api->json_set_null(md, "jvm_flags");
		api->snapshot_set_app_metadata(snap, j->pid, md);
	}
	if (j->rkind != JV_NO_REPORT)
		api->snapshot_pid_error(snap, j->pid, j->comm, j->rkind,
		    j->reason);
}

static int
jv_snapshot(void *priv, struct gp_snapshot *snap)
{
	struct jv *p = priv;
	uint32_t i;

	if (!p->enabled) {
		p->api->snapshot_done(snap, 0, NULL);
		return (0);
	}
	jv_scan(p);
	for (i = 0; i < p->njvms; i++) {
		struct jv_jvm *j = p->jvms[i];

		/* Never wait for a JVM: what is still running is late. */
		if (j->job != NULL && !j->gone) {
			jv_job_cancel(j->job, "jattach still running when the "
			    "cycle ended");
			jv_report(j, GP_PID_ERROR, "jattach still running "
			    "when the cycle ended");
		}
		j->ops = 0;
		j->sampled = 0;
		j->needmap = 0;
		j->reports = 0;
		j->judged = j->watched;
		if (!j->gone)
			jv_deliver(p, snap, j);
		if (!j->skip)
			j->rkind = JV_NO_REPORT;
	}
	p->api->log(p->ctx, GP_LOG_DEBUG, "snapshot: %u JVMs, %llu perf maps "
	    "written in %llu rounds, %llu not asked for (every frame named)",
	    p->njvms, (unsigned long long)p->perfmaps,
	    (unsigned long long)p->rounds, (unsigned long long)p->spared);
	jv_arm(p);
	p->api->snapshot_done(snap, 0, NULL);
	return (0);
}

static void
jv_abandon(void *priv, struct gp_snapshot *snap)
{
	/* snapshot() answers before returning: nothing is pending. */
	(void)priv;
	(void)snap;
}

static void
jv_filters_free(struct jv *p)
{
	while (p->nfilters > 0)
		regfree(&p->filters[--p->nfilters]);
}

/*
 * --app-id-args-filter values arrive ','-joined (a repeatable option).
 * Compile them; on error write why into err.
 */
static int
jv_filters_compile(struct jv *p, char *err, size_t errlen)
{
	const char *v = p->api->option_get(p->ctx, "app-id-args-filter");
	char *copy, *s, *tok, msg[128];
	int rc = 0, e;

	jv_filters_free(p);
	if (v == NULL || *v == '\0')
		return (0);
	if ((copy = strdup(v)) == NULL)
		return (-ENOMEM);
	for (s = copy; (tok = strsep(&s, ",")) != NULL;) {
		if (*tok == '\0')
			continue;
		if (p->nfilters == JV_MAX_FILTERS) {
			snprintf(err, errlen, "--app-id-args-filter: at most "
			    "%d filters", JV_MAX_FILTERS);
			rc = -EINVAL;
			break;
		}
		if ((e = regcomp(&p->filters[p->nfilters], tok,
		    REG_EXTENDED | REG_NOSUB)) != 0) {
			regerror(e, &p->filters[p->nfilters], msg, sizeof(msg));
			snprintf(err, errlen, "--app-id-args-filter: \"%s\" is "
			    "not a valid regular expression: %s", tok, msg);
			rc = -EINVAL;
			break;
		}
		p->nfilters++;
	}
	free(copy);
	if (rc != 0)
		jv_filters_free(p);
	return (rc);
}

static int
jv_check(void *priv, char *err, uint32_t errlen)
{
	struct jv *p = priv;
	int rc = jv_filters_compile(p, err, errlen);

	jv_filters_free(p);
	return (rc);
}

static void
jv_find_jattach(struct jv *p)
{
	const char *env = getenv("GP_JATTACH");
	size_t i;

	p->jattach[0] = '\0';
	/* A packaging and test override; must be absolute. */
	if (env != NULL && env[0] == '/' && access(env, X_OK) == 0) {
		snprintf(p->jattach, sizeof(p->jattach), "%s", env);
		return;
	}
	for (i = 0; jv_jattach_paths[i] != NULL; i++)
		if (access(jv_jattach_paths[i], X_OK) == 0) {
			snprintf(p->jattach, sizeof(p->jattach), "%s",
			    jv_jattach_paths[i]);
			return;
		}
}

static void
jv_reset(struct jv *p)
{
	uint32_t i;

	p->api->timer_del(p->round_timer);
	p->round_timer = NULL;
	p->api->timer_del(p->pending_timer);
	p->pending_timer = NULL;
	p->npending = 0;
	if (GP_API_HAS(p->api, process_subscribe))
		(void)p->api->process_subscribe(p->ctx, NULL, NULL);
	p->discover = 0;
	for (i = 0; i < p->njvms; i++)
		p->jvms[i]->gone = 1;
	jv_prune(p);
	if (p->stacks)
		(void)p->api->sample_subscribe_stack(p->ctx, NULL, NULL);
	p->stacks = 0;
}

static int
jv_start(void *priv)
{
	struct jv *p = priv;
	const char *mode = p->api->option_get(p->ctx, "java-mode");
	char err[256];
	int64_t d;

	jv_reset(p);
	p->stopping = 0;
	p->enabled = mode == NULL || (strcmp(mode, "disabled") != 0 &&
	    strcmp(mode, "none") != 0);
	if (!p->enabled)
		return (0);
	if (jv_filters_compile(p, err, sizeof(err)) != 0)
		p->api->log(p->ctx, GP_LOG_WARN, "%s; no filters used", err);
	p->min_duration = (double)p->api->option_get_int(p->ctx,
	    "min-duration", 0);
	d = p->api->option_get_int(p->ctx, "max-processes-runtime-profiler",
	    0);
	p->max_procs = d < 0 ? 0 : d > JV_MAX_JVMS ? JV_MAX_JVMS : (uint32_t)d;
	d = p->api->option_get_int(p->ctx, "java-jattach-timeout", 30);
	p->timeout_ms = d < 1 ? 1000 : d > 86400 ? 86400000u :
	    (uint32_t)d * 1000;
	d = p->api->option_get_int(p->ctx, "profiling-duration", 60) * 1000;
	p->round_ms = d > 2 * JV_LEAD_MS ? (uint64_t)(d - JV_LEAD_MS) :
	    (uint64_t)(d > 2 ? d / 2 : 1);
	jv_find_jattach(p);
	if (p->jattach[0] == '\0')
		p->api->log(p->ctx, GP_LOG_WARN, "jattach not found (looked "
		    "in /usr/bin, /usr/local/bin, /usr/lib/gprofiler): Java "
		    "JIT frames stay unnamed");
	jv_discover_sync(p);
	if (GP_API_HAS(p->api, sample_subscribe_stack))
		p->stacks = p->api->sample_subscribe_stack(p->ctx,
		    jv_sample_cb, p) == 0;
	jv_arm(p);
	if (p->round_timer == NULL)
		return (-ENOMEM);
	p->api->log(p->ctx, GP_LOG_INFO, "JIT perf maps through %s, %llu ms "
	    "into each cycle, each run bounded at %u s",
	    p->jattach[0] != '\0' ? p->jattach : "(none)",
	    (unsigned long long)p->round_ms, p->timeout_ms / 1000);
	return (0);
}

static int
jv_stop(void *priv)
{
	struct jv *p = priv;
	uint32_t i;

	p->api->timer_del(p->round_timer);
	p->round_timer = NULL;
	p->api->timer_del(p->pending_timer);
	p->pending_timer = NULL;
	p->npending = 0;
	p->stopping = 1;
	for (i = 0; i < p->njvms; i++) {
		p->jvms[i]->ops = 0;
		jv_job_cancel(p->jvms[i]->job, "the run is stopping");
	}
	if (p->running == 0)
		p->api->stop_done(p->ctx);
	return (0);
}

/* /proc reads of jv_proc.c, through the host's safe open. */
static int
jv_file_open(void *arg, const struct gp_open_spec *spec,
    struct gp_file_info *info)
{
	struct jv *p = arg;

	return (p->api->file_open(p->ctx, spec, info));
}

static int
jv_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	struct jv *p;

	if (api->abi_major != GP_ABI_MAJOR)
		return (-EINVAL);
	if (!GP_API_HAS(api, file_open))
		return (-ENOTSUP);	/* never an unsafe open instead */
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (-ENOMEM);
	if ((p->jvms = calloc(JV_MAX_JVMS, sizeof(*p->jvms))) == NULL) {
		free(p);
		return (-ENOMEM);
	}
	/* without it, reported processes are examined at once */
	p->pending = calloc(JV_PENDING_MAX, sizeof(*p->pending));
	p->ctx = ctx;
	p->api = api;
	jv_proc_set_opener(jv_file_open, p);
	*privp = p;
	return (0);
}

static void
jv_destroy(void *priv)
{
	struct jv *p = priv;
	uint32_t i;

	if (p == NULL)
		return;
	p->api->timer_del(p->round_timer);
	p->api->timer_del(p->pending_timer);
	/* The host reaps children we leave behind without calling us. */
	for (i = 0; i < p->njvms; i++)
		free(p->jvms[i]);
	jv_filters_free(p);
	free(p->jvms);
	free(p->pending);
	free(p);
}

GP_PLUGIN_EXPORT const struct gp_plugin gprofiler_plugin = {
	GP_PLUGIN_HEADER,
	.name = "java",
	.version = "0.1.0",
	.build = "HotSpot perf maps through jattach",
	.description = "Java JIT frame names (JVM perf maps), appids and "
	    "JVM metadata",
	.kind = GP_KIND_PROCESS,
	.modes = GP_MODE_CPU,
	.options = jv_options,
	.option_size = sizeof(struct gp_option),
	.option_count = sizeof(jv_options) / sizeof(jv_options[0]),
	.init = jv_init,
	.check = jv_check,
	.start = jv_start,
	.snapshot = jv_snapshot,
	.abandon = jv_abandon,
	.stop = jv_stop,
	.destroy = jv_destroy,
};
