/*
 * The Python process profiler: finds CPython 3.8-3.13 processes, samples
 * their threads' stacks by reading their memory (never stopping them) and
 * hands the aggregated stacks, appids and app metadata to the host at each
 * snapshot.  The reader itself is in py_*.c.
 *
 * Which threads, and when: with a system profiler that reports samples
 * (host API sample_watch), the thread its BPF sampler caught on CPU, read
 * as the report arrives (the ring buffer wakes the loop for watched
 * processes: typically well under a millisecond after the sample), one
 * stack per sample.  /proc's state R, the fallback at -f Hz without one,
 * also counts threads waiting for a CPU: under contention a thread that
 * runs 2 ms in 20 got 1.4-2.5x its share.
 *
 * Which processes: with a system profiler that reports the processes it
 * samples (host API process_subscribe, ABI 1.4), the one reported, when
 * its first sample of a cycle is drained (the first sample of a new image
 * wakes the loop): an idle process is never examined.  Without one, a
 * /proc scan each second.  Measured with bench/plugin_cost.sh (60 s, 11
 * Hz, both cores busy, 100 idle Python processes): the scans and the
 * attaches to the idle processes were most of the plugin's cost.
 *
 * Package versions (gProfiler's default, --no-python-versions): a stack
 * new in the cycle queues the packages directories it names for indexing
 * (py_pkgidx.c, from a timer); frames are tagged when the snapshot hands
 * the stacks over, so a sample costs nothing more.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gprofiler/plugin.h>

#include "langagg.h"
#include "py_mixed.h"
#include "py_discover.h"
#include "py_pkgver.h"
#include "py_target.h"

#define PYP_RESCAN_MS	1000	/* new processes show up within a second */
#define PYP_MAX_PROCS	4096
#define PYP_MAX_FREQ	100
#define PYP_FAIL_LIMIT	20	/* consecutive failed samples: an error */
/*
 * A process this young may be in the middle of its execve (the new maps
 * but the old comm: a gprofiler child becoming perfspect's Python) or its
 * interpreter not yet initialised: a failed attach is tried again at the
 * next scan and reported only once the process is older.
 */
#define PYP_SETTLE_S	2.0

#define PYP_NEW		0	/* young, attach failed: try again next scan */
#define PYP_ACTIVE	1
#define PYP_SKIPPED	2	/* report "[Profiling skipped: reason]" */
#define PYP_ERROR	3	/* report "[Profiling error: reason]" */
#define PYP_IGNORED	4	/* not a Python process: remember, say nothing */
#define PYP_GONE	5

struct pyp_proc {
	pid_t		 pid;
	uint64_t	 starttime;
	uint64_t	 exe_id;
	int		 state;
	int		 seen;
	uint32_t	 fails;
	uint64_t	 samples;
	uint64_t	 cpu_ticks;	/* utime + stime at the last scan */
	double		 cpu_rate;	/* ticks a second since the scan before */
	double		 cpu_at;	/* age at the last scan, seconds */
	int		 chosen;	/* among the top N by CPU (sampled) */
	int		 watched;	/* host sample_watch on */
	char		 comm[64];
	char		 reason[256];
	char		 appid[1024];
	uint64_t	 mntns;		/* package versions are per mount ns */
	struct py_target t;
};

struct pyp {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	int		 enabled;
	uint32_t	 freq;
	double		 min_duration;
	uint32_t	 max_procs;	/* top N by CPU; 0: every process */
	struct gp_timer	*sample_timer;
	struct gp_timer	*scan_timer;
	struct pyp_proc	**procs;
	uint32_t	 nprocs;
	struct langagg	*agg;
	uint64_t	 nsamples, nfailed;
	int		 subscribed;	/* sample reports from the host */
	int		 discover;	/* processes from the host's reports */
	int		 by_reports;	/* watched PIDs sampled on reports */
	uint64_t	 count;		/* samples the stack being emitted is */
	/* The report being read: its native frames join the Python ones. */
	const struct gp_sample_stack *st;
	const char	**mixed;	/* PY_MAX_FRAMES + PY_MIXED_MAX_EXTRA */
	char		 mixed_buf[16384];	/* their "name_[pn]" texts */
	struct py_pkgidx *pkgs;		/* NULL: --no-python-versions */
	char		*deco;		/* decorated frames at delivery */
	const char	**decop;
};

