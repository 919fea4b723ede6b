/*
 * A runtime plugin's frames walked in the system profiler's samples
 * (langdrv.h; host API sample_walk, ABI 1.6).  An attached process whose
 * plugin gives a layout is watched and walked: the BPF sampler follows
 * its frame chain at each sample of the thread that runs the interpreter
 * and reports the (code word, position) pairs, so a sample costs no
 * wake-up, no timer and no read of the process but of code it has not
 * seen.  The process is then sampled when it runs, as perf samples it,
 * rather than at -f Hz whatever it does.  A sample whose walk did not
 * finish (a page not resident, a stack too deep, the root unknown) is
 * read at once, as the timer would.  Without a system profiler that
 * walks (the perf-events backend, perf off or stopped) the timer samples,
 * as before; which applies is looked at again at each snapshot.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "langdrv.h"

/* A thread that runs no interpreter code is not asked about again for
 * this long: its samples, walked with no frame, wake nobody. */
#define LANGDRV_NATIVE_NS	(10ull * 1000000000ull)

/* pid is walked no more (the system profiler may be gone: no matter). */
void
langdrv_walk_off(struct langdrv *d, struct langdrv_proc *dp)
{
	if (!dp->walking)
		return;
	(void)d->api->sample_walk(d->ctx, dp->lp.pid, NULL);
	(void)d->api->sample_watch(d->ctx, dp->lp.pid, 0);
	dp->walking = 0;
}

/* The layout and the interpreter thread's root told to the system
 * profiler: 0, or -errno (not walked). */
static int
langdrv_walk_tell(struct langdrv *d, struct langdrv_proc *dp)
{
	struct gp_frame_walk w = { .size = sizeof(w) };
	int rc;

	if ((rc = d->ops->walk_layout(d->arg, &dp->lp, &w, &dp->walk_tid,
	    &dp->walk_root, &dp->walk_check)) != 0)
		return (rc);
	if ((rc = d->api->sample_walk(d->ctx, dp->lp.pid, &w)) != 0)
		return (rc);
	if (dp->walk_root == 0)	/* each thread's root is in its TLS */
		return (0);
	return (d->api->sample_walk_thread(d->ctx, dp->lp.pid, dp->walk_tid,
	    dp->walk_root, dp->walk_check));
}

/* An attached process walked in the samples if the system profiler
 * walks; one no longer attached, no more. */
void
langdrv_walk_sync(struct langdrv *d, struct langdrv_proc *dp)
{
	int rc;

	if (dp->lp.state != LANGTAB_ACTIVE) {
		langdrv_walk_off(d, dp);
		return;
	}
	if (!d->walks || dp->walking)
		return;
	if (d->api->sample_watch(d->ctx, dp->lp.pid, 1) != 0) {
		(void)d->api->sample_watch(d->ctx, dp->lp.pid, 0);
		return;
	}
	dp->walking = 1;
	if ((rc = langdrv_walk_tell(d, dp)) != 0) {
		langdrv_walk_off(d, dp);
		if (rc != -ENOTSUP)
			d->api->log(d->ctx, GP_LOG_DEBUG, "pid %d: %s frames "
			    "not walked in the sample (%s): sampled at %u Hz",
			    (int)dp->lp.pid, d->ops->lang, strerror(-rc),
			    d->freq);
	}
}

/*
 * Each snapshot: the caches of code words were emptied (cycle_end), so
 * the walks are told again (every word is new again: the sampler wakes
 * us to read each while it lives); a process not walked yet is, if a
 * system profiler walks now.
 */
