/*
 * A sampling runtime plugin's stacks (langdrv.h): a sample read or walked,
 * its frames, what its outcome means (a stack counted, a failure
 * tolerated or an error), and the snapshot that hands the stacks to the
 * host and names, once, each process that could not be read.  The
 * plugins differ only in how a frame is read or named, not in any of
 * this.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "langagg.h"
#include "langdrv.h"

#define LANGDRV_PROC(lp)	((struct langdrv_proc *)(lp))


int
langdrv_frame(void *arg, const char *text)
{
	struct langdrv *d = arg;

	if (d->ntexts >= d->ops->max_frames)
		return (-E2BIG);
	/* gProfiler appends the runtime's suffix to each of the reader's
	 * frames (phpspy's lines, rbspy's frames). */
	snprintf(d->texts + (size_t)d->ntexts++ * d->ops->text_size,
	    d->ops->text_size, "%s%s", text, d->ops->suffix);
	return (0);
}

/* The sample ended with the reader's rc (refused_why: the reason of a
 * refused read, -EREMOTE). */
static void
langdrv_sample_end(struct langdrv *d, struct langdrv_proc *pr, int rc,
    const char *refused_why, uint64_t count)
{
	uint32_t i;

	d->nsamples++;
	if (rc == -E2BIG)	/* the deepest max_frames: a stack still */
		rc = 0;
	if (langtab_read_done(&pr->lp, rc, &pr->fails, d->ops->fail_limit))
		langtab_read_error(d->api, d->ctx, &pr->lp, rc, refused_why,
		    pr->reason, sizeof(pr->reason));
	d->nfailed += rc != 0;
	if (rc != 0 || d->ntexts == 0)	/* idle: no code of the runtime */
		return;
	for (i = 0; i < d->ntexts; i++)	/* root first */
		d->frames[i] = d->texts + (size_t)(d->ntexts - 1 - i) *
		    d->ops->text_size;
	if (langagg_add(d->agg, (int32_t)pr->lp.pid, d->frames, d->ntexts,
	    count) == 0)
		pr->lp.samples++;
}

void
langdrv_sample(struct langdrv *d, struct langdrv_proc *pr)
{
	const char *why = NULL;
	int rc;

	d->ntexts = 0;
	if ((rc = d->ops->wake(d->arg, &pr->lp, &why)) == 0)
		rc = d->ops->read(d->arg, &pr->lp);
	langdrv_sample_end(d, pr, rc, why, 1);
}

/* Code known since the last snapshot costs no read (the plugin's
 * caches). */
void
langdrv_walked(struct langdrv *d, struct langdrv_proc *pr,
    const uint64_t *walk, uint32_t n, uint64_t count)
{
	const char *why = NULL, *text;
	uint32_t i;
	int rc;

	d->ntexts = 0;
	rc = d->ops->wake(d->arg, &pr->lp, &why);
	for (i = n; i-- > 0 && rc == 0;) {	/* from the leaf */
		rc = d->ops->walked_frame(d->arg, &pr->lp, walk[2 * i],
		    walk[2 * i + 1], d->named, d->ops->text_size, &text);
		if (rc == 1)
			rc = 0;
		else if (rc == 0)
			rc = langdrv_frame(d, text);
	}
	langdrv_sample_end(d, pr, rc, why, count);
}

static void
langdrv_deliver_stack(void *arg, struct gp_snapshot *snap, int32_t pid,
    const char *const *frames, uint32_t n, uint64_t count)
{
	struct langdrv *d = arg;
	struct langtab_proc *lp = langtab_find(&d->tab, pid);

	d->api->snapshot_add_stack(snap, pid, lp != NULL ?
	    LANGDRV_PROC(lp)->comm : d->ops->comm, frames, n, count);
}

int
langdrv_snapshot(struct langdrv *d, struct gp_snapshot *snap)
{
	struct langdrv_proc *pr;
	uint32_t i;

	langfind_scan(&d->find);
	langagg_foreach(d->agg, snap, langdrv_deliver_stack, d);
	for (i = 0; i < d->tab.n; i++) {
		pr = LANGDRV_PROC(d->tab.procs[i]);
		/* A process that cannot be read is named once, not each
		 * cycle. */
		if (pr->lp.samples == 0 && !pr->reported &&
		    (pr->lp.state == LANGTAB_SKIPPED ||
		    pr->lp.state == LANGTAB_ERROR)) {
			d->api->snapshot_pid_error(snap, pr->lp.pid, pr->comm,
			    pr->lp.state == LANGTAB_SKIPPED ? GP_PID_SKIPPED :
			    GP_PID_ERROR, pr->reason);
			pr->reported = 1;
		}
		if (d->ops->cycle_end != NULL)
			d->ops->cycle_end(d->arg, pr, snap);
		pr->lp.samples = 0;
		if (pr->ran > 0)
			pr->ran--;
	}
	langdrv_walk_cycle(d);
	langdrv_timer_sync(d);
	d->api->log(d->ctx, GP_LOG_DEBUG, "snapshot: %u %s stacks, %llu "
	    "samples (%llu failed, %llu walked), %u processes tracked",
	    langagg_count(d->agg), d->ops->lang,
	    (unsigned long long)d->nsamples, (unsigned long long)d->nfailed,
	    (unsigned long long)d->nwalked, d->tab.n);
	langagg_clear(d->agg);
	d->nsamples = d->nfailed = d->nwalked = 0;
	langtab_prune(&d->tab);	/* the gone: their stacks went out */
	d->api->snapshot_done(snap, 0, NULL);
	return (0);
}

void
langdrv_abandon(struct langdrv *d)
{
	uint32_t i;

	langagg_clear(d->agg);
	for (i = 0; i < d->tab.n; i++)
		d->tab.procs[i]->samples = 0;
}