static const struct gp_option pyp_options[] = {
	{ "python-mode", GP_OPT_ENUM, 0, "auto", 0, 0,
	    "auto|pyperf|pyspy|py-spy|disabled|none",
	    "Python profiling: auto (the built-in CPython 3.8-3.13 stack "
	    "reader; pyperf and pyspy are accepted as synonyms) or disabled" },
	{ "no-python-versions", GP_OPT_BOOL, 0, "false", 0, 0, NULL,
	    "do not add package versions to Python frames: by default a frame "
	    "of a file of an installed distribution ends \"(file:line "
	    "[name==version])\", one of the standard library "
	    "\"[standard-library==X.Y.Z]\", as gProfiler writes them" },
};

#define PYP_DECO_BYTES	(256 * 1024)	/* decorated frames of a stack */

static struct pyp_proc *
pyp_find(struct pyp *p, pid_t pid)
{
	uint32_t i;

	for (i = 0; i < p->nprocs; i++)
		if (p->procs[i]->pid == pid)
			return (p->procs[i]);
	return (NULL);
}

static uint32_t
pyp_index(struct pyp *p, struct pyp_proc *pr)
{
	uint32_t i;

	for (i = 0; i < p->nprocs; i++)
		if (p->procs[i] == pr)
			break;
	return (i);
}

static void
pyp_proc_free(struct pyp_proc *pr)
{
	if (pr == NULL)
		return;
	py_target_release(&pr->t);
	free(pr);
}

static void
pyp_remove(struct pyp *p, uint32_t i)
{
	if (p->procs[i]->watched)
		(void)p->api->sample_watch(p->ctx, p->procs[i]->pid, 0);
	pyp_proc_free(p->procs[i]);
	p->procs[i] = p->procs[--p->nprocs];
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

	rc = py_target_attach_maps(pr->pid, &pr->t, maps, len, pr->reason,
	    sizeof(pr->reason));
	py_discover_comm(pr->pid, pr->comm, sizeof(pr->comm));
	if (rc == 0) {
		pr->state = PYP_ACTIVE;
		pr->mntns = pyp_mntns(pr->pid);
		/* The line executing, in gProfiler's "name (file:line)_[p]"
		 * (issue 13 #5; perf-like: where the time goes). */
		pr->t.line_mode = PY_LINE_CURRENT;
		py_discover_appid(pr->pid, pr->appid, sizeof(pr->appid));
		p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d: Python %d.%d.%d "
		    "in %s", (int)pr->pid, pr->t.ver.major, pr->t.ver.minor,
		    pr->t.ver.micro, pr->t.object);
		return;
	}
	if (rc == -ESRCH) {
		pr->state = PYP_GONE;
		return;
	}
	py_target_release(&pr->t);
	if (age < PYP_SETTLE_S) {
		pr->state = PYP_NEW;
		p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d (%.1f s old): %s; "
		    "trying again", (int)pr->pid, age, pr->reason);
	} else if (rc == -ENOTSUP || rc == -ENOENT) {
		pr->state = PYP_SKIPPED;
		p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d skipped: %s",
		    (int)pr->pid, pr->reason);
	} else {
		pr->state = PYP_ERROR;
		p->api->log(p->ctx, GP_LOG_INFO, "pid %d: %s", (int)pr->pid,
		    pr->reason);
	}
}

/* Read the maps once for both the candidate test and the attach. */
static void
pyp_examine(struct pyp *p, struct pyp_proc *pr, double age)
{
	char *maps;
	size_t len;

	if ((maps = py_read_maps(pr->pid, &len)) == NULL ||
	    !py_discover_candidate_maps(pr->pid, maps, len))
		pr->state = PYP_IGNORED;
	else
		pyp_attach(p, pr, maps, len, age);
	free(maps);
}

