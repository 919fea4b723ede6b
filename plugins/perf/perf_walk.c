/*
 * The frame walks process profilers ask of the perf plugin (host API
 * sample_walk, ABI 1.6): registered as the host's walker while samples
 * are reported, each process's layout and each thread's root passed to
 * the sampler's BPF maps, and what the walks gave in the metadata.  The
 * walking itself is the BPF program's (sampler.bpf.c, walk_frames).
 */
#include <errno.h>
#include <string.h>

#include "perf_int.h"

/* A process profiler's interpreter layout (NULL: walk pid no more). */
static int32_t
perf_walk(void *arg, int32_t pid, const struct gp_frame_walk *w)
{
	struct perf *p = arg;
	struct walk_cfg c;

	if (p->sampler == NULL)
		return (-ENOTSUP);
	if (w == NULL)
		return (sampler_walk_set(p->sampler, pid, NULL));
	memset(&c, 0, sizeof(c));
	c.root_check = w->root_check;
	c.root_frame = w->root_frame;
	c.holder_frame = w->holder_frame < 0 ? -1 : w->holder_frame;
	c.frame_next = w->frame_next;
	c.frame_code = w->frame_code;
	c.frame_pos = w->frame_pos;
	c.pos_size = w->pos_size;
	c.frame_owner = w->frame_owner < 0 ? -1 : w->frame_owner;
	c.owner_skip = w->frame_owner < 0 ? 0 : (uint32_t)w->owner_skip;
	c.frame_alt = -1;
	if (w->size >= sizeof(*w)) {	/* 1.7 */
		c.frame_stride = w->frame_stride;
		c.stack_base = w->stack_base;
		c.stack_words = w->stack_words;
		c.end_skip = w->end_skip;
		if (w->flags & GP_WALK_F_ALT) {
			c.frame_alt = w->frame_alt > WALK_FRAME_BUF ?
			    WALK_FRAME_BUF : (int32_t)w->frame_alt;
			c.alt_off = w->alt_off;
		}
		c.pos_new = (w->flags & GP_WALK_F_POS_NEW) != 0;
		if (w->flags & GP_WALK_F_TLS) {
			c.root_tls = WALK_ROOT_TLS;
			c.tls_dtv = w->tls_dtv;
			c.tls_dtv_entry = w->tls_dtv_entry;
			c.tls_module = w->tls_module;
			c.tls_offset = w->tls_offset;
		}
	}
	return (sampler_walk_set(p->sampler, pid, &c));
}

/* A thread's root, where its walk starts. */
static int32_t
perf_walk_thread(void *arg, int32_t pid, int32_t tid, uint64_t root,
    uint64_t check)
{
	struct perf *p = arg;

	if (p->sampler == NULL)
		return (-ENOTSUP);
	return (sampler_walk_root(p->sampler, pid, tid, root, check));
}

/* Walk while samples are reported, on the BPF backend only (the other
 * leaves frames to the process profiler: -ENOTSUP). */
void
perf_walker_start(struct perf *p)
{
	if (p->reports && GP_API_HAS(p->api, sample_walker) &&
	    sampler_walks(p->sampler) &&
	    p->api->sample_walker(p->ctx, perf_walk, perf_walk_thread,
	    p) == 0)
		p->walker = 1;
}

void
perf_walker_stop(struct perf *p)
{
	if (p->walker)
		(void)p->api->sample_walker(p->ctx, NULL, NULL, NULL);
	p->walker = 0;
}

/* Frames walked in the sample, the samples whose walk did not finish
 * (their process profiler read them itself), and the walked ones that
 * woke us for a code word new to their process. */
void
perf_walker_metadata(struct perf *p, const struct perf_cycle_stats *c,
    struct gp_json *md)
{
	const struct gp_host_api *a = p->api;

	if (!p->walker)
		return;
	a->json_set_int(md, "perf_walked_samples",
	    (int64_t)c->stat[STAT_WALK_OK]);
	a->json_set_int(md, "perf_walk_no_root",
	    (int64_t)(c->stat[STAT_WALK_NOROOT] + c->stat[STAT_WALK_STALE]));
	a->json_set_int(md, "perf_walk_faults",
	    (int64_t)c->stat[STAT_WALK_FAULT]);
	a->json_set_int(md, "perf_walk_too_deep",
	    (int64_t)c->stat[STAT_WALK_DEEP]);
	a->json_set_int(md, "perf_walk_wakeups",
	    (int64_t)c->stat[STAT_WALK_WAKE]);
}
