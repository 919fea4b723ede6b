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
	uint32_t	 freq;
	double		 min_duration;
	regex_t		 filter;
	int		 have_filter;
	struct gp_timer	*sample_timer;
	struct gp_timer	*scan_timer;
	struct gp_timer	*first_timer;	/* once all plugins started */
	int		 discover;	/* processes from the host's reports */
	int		 walk_once;	/* reports began: what came before */
	struct langtab	 tab;		/* of struct phpp_proc */
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
#define PHPP_AT(p, i)	PHPP((p)->tab.procs[i])

static struct phpp_proc *
phpp_find(struct phpp *p, pid_t pid)
{
	return (PHPP(langtab_find(&p->tab, pid)));
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
phpp_reexamine(void *arg, struct langtab_proc *lp, double age)
{
	phpp_examine(arg, PHPP(lp), age);
}

/* Consider one process: new, re-exec'd (new identity) or known. */
static void
phpp_scan_pid(void *arg, pid_t pid, double uptime)
{
	struct phpp *p = arg;
	struct langtab_proc *lp = langtab_find(&p->tab, pid);
	uint64_t start, exe_id;
	double age;

	if (langproc_stat(pid, &start, &exe_id) != 0)
		return;
	age = langtab_age(start, uptime);
	if (langtab_same(&p->tab, &lp, start, exe_id)) {
		if (lp->state == LANGTAB_NEW)
			phpp_examine(p, PHPP(lp), age);
		return;
	}
	/* --min-duration: too young now, considered again next scan. */
	if (!p->api->pid_wanted(p->ctx, (int32_t)pid) ||
	    (p->min_duration > 0 && (age < 0 || age < p->min_duration)))
		return;
	if ((lp = langtab_new(&p->tab, sizeof(struct phpp_proc), pid, start,
	    exe_id)) != NULL)
		phpp_examine(p, PHPP(lp), age);
}

/* The known processes checked (langtab_refresh). */
static void
phpp_refresh(struct phpp *p, int young_only)
{
	langtab_refresh(&p->tab, young_only, langproc_stat, phpp_reexamine, p);
}

static void
phpp_scan(struct phpp *p)
{
	if (p->discover && !p->walk_once)
		phpp_refresh(p, 0);
	else {
		p->walk_once = 0;
		langtab_unsee(&p->tab);
		(void)langtab_walk_proc(phpp_scan_pid, p);
	}
	/* Forget vanished processes, unless their stacks await a snapshot. */
	langtab_prune(&p->tab);
}

static void	phpp_sample_cb(void *);
static void	phpp_retry_cb(void *);

/* The -f Hz timer runs only while there is a PHP process to sample. */
static void
phpp_timer_sync(struct phpp *p)
{
	uint32_t i;
	int any = 0;

	for (i = 0; i < p->tab.n && !any; i++)
		any = p->tab.procs[i]->state == LANGTAB_ACTIVE;
	if (!any && p->sample_timer != NULL) {
		p->api->timer_del(p->sample_timer);
		p->sample_timer = NULL;
	} else if (any && p->sample_timer == NULL && (p->scan_timer != NULL ||
	    p->discover))
		p->sample_timer = p->api->timer_add(p->ctx, 1000 / p->freq, 1,
		    phpp_sample_cb, p);
	langtab_retry_sync(&p->tab, p->api, p->ctx, phpp_retry_cb, p);
}

/* Young processes whose attach failed, tried again (langtab.h). */
static void
phpp_retry_cb(void *arg)
{
	phpp_refresh(arg, 1);
	phpp_timer_sync(arg);
}

static void	phpp_scan_cb(void *);
static void	phpp_discover_sync(struct phpp *);

/*
 * The system profiler sampled pid (its first sample of the cycle, or of a
 * new image): examine it if new or re-exec'd; a known one costs a lookup.
 */
static void
phpp_process_cb(void *arg, int32_t pid)
{
	struct phpp *p = arg;
	struct phpp_proc *pr = phpp_find(p, (pid_t)pid);
	uint32_t n = p->tab.n;

	if (!p->enabled)
		return;
	if (!p->discover)	/* a source that started after us */
		phpp_discover_sync(p);
	if (pr == NULL && p->tab.n >= LANGTAB_MAX)
		phpp_scan(p);	/* make room: the dead go */
	phpp_scan_pid(p, (pid_t)pid, langtab_uptime());
	if (p->tab.n != n || phpp_find(p, (pid_t)pid) != pr)
		phpp_timer_sync(p);
}

/* Whether a system profiler reports processes now (it may start after
 * us): then no scan timer wakes the loop each second. */
static void
phpp_discover_sync(struct phpp *p)
{
	int was;

	if (!GP_API_HAS(p->api, process_subscribe))
		return;
	was = p->discover;
	p->discover = p->api->process_subscribe(p->ctx, phpp_process_cb,
	    p) == 0;
	/* Processes the source reported before we listened: one walk. */
	if (p->discover && !was && p->scan_timer != NULL)
		p->walk_once = 1;
	if (p->discover) {
		p->api->timer_del(p->scan_timer);
		p->scan_timer = NULL;
	} else if (p->scan_timer == NULL)
		p->scan_timer = p->api->timer_add(p->ctx, PHPP_RESCAN_MS, 1,
		    phpp_scan_cb, p);
}

/*
 * The first loop turn, every plugin started: a system profiler that
 * started after us has reported nothing yet, so listening now misses
 * nothing and no walk of /proc is needed.
 */
static void
phpp_first_cb(void *arg)
{
	struct phpp *p = arg;

	p->api->timer_del(p->first_timer);
	p->first_timer = NULL;
	phpp_discover_sync(p);
	p->walk_once = 0;
	phpp_timer_sync(p);
}

static void
phpp_scan_cb(void *arg)
{
	phpp_discover_sync(arg);
	phpp_scan(arg);
	phpp_timer_sync(arg);
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
phpp_sample_cb(void *arg)
{
	struct phpp *p = arg;
	uint32_t i;

	for (i = 0; i < p->tab.n; i++)
		if (p->tab.procs[i]->state == LANGTAB_ACTIVE)
			phpp_sample_proc(p, PHPP_AT(p, i));
}

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
	phpp_scan(p);
	phpp_timer_sync(p);
	langagg_foreach(p->agg, phpp_deliver_stack, &d);
	for (i = 0; i < p->tab.n; i++) {
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
	    (unsigned long long)p->nfailed, p->tab.n);
	langagg_clear(p->agg);
	p->nsamples = p->nfailed = 0;
	langtab_prune(&p->tab);	/* the gone: their stacks went out */
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
	for (i = 0; i < p->tab.n; i++)
		p->tab.procs[i]->samples = 0;
}

static void
phpp_reset(struct phpp *p)
{
	p->api->timer_del(p->sample_timer);
	p->api->timer_del(p->scan_timer);
	p->api->timer_del(p->first_timer);
	p->sample_timer = p->scan_timer = p->first_timer = NULL;
	langtab_retry_stop(&p->tab, p->api);
	if (GP_API_HAS(p->api, process_subscribe))
		(void)p->api->process_subscribe(p->ctx, NULL, NULL);
	p->discover = 0;
	while (p->tab.n > 0)
		langtab_remove(&p->tab, p->tab.procs[p->tab.n - 1]);
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
	p->freq = f < 1 ? 1 : f > PHPP_MAX_FREQ ? PHPP_MAX_FREQ : (uint32_t)f;
	p->min_duration = (double)p->api->option_get_int(p->ctx,
	    "min-duration", 0);
	/* No scan when a system profiler reports processes. */
	phpp_discover_sync(p);
	phpp_scan(p);
	if (!p->discover)	/* one that starts after us: phpp_first_cb */
		p->first_timer = p->api->timer_add(p->ctx, 0, 0,
		    phpp_first_cb, p);
	if (p->scan_timer == NULL && !p->discover) {
		phpp_reset(p);
		return (-ENOMEM);
	}
	phpp_timer_sync(p);
	p->api->log(p->ctx, GP_LOG_INFO, "sampling PHP at %u Hz in "
	    "processes whose comm matches \"%s\"", p->freq, filter != NULL ?
	    filter : "");
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

/* Every file of the reader, through the host's safe open. */
static int
phpp_file_open(void *arg, const struct gp_open_spec *spec,
    struct gp_file_info *info)
{
	struct phpp *p = arg;

	return (p->api->file_open(p->ctx, spec, info));
}

/* The ELF reader's one line about a file it gave up on. */
static void
phpp_elf_log(void *arg, const char *msg)
{
	struct phpp *p = arg;

	p->api->log(p->ctx, GP_LOG_WARN, "%s", msg);
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
	if (langtab_init(&p->tab, phpp_release, p) != 0 ||
	    p->texts == NULL || p->agg == NULL) {
		langtab_free(&p->tab);
		free(p->texts);
		langagg_free(p->agg);
		free(p);
		return (-ENOMEM);
	}
	langproc_set_opener(phpp_file_open, p);
	elfread_set_log(phpp_elf_log, p);
	*privp = p;
	return (0);
}

static void
phpp_destroy(void *priv)
{
	struct phpp *p = priv;

	if (p == NULL)
		return;
	elfread_set_log(NULL, NULL);
	phpp_reset(p);
	langagg_free(p->agg);
	langtab_free(&p->tab);
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
