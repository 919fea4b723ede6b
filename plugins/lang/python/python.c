/*
 * The Python process profiler: finds CPython 3.8-3.13 processes, samples
 * their threads' stacks by reading their memory (never stopping them) and
 * hands the aggregated stacks, appids and app metadata to the host at each
 * snapshot.  The reader itself is in py_*.c.
 *
 * Which threads, and when: with a system profiler that reports samples
 * (host API sample_watch), the thread its BPF sampler caught on CPU, one
 * stack per sample.  Its frames come walked in the sample (sample_walk,
 * ABI 1.6: the BPF program follows the chain from the thread state we
 * registered, so the sample costs no wake-up and no read here but of code
 * objects not seen before); a thread not registered yet, or whose walk
 * could not finish, is read as the report arrives (the ring buffer wakes
 * the loop for it: typically well under a millisecond after the sample).
 * /proc's state R, the fallback at -f Hz without a system profiler, also
 * counts threads waiting for a CPU: under contention a thread that runs
 * 2 ms in 20 got 1.4-2.5x its share.
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

#include <sys/types.h>

#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gprofiler/plugin.h>

#include "elfread.h"

#include "langfile.h"
#include "langplug.h"
#include "py_plugin.h"

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



static void
pyp_emit(void *arg, struct py_target *t, int32_t tid,
    const char *const *frames, uint32_t n)
{
	struct pyp *p = arg;
	struct pyp_proc *pr = (struct pyp_proc *)(void *)((char *)t -
	    offsetof(struct pyp_proc, t));

	uint32_t before = langagg_count(p->agg);

	p->emitted = 1;
	if (p->st != NULL) {
		n = py_mixed_merge(frames, n, p->st, t->code_lo, t->code_hi,
		    p->mixed, PY_MAX_FRAMES + PY_MIXED_MAX_EXTRA, p->mixed_buf,
		    sizeof(p->mixed_buf));
		frames = p->mixed;
	}
	if (langagg_add(p->agg, (int32_t)t->pid, frames, n, p->count) != 0)
		return;
	pr->lp.samples += p->count;
	/* A stack new this cycle: the packages it names get indexed
	 * before the snapshot (a known one costs a lookup, per cycle). */
	if (p->pkgs != NULL && langagg_count(p->agg) != before)
		py_pkgidx_note(p->pkgs, t->pid, pr->mntns, frames, n);
}

static void pyp_sample_done(struct pyp *, struct pyp_proc *, int);

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
	p->nfailed += rc != 0;
	if (langtab_read_done(&pr->lp, rc, &pr->fails, PYP_FAIL_LIMIT))
		langtab_read_error(p->api, p->ctx, &pr->lp, rc,
		    pr->t.guard.why, pr->reason, sizeof(pr->reason));
}

void
pyp_sample_cb(void *arg)
{
	struct pyp *p = arg;
	uint32_t i;

	for (i = 0; i < p->tab.n; i++)
		if (p->tab.procs[i]->state == LANGTAB_ACTIVE &&
		    PYP_AT(p, i)->chosen &&
		    !(p->by_reports && PYP_AT(p, i)->watched))
			pyp_sample_proc(p, PYP_AT(p, i));
}

/*
 * The system profiler walks pr's frames in its samples (on), or no more:
 * its BPF program follows the frame chain from each thread's state, so a
 * sample costs no wake-up and no read of the process (ABI 1.6).  Without
 * it (-ENOTSUP: the perf-events backend, an older host) every sample is
 * read here, right after it.
 */
void
pyp_walk_set(struct pyp *p, struct pyp_proc *pr, int on)
{
	struct gp_frame_walk w;
	int rc;

	if (!GP_API_HAS(p->api, sample_walk) || on == pr->walking)
		return;
	if (!on) {
		(void)p->api->sample_walk(p->ctx, pr->lp.pid, NULL);
		pr->walking = 0;
		return;
	}
	if (py_target_walk_layout(&pr->t, &w) != 0)
		return;
	rc = p->api->sample_walk(p->ctx, pr->lp.pid, &w);
	pr->walking = rc == 0;
	if (rc != 0 && rc != -ENOTSUP)
		p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d: frames not walked "
		    "in the sample (%s): each sample is read after it",
		    (int)pr->lp.pid, strerror(-rc));
}

/*
 * The thread state just read for tid is where the walk starts from; a
 * thread that has none (a C library's worker) is said to run no Python
 * for PYP_NATIVE_NS, so its samples stop waking us too, and is looked at
 * again after.  A system profiler that lost the layout (restarted) is
 * given it again.
 */
