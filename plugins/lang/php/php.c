/*
 * The PHP process profiler (gProfiler's phpspy mode): finds the
 * processes whose comm matches --php-proc-filter (as phpspy -P, an
 * extended regex, unanchored), reads their PHP stacks from the Zend
 * executor globals at -f Hz without stopping them, and hands the
 * aggregated stacks to the host at each snapshot, each frame with
 * gProfiler's "_[php]" suffix.  The reader itself is in php_*.c.
 *
 * Processes are found from the system profiler's samples when it reports
 * them (ABI 1.4, as the Python plugin: an idle process is never
 * examined), else by a /proc scan each second.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "elfread.h"

#include "langagg.h"
#include "langdrv.h"
#include "langtab.h"
#include "php_target.h"

#define PHPP_RESCAN_MS	1000	/* new processes show up within a second */
#define PHPP_MAX_FREQ	999	/* gProfiler caps phpspy -H at 999 */
#define PHPP_FAIL_LIMIT	20	/* consecutive failed samples: an error */

struct phpp_proc {
	struct langtab_proc lp;		/* first: the table's entry */
	int		 reported;	/* its skip/error went out once */
	uint32_t	 fails;
	char		 comm[64];
	char		 reason[256];
	struct php_target t;
};

struct phpp {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	int		 enabled;
	regex_t		 filter;
	int		 have_filter;
	struct langdrv	 drv;		/* its table: of struct phpp_proc */
	struct langagg	*agg;
	uint64_t	 nsamples, nfailed;
	/* one stack being collected, root last */
	char		(*texts)[PHP_MAX_FRAME_TEXT + 8];
	uint32_t	 ntexts;
};

static const struct gp_option phpp_options[] = {
	{ "php-mode", GP_OPT_ENUM, 0, "disabled", 0, 0,
	    "phpspy|disabled|none",
	    "PHP profiling: phpspy (the built-in PHP 7.4-8.4 stack reader, "
	    "frames as phpspy writes them) or disabled (gProfiler's "
	    "default)" },
	{ "php-proc-filter", GP_OPT_STRING, 0, "php-fpm", 0, 0, NULL,
	    "Which processes are PHP ones to profile: an extended regex "
	    "matched against the comm, as phpspy -P (default: php-fpm)" },
};

#define PHPP(lp)	((struct phpp_proc *)(lp))
#define PHPP_AT(p, i)	PHPP((p)->drv.tab.procs[i])

static struct phpp_proc *
phpp_find(struct phpp *p, pid_t pid)
{
	return (PHPP(langtab_find(&p->drv.tab, pid)));
}

static void
phpp_release(void *arg, struct langtab_proc *lp)
{
	php_target_release(&PHPP(lp)->t);
	free(lp);
}

static void
phpp_attach(struct phpp *p, struct phpp_proc *pr, double age)
{
	int rc;

	rc = php_target_attach(pr->lp.pid, &pr->t, pr->reason,
	    sizeof(pr->reason));
	pr->lp.state = langtab_attach_state(rc, age);
	if (rc != 0) {
		php_target_release(&pr->t);
		langtab_attach_log(p->api, p->ctx, &pr->lp, age, pr->comm,
		    pr->reason);
		return;
	}
	p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d: PHP %d.%d.%d in %s",
	    (int)pr->lp.pid, pr->t.ver.major, pr->t.ver.minor,
	    pr->t.ver.patch, pr->t.object);
}

static void
phpp_examine(struct phpp *p, struct phpp_proc *pr, double age)
{
	if (langproc_comm(pr->lp.pid, pr->comm, sizeof(pr->comm)) != 0)
		pr->lp.state = LANGTAB_GONE;
	else if (p->have_filter && regexec(&p->filter, pr->comm, 0, NULL,
	    0) != 0)
		pr->lp.state = LANGTAB_IGNORED;
	else
		phpp_attach(p, pr, age);
}

static void
phpp_examine_cb(void *arg, struct langtab_proc *lp, double age)
{
	phpp_examine(arg, PHPP(lp), age);
}

static int
phpp_frame(void *arg, const char *text)
{
	struct phpp *p = arg;

	if (p->ntexts >= PHP_MAX_FRAMES)
		return (-E2BIG);
	/* gProfiler appends "_[php]" to each of phpspy's frame lines. */
	snprintf(p->texts[p->ntexts++], sizeof(p->texts[0]), "%s_[php]",
	    text);
	return (0);
}

