/*
 * Sampled threads: one system profiler reports samples of the PIDs
 * process profilers watch (plugin.h, ABI 1.2; with their native stacks,
 * 1.3).  Watches are kept here so a source that starts after the watchers
 * learns of them; everything a plugin registered goes with its context.
 * Processes found from samples (1.4) go the same way: the source reports
 * a process at its first sample of a cycle to every process profiler
 * subscribed, which examines that one process instead of scanning /proc.
 * Frame walks (1.6) are passed straight to the source that walks: it
 * keeps them (in its BPF maps), and a process profiler that finds them
 * gone (-ENOENT: the source restarted) says them again.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "host/host.h"
#include "host/host_sample.h"

#define HOST_SAMPLE_SUBS	8

struct host_sample_watch {
	struct gp_plugin_ctx *ctx;
	int32_t pid;
};

static struct {
	struct gp_plugin_ctx *ctx;
	void (*watch)(void *, int32_t, int32_t);
	void *arg;
} host_sample_src;

/* A subscriber takes either kind of callback. */
static struct host_sample_sub {
	struct gp_plugin_ctx *ctx;
	void (*cb)(void *, int32_t, int32_t, uint64_t);
	void (*stack_cb)(void *, int32_t, int32_t, uint64_t,
				    const struct gp_sample_stack *);
	void *arg;
} host_sample_subs[HOST_SAMPLE_SUBS];

/* The source that walks interpreter frames in the sample (1.6). */
static struct {
	struct gp_plugin_ctx *ctx;
	int32_t (*walk)(void *, int32_t,
				    const struct gp_frame_walk *);
	int32_t (*thread)(void *, int32_t, int32_t, uint64_t,
				    uint64_t);
	void *arg;
} host_walker;

/* Processes found from samples (1.4). */
static struct gp_plugin_ctx *host_process_src;
static struct {
	struct gp_plugin_ctx *ctx;
	void (*cb)(void *, int32_t);
	void *arg;
} host_process_subs[HOST_SAMPLE_SUBS];

static struct host_sample_watch *host_watches;
static size_t host_nwatches, host_watches_cap;

/* Whether another watcher still watches pid. */
static int
host_sample_watched(int32_t pid)
{
	size_t i;

	for (i = 0; i < host_nwatches; i++)
		if (host_watches[i].pid == pid)
			return (1);
	return (0);
}

int32_t
host_sample_watch(struct gp_plugin_ctx *ctx, int32_t pid, int32_t on)
{
	size_t i;

	host_ctx_check(ctx);
	for (i = 0; i < host_nwatches; i++)
		if (host_watches[i].ctx == ctx && host_watches[i].pid == pid)
			break;
	if (on && i == host_nwatches) {
		if (host_nwatches == host_watches_cap) {
			host_watches_cap = host_watches_cap ?
			    host_watches_cap * 2 : 64;
			host_watches = xreallocarray(host_watches,
			    host_watches_cap, sizeof(*host_watches));
		}
		host_watches[host_nwatches].ctx = ctx;
		host_watches[host_nwatches++].pid = pid;
		if (host_sample_src.watch != NULL)
			host_sample_src.watch(host_sample_src.arg, pid, 1);
	} else if (!on && i < host_nwatches) {
		host_watches[i] = host_watches[--host_nwatches];
		if (host_sample_src.watch != NULL && !host_sample_watched(pid))
			host_sample_src.watch(host_sample_src.arg, pid, 0);
	}
	return (host_sample_src.watch != NULL ? 0 : -ENOTSUP);
}

/*
 * The context's subscription (its own, else a free one), emptied and
 * held for the context while "take"; NULL: all are taken.
 */
static struct host_sample_sub *
host_sample_slot(struct gp_plugin_ctx *ctx, int take, void *arg)
{
	struct host_sample_sub *sub = NULL;
	int i;

	host_ctx_check(ctx);
	for (i = 0; i < HOST_SAMPLE_SUBS; i++) {
		if (host_sample_subs[i].ctx == ctx) {
			sub = &host_sample_subs[i];
			break;
		}
		if (host_sample_subs[i].ctx == NULL && sub == NULL)
			sub = &host_sample_subs[i];
	}
	if (sub != NULL) {
		memset(sub, 0, sizeof(*sub));
		sub->ctx = take ? ctx : NULL;
		sub->arg = arg;
	}
	return (sub);
}

int32_t
host_sample_subscribe(struct gp_plugin_ctx *ctx,
    void (*cb)(void *, int32_t, int32_t, uint64_t), void *arg)
{
	struct host_sample_sub *sub;

	if ((sub = host_sample_slot(ctx, cb != NULL, arg)) == NULL)
		return (-ENOSPC);
	sub->cb = cb;
	return (0);
}

int32_t
host_sample_subscribe_stack(struct gp_plugin_ctx *ctx,
    void (*cb)(void *, int32_t, int32_t, uint64_t,
    const struct gp_sample_stack *), void *arg)
{
	struct host_sample_sub *sub;

	if ((sub = host_sample_slot(ctx, cb != NULL, arg)) == NULL)
		return (-ENOSPC);
	sub->stack_cb = cb;
	return (0);
}

int32_t
host_sample_source(struct gp_plugin_ctx *ctx,
    void (*watch)(void *, int32_t, int32_t), void *arg)
{
	size_t i;

	host_ctx_check(ctx);
	if (watch == NULL) {
		if (host_sample_src.ctx == ctx)
			memset(&host_sample_src, 0, sizeof(host_sample_src));
		return (0);
	}
	if (host_sample_src.ctx != NULL && host_sample_src.ctx != ctx)
		return (-EBUSY);
	host_sample_src.ctx = ctx;
	host_sample_src.watch = watch;
	host_sample_src.arg = arg;
	for (i = 0; i < host_nwatches; i++)
		watch(arg, host_watches[i].pid, 1);
	return (0);
}