static void
pyp_walk_thread(struct pyp *p, struct pyp_proc *pr, int32_t tid)
{
	struct py_target *t = &pr->t;
	struct timespec now;
	uint64_t root, check;

	if (t->walk_tid == tid) {
		root = t->walk_root;
		check = t->walk_check;
	} else {
		clock_gettime(CLOCK_MONOTONIC, &now);
		root = GP_WALK_ROOT_NONE;
		check = (uint64_t)now.tv_sec * 1000000000ull +
		    (uint64_t)now.tv_nsec + PYP_NATIVE_NS;
	}
	if (p->api->sample_walk_thread(p->ctx, pr->lp.pid, tid, root,
	    check) == -ENOENT) {
		pr->walking = 0;
		pyp_walk_set(p, pr, 1);
		if (pr->walking)
			(void)p->api->sample_walk_thread(p->ctx, pr->lp.pid,
			    tid, root, check);
	}
}

/*
 * The system profiler caught tid of pid on CPU: its frames came walked in
 * the sample, or its stack is read now (the ring woke us at once).
 */
static void
pyp_report_cb(void *arg, int32_t pid, int32_t tid, uint64_t count)
{
	struct pyp *p = arg;
	struct pyp_proc *pr = pyp_find(p, (pid_t)pid);
	const struct gp_sample_stack *st = p->st;
	uint32_t nth;
	int rc;

	if (pr == NULL || pr->lp.state != LANGTAB_ACTIVE || !pr->watched)
		return;
	p->count = count;
	p->emitted = 0;
	if (pr->walking && st != NULL && st->size >= sizeof(*st) &&
	    st->walk_state == GP_WALK_DONE) {
		rc = py_target_sample_walked(&pr->t, tid, st->walk, st->nwalk,
		    pyp_emit, p);
		p->nwalked++;
	} else {
		pr->t.walk_tid = 0;
		rc = py_target_sample_tid(&pr->t, tid, pyp_emit, p);
		if (rc == -ENOENT) {	/* TIDs unknown: its running threads */
			pyp_walk_set(p, pr, 0);
			rc = py_target_sample(&pr->t, pyp_emit, p, &nth);
		} else if (rc == 0 && pr->walking && st != NULL &&
		    st->size >= sizeof(*st) &&
		    st->walk_state == GP_WALK_NO_ROOT)
			pyp_walk_thread(p, pr, tid);
	}
	/* A thread that runs no Python (a C library's worker, one before
	 * its first frame) keeps its native stack: its CPU is the
	 * process's too, and the process's perf stacks are replaced. */
	if (rc == 0 && !p->emitted && st != NULL)
		pyp_emit(p, &pr->t, tid, NULL, 0);
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

static void
pyp_deliver_stack(void *arg, struct gp_snapshot *snap, int32_t pid,
    const char *const *frames, uint32_t n, uint64_t count)
{
	struct pyp *p = arg;
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
	p->api->snapshot_add_stack(snap, pid, pr != NULL ? pr->comm :
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
		api->snapshot_set_appid(snap, pr->lp.pid, pr->appid);
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
	api->snapshot_set_app_metadata(snap, pr->lp.pid, md);
}

static int
pyp_pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x < y ? -1 : x > y);
}

/* The package indexes of processes no longer here are freed. */
static void
pyp_keep_pkgs(struct pyp *p)
{
	pid_t *live;
	uint32_t i, n = 0;

	if (p->pkgs == NULL)
		return;
	if ((live = calloc(p->tab.n + 1, sizeof(*live))) == NULL)
		return;
	for (i = 0; i < p->tab.n; i++)
		if (p->tab.procs[i]->state != LANGTAB_GONE)
			live[n++] = p->tab.procs[i]->pid;
	qsort(live, n, sizeof(*live), pyp_pid_cmp);
	py_pkgidx_keep(p->pkgs, live, n);
	free(live);
}

static int
pyp_snapshot(void *priv, struct gp_snapshot *snap)
{
	struct pyp *p = priv;
	uint32_t i;

	if (!p->enabled) {
		p->api->snapshot_done(snap, 0, NULL);
		return (0);
	}
	pyp_scan(p);
	langagg_foreach(p->agg, snap, pyp_deliver_stack, p);
	for (i = 0; i < p->tab.n; i++) {
		struct pyp_proc *pr = PYP_AT(p, i);
		int sampled = pr->lp.samples > 0;

		if (sampled)
			pyp_deliver_meta(p, snap, pr);
		else if (pr->lp.state == LANGTAB_SKIPPED)
			p->api->snapshot_pid_error(snap, pr->lp.pid, pr->comm,
			    GP_PID_SKIPPED, pr->reason);
		else if (pr->lp.state == LANGTAB_ERROR)
			p->api->snapshot_pid_error(snap, pr->lp.pid, pr->comm,
			    GP_PID_ERROR, pr->reason);
		pr->lp.samples = 0;
		/* Code addresses are reused once objects die: start over,
		 * and so does the sampler's record of the code words that
		 * woke us (a walked sample wakes us for a new one). */
		if (pr->t.codes != NULL) {
			/* Not sampled all cycle: its caches let go (~190 KiB
			 * each: idle interpreters attached while busy held
			 * them for good), made again at its next sample. */
			if (sampled)
				py_code_cache_clear(pr->t.codes);
			else
				py_target_idle(&pr->t);
			if (pr->walking) {
				pr->walking = 0;
				pyp_walk_set(p, pr, 1);
			}
		}
	}
	p->api->log(p->ctx, GP_LOG_DEBUG, "snapshot: %u stacks, %llu samples "
	    "(%llu walked in the sample, %llu failed), %u processes tracked",
	    langagg_count(p->agg), (unsigned long long)p->nsamples,
	    (unsigned long long)p->nwalked, (unsigned long long)p->nfailed,
	    p->tab.n);
	langagg_clear(p->agg);
	p->nsamples = p->nfailed = p->nwalked = 0;
	langtab_prune(&p->tab);	/* the gone: their stacks went out */
	pyp_keep_pkgs(p);
	p->api->snapshot_done(snap, 0, NULL);
	return (0);
}

