/*
 * The runtime driver's walked samples (plugins/lang/common/langdrv_walk.c)
 * against a host that records what it is told: an attached process is
 * watched and walked with its layout and root, and needs no timer; a
 * walked sample is named from its words without a read; a thread without
 * a root is told it runs no interpreter code, the interpreter's own is
 * told its root again and read; a system profiler that restarted is told
 * the walk again; a walk refused starts the timer at once; each snapshot
 * tells the walks again.  The process is this test itself (real /proc).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testing.h"
#include "langdrv.h"
#include "langplug.h"

struct gp_plugin_ctx { int unused; };
struct gp_timer { void (*cb)(void *); void *arg; uint64_t ms; int persist; };
struct gp_snapshot { int done; char stacks[4096]; };

static struct gp_plugin_ctx ctx;
static void (*proc_cb)(void *, int32_t);
static void *proc_arg;
static void (*report_cb)(void *, int32_t, int32_t, uint64_t,
    const struct gp_sample_stack *);
static void *report_arg;
static struct gp_timer *sample_timer;	/* the -f Hz one, if any */
static int walker = 1;			/* the system profiler walks */
static int walk_rc;			/* sample_walk's answer */
static int thread_rc;			/* sample_walk_thread's next answer */
static unsigned nwatch, nwalk, nthread, nunwalk;
static int32_t last_tid;
static uint64_t last_root;
static char logbuf[8192];

static void
h_log(struct gp_plugin_ctx *c, int32_t level, const char *fmt, ...)
{
	va_list ap;
	size_t l = strlen(logbuf);

	(void)c;
	(void)level;
	va_start(ap, fmt);
	vsnprintf(logbuf + l, sizeof(logbuf) - l, fmt, ap);
	va_end(ap);
	l = strlen(logbuf);
	snprintf(logbuf + l, sizeof(logbuf) - l, "\n");
}

static int64_t
h_option_get_int(struct gp_plugin_ctx *c, const char *name, int64_t dflt)
{
	(void)c;
	return (strcmp(name, "profiling-frequency") == 0 ? 100 : dflt);
}

static const char *
h_option_get(struct gp_plugin_ctx *c, const char *name)
{
	(void)c;
	(void)name;
	return (NULL);
}

static struct gp_timer *
h_timer_add(struct gp_plugin_ctx *c, uint64_t ms, int32_t persist,
    void (*cb)(void *), void *arg)
{
	struct gp_timer *t = calloc(1, sizeof(*t));

	(void)c;
	t->cb = cb;
	t->arg = arg;
	t->ms = ms;
	t->persist = persist;
	if (persist && ms == 10)	/* 1000 / 100 Hz */
		sample_timer = t;
	return (t);
}

static void
h_timer_del(struct gp_timer *t)
{
	if (t == sample_timer)
		sample_timer = NULL;
	free(t);
}

static int32_t
h_pid_wanted(struct gp_plugin_ctx *c, int32_t pid)
{
	(void)c;
	return (pid == (int32_t)getpid());
}

static int32_t
h_process_subscribe(struct gp_plugin_ctx *c, void (*cb)(void *, int32_t),
    void *arg)
{
	(void)c;
	proc_cb = cb;
	proc_arg = arg;
	return (0);
}

static int32_t
h_sample_subscribe_stack(struct gp_plugin_ctx *c, void (*cb)(void *,
    int32_t, int32_t, uint64_t, const struct gp_sample_stack *), void *arg)
{
	(void)c;
	report_cb = cb;
	report_arg = arg;
	return (0);
}

static int32_t
h_sample_watch(struct gp_plugin_ctx *c, int32_t pid, int32_t on)
{
	(void)c;
	if (pid != 0 && on)
		nwatch++;
	return (0);
}

static int32_t
h_sample_walk(struct gp_plugin_ctx *c, int32_t pid,
    const struct gp_frame_walk *w)
{
	(void)c;
	if (!walker)
		return (-ENOTSUP);
	if (pid <= 0)
		return (-EINVAL);
	if (w == NULL) {
		nunwalk++;
		return (0);
	}
	nwalk++;
	return (w->frame_next == 48 && w->size == sizeof(*w) ? walk_rc :
	    -EINVAL);
}

static int32_t
h_sample_walk_thread(struct gp_plugin_ctx *c, int32_t pid, int32_t tid,
    uint64_t root, uint64_t check)
{
	int rc = thread_rc;

	(void)c;
	(void)pid;
	(void)check;
	nthread++;
	last_tid = tid;
	last_root = root;
	thread_rc = 0;
	return (rc);
}