/* Consider one /proc entry: new, re-exec'd (new start time) or known. */
static void
pyp_scan_pid(struct pyp *p, pid_t pid, double uptime)
{
	struct pyp_proc *pr = pyp_find(p, pid);
	uint64_t start, exe_id, ticks;
	double age;

	if (py_discover_stat(pid, uptime, &start, &exe_id, &age, &ticks) != 0)
		return;
	if (pr != NULL && pr->starttime == start && pr->exe_id == exe_id) {
		pr->seen = 1;
		if (age > pr->cpu_at && ticks >= pr->cpu_ticks)
			pr->cpu_rate = (double)(ticks - pr->cpu_ticks) /
			    (age - pr->cpu_at);
		pr->cpu_ticks = ticks;
		pr->cpu_at = age;
		if (pr->state == PYP_NEW)
			pyp_examine(p, pr, age);
		return;
	}
	if (pr != NULL) {
		/* PID reused or exec'd: the old process is gone. */
		pr->state = PYP_GONE;
		if (pr->samples == 0) {
			pyp_remove(p, pyp_index(p, pr));
			pr = NULL;
		}
	}
	if (!p->api->pid_wanted(p->ctx, (int32_t)pid) ||
	    age < p->min_duration || p->nprocs >= PYP_MAX_PROCS)
		return;
	if ((pr = calloc(1, sizeof(*pr))) == NULL)
		return;
	pr->pid = pid;
	pr->starttime = start;
	pr->exe_id = exe_id;
	pr->seen = 1;
	/* Until a second scan: its average over its life. */
	pr->cpu_ticks = ticks;
	pr->cpu_at = age;
	pr->cpu_rate = age > 0 ? (double)ticks / age : 0;
	pyp_examine(p, pr, age);
	p->procs[p->nprocs++] = pr;
}

static int
pyp_cmp_rate(const void *a, const void *b)
{
	const struct pyp_proc *x = *(struct pyp_proc *const *)a;
	const struct pyp_proc *y = *(struct pyp_proc *const *)b;

	if (x->cpu_rate != y->cpu_rate)
		return (x->cpu_rate > y->cpu_rate ? -1 : 1);
	return (x->pid < y->pid ? -1 : x->pid > y->pid);
}

/*
 * --max-processes-runtime-profiler N (gprofiler-compat §10): sample only
 * the N Python processes that used the most CPU since the previous scan;
 * the choice follows the load from scan to scan.
 */