void
host_sample_report_stack(struct gp_plugin_ctx *ctx, int32_t pid,
    int32_t tid, uint64_t count, const struct gp_sample_stack *st)
{
	int i;

	host_ctx_check(ctx);
	if (ctx != host_sample_src.ctx)
		return;
	/* a stack of an older source: subscribers read what size covers */
	if (st != NULL && st->size < GP_SAMPLE_STACK_SIZE_1_3)
		st = NULL;
	for (i = 0; i < HOST_SAMPLE_SUBS; i++) {
		if (host_sample_subs[i].stack_cb != NULL)
			host_sample_subs[i].stack_cb(host_sample_subs[i].arg,
			    pid, tid, count, st);
		else if (host_sample_subs[i].cb != NULL)
			host_sample_subs[i].cb(host_sample_subs[i].arg, pid,
			    tid, count);
	}
}

void
host_sample_report(struct gp_plugin_ctx *ctx, int32_t pid, int32_t tid,
    uint64_t count)
{
	host_sample_report_stack(ctx, pid, tid, count, NULL);
}

int32_t
host_sample_walk(struct gp_plugin_ctx *ctx, int32_t pid,
    const struct gp_frame_walk *w)
{
	host_ctx_check(ctx);
	if (host_walker.walk == NULL)
		return (-ENOTSUP);
	if (pid <= 0 || (w != NULL && w->size < GP_FRAME_WALK_SIZE_1_6))
		return (-EINVAL);
	return (host_walker.walk(host_walker.arg, pid, w));
}

int32_t
host_sample_walk_thread(struct gp_plugin_ctx *ctx, int32_t pid, int32_t tid,
    uint64_t root, uint64_t check)
{
	host_ctx_check(ctx);
	if (host_walker.thread == NULL)
		return (-ENOTSUP);
	if (pid <= 0 || tid <= 0)
		return (-EINVAL);
	return (host_walker.thread(host_walker.arg, pid, tid, root, check));
}

int32_t
host_sample_walker(struct gp_plugin_ctx *ctx,
    int32_t (*walk)(void *, int32_t, const struct gp_frame_walk *),
    int32_t (*thread)(void *, int32_t, int32_t, uint64_t, uint64_t),
    void *arg)
{
	host_ctx_check(ctx);
	if (walk == NULL || thread == NULL) {
		if (host_walker.ctx == ctx)
			memset(&host_walker, 0, sizeof(host_walker));
		return (0);
	}
	if (host_walker.ctx != NULL && host_walker.ctx != ctx)
		return (-EBUSY);
	host_walker.ctx = ctx;
	host_walker.walk = walk;
	host_walker.thread = thread;
	host_walker.arg = arg;
	return (0);
}

int32_t
host_process_source(struct gp_plugin_ctx *ctx, int32_t on)
{
	host_ctx_check(ctx);
	if (!on) {
		if (host_process_src == ctx)
			host_process_src = NULL;
		return (0);
	}
	if (host_process_src != NULL && host_process_src != ctx)
		return (-EBUSY);
	host_process_src = ctx;
	return (0);
}

void
host_process_report(struct gp_plugin_ctx *ctx, int32_t pid)
{
	int i;

	host_ctx_check(ctx);
	if (ctx != host_process_src || pid <= 0)
		return;
	for (i = 0; i < HOST_SAMPLE_SUBS; i++)
		if (host_process_subs[i].cb != NULL)
			host_process_subs[i].cb(host_process_subs[i].arg, pid);
}

int32_t
host_process_subscribe(struct gp_plugin_ctx *ctx,
    void (*cb)(void *, int32_t), void *arg)
{
	int i, freei = -1;

	host_ctx_check(ctx);
	for (i = 0; i < HOST_SAMPLE_SUBS; i++) {
		if (host_process_subs[i].ctx == ctx)
			break;
		if (host_process_subs[i].ctx == NULL && freei < 0)
			freei = i;
	}
	if (i == HOST_SAMPLE_SUBS && (i = freei) < 0)
		return (-ENOSPC);
	host_process_subs[i].ctx = cb != NULL ? ctx : NULL;
	host_process_subs[i].cb = cb;
	host_process_subs[i].arg = cb != NULL ? arg : NULL;
	return (host_process_src != NULL ? 0 : -ENOTSUP);
}

void
host_sample_forget(struct gp_plugin_ctx *ctx)
{
	size_t i;
	int k;

	for (k = 0; k < HOST_SAMPLE_SUBS; k++)
		if (host_process_subs[k].ctx == ctx)
			memset(&host_process_subs[k], 0,
			    sizeof(host_process_subs[k]));
	if (host_process_src == ctx)
		host_process_src = NULL;

	for (k = 0; k < HOST_SAMPLE_SUBS; k++)
		if (host_sample_subs[k].ctx == ctx)
			memset(&host_sample_subs[k], 0,
			    sizeof(host_sample_subs[k]));
	if (host_sample_src.ctx == ctx)
		memset(&host_sample_src, 0, sizeof(host_sample_src));
	if (host_walker.ctx == ctx)
		memset(&host_walker, 0, sizeof(host_walker));
	for (i = 0; i < host_nwatches;)
		if (host_watches[i].ctx == ctx)
			(void)host_sample_watch(ctx, host_watches[i].pid, 0);
		else
			i++;
	if (host_nwatches == 0) {
		free(host_watches);
		host_watches = NULL;
		host_watches_cap = 0;
	}
}