static void
pyp_abandon(void *priv, struct gp_snapshot *snap)
{
	struct pyp *p = priv;
	uint32_t i;

	langagg_clear(p->agg);
	for (i = 0; i < p->tab.n; i++)
		p->tab.procs[i]->samples = 0;
}

static void
pyp_reset(struct pyp *p)
{
	p->api->timer_del(p->sample_timer);
	p->sample_timer = NULL;
	langfind_stop(&p->find);
	langtab_retry_stop(&p->tab, p->api);
	while (p->tab.n > 0)
		langtab_remove(&p->tab, p->tab.procs[p->tab.n - 1]);
	if (p->subscribed)
		(void)p->api->sample_subscribe(p->ctx, NULL, NULL);
	p->subscribed = 0;
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
	f = p->api->option_get_int(p->ctx, "profiling-frequency",
	    GP_DEFAULT_FREQUENCY);
	p->freq = f < 1 ? 1 : f > PYP_MAX_FREQ ? PYP_MAX_FREQ : (uint32_t)f;
	p->find.min_duration = (double)p->api->option_get_int(p->ctx,
	    "min-duration", 0);
	f = p->api->option_get_int(p->ctx, "max-processes-runtime-profiler",
	    0);
	p->max_procs = f < 0 ? 0 : f > LANGTAB_MAX ? LANGTAB_MAX :
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
	langfind_discover_sync(&p->find);
	/* The busiest N are chosen among all at once, not among the first
	 * reported: one walk of /proc at the start. */
	if (p->find.discover && p->max_procs > 0)
		langfind_walk(&p->find);
	/* Without a source yet, the first walk is the scan timer's, a
	 * second from now: one that starts after us spares it. */
	if (p->find.discover)
		pyp_scan(p);
	pyp_timer_sync(p);
	if ((p->find.scan_timer == NULL && !p->find.discover) ||
	    (p->by_reports != 1 && p->sample_timer == NULL)) {
		pyp_reset(p);
		return (-ENOMEM);
	}
	p->api->log(p->ctx, GP_LOG_INFO, "sampling Python at %u Hz, %u "
	    "processes tracked%s; processes found %s", p->freq, p->tab.n,
	    p->max_procs > 0 ? ", the busiest only "
	    "(--max-processes-runtime-profiler)" : "", p->find.discover ?
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

static void
pyp_free(struct pyp *p)
{
	langagg_free(p->agg);
	free(p->mixed);
	free(p->deco);
	free(p->decop);
	langtab_free(&p->tab);
	free(p);
}

static int
pyp_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	struct pyp *p;
	int rc;

	if ((p = langplug_new(api, sizeof(*p), &rc)) == NULL)
		return (rc);
	p->ctx = ctx;
	p->api = api;
	p->agg = langagg_new(PY_MAX_FRAMES + PY_MIXED_MAX_EXTRA);
	p->mixed = calloc(PY_MAX_FRAMES + PY_MIXED_MAX_EXTRA,
	    sizeof(*p->mixed));
	p->deco = malloc(PYP_DECO_BYTES);
	p->decop = calloc(PY_MAX_FRAMES + PY_MIXED_MAX_EXTRA,
	    sizeof(*p->decop));
	if (langtab_init(&p->tab, pyp_release, p) != 0 || p->agg == NULL ||
	    p->mixed == NULL || p->deco == NULL || p->decop == NULL) {
		pyp_free(p);
		return (-ENOMEM);
	}
	pyp_find_init(p);
	/* every file of the reader through the host's safe open */
	py_set_opener(langplug_open, ctx);
	langfile_set_maps_reader(langplug_maps, ctx);
	elfread_set_log(langplug_warn, ctx);
	*privp = p;
	return (0);
}

static void
pyp_destroy(void *priv)
{
	struct pyp *p = priv;

	if (p == NULL)
		return;
	elfread_set_log(NULL, NULL);
	pyp_reset(p);
	pyp_free(p);
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
