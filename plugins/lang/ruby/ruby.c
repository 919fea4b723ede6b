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

#include "langdrv.h"
#include "langtab.h"
#include "ruby_target.h"

#define RUBYP_RESCAN_MS	1000	/* new processes: within a second */
#define RUBYP_MAX_FREQ	999	/* a bound, as for PHP */
#define RUBYP_FAIL_LIMIT 20	/* failed samples in a row: an error */

struct rubyp_proc {
	struct langdrv_proc dp;		/* first: the driver's part */
	char appid[1024];
	struct ruby_target t;
};

struct rubyp {
	struct langdrv drv;	/* first; its table: rubyp_proc */
};

static const struct gp_option rubyp_options[] = {
	{ "ruby-mode", GP_OPT_ENUM, 0, "rbspy", 0, 0, "rbspy|disabled|none",
	    "Ruby profiling: rbspy (gProfiler's default; here the built-in "
	    "Ruby 2.7-3.4 stack reader, frames as gProfiler writes rbspy's) "
	    "or disabled" },
};

#define RUBYP(lp)	((struct rubyp_proc *)(lp))

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
	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)pr->dp.lp.pid);
	if ((n = readlink(path, cwd, sizeof(cwd) - 1)) <= 0)
		n = 0;
	cwd[n] = '\0';
	if ((cmd = malloc(RUBYP_CMDLINE_MAX)) == NULL)
		return;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pr->dp.lp.pid);
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

	rc = ruby_target_attach(pr->dp.lp.pid, &pr->t, pr->dp.reason,
	    sizeof(pr->dp.reason));
	pr->dp.lp.state = langtab_attach_state(rc, age);
	if (rc != 0) {
		ruby_target_release(&pr->t);
		langtab_attach_log(p->drv.api, p->drv.ctx, &pr->dp.lp, age,
		    pr->dp.comm, pr->dp.reason);
		return;
	}
	rubyp_appid(pr);
	p->drv.api->log(p->drv.ctx, GP_LOG_DEBUG, "pid %d: Ruby %d.%d.%d in %s",
	    (int)pr->dp.lp.pid, pr->t.ver.major, pr->t.ver.minor,
	    pr->t.ver.patch, pr->t.object);
}

static void
rubyp_examine(void *arg, struct langtab_proc *lp, double age)
{
	struct rubyp *p = arg;
	struct rubyp_proc *pr = RUBYP(lp);

	if (langproc_comm(pr->dp.lp.pid, pr->dp.comm, sizeof(pr->dp.comm)) != 0)
		pr->dp.lp.state = LANGTAB_GONE;
	else
		rubyp_attach(p, pr, age);
}

/* How processes are found, said once it is known (langdrv). */
static void
rubyp_say_started(void *arg)
{
	struct langdrv *d = &((struct rubyp *)arg)->drv;

	d->api->log(d->ctx, GP_LOG_INFO, "sampling Ruby at %u Hz; processes "
	    "found %s", d->freq, d->find.discover ? "from the system profiler's "
	    "samples" : "by scanning /proc each second");
}

static int
rubyp_wake(void *arg, struct langtab_proc *lp, const char **why)
{
	struct ruby_target *t = &RUBYP(lp)->t;
	int rc;

	(void)arg;
	*why = t->pg.guard.why;
	if ((rc = ruby_target_wake(t)) == 0)
		ruby_target_begin(t);
	return (rc);
}

static int
rubyp_read(void *arg, struct langtab_proc *lp)
{
	struct ruby_target *t = &RUBYP(lp)->t;
	uint32_t nseen;

	return (ruby_walk_stack(&t->mem, &t->off, t->root, RUBY_MAX_FRAMES,
	    t->fcache, langdrv_frame, &((struct rubyp *)arg)->drv, &nseen));
}

/*
 * How the system profiler walks a Ruby process's frames in its samples:
 * from the sampled thread's own execution context (ruby_current_ec, in
 * its TLS: every thread, GVL or not, gives its own stack), its cfp up
 * the array of control frames to the end of its VM stack, less the VM's
 * own top frame; each frame's iseq and pc, and for a C function's (no
 * iseq) the method entry below its ep (ep[VM_ENV_DATA_INDEX_ME_CREF]).
 */
