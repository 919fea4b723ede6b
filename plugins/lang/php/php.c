/*
 * The PHP process profiler (gProfiler's phpspy mode): finds the
 * processes whose comm matches --php-proc-filter (as phpspy -P, an
 * extended regex, unanchored), reads their PHP stacks from the Zend
 * executor globals without stopping them, and hands the aggregated stacks
 * to the host at each snapshot, each frame with gProfiler's "_[php]"
 * suffix.  The reader itself is in php_*.c.
 *
 * When: with the perf plugin's BPF sampler, in its samples (ABI 1.6): it
 * walks the executor's frame chain as the sample is taken and reports
 * each frame's function and opline, and a function known since the last
 * snapshot costs no read (php_walked_frame), so a sample costs some 3 us
 * instead of 150 (bench/runtime_cost.sh) and counts the CPU PHP used, as
 * perf's samples do.  Without it, at -f Hz on a timer, as phpspy does.
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
	struct langdrv drv;	/* first; its table: phpp_proc */
	regex_t filter;
	int have_filter;
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
		langtab_attach_log(p->drv.api, p->drv.ctx, &pr->dp.lp, age,
		    pr->dp.comm, pr->dp.reason);
		return;
	}
	p->drv.api->log(p->drv.ctx, GP_LOG_DEBUG, "pid %d: PHP %d.%d.%d in %s",
	    (int)pr->dp.lp.pid, pr->t.ver.major, pr->t.ver.minor,
	    pr->t.ver.patch, pr->t.object);
}

static void
phpp_examine(void *arg, struct langtab_proc *lp, double age)
{
	struct phpp *p = arg;
	struct phpp_proc *pr = PHPP(lp);

	if (langproc_comm(pr->dp.lp.pid, pr->dp.comm, sizeof(pr->dp.comm)) != 0)
		pr->dp.lp.state = LANGTAB_GONE;
	else if (p->have_filter && regexec(&p->filter, pr->dp.comm, 0, NULL,
	    0) != 0)
		pr->dp.lp.state = LANGTAB_IGNORED;
	else
		phpp_attach(p, pr, age);
}

static int
phpp_wake(void *arg, struct langtab_proc *lp, const char **why)
{
	struct php_target *t = &PHPP(lp)->t;

	(void)arg;
	*why = t->pg.guard.why;
	php_target_begin(t);
	return (php_target_wake(t));
}

static int
phpp_read(void *arg, struct langtab_proc *lp)
{
	struct php_target *t = &PHPP(lp)->t;
	uint32_t nseen;

	return (php_walk_stack(&t->mem, &t->off, t->eg, PHP_MAX_FRAMES,
	    t->fcache, langdrv_frame, &((struct phpp *)arg)->drv, &nseen));
}

/*
 * How the system profiler walks a PHP process's frames in its samples:
 * from EG(current_execute_data) along prev_execute_data, each frame's
 * func as the code word and its opline as the position.  The executor
 * globals are a global of the process, so the walk's root is that word
 * itself (its offset is past the walk's 256 bytes); the check word after
 * it, EG(fake_scope), is NULL but while an internal function reaches
 * properties on a class's behalf (that sample is then read here).
 */
static int
phpp_walk_layout(void *arg, struct langtab_proc *lp, struct gp_frame_walk *w,
    int32_t *tid, uint64_t *root, uint64_t *check)
{
	struct php_target *t = &PHPP(lp)->t;
	const struct php_offsets *o = &t->off;
	uint64_t v;
	int rc;

	(void)arg;
	php_target_begin(t);
	if ((rc = t->mem.read(t->mem.arg, t->eg + o->eg_fake_scope, &v,
	    sizeof(v))) != 0)
		return (rc);
	if (v != 0)
		return (-EAGAIN);	/* told again at the next snapshot */
	w->root_check = o->eg_fake_scope - o->eg_current_execute_data;
	w->root_frame = 0;
	w->holder_frame = -1;
	w->frame_next = o->ed_prev;
	w->frame_code = o->ed_func;
	w->frame_pos = o->ed_opline;
	w->pos_size = 8;
	w->frame_owner = -1;
	w->owner_skip = 0;
	*tid = lp->pid;		/* non-ZTS: the main thread runs PHP */
	*root = t->eg + o->eg_current_execute_data;
	*check = 0;
	return (0);
}

/* A walked frame: a function known since the last snapshot costs no
 * read. */
static int
phpp_walked_frame(void *arg, struct langtab_proc *lp, uint64_t code,
    uint64_t pos, char *buf, size_t len, const char **text)
{
	struct php_target *t = &PHPP(lp)->t;

	(void)arg;
	if (code == 0)		/* a frame being set up */
		return (1);
	return (php_walked_frame(&t->mem, &t->off, t->fcache, code, pos, buf,
	    len, text));
}

/* PHP processes are found by their comm: the first walk at start. */
static void
phpp_cycle_end(void *arg, struct langdrv_proc *dp, struct gp_snapshot *snap)
{
	struct phpp_proc *pr = PHPP(dp);

	(void)arg;
	(void)snap;
	if (pr->dp.lp.samples == 0)
		php_target_idle(&pr->t);
	/* Code is freed and recompiled between requests: start over. */
	else if (pr->t.fcache != NULL) {
		memset(pr->t.fcache, 0, sizeof(*pr->t.fcache));
		pr->t.fcache->eg = pr->t.eg;
	}
}

/* The filter goes with the driver's state (langdrv_reset). */
static void
phpp_reset(void *arg)
{
	struct phpp *p = arg;

	if (p->have_filter)
		regfree(&p->filter);
	p->have_filter = 0;
}

static const struct langdrv_ops phpp_ops = {
	.proc_size = sizeof(struct phpp_proc),
	.release = phpp_release,
	.reset = phpp_reset,
	.examine = phpp_examine,
	.wake = phpp_wake,
	.read = phpp_read,
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
	.walk_layout = phpp_walk_layout,
	.walked_frame = phpp_walked_frame,
};

static int
phpp_start(void *priv)
{
	struct phpp *p = priv;
	const struct gp_host_api *api = p->drv.api;
	const char *filter = api->option_get(p->drv.ctx, "php-proc-filter");
	char err[128];
	int rc;

	if (!langdrv_plugin_enable(&p->drv, "php-mode", "phpspy"))
		return (0);
	if (filter != NULL && filter[0] != '\0') {
		if ((rc = regcomp(&p->filter, filter, REG_EXTENDED |
		    REG_NOSUB)) != 0) {
			regerror(rc, &p->filter, err, sizeof(err));
			api->log(p->drv.ctx, GP_LOG_ERR, "--php-proc-filter "
			    "\"%s\": %s; PHP profiling is off", filter, err);
			p->drv.enabled = 0;
			return (0);
		}
		p->have_filter = 1;
	}
	if ((rc = langdrv_start(&p->drv)) != 0)
		return (rc);
	api->log(p->drv.ctx, GP_LOG_INFO, "sampling PHP at %u Hz in "
	    "processes whose comm matches \"%s\"", p->drv.freq,
	    filter != NULL ? filter : "");
	return (0);
}

static int
phpp_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	return (langdrv_plugin_init(ctx, api, sizeof(struct phpp), &phpp_ops,
	    privp));
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
	.snapshot = langdrv_plugin_snapshot,
	.abandon = langdrv_plugin_abandon,
	.stop = langdrv_plugin_stop,
	.destroy = langdrv_plugin_destroy,
};
