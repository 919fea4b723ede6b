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

#include "langdrv.h"
#include "langtab.h"
#include "php_target.h"

#define PHPP_RESCAN_MS	1000	/* new processes show up within a second */
#define PHPP_MAX_FREQ	999	/* gProfiler caps phpspy -H at 999 */
#define PHPP_FAIL_LIMIT	20	/* consecutive failed samples: an error */

struct phpp_proc {
	struct langdrv_proc dp;		/* first: the driver's part */
	struct php_target t;
};

struct phpp {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	int		 enabled;
	regex_t		 filter;
	int		 have_filter;
	struct langdrv	 drv;		/* its table: of struct phpp_proc */
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

	rc = php_target_attach(pr->dp.lp.pid, &pr->t, pr->dp.reason,
	    sizeof(pr->dp.reason));
	pr->dp.lp.state = langtab_attach_state(rc, age);
	if (rc != 0) {
		php_target_release(&pr->t);
		langtab_attach_log(p->api, p->ctx, &pr->dp.lp, age, pr->dp.comm,
		    pr->dp.reason);
		return;
	}
	p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d: PHP %d.%d.%d in %s",
	    (int)pr->dp.lp.pid, pr->t.ver.major, pr->t.ver.minor,
	    pr->t.ver.patch, pr->t.object);
}

static void
phpp_examine(struct phpp *p, struct phpp_proc *pr, double age)
{
	if (langproc_comm(pr->dp.lp.pid, pr->dp.comm, sizeof(pr->dp.comm)) != 0)
		pr->dp.lp.state = LANGTAB_GONE;
	else if (p->have_filter && regexec(&p->filter, pr->dp.comm, 0, NULL,
	    0) != 0)
		pr->dp.lp.state = LANGTAB_IGNORED;
	else
		phpp_attach(p, pr, age);
}

static void
phpp_examine_cb(void *arg, struct langtab_proc *lp, double age)
{
	phpp_examine(arg, PHPP(lp), age);
}

static void
phpp_sample_proc(struct phpp *p, struct phpp_proc *pr)
{
	uint32_t nseen;
	int rc;

	langdrv_sample_begin(&p->drv);
	php_target_begin(&pr->t);
	rc = php_walk_stack(&pr->t.mem, &pr->t.off, pr->t.eg, PHP_MAX_FRAMES,
	    pr->t.fcache, langdrv_frame, &p->drv, &nseen);
	langdrv_sample_end(&p->drv, &pr->dp, rc, pr->t.pg.guard.why);
}

static void
phpp_sample_cb(void *arg, struct langtab_proc *lp)
{
	phpp_sample_proc(arg, PHPP(lp));
}

/* PHP processes are found by their comm: the first walk at start. */
static void
phpp_cycle_end(void *arg, struct langdrv_proc *dp, struct gp_snapshot *snap)
{
	struct phpp_proc *pr = PHPP(dp);

	(void)arg;
	(void)snap;
	/* Code is freed and recompiled between requests: start over. */
	if (pr->t.fcache != NULL)
		memset(pr->t.fcache, 0, sizeof(*pr->t.fcache));
}

static const struct langdrv_ops phpp_ops = {
	.proc_size = sizeof(struct phpp_proc),
	.examine = phpp_examine_cb,
	.sample = phpp_sample_cb,
	.cycle_end = phpp_cycle_end,
	.scan_at_start = 1,
	.rescan_ms = PHPP_RESCAN_MS,
	.max_frames = PHP_MAX_FRAMES,
	.text_size = PHP_MAX_FRAME_TEXT + 8,
	.suffix = "_[php]",	/* gProfiler's, after each phpspy line */
	.lang = "PHP",
	.comm = "php",
	.max_freq = PHPP_MAX_FREQ,
	.fail_limit = PHPP_FAIL_LIMIT,
};

static int
phpp_snapshot(void *priv, struct gp_snapshot *snap)
{
	struct phpp *p = priv;

	if (!p->enabled) {
		p->api->snapshot_done(snap, 0, NULL);
		return (0);
	}
	return (langdrv_snapshot(&p->drv, snap));
}

static void
phpp_abandon(void *priv, struct gp_snapshot *snap)
{
	struct phpp *p = priv;

	(void)snap;
	langdrv_abandon(&p->drv);
}

static void
phpp_reset(struct phpp *p)
{
	langdrv_reset(&p->drv);
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
	if (langdrv_start(&p->drv) != 0) {
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
	if (langdrv_init(&p->drv, ctx, api, &phpp_ops, p, phpp_release) != 0) {
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
	langdrv_free(&p->drv);
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