static void
phpp_sample_proc(struct phpp *p, struct phpp_proc *pr)
{
	const char *frames[PHP_MAX_FRAMES];
	uint32_t i, nseen;
	int rc;

	p->ntexts = 0;
	php_target_begin(&pr->t);
	rc = php_walk_stack(&pr->t.mem, &pr->t.off, pr->t.eg, PHP_MAX_FRAMES,
	    pr->t.fcache, phpp_frame, p, &nseen);
	p->nsamples++;
	if (rc == 0 || rc == -E2BIG) {
		pr->fails = 0;
		if (p->ntexts == 0)	/* idle: no PHP code running */
			return;
		for (i = 0; i < p->ntexts; i++)	/* root first */
			frames[i] = p->texts[p->ntexts - 1 - i];
		if (langagg_add(p->agg, (int32_t)pr->lp.pid, frames,
		    p->ntexts, 1) == 0)
			pr->lp.samples++;
		return;
	}
	p->nfailed++;
	if (rc == -ESRCH) {
		pr->lp.state = LANGTAB_GONE;
		return;
	}
	/* Torn reads while the stack changes are normal; a run is not.
	 * A read the guard refused would be refused again. */
	if (++pr->fails >= PHPP_FAIL_LIMIT || rc == -EPERM ||
	    rc == -EREMOTE) {
		if (rc == -EREMOTE)
			snprintf(pr->reason, sizeof(pr->reason), "%s",
			    pr->t.pg.guard.why);
		else
			snprintf(pr->reason, sizeof(pr->reason), "cannot "
			    "read process memory: %s", strerror(-rc));
		pr->lp.state = LANGTAB_ERROR;
		p->api->log(p->ctx, GP_LOG_INFO, "pid %d: %s", (int)pr->lp.pid,
		    pr->reason);
	}
}

static void
phpp_sample_cb(void *arg, struct langtab_proc *lp)
{
	phpp_sample_proc(arg, PHPP(lp));
}

/* PHP processes are found by their comm: the first walk at start. */
static const struct langdrv_ops phpp_ops = {
	.proc_size = sizeof(struct phpp_proc),
	.examine = phpp_examine_cb,
	.sample = phpp_sample_cb,
	.scan_at_start = 1,
	.rescan_ms = PHPP_RESCAN_MS,
};

struct phpp_deliver {
	struct phpp	*p;
	struct gp_snapshot *snap;
};

static void
phpp_deliver_stack(void *arg, int32_t pid, const char *const *frames,
    uint32_t n, uint64_t count)
{
	struct phpp_deliver *d = arg;
	struct phpp_proc *pr = phpp_find(d->p, pid);

	d->p->api->snapshot_add_stack(d->snap, pid, pr != NULL ? pr->comm :
	    "php", frames, n, count);
}

static int
phpp_snapshot(void *priv, struct gp_snapshot *snap)
{
	struct phpp *p = priv;
	struct phpp_deliver d = { p, snap };
	struct phpp_proc *pr;
	uint32_t i;

	if (!p->enabled) {
		p->api->snapshot_done(snap, 0, NULL);
		return (0);
	}
	langdrv_scan(&p->drv);
	langdrv_timer_sync(&p->drv);
	langagg_foreach(p->agg, phpp_deliver_stack, &d);
	for (i = 0; i < p->drv.tab.n; i++) {
		pr = PHPP_AT(p, i);
		/* A process that cannot be read is named once, not each
		 * cycle. */
		if (pr->lp.samples == 0 && !pr->reported &&
		    (pr->lp.state == LANGTAB_SKIPPED ||
		    pr->lp.state == LANGTAB_ERROR)) {
			p->api->snapshot_pid_error(snap, pr->lp.pid, pr->comm,
			    pr->lp.state == LANGTAB_SKIPPED ? GP_PID_SKIPPED :
			    GP_PID_ERROR, pr->reason);
			pr->reported = 1;
		}
		pr->lp.samples = 0;
		/* Code is freed and recompiled between requests: start over. */
		if (pr->t.fcache != NULL)
			memset(pr->t.fcache, 0, sizeof(*pr->t.fcache));
	}
	p->api->log(p->ctx, GP_LOG_DEBUG, "snapshot: %u PHP stacks, %llu "
	    "samples (%llu failed), %u processes tracked",
	    langagg_count(p->agg), (unsigned long long)p->nsamples,
	    (unsigned long long)p->nfailed, p->drv.tab.n);
	langagg_clear(p->agg);
	p->nsamples = p->nfailed = 0;
	langtab_prune(&p->drv.tab);	/* the gone: their stacks went out */
	p->api->snapshot_done(snap, 0, NULL);
	return (0);
}