void
langdrv_walk_cycle(struct langdrv *d)
{
	struct langdrv_proc *dp;
	uint32_t i;
	int walks;

	if (d->ops->walk_layout == NULL || !d->subscribed)
		return;
	/* A system profiler reports now (sample_watch of no PID says) and
	 * walks (then sample_walk of no PID is refused as invalid, not
	 * -ENOTSUP). */
	walks = d->api->sample_watch(d->ctx, 0, 0) == 0 &&
	    d->api->sample_walk(d->ctx, 0, NULL) != -ENOTSUP;
	if (walks != d->walks)
		d->api->log(d->ctx, GP_LOG_INFO, "%s frames %s", d->ops->lang,
		    walks ? "walked in the system profiler's samples: a "
		    "process is sampled when it runs" : "read at -f Hz: no "
		    "system profiler walks them");
	d->walks = walks;
	for (i = 0; i < d->tab.n; i++) {
		dp = (struct langdrv_proc *)d->tab.procs[i];
		if (!walks)
			langdrv_walk_off(d, dp);
		else if (dp->walking && dp->lp.state == LANGTAB_ACTIVE &&
		    langdrv_walk_tell(d, dp) != 0)
			langdrv_walk_off(d, dp);
		else
			langdrv_walk_sync(d, dp);
	}
}

/* The thread has no root: the interpreter's is told again (the system
 * profiler restarted: the whole walk), another runs no interpreter code. */
static void
langdrv_walk_thread(struct langdrv *d, struct langdrv_proc *dp, int32_t tid)
{
	struct timespec now;
	uint64_t check;

	if (tid != dp->walk_tid) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		check = (uint64_t)now.tv_sec * 1000000000ull +
		    (uint64_t)now.tv_nsec + LANGDRV_NATIVE_NS;
		if (d->api->sample_walk_thread(d->ctx, dp->lp.pid, tid,
		    GP_WALK_ROOT_NONE, check) != -ENOENT)
			return;
	} else if (d->api->sample_walk_thread(d->ctx, dp->lp.pid, tid,
	    dp->walk_root, dp->walk_check) != -ENOENT)
		return;
	if (langdrv_walk_tell(d, dp) != 0)
		langdrv_walk_off(d, dp);
}

/*
 * The system profiler caught tid of pid on CPU: its frames came walked,
 * or the interpreter's thread is read now (the ring woke us at once).
 */
static void
langdrv_walk_report(void *arg, int32_t pid, int32_t tid, uint64_t count,
    const struct gp_sample_stack *st)
{
	struct langdrv *d = arg;
	struct langdrv_proc *dp;
	uint32_t state = st != NULL && st->size >= sizeof(*st) ?
	    st->walk_state : GP_WALK_NONE;

	dp = (struct langdrv_proc *)langtab_find(&d->tab, (pid_t)pid);
	if (dp == NULL || !dp->walking || dp->lp.state != LANGTAB_ACTIVE)
		return;
	if (state == GP_WALK_DONE) {
		langdrv_walked(d, dp, st->walk, st->nwalk, count);
		d->nwalked++;
		return;
	}
	if (state == GP_WALK_NO_ROOT)
		langdrv_walk_thread(d, dp, tid);
	else if (state == GP_WALK_NONE && st != NULL &&
	    langdrv_walk_tell(d, dp) != 0)	/* the profiler restarted */
		langdrv_walk_off(d, dp);
	/* another thread has no interpreter frames (roots in the TLS: any
	 * thread may have) */
	if (tid == dp->walk_tid || dp->walk_root == 0)
		langdrv_sample(d, dp);
	if (!dp->walking)	/* the walk is off: the timer samples it */
		langdrv_timer_sync(d);
}

/* Reports subscribed to when the plugin can use walked frames. */
void
langdrv_walk_start(struct langdrv *d)
{
	d->subscribed = d->ops->walk_layout != NULL &&
	    GP_API_HAS(d->api, sample_walk) &&
	    d->api->sample_subscribe_stack(d->ctx, langdrv_walk_report,
	    d) == 0;
	d->walks = 0;
}

void
langdrv_walk_stop(struct langdrv *d)
{
	uint32_t i;

	for (i = 0; i < d->tab.n; i++)
		langdrv_walk_off(d, (struct langdrv_proc *)d->tab.procs[i]);
	if (d->subscribed)
		(void)d->api->sample_subscribe_stack(d->ctx, NULL, NULL);
	d->subscribed = d->walks = 0;
}