static int32_t
h_snapshot_add_stack(struct gp_snapshot *s, int32_t pid, const char *comm,
    const char *const *frames, uint32_t n, uint64_t count)
{
	size_t l = strlen(s->stacks);
	uint32_t i;

	(void)pid;
	l += (size_t)snprintf(s->stacks + l, sizeof(s->stacks) - l, "%s",
	    comm);
	for (i = 0; i < n; i++)
		l += (size_t)snprintf(s->stacks + l, sizeof(s->stacks) - l,
		    ";%s", frames[i]);
	snprintf(s->stacks + l, sizeof(s->stacks) - l, " %llu\n",
	    (unsigned long long)count);
	return (0);
}

static int32_t
h_snapshot_pid_error(struct gp_snapshot *s, int32_t pid, const char *comm,
    int32_t kind, const char *why)
{
	(void)s; (void)pid; (void)comm; (void)kind; (void)why;
	return (0);
}

/* /proc files of this test, opened plainly. */
static int32_t
h_file_open(struct gp_plugin_ctx *c, const struct gp_open_spec *spec,
    struct gp_file_info *info)
{
	int fd;

	(void)c;
	if (info != NULL)
		memset(info, 0, sizeof(*info));
	fd = open(spec->path, O_RDONLY | O_CLOEXEC);
	return (fd < 0 ? -errno : fd);
}

static void
h_snapshot_done(struct gp_snapshot *s, int32_t status, const char *err)
{
	(void)status;
	(void)err;
	s->done = 1;
}

static struct gp_host_api api;

/* The plugin: every process attaches; a walked frame's text is its code
 * word; a read sample gives one frame "read". */
struct tplug {
	struct langdrv drv;
	unsigned reads;
};

static void
t_release(void *arg, struct langtab_proc *lp)
{
	(void)arg;
	free(lp);
}

static void
t_examine(void *arg, struct langtab_proc *lp, double age)
{
	(void)arg;
	(void)age;
	snprintf(((struct langdrv_proc *)lp)->comm,
	    sizeof(((struct langdrv_proc *)lp)->comm), "test");
	lp->state = LANGTAB_ACTIVE;
}

static int
t_wake(void *arg, struct langtab_proc *lp, const char **why)
{
	(void)arg;
	(void)lp;
	*why = "refused";
	return (0);
}

static int
t_read(void *arg, struct langtab_proc *lp)
{
	struct tplug *p = arg;

	(void)lp;
	p->reads++;
	return (langdrv_frame(&p->drv, "read"));
}

static int
t_walk_layout(void *arg, struct langtab_proc *lp, struct gp_frame_walk *w,
    int32_t *tid, uint64_t *root, uint64_t *check)
{
	(void)arg;
	w->frame_next = 48;
	w->frame_code = 24;
	w->pos_size = 8;
	w->holder_frame = w->frame_owner = -1;
	*tid = lp->pid;
	*root = 0x1000;
	*check = 0;
	return (0);
}

/* Code word 0 is no frame. */
static int
t_walked_frame(void *arg, struct langtab_proc *lp, uint64_t code,
    uint64_t pos, char *buf, size_t len, const char **text)
{
	(void)arg;
	(void)lp;
	(void)pos;
	if (code == 0)
		return (1);
	snprintf(buf, len, "f%llx", (unsigned long long)code);
	*text = buf;
	return (0);
}

static const struct langdrv_ops t_ops = {
	.proc_size = sizeof(struct langdrv_proc),
	.release = t_release,
	.examine = t_examine,
	.wake = t_wake,
	.read = t_read,
	.rescan_ms = 1000,
	.max_frames = 16,
	.text_size = 64,
	.suffix = "_[t]",
	.lang = "Test",
	.comm = "test",
	.max_freq = 999,
	.fail_limit = 20,
	.walk_layout = t_walk_layout,
	.walked_frame = t_walked_frame,
};

static void
report(int32_t tid, uint32_t state, const uint64_t *w, uint32_t n)
{
	struct gp_sample_stack st;

	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.walk_state = state;
	st.walk = w;
	st.nwalk = n;
	report_cb(report_arg, (int32_t)getpid(), tid, 2, &st);
}