static void
pyp_choose(struct pyp *p)
{
	struct pyp_proc **act;
	uint32_t i, n = 0;

	for (i = 0; i < p->nprocs; i++)
		p->procs[i]->chosen = p->max_procs == 0;
	if (p->max_procs == 0)
		return;
	if ((act = calloc(p->nprocs + 1, sizeof(*act))) == NULL) {
		for (i = 0; i < p->nprocs; i++)
			p->procs[i]->chosen = 1;
		return;
	}
	for (i = 0; i < p->nprocs; i++)
		if (p->procs[i]->state == PYP_ACTIVE)
			act[n++] = p->procs[i];
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
	for (i = 0; i < p->nprocs; i++) {
		pr = p->procs[i];
		want = pr->state == PYP_ACTIVE && pr->chosen;
		if (want == pr->watched)
			continue;
		rc = p->api->sample_watch(p->ctx, pr->pid, want);
		pr->watched = want;
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

static void	pyp_sample_cb(void *);
static void	pyp_process_cb(void *, int32_t);

/*
 * The -f Hz timer samples only what no report covers: while a system
 * profiler reports, every sampled process is watched and the loop need
 * not wake at -f Hz at all.
 */
static void
pyp_timer_sync(struct pyp *p)
{
	if (p->by_reports == 1) {
		p->api->timer_del(p->sample_timer);
		p->sample_timer = NULL;
	} else if (p->sample_timer == NULL && (p->scan_timer != NULL ||
	    p->discover))
		p->sample_timer = p->api->timer_add(p->ctx, 1000 / p->freq, 1,
		    pyp_sample_cb, p);
}

/*
 * Processes from reports: what is known is checked (CPU use for
 * --max-processes-runtime-profiler; the dead and the re-exec'd go), one
 * /proc/PID/stat each, instead of a walk of /proc.
 */
static void
pyp_refresh(struct pyp *p)
{
	struct pyp_proc *pr;
	uint64_t start, exe_id, ticks;
	double age, uptime = py_discover_uptime();
	uint32_t i;

	for (i = 0; i < p->nprocs; i++) {
		pr = p->procs[i];
		pr->seen = py_discover_stat(pr->pid, uptime, &start, &exe_id,
		    &age, &ticks) == 0 && start == pr->starttime &&
		    exe_id == pr->exe_id;
		if (!pr->seen)
			continue;
		if (age > pr->cpu_at && ticks >= pr->cpu_ticks)
			pr->cpu_rate = (double)(ticks - pr->cpu_ticks) /
			    (age - pr->cpu_at);
		pr->cpu_ticks = ticks;
		pr->cpu_at = age;
		if (pr->state == PYP_NEW)
			pyp_examine(p, pr, age);
	}
}

static void
pyp_scan_proc(struct pyp *p)
{
	struct dirent *de;
	uint32_t i;
	DIR *d;
	char *end;
	long pid;
	double uptime = py_discover_uptime();	/* once, not per PID */

	if ((d = opendir("/proc")) == NULL)
		return;
	for (i = 0; i < p->nprocs; i++)
		p->procs[i]->seen = 0;
	while ((de = readdir(d)) != NULL) {
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0)
			continue;
		pyp_scan_pid(p, (pid_t)pid, uptime);
	}
	closedir(d);
}

static void	pyp_scan_cb(void *);

/*
 * Whether a system profiler reports processes now (it may start after
 * us): then the scan timer goes, and the loop no longer wakes each second.
 */
static void
pyp_discover_sync(struct pyp *p)
{
	if (!GP_API_HAS(p->api, process_subscribe))
		return;
	p->discover = p->api->process_subscribe(p->ctx, pyp_process_cb,
	    p) == 0;
	if (p->discover) {
		p->api->timer_del(p->scan_timer);
		p->scan_timer = NULL;
	} else if (p->scan_timer == NULL)
		p->scan_timer = p->api->timer_add(p->ctx, PYP_RESCAN_MS, 1,
		    pyp_scan_cb, p);
}

static void
pyp_scan(struct pyp *p)
{
	uint32_t i;

	if (p->discover)
		pyp_refresh(p);
	else
		pyp_scan_proc(p);
	/* Forget vanished processes, unless their stacks await a snapshot. */
	for (i = 0; i < p->nprocs;) {
		struct pyp_proc *pr = p->procs[i];

		if (!pr->seen && pr->state != PYP_GONE)
			pr->state = PYP_GONE;
		if (pr->state == PYP_GONE && pr->samples == 0)
			pyp_remove(p, i);
		else
			i++;
	}
	pyp_choose(p);
	pyp_watch_sync(p);
	pyp_timer_sync(p);
}

static void
pyp_scan_cb(void *arg)
{
	struct pyp *p = arg;

	pyp_discover_sync(p);
	pyp_scan(p);
}

/*
 * The system profiler sampled pid (its first sample of the cycle, or of a
 * new image): examine it if it is new or re-exec'd; a known one costs a
 * lookup.  A new Python process is watched from now on.
 */
static void
pyp_process_cb(void *arg, int32_t pid)
{
	struct pyp *p = arg;
	struct pyp_proc *pr = pyp_find(p, (pid_t)pid);
	uint32_t n = p->nprocs;

	if (!p->enabled)
		return;
	if (!p->discover)	/* a source that started after us */
		pyp_discover_sync(p);
	if (pr == NULL && p->nprocs >= PYP_MAX_PROCS)
		pyp_scan(p);	/* make room: the dead go */
	pyp_scan_pid(p, (pid_t)pid, py_discover_uptime());
	if (p->nprocs != n || pyp_find(p, (pid_t)pid) != pr) {
		pyp_choose(p);
		pyp_watch_sync(p);
		pyp_timer_sync(p);
	}
}

static void
pyp_emit(void *arg, struct py_target *t, int32_t tid,
    const char *const *frames, uint32_t n)
{
	struct pyp *p = arg;
	struct pyp_proc *pr = (struct pyp_proc *)(void *)((char *)t -
	    offsetof(struct pyp_proc, t));

	uint32_t before = langagg_count(p->agg);

	if (p->st != NULL) {
		n = py_mixed_merge(frames, n, p->st, t->code_lo, t->code_hi,
		    p->mixed, PY_MAX_FRAMES + PY_MIXED_MAX_EXTRA, p->mixed_buf,
		    sizeof(p->mixed_buf));
		frames = p->mixed;
	}
	if (langagg_add(p->agg, (int32_t)t->pid, frames, n, p->count) != 0)
		return;
	pr->samples += p->count;
	/* A stack new this cycle: the packages it names get indexed
	 * before the snapshot (a known one costs a lookup, per cycle). */
	if (p->pkgs != NULL && langagg_count(p->agg) != before)
		py_pkgidx_note(p->pkgs, t->pid, pr->mntns, frames, n);
}

static void	pyp_sample_done(struct pyp *, struct pyp_proc *, int);

static void
pyp_sample_proc(struct pyp *p, struct pyp_proc *pr)
{
	uint32_t nth;
	int rc;

	p->count = 1;
	rc = py_target_sample(&pr->t, pyp_emit, p, &nth);
	pyp_sample_done(p, pr, rc);
}

/* A read's outcome: count it, and act on a gone or unreadable process. */
static void
pyp_sample_done(struct pyp *p, struct pyp_proc *pr, int rc)
{
	p->nsamples++;
	if (rc == 0) {
		pr->fails = 0;
		return;
	}
	p->nfailed++;
	if (rc == -ESRCH) {
		pr->state = PYP_GONE;
		return;
	}
	/* Torn reads are normal; only a run of failures is an error. */
	if (++pr->fails >= PYP_FAIL_LIMIT || rc == -EPERM) {
		snprintf(pr->reason, sizeof(pr->reason), "cannot read "
		    "process memory: %s", strerror(-rc));
		pr->state = PYP_ERROR;
		p->api->log(p->ctx, GP_LOG_INFO, "pid %d: %s", (int)pr->pid,
		    pr->reason);
	}
}

static void
pyp_sample_cb(void *arg)
{
	struct pyp *p = arg;
	uint32_t i;

	for (i = 0; i < p->nprocs; i++)
		if (p->procs[i]->state == PYP_ACTIVE && p->procs[i]->chosen &&
		    !(p->by_reports && p->procs[i]->watched))
			pyp_sample_proc(p, p->procs[i]);
}

/* The system profiler caught tid of pid on CPU just now: read its stack. */
static void
pyp_report_cb(void *arg, int32_t pid, int32_t tid, uint64_t count)
{
	struct pyp *p = arg;
	struct pyp_proc *pr = pyp_find(p, (pid_t)pid);
	uint32_t nth;
	int rc;

	if (pr == NULL || pr->state != PYP_ACTIVE || !pr->watched)
		return;
	p->count = count;
	rc = py_target_sample_tid(&pr->t, tid, pyp_emit, p);
	if (rc == -ENOENT)	/* TIDs unknown here: its running threads */
		rc = py_target_sample(&pr->t, pyp_emit, p, &nth);
	pyp_sample_done(p, pr, rc);
}

/* The same, with the sample's native and kernel frames (ABI 1.3). */
static void
pyp_report_stack_cb(void *arg, int32_t pid, int32_t tid, uint64_t count,
    const struct gp_sample_stack *st)
{
	struct pyp *p = arg;

	p->st = st;
	pyp_report_cb(arg, pid, tid, count);
	p->st = NULL;
}

struct pyp_deliver {
	struct pyp	*p;
	struct gp_snapshot *snap;
};

static void
pyp_deliver_stack(void *arg, int32_t pid, const char *const *frames,
    uint32_t n, uint64_t count)
{
	struct pyp_deliver *d = arg;
	struct pyp *p = d->p;
	struct pyp_proc *pr = pyp_find(p, pid);
	size_t off = 0;
	uint32_t i;

	if (p->pkgs != NULL && pr != NULL) {
		for (i = 0; i < n; i++) {
			p->decop[i] = py_pkgidx_decorate(p->pkgs, pr->mntns,
			    &pr->t.ver, frames[i], p->deco + off,
			    PYP_DECO_BYTES - off);
			if (p->decop[i] != frames[i])
				off += strlen(p->decop[i]) + 1;
		}
		frames = p->decop;
	}
	p->api->snapshot_add_stack(d->snap, pid, pr != NULL ? pr->comm :
	    "python", frames, n, count);
}

static void
pyp_deliver_meta(struct pyp *p, struct gp_snapshot *snap,
    struct pyp_proc *pr)
{
	const struct gp_host_api *api = p->api;
	struct gp_json *md;
	char ver[64];

	if (pr->appid[0] != '\0')
		api->snapshot_set_appid(snap, pr->pid, pr->appid);
	if ((md = api->json_new()) == NULL)
		return;
	snprintf(ver, sizeof(ver), "Python %d.%d.%d", pr->t.ver.major,
	    pr->t.ver.minor, pr->t.ver.micro);
	api->json_set_string(md, "python_version", ver);
	if (pr->t.exe_buildid[0] != '\0')
		api->json_set_string(md, "exe_elfid", pr->t.exe_buildid);
	else
		api->json_set_null(md, "exe_elfid");
	if (pr->t.in_lib && pr->t.lib_buildid[0] != '\0')
		api->json_set_string(md, "libpython_elfid", pr->t.lib_buildid);
	else
		api->json_set_null(md, "libpython_elfid");
	api->json_set_null(md, "sys_maxunicode");
	api->snapshot_set_app_metadata(snap, pr->pid, md);
}

static int
pyp_snapshot(void *priv, struct gp_snapshot *snap)
{
	struct pyp *p = priv;
	struct pyp_deliver d = { p, snap };
	uint32_t i;

	if (!p->enabled) {
		p->api->snapshot_done(snap, 0, NULL);
		return (0);
	}
	pyp_scan(p);
	langagg_foreach(p->agg, pyp_deliver_stack, &d);
	for (i = 0; i < p->nprocs; i++) {
		struct pyp_proc *pr = p->procs[i];

		if (pr->samples > 0)
			pyp_deliver_meta(p, snap, pr);
		else if (pr->state == PYP_SKIPPED)
			p->api->snapshot_pid_error(snap, pr->pid, pr->comm,
			    GP_PID_SKIPPED, pr->reason);
		else if (pr->state == PYP_ERROR)
			p->api->snapshot_pid_error(snap, pr->pid, pr->comm,
			    GP_PID_ERROR, pr->reason);
		pr->samples = 0;
		/* Code addresses are reused once objects die: start over. */
		if (pr->t.codes != NULL)
			py_code_cache_clear(pr->t.codes);
	}
	p->api->log(p->ctx, GP_LOG_DEBUG, "snapshot: %u stacks, %llu samples "
	    "(%llu failed), %u processes tracked", langagg_count(p->agg),
	    (unsigned long long)p->nsamples, (unsigned long long)p->nfailed,
	    p->nprocs);
	langagg_clear(p->agg);
	p->nsamples = p->nfailed = 0;
	for (i = 0; i < p->nprocs;)
		if (p->procs[i]->state == PYP_GONE)
			pyp_remove(p, i);
		else
			i++;
	p->api->snapshot_done(snap, 0, NULL);
	return (0);
}

static void
pyp_abandon(void *priv, struct gp_snapshot *snap)
{
	struct pyp *p = priv;
	uint32_t i;

	langagg_clear(p->agg);
	for (i = 0; i < p->nprocs; i++)
		p->procs[i]->samples = 0;
}

static void
pyp_reset(struct pyp *p)
{
	p->api->timer_del(p->sample_timer);
	p->api->timer_del(p->scan_timer);
	p->sample_timer = p->scan_timer = NULL;
	while (p->nprocs > 0)
		pyp_remove(p, p->nprocs - 1);
	if (p->subscribed)
		(void)p->api->sample_subscribe(p->ctx, NULL, NULL);
	p->subscribed = 0;
	if (GP_API_HAS(p->api, process_subscribe))
		(void)p->api->process_subscribe(p->ctx, NULL, NULL);
	p->discover = 0;
	py_pkgidx_free(p->pkgs);
	p->pkgs = NULL;
	p->by_reports = 0;
	langagg_clear(p->agg);
}

static int
pyp_start(void *priv)
{
	struct pyp *p = priv;
	const char *mode = p->api->option_get(p->ctx, "python-mode");
	int64_t f;

	pyp_reset(p);
	p->enabled = mode == NULL || (strcmp(mode, "disabled") != 0 &&
	    strcmp(mode, "none") != 0);
	if (!p->enabled)
		return (0);
	f = p->api->option_get_int(p->ctx, "profiling-frequency", 11);
	p->freq = f < 1 ? 1 : f > PYP_MAX_FREQ ? PYP_MAX_FREQ : (uint32_t)f;
	p->min_duration = (double)p->api->option_get_int(p->ctx,
	    "min-duration", 0);
	f = p->api->option_get_int(p->ctx, "max-processes-runtime-profiler",
	    0);
	p->max_procs = f < 0 ? 0 : f > PYP_MAX_PROCS ? PYP_MAX_PROCS :
	    (uint32_t)f;
	/* gProfiler's default: package versions in frames (python.py) */
	if (p->api->option_get_bool(p->ctx, "no-python-versions") <= 0 &&
	    (p->pkgs = py_pkgidx_new(p->ctx, p->api)) == NULL)
		p->api->log(p->ctx, GP_LOG_WARN, "no package versions in "
		    "Python frames: out of memory");
	/* With frames where the host passes them: mixed stacks. */
	if (GP_API_HAS(p->api, sample_subscribe_stack))
		p->subscribed = p->api->sample_subscribe_stack(p->ctx,
		    pyp_report_stack_cb, p) == 0;
	else
		p->subscribed = GP_API_HAS(p->api, sample_report) &&
		    p->api->sample_subscribe != NULL &&
		    p->api->sample_watch != NULL &&
		    p->api->sample_subscribe(p->ctx, pyp_report_cb, p) == 0;
	p->by_reports = -1;	/* logged once decided */
	/* No scan at all when a system profiler reports processes: each
	 * one's first sample names it (an idle one is never examined). */
	pyp_discover_sync(p);
	/* The busiest N are chosen among all at once, not among the first
	 * reported: one walk of /proc at the start. */
	if (p->discover && p->max_procs > 0)
		pyp_scan_proc(p);
	/* Without a source yet, the first walk is the scan timer's, a
	 * second from now: one that starts after us spares it (ruby.c). */
	if (p->discover)
		pyp_scan(p);
	pyp_timer_sync(p);
	if ((p->scan_timer == NULL && !p->discover) || (p->by_reports != 1 &&
	    p->sample_timer == NULL)) {
		pyp_reset(p);
		return (-ENOMEM);
	}
	p->api->log(p->ctx, GP_LOG_INFO, "sampling Python at %u Hz, %u "
	    "processes tracked%s; processes found %s", p->freq, p->nprocs,
	    p->max_procs > 0 ? ", the busiest only "
	    "(--max-processes-runtime-profiler)" : "", p->discover ?
	    "from the system profiler's samples" : "by scanning /proc each "
	    "second");
	return (0);
}

static int
pyp_stop(void *priv)
{
	struct pyp *p = priv;

	pyp_reset(p);
	p->api->stop_done(p->ctx);
	return (0);
}

/* Every file of the reader, through the host's safe open. */
static int
pyp_file_open(void *arg, const struct gp_open_spec *spec,
    struct gp_file_info *info)
{
	struct pyp *p = arg;

	return (p->api->file_open(p->ctx, spec, info));
}

static int
pyp_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	struct pyp *p;

	if (api->abi_major != GP_ABI_MAJOR)
		return (-EINVAL);
	if (!GP_API_HAS(api, file_open))
		return (-ENOTSUP);	/* never an unsafe open instead */
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (-ENOMEM);
	p->ctx = ctx;
	p->api = api;
	p->procs = calloc(PYP_MAX_PROCS, sizeof(*p->procs));
	p->agg = langagg_new(PY_MAX_FRAMES + PY_MIXED_MAX_EXTRA);
	p->mixed = calloc(PY_MAX_FRAMES + PY_MIXED_MAX_EXTRA,
	    sizeof(*p->mixed));
	p->deco = malloc(PYP_DECO_BYTES);
	p->decop = calloc(PY_MAX_FRAMES + PY_MIXED_MAX_EXTRA,
	    sizeof(*p->decop));
	if (p->procs == NULL || p->agg == NULL || p->mixed == NULL ||
	    p->deco == NULL || p->decop == NULL) {
		free(p->procs);
		free(p->mixed);
		free(p->deco);
		free(p->decop);
		langagg_free(p->agg);
		free(p);
		return (-ENOMEM);
	}
	py_set_opener(pyp_file_open, p);
	*privp = p;
	return (0);
}

static void
pyp_destroy(void *priv)
{
	struct pyp *p = priv;

	if (p == NULL)
		return;
	pyp_reset(p);
	langagg_free(p->agg);
	free(p->mixed);
	free(p->deco);
	free(p->decop);
	free(p->procs);
	free(p);
}

GP_PLUGIN_EXPORT const struct gp_plugin gprofiler_plugin = {
	GP_PLUGIN_HEADER,
	.name = "python",
	.version = "0.1.0",
	.build = "CPython 3.8-3.13 reader",
	.description = "Python stacks read from CPython's memory",
	.kind = GP_KIND_PROCESS,
	.modes = GP_MODE_CPU,
	.options = pyp_options,
	.option_size = sizeof(struct gp_option),
	.option_count = sizeof(pyp_options) / sizeof(pyp_options[0]),
	.init = pyp_init,
	.start = pyp_start,
	.snapshot = pyp_snapshot,
	.abandon = pyp_abandon,
	.stop = pyp_stop,
	.destroy = pyp_destroy,
};