static int
rubyp_walk_layout(void *arg, struct langtab_proc *lp, struct gp_frame_walk *w,
    int32_t *tid, uint64_t *root, uint64_t *check)
{
	const struct ruby_target *t = &RUBYP(lp)->t;
	const struct ruby_offsets *o = &t->off;

	(void)arg;
	if (t->tls_module == 0)
		return (-ENOTSUP);
	w->root_frame = o->ec_cfp;
	w->holder_frame = -1;
	w->frame_code = o->cfp_iseq;
	w->frame_pos = o->cfp_pc;
	w->pos_size = 8;
	w->frame_owner = -1;
	w->flags = GP_WALK_F_ALT | GP_WALK_F_TLS | GP_WALK_F_POS_NEW;
	w->frame_stride = o->cfp_size;
	w->stack_base = o->ec_vm_stack;
	w->stack_words = o->ec_vm_stack_size;
	w->end_skip = 1;
	w->frame_alt = o->cfp_ep;
	w->alt_off = -16;
	/* glibc on x86-64: the DTV pointer after the TCB's self pointer,
	 * entries of {value, to_free} */
	w->tls_dtv = 8;
	w->tls_dtv_entry = 16;
	w->tls_module = t->tls_module;
	w->tls_offset = t->tls_ec;
	*tid = 0;
	*root = 0;	/* in each thread's TLS */
	*check = 0;
	return (0);
}

/* A walked frame: code known since the last snapshot costs no read. */
static int
rubyp_walked_frame(void *arg, struct langtab_proc *lp, uint64_t code,
    uint64_t pos, char *buf, size_t len, const char **text)
{
	struct ruby_target *t = &RUBYP(lp)->t;

	(void)arg;
	*text = buf;
	return (ruby_walked_frame(&t->mem, &t->off, t->fcache, code, pos, buf,
	    len));
}

/* The appid, and gProfiler's Ruby application metadata keys. */
static void
rubyp_deliver_meta(struct rubyp *p, struct gp_snapshot *snap,
    struct rubyp_proc *pr)
{
	const struct gp_host_api *api = p->drv.api;
	struct gp_json *md;
	char ver[160];

	if (pr->appid[0] != '\0' && GP_API_HAS(api, snapshot_set_appid))
		api->snapshot_set_appid(snap, pr->dp.lp.pid, pr->appid);
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
	api->snapshot_set_app_metadata(snap, pr->dp.lp.pid, md);
}

static void
rubyp_cycle_end(void *arg, struct langdrv_proc *dp, struct gp_snapshot *snap)
{
	struct rubyp_proc *pr = RUBYP(dp);

	if (pr->dp.lp.samples > 0)
		rubyp_deliver_meta(arg, snap, pr);
	else
		ruby_target_idle(&pr->t);
	/* Code is freed and recompiled between requests: start over. */
	if (pr->t.fcache != NULL)
		memset(pr->t.fcache, 0, sizeof(*pr->t.fcache));
}

/*
 * Ruby processes are found by what they map: the first walk of /proc
 * waits a second (a system profiler that starts after us spares it).
 */
static const struct langdrv_ops rubyp_ops = {
	.proc_size = sizeof(struct rubyp_proc),
	.release = rubyp_release,
	.examine = rubyp_examine,
	.wake = rubyp_wake,
	.read = rubyp_read,
	.started = rubyp_say_started,
	.cycle_end = rubyp_cycle_end,
	.rescan_ms = RUBYP_RESCAN_MS,
	.max_frames = RUBY_MAX_FRAMES,
	.text_size = RUBY_MAX_FRAME_TEXT + 8,
	.suffix = "_[rb]",	/* gProfiler's, after each of rbspy's frames */
	.lang = "Ruby",
	.comm = "ruby",
	.max_freq = RUBYP_MAX_FREQ,
	.fail_limit = RUBYP_FAIL_LIMIT,
	.walk_layout = rubyp_walk_layout,
	.walked_frame = rubyp_walked_frame,
};

static int
rubyp_start(void *priv)
{
	struct rubyp *p = priv;

	if (!langdrv_plugin_enable(&p->drv, "ruby-mode", "rbspy"))
		return (0);
	return (langdrv_start(&p->drv));
}

static int
rubyp_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	return (langdrv_plugin_init(ctx, api, sizeof(struct rubyp),
	    &rubyp_ops, privp));
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
	.snapshot = langdrv_plugin_snapshot,
	.abandon = langdrv_plugin_abandon,
	.stop = langdrv_plugin_stop,
	.destroy = langdrv_plugin_destroy,
};