int
main(void)
{
	struct tplug *pp;
	struct gp_snapshot snap;
	/* root first; code word 0: no frame (t_walked_frame) */
	const uint64_t words[6] = { 0xa, 0, 0, 7, 0xb, 0 };
	int32_t pid = (int32_t)getpid();
	unsigned n;
	int rc;

	api.size = sizeof(api);
	api.abi_major = GP_ABI_MAJOR;
	api.abi_minor = GP_ABI_MINOR;
	api.file_open = h_file_open;
	api.log = h_log;
	api.option_get = h_option_get;
	api.option_get_int = h_option_get_int;
	api.timer_add = h_timer_add;
	api.timer_del = h_timer_del;
	api.pid_wanted = h_pid_wanted;
	api.process_subscribe = h_process_subscribe;
	api.sample_subscribe_stack = h_sample_subscribe_stack;
	api.sample_watch = h_sample_watch;
	api.sample_walk = h_sample_walk;
	api.sample_walk_thread = h_sample_walk_thread;
	api.snapshot_add_stack = h_snapshot_add_stack;
	api.snapshot_pid_error = h_snapshot_pid_error;
	api.snapshot_done = h_snapshot_done;

	pp = langplug_new(&api, sizeof(*pp), &rc);
	CHECK(pp != NULL && langdrv_init(&pp->drv, &ctx, &api, &t_ops,
	    pp) == 0, "init");
	if (pp == NULL)
		return (testing_done());
	CHECK(langdrv_start(&pp->drv) == 0 && report_cb != NULL &&
	    proc_cb != NULL, "started: reports subscribed to");
	CHECK(strstr(logbuf, "Test frames walked") != NULL,
	    "says its frames are walked");

	proc_cb(proc_arg, pid);
	CHECK(nwatch == 1 && nwalk == 1 && nthread == 1 && last_tid == pid &&
	    last_root == 0x1000, "attached: watched, layout and root told");
	CHECK(sample_timer == NULL, "a walked process needs no timer");

	report(pid, GP_WALK_DONE, words, 3);
	CHECK(pp->reads == 0 && pp->drv.nwalked == 1, "walked sample: no read");

	n = nthread;
	report(pid + 100000, GP_WALK_NO_ROOT, NULL, 0);
	CHECK(pp->reads == 0 && nthread == n + 1 && last_tid == pid + 100000 &&
	    last_root == GP_WALK_ROOT_NONE, "another thread without a root: "
	    "told it runs no interpreter code, not read");

	thread_rc = -ENOENT;	/* the system profiler restarted */
	walk_rc = 0;
	n = nwalk;
	report(pid, GP_WALK_NO_ROOT, NULL, 0);
	CHECK(pp->reads == 1 && nwalk == n + 1 && last_root == 0x1000,
	    "the interpreter's thread without a root: walk told again, read");

	n = nwalk;
	report(pid, GP_WALK_NONE, NULL, 0);
	CHECK(pp->reads == 2 && nwalk == n + 1 && sample_timer == NULL,
	    "a report without the walk: told again, read");

	walk_rc = -EBUSY;
	report(pid, GP_WALK_NONE, NULL, 0);
	CHECK(pp->reads == 3 && nunwalk == 1 && sample_timer != NULL,
	    "the walk refused: off, the timer samples at once");
	report(pid, GP_WALK_DONE, words, 3);
	CHECK(pp->drv.nwalked == 1, "no longer walked: its reports ignored");

	walk_rc = 0;
	memset(&snap, 0, sizeof(snap));
	n = nwalk;
	(void)langdrv_snapshot(&pp->drv, &snap);
	CHECK(snap.done && strstr(snap.stacks, "test;fa_[t];fb_[t] 2\n") !=
	    NULL && strstr(snap.stacks, "test;read_[t] 3\n") != NULL,
	    "snapshot: walked stacks root first with their count, a word "
	    "that names no frame left out, and the read ones");
	CHECK(nwalk == n + 1 && sample_timer == NULL, "snapshot: walked "
	    "again, the timer off");
	n = nwalk;
	memset(&snap, 0, sizeof(snap));
	(void)langdrv_snapshot(&pp->drv, &snap);
	CHECK(nwalk == n + 1, "each snapshot tells the walk again (its "
	    "code cache emptied)");

	walker = 0;	/* the perf-events backend, or perf gone */
	memset(&snap, 0, sizeof(snap));
	(void)langdrv_snapshot(&pp->drv, &snap);
	CHECK(sample_timer == NULL && strstr(logbuf, "read at -f Hz") != NULL,
	    "no walker: said once; not reported for two cycles, not timed");
	proc_cb(proc_arg, pid);
	CHECK(sample_timer != NULL, "reported again: the timer samples it");

	langdrv_reset(&pp->drv);
	CHECK(report_cb == NULL && sample_timer == NULL, "reset: reports "
	    "unsubscribed, the timer off");
	langdrv_free(&pp->drv);
	free(pp);
	return (testing_done());
}
