/*
 * The Python plugin's process table: which processes are CPython (a /proc
 * scan each second, or the processes the system profiler reports), their
 * identity (a reused PID or an exec is a new process), the attach and its
 * outcome, and which are sampled (the top --max-processes by CPU).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "py_plugin.h"

static void	pyp_process_cb(void *, int32_t);
static void	pyp_scan_cb(void *);

struct pyp_proc *
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

void
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
		langcpu_update(&pr->cpu, age, ticks);
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
	langcpu_first(&pr->cpu, age, ticks);
	pyp_examine(p, pr, age);
	p->procs[p->nprocs++] = pr;
}

static int
pyp_cmp_rate(const void *a, const void *b)
{
	const struct pyp_proc *x = *(struct pyp_proc *const *)a;
	const struct pyp_proc *y = *(struct pyp_proc *const *)b;

	if (x->cpu.rate != y->cpu.rate)
		return (x->cpu.rate > y->cpu.rate ? -1 : 1);
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
		langcpu_update(&pr->cpu, age, ticks);
		if (pr->state == PYP_NEW)
			pyp_examine(p, pr, age);
	}
}

void
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

/*
 * Whether a system profiler reports processes now (it may start after
 * us): then the scan timer goes, and the loop no longer wakes each second.
 */
void
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

void
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
