/*
 * The Ruby process profiler (gProfiler's rbspy mode): finds the
 * processes that map a Ruby VM (libruby*.so, or an executable named
 * ruby*), reads the running thread's Ruby stack from the VM's
 * control frames at -f Hz without stopping them, and hands the
 * aggregated stacks to the host at each snapshot, each frame with
 * gProfiler's "_[rb]" suffix.  The reader itself is in ruby_*.c.
 *
 * Processes are found from the system profiler's samples when it reports
 * them (ABI 1.4, as the Python plugin: an idle process is never
 * examined), else by a /proc scan each second.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "elfread.h"

#include "langagg.h"
#include "langdrv.h"
#include "langtab.h"
#include "ruby_target.h"

#define RUBYP_RESCAN_MS	1000	/* new processes: within a second */
#define RUBYP_MAX_FREQ	999	/* a bound, as for PHP */
#define RUBYP_FAIL_LIMIT 20	/* failed samples in a row: an error */

struct rubyp_proc {
	struct langtab_proc lp;		/* first: the table's entry */
	int		 reported;	/* its skip/error went out once */
	uint32_t	 fails;
	char		 comm[64];
	char		 appid[1024];
	char		 reason[256];
	struct ruby_target t;
};

struct rubyp {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	int		 enabled;
	struct langdrv	 drv;		/* its table: of struct rubyp_proc */
	struct langagg	*agg;
	uint64_t	 nsamples, nfailed;
	/* one stack being collected, root last */
	char		(*texts)[RUBY_MAX_FRAME_TEXT + 8];
	uint32_t	 ntexts;
};

static const struct gp_option rubyp_options[] = {
	{ "ruby-mode", GP_OPT_ENUM, 0, "rbspy", 0, 0, "rbspy|disabled|none",
	    "Ruby profiling: rbspy (gProfiler's default; here the built-in "
	    "Ruby 2.7-3.4 stack reader, frames as gProfiler writes rbspy's) "
	    "or disabled" },
};

#define RUBYP(lp)	((struct rubyp_proc *)(lp))
#define RUBYP_AT(p, i)	RUBYP((p)->drv.tab.procs[i])

static struct rubyp_proc *
rubyp_find(struct rubyp *p, pid_t pid)
{
	return (RUBYP(langtab_find(&p->drv.tab, pid)));
}

static void
rubyp_release(void *arg, struct langtab_proc *lp)
{
	ruby_target_release(&RUBYP(lp)->t);
	free(lp);
}

#define RUBYP_CMDLINE_MAX	(64 * 1024)
#define RUBYP_ARGV_MAX		256

/* gProfiler's appid from the command line and working directory. */
static void
rubyp_appid(struct rubyp_proc *pr)
{
	const char *argv[RUBYP_ARGV_MAX];
	char path[64], cwd[4096], *cmd;
	ssize_t n, i;
	int argc = 0;

	pr->appid[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)pr->lp.pid);
	if ((n = readlink(path, cwd, sizeof(cwd) - 1)) <= 0)
		n = 0;
	cwd[n] = '\0';
	if ((cmd = malloc(RUBYP_CMDLINE_MAX)) == NULL)
		return;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pr->lp.pid);
	if ((n = langproc_read_small_file(path, cmd, RUBYP_CMDLINE_MAX)) > 0) {
		for (i = 0; i < n && argc < RUBYP_ARGV_MAX; i++) {
			argv[argc++] = cmd + i;
			i += (ssize_t)strlen(cmd + i);
		}
		(void)ruby_appid(argv, argc, cwd, pr->appid,
		    sizeof(pr->appid));
	}
	free(cmd);
}

static void
rubyp_attach(struct rubyp *p, struct rubyp_proc *pr, double age)
{
	int rc;

	rc = ruby_target_attach(pr->lp.pid, &pr->t, pr->reason,
	    sizeof(pr->reason));
	pr->lp.state = langtab_attach_state(rc, age);
	if (rc != 0) {
		ruby_target_release(&pr->t);
		langtab_attach_log(p->api, p->ctx, &pr->lp, age, pr->comm,
		    pr->reason);
		return;
	}
	rubyp_appid(pr);
	p->api->log(p->ctx, GP_LOG_DEBUG, "pid %d: Ruby %d.%d.%d in %s",
	    (int)pr->lp.pid, pr->t.ver.major, pr->t.ver.minor,
	    pr->t.ver.patch, pr->t.object);
}