static void
phpp_abandon(void *priv, struct gp_snapshot *snap)
{
	struct phpp *p = priv;
	uint32_t i;

	(void)snap;
	langagg_clear(p->agg);
	for (i = 0; i < p->drv.tab.n; i++)
		p->drv.tab.procs[i]->samples = 0;
}

static void
phpp_reset(struct phpp *p)
{
	langdrv_reset(&p->drv);
	langagg_clear(p->agg);
	if (p->have_filter)
		regfree(&p->filter);
	p->have_filter = 0;
}

static int
phpp_start(void *priv)
{
	struct phpp *p = priv;
	const char *mode = p->api->option_get(p->ctx, "php-mode");
	const char *filter = p->api->option_get(p->ctx, "php-proc-filter");
	char err[128];
	int64_t f;
	int rc;

	phpp_reset(p);
	p->enabled = mode != NULL && strcmp(mode, "phpspy") == 0;
	if (!p->enabled)
		return (0);
	if (filter != NULL && filter[0] != '\0') {
		if ((rc = regcomp(&p->filter, filter, REG_EXTENDED |
		    REG_NOSUB)) != 0) {
			regerror(rc, &p->filter, err, sizeof(err));
			p->api->log(p->ctx, GP_LOG_ERR, "--php-proc-filter "
			    "\"%s\": %s; PHP profiling is off", filter, err);
			p->enabled = 0;
			return (0);
		}
		p->have_filter = 1;
	}
	f = p->api->option_get_int(p->ctx, "profiling-frequency", 11);
	f = f < 1 ? 1 : f > PHPP_MAX_FREQ ? PHPP_MAX_FREQ : f;
	if (langdrv_start(&p->drv, (uint32_t)f, (double)p->api->option_get_int(
	    p->ctx, "min-duration", 0)) != 0) {
		phpp_reset(p);
		return (-ENOMEM);
	}
	p->api->log(p->ctx, GP_LOG_INFO, "sampling PHP at %u Hz in "
	    "processes whose comm matches \"%s\"", p->drv.freq,
	    filter != NULL ? filter : "");
	return (0);
}

static int
phpp_stop(void *priv)
{
	struct phpp *p = priv;

	phpp_reset(p);
	p->api->stop_done(p->ctx);
	return (0);
}

static int
phpp_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	struct phpp *p;

	if (api->abi_major != GP_ABI_MAJOR)
		return (-EINVAL);
	if (!GP_API_HAS(api, file_open))
		return (-ENOTSUP);	/* never an unsafe open instead */
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (-ENOMEM);
	p->ctx = ctx;
	p->api = api;
	p->texts = calloc(PHP_MAX_FRAMES, sizeof(*p->texts));
	p->agg = langagg_new(PHP_MAX_FRAMES + 1);
	if (langdrv_init(&p->drv, ctx, api, &phpp_ops, p, phpp_release) != 0 ||
	    p->texts == NULL || p->agg == NULL) {
		langdrv_free(&p->drv);
		free(p->texts);
		langagg_free(p->agg);
		free(p);
		return (-ENOMEM);
	}
	*privp = p;
	return (0);
}

static void
phpp_destroy(void *priv)
{
	struct phpp *p = priv;

	if (p == NULL)
		return;
	phpp_reset(p);
	langagg_free(p->agg);
	langdrv_free(&p->drv);
	free(p->texts);
	free(p);
}

GP_PLUGIN_EXPORT const struct gp_plugin gprofiler_plugin = {
	GP_PLUGIN_HEADER,
	.name = "php",
	.version = "0.1.0",
	.build = "PHP 7.4-8.4 reader (non-ZTS, x86-64)",
	.description = "PHP stacks read from the Zend engine's memory",
	.kind = GP_KIND_PROCESS,
	.modes = GP_MODE_CPU,
	.options = phpp_options,
	.option_size = sizeof(struct gp_option),
	.option_count = sizeof(phpp_options) / sizeof(phpp_options[0]),
	.init = phpp_init,
	.start = phpp_start,
	.snapshot = phpp_snapshot,
	.abandon = phpp_abandon,
	.stop = phpp_stop,
	.destroy = phpp_destroy,
};