static void
rubyp_examine(struct rubyp *p, struct rubyp_proc *pr, double age)
{
	if (langproc_comm(pr->lp.pid, pr->comm, sizeof(pr->comm)) != 0)
		pr->lp.state = LANGTAB_GONE;
	else
		rubyp_attach(p, pr, age);
}

static void
rubyp_examine_cb(void *arg, struct langtab_proc *lp, double age)
{
	rubyp_examine(arg, RUBYP(lp), age);
}

/* How processes are found, said once it is known (langdrv). */
static void
rubyp_say_started(void *arg)
{
	struct rubyp *p = arg;

	p->api->log(p->ctx, GP_LOG_INFO, "sampling Ruby at %u Hz; processes "
	    "found %s", p->drv.freq, p->drv.discover ? "from the system "
	    "profiler's samples" : "by scanning /proc each second");
}

static int
rubyp_frame(void *arg, const char *text)
{
	struct rubyp *p = arg;

	if (p->ntexts >= RUBY_MAX_FRAMES)
		return (-E2BIG);
	/* gProfiler appends "_[rb]" to each of rbspy's frames. */
	snprintf(p->texts[p->ntexts++], sizeof(p->texts[0]), "%s_[rb]",
	    text);
	return (0);
}

static void
rubyp_sample_proc(struct rubyp *p, struct rubyp_proc *pr)
{
	const char *frames[RUBY_MAX_FRAMES];
	uint32_t i, nseen;
	int rc;

	p->ntexts = 0;
	ruby_target_begin(&pr->t);
	rc = ruby_walk_stack(&pr->t.mem, &pr->t.off, pr->t.root,
	    RUBY_MAX_FRAMES,
	    pr->t.fcache, rubyp_frame, p, &nseen);
	p->nsamples++;
	if (rc == 0 || rc == -E2BIG) {
		pr->fails = 0;
		if (p->ntexts == 0)	/* idle: no thread runs Ruby */
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
	if (++pr->fails >= RUBYP_FAIL_LIMIT || rc == -EPERM ||
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
rubyp_sample_cb(void *arg, struct langtab_proc *lp)
{
	rubyp_sample_proc(arg, RUBYP(lp));
}

/*
 * Ruby processes are found by what they map: the first walk of /proc
 * waits a second (a system profiler that starts after us spares it).
 */
static const struct langdrv_ops rubyp_ops = {
	.proc_size = sizeof(struct rubyp_proc),
	.examine = rubyp_examine_cb,
	.sample = rubyp_sample_cb,
	.started = rubyp_say_started,
	.rescan_ms = RUBYP_RESCAN_MS,
};

struct rubyp_deliver {
	struct rubyp	*p;
	struct gp_snapshot *snap;
};

static void
rubyp_deliver_stack(void *arg, int32_t pid, const char *const *frames,
    uint32_t n, uint64_t count)
{
	struct rubyp_deliver *d = arg;
	struct rubyp_proc *pr = rubyp_find(d->p, pid);

	d->p->api->snapshot_add_stack(d->snap, pid, pr != NULL ? pr->comm :
	    "ruby", frames, n, count);
}

/* The appid, and gProfiler's Ruby application metadata keys. */
static void
rubyp_deliver_meta(struct rubyp *p, struct gp_snapshot *snap,
    struct rubyp_proc *pr)
{
	const struct gp_host_api *api = p->api;
	struct gp_json *md;
	char ver[160];

	if (pr->appid[0] != '\0' && GP_API_HAS(api, snapshot_set_appid))
		api->snapshot_set_appid(snap, pr->lp.pid, pr->appid);
	if (!GP_API_HAS(api, snapshot_set_app_metadata) ||
	    (md = api->json_new()) == NULL)
		return;
	/* What `ruby --version` prints (gProfiler runs it); the library's
	 * own ruby_description string, else the bare version. */
	if (pr->t.description[0] != '\0')
		snprintf(ver, sizeof(ver), "%s", pr->t.description);
	else
		snprintf(ver, sizeof(ver), "ruby %d.%d.%d", pr->t.ver.major,
		    pr->t.ver.minor, pr->t.ver.patch);
	api->json_set_string(md, "ruby_version", ver);
	if (pr->t.exe_elfid[0] != '\0')
		api->json_set_string(md, "exe_elfid", pr->t.exe_elfid);
	else
		api->json_set_null(md, "exe_elfid");
	if (pr->t.lib_elfid[0] != '\0')
		api->json_set_string(md, "libruby_elfid", pr->t.lib_elfid);
	else
		api->json_set_null(md, "libruby_elfid");
	api->snapshot_set_app_metadata(snap, pr->lp.pid, md);
}

static int
rubyp_snapshot(void *priv, struct gp_snapshot *snap)
{
	struct rubyp *p = priv;
	struct rubyp_deliver d = { p, snap };
	struct rubyp_proc *pr;
	uint32_t i;

	if (!p->enabled) {
		p->api->snapshot_done(snap, 0, NULL);
		return (0);
	}
	langdrv_scan(&p->drv);
	langdrv_timer_sync(&p->drv);
	langagg_foreach(p->agg, rubyp_deliver_stack, &d);
	for (i = 0; i < p->drv.tab.n; i++) {
		pr = RUBYP_AT(p, i);
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
		if (pr->lp.samples > 0)
			rubyp_deliver_meta(p, snap, pr);
		pr->lp.samples = 0;
		/* Code is freed and recompiled between requests: start over. */
		if (pr->t.fcache != NULL)
			memset(pr->t.fcache, 0, sizeof(*pr->t.fcache));
	}
	p->api->log(p->ctx, GP_LOG_DEBUG, "snapshot: %u Ruby stacks, %llu "
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
rubyp_abandon(void *priv, struct gp_snapshot *snap)
{
	struct rubyp *p = priv;
	uint32_t i;

	(void)snap;
	langagg_clear(p->agg);
	for (i = 0; i < p->drv.tab.n; i++)
		p->drv.tab.procs[i]->samples = 0;
}

static void
rubyp_reset(struct rubyp *p)
{
	langdrv_reset(&p->drv);
	langagg_clear(p->agg);
}

static int
rubyp_start(void *priv)
{
	struct rubyp *p = priv;
	const char *mode = p->api->option_get(p->ctx, "ruby-mode");
	int64_t f;

	rubyp_reset(p);
	p->enabled = mode != NULL && strcmp(mode, "rbspy") == 0;
	if (!p->enabled)
		return (0);
	f = p->api->option_get_int(p->ctx, "profiling-frequency", 11);
	f = f < 1 ? 1 : f > RUBYP_MAX_FREQ ? RUBYP_MAX_FREQ : f;
	if (langdrv_start(&p->drv, (uint32_t)f, (double)p->api->option_get_int(
	    p->ctx, "min-duration", 0)) != 0) {
		rubyp_reset(p);
		return (-ENOMEM);
	}
	return (0);
}

static int
rubyp_stop(void *priv)
{
	struct rubyp *p = priv;

	rubyp_reset(p);
	p->api->stop_done(p->ctx);
	return (0);
}

static int
rubyp_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	struct rubyp *p;

	if (api->abi_major != GP_ABI_MAJOR)
		return (-EINVAL);
	if (!GP_API_HAS(api, file_open))
		return (-ENOTSUP);	/* never an unsafe open instead */
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (-ENOMEM);
	p->ctx = ctx;
	p->api = api;
	p->texts = calloc(RUBY_MAX_FRAMES, sizeof(*p->texts));
	p->agg = langagg_new(RUBY_MAX_FRAMES + 1);
	if (langdrv_init(&p->drv, ctx, api, &rubyp_ops, p, rubyp_release) != 0 ||
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
rubyp_destroy(void *priv)
{
	struct rubyp *p = priv;

	if (p == NULL)
		return;
	rubyp_reset(p);
	langagg_free(p->agg);
	langdrv_free(&p->drv);
	free(p->texts);
	free(p);
}

GP_PLUGIN_EXPORT const struct gp_plugin gprofiler_plugin = {
	GP_PLUGIN_HEADER,
	.name = "ruby",
	.version = "0.1.0",
	.build = "Ruby 2.7-3.4 reader (x86-64)",
	.description = "Ruby stacks read from the VM's control frames",
	.kind = GP_KIND_PROCESS,
	.modes = GP_MODE_CPU,
	.options = rubyp_options,
	.option_size = sizeof(struct gp_option),
	.option_count = sizeof(rubyp_options) / sizeof(rubyp_options[0]),
	.init = rubyp_init,
	.start = rubyp_start,
	.snapshot = rubyp_snapshot,
	.abandon = rubyp_abandon,
	.stop = rubyp_stop,
	.destroy = rubyp_destroy,
};
