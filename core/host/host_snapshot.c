/*
 * Snapshot requests and the stack sink of the host API: a plugin answers a
 * cycle's request through a handle the host checks on every call.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/log.h"
#include "base/xmalloc.h"
#include "gprofiler.h"
#include "host/host.h"
#include "host/host_api_int.h"
#include "profile/profile.h"

/*
 * A snapshot request.  Plugins (and the cycle) never get its address: they
 * get a handle naming a slot and the slot's generation, looked up on every
 * call, so a plugin that answers after the host gave up (no abandon, or one
 * that ignored it) finds a stale generation and is told so, instead of
 * writing into freed memory or into the next cycle's snapshot that malloc
 * put at the same address.
 */
struct snap_rec {
	unsigned magic;	/* SNAPSHOT_MAGIC */
	struct gp_plugin_ctx *ctx;
	struct profile *profile;
	int done;
	struct gp_snapshot *handle;
	void (*done_cb)(void *, struct gp_snapshot *, int,
				    const char *);
	void *done_arg;
};

struct snap_slot {
	struct snap_rec *rec;	/* NULL: free */
	uint32_t gen;		/* bumped at every free */
};

static struct snap_slot *snap_slots;
static size_t snap_nslots;

/*
 * Handle layout: a tag, the generation and the slot, chosen so a handle is
 * never NULL and, on 64-bit, not a canonical address (a plugin that
 * dereferences one faults at once instead of reading something).
 */
#define SNAP_SLOT_BITS		16
#define SNAP_SLOT_MAX		((1u << SNAP_SLOT_BITS) - 1)
#if UINTPTR_MAX > 0xffffffffu
#define SNAP_TAG		((uintptr_t)0x5eed << 48)
#define SNAP_TAG_MASK		((uintptr_t)0xffff << 48)
#define SNAP_GEN_MASK		0xffffffffu
#else
#define SNAP_TAG		((uintptr_t)0)
#define SNAP_TAG_MASK		((uintptr_t)0)
#define SNAP_GEN_MASK		0xffffu
#endif

static struct gp_snapshot *
snap_encode(size_t slot, uint32_t gen)
{
	return ((struct gp_snapshot *)(SNAP_TAG |
	    ((uintptr_t)(gen & SNAP_GEN_MASK) << SNAP_SLOT_BITS) |
	    (uintptr_t)slot));
}

/* The live request a handle names, or NULL when stale or not a handle. */
static struct snap_rec *
snap_lookup(const struct gp_snapshot *h)
{
	uintptr_t v = (uintptr_t)h;
	size_t slot = v & SNAP_SLOT_MAX;
	uint32_t gen = (uint32_t)((v & ~SNAP_TAG_MASK) >> SNAP_SLOT_BITS);

	if (h == NULL || (v & SNAP_TAG_MASK) != SNAP_TAG ||
	    slot >= snap_nslots || snap_slots[slot].rec == NULL ||
	    (snap_slots[slot].gen & SNAP_GEN_MASK) != gen)
		return (NULL);
	CHECK_OBJ(snap_slots[slot].rec, SNAPSHOT_MAGIC);
	return (snap_slots[slot].rec);
}

/* The stack sink.  Every entry starts by resolving the handle. */
static struct snap_rec *
snap_usable(struct gp_snapshot *h, const char *what)
{
	struct snap_rec *s;

	if ((s = snap_lookup(h)) == NULL) {
		log_msg(LOG_LEVEL_WARN, "plugin", "%s on a snapshot the host "
		    "no longer waits for (answered after the cycle gave up on "
		    "it?); ignored", what);
		return (NULL);
	}
	if (s->done) {
		log_msg(LOG_LEVEL_WARN, host_ctx_name(s->ctx), "%s after snapshot_done "
		    "(ignored)", what);
		return (NULL);
	}
	return (s);
}

int
host_snapshot_add_stack(struct gp_snapshot *h, int32_t pid, const char *comm,
    const char *const *frames, uint32_t nframes, uint64_t count)
{
	struct snap_rec *s;

	if ((s = snap_usable(h, "snapshot_add_stack")) == NULL)
		return (-EINVAL);
	return (profile_add_stack(s->profile, pid, comm, frames, nframes,
	    count));
}

int
host_snapshot_pid_error(struct gp_snapshot *h, int32_t pid, const char *comm,
    int32_t kind, const char *reason)
{
	struct snap_rec *s;

	if ((s = snap_usable(h, "snapshot_pid_error")) == NULL)
		return (-EINVAL);
	if (kind != GP_PID_ERROR && kind != GP_PID_SKIPPED)
		return (-EINVAL);
	profile_set_error(s->profile, pid, comm, kind, reason);
	return (0);
}

int
host_snapshot_set_appid(struct gp_snapshot *h, int32_t pid,
    const char *appid)
{
	struct snap_rec *s;

	if ((s = snap_usable(h, "snapshot_set_appid")) == NULL)
		return (-EINVAL);
	profile_set_appid(s->profile, pid, appid);
	return (0);
}

int
host_snapshot_set_app_metadata(struct gp_snapshot *h, int32_t pid,
    struct gp_json *md)
{
	struct json_object *o;
	struct snap_rec *s;

	if (md == NULL)
		return (-EINVAL);
	o = host_json_take(md);	/* ownership moves even on failure */
	if ((s = snap_usable(h, "snapshot_set_app_metadata")) == NULL) {
		json_object_put(o);
		return (-EINVAL);
	}
	profile_set_appmeta(s->profile, pid, o);
	return (0);
}

void
host_snapshot_done(struct gp_snapshot *h, int32_t status, const char *err)
{
	struct snap_rec *s;

	if ((s = snap_usable(h, "snapshot_done")) == NULL)
		return;
	s->done = 1;
	if (s->done_cb != NULL)
		s->done_cb(s->done_arg, h, status, err);
}

/*
 * A snapshot request for ctx's plugin; done runs on snapshot_done.  The
 * result is a handle (see struct snap_rec), valid until snapshot_free.
 */
struct gp_snapshot *
snapshot_new(struct gp_plugin_ctx *ctx, void (*done)(void *,
    struct gp_snapshot *, int, const char *), void *arg)
{
	struct snap_rec *s;
	size_t slot;

	host_ctx_check(ctx);
	for (slot = 0; slot < snap_nslots; slot++)
		if (snap_slots[slot].rec == NULL)
			break;
	if (slot == snap_nslots) {
		if (snap_nslots > SNAP_SLOT_MAX)
			fatalx("more than %u snapshots outstanding",
			    SNAP_SLOT_MAX + 1);
		snap_slots = xreallocarray(snap_slots, snap_nslots + 8,
		    sizeof(*snap_slots));
		memset(snap_slots + snap_nslots, 0, 8 * sizeof(*snap_slots));
		snap_nslots += 8;
	}
	s = xcalloc(1, sizeof(*s));
	s->magic = SNAPSHOT_MAGIC;
	s->ctx = ctx;
	s->profile = profile_new();
	s->done_cb = done;
	s->done_arg = arg;
	s->handle = snap_encode(slot, snap_slots[slot].gen);
	snap_slots[slot].rec = s;
	return (s->handle);
}

/* The collected stacks; the caller owns them from now on. */
struct profile *
snapshot_take_profile(struct gp_snapshot *h)
{
	struct snap_rec *s;
	struct profile *p;

	if ((s = snap_lookup(h)) == NULL)
		fatalx("%s: stale snapshot handle %p", __func__, (void *)h);
	p = s->profile;
	s->profile = NULL;
	return (p);
}

/* Forget the request: its handle is stale from now on, for good. */
void
snapshot_free(struct gp_snapshot *h)
{
	struct snap_rec *s;
	size_t slot;

	if (h == NULL)
		return;
	if ((s = snap_lookup(h)) == NULL)
		fatalx("%s: stale snapshot handle %p", __func__, (void *)h);
	slot = (uintptr_t)h & SNAP_SLOT_MAX;
	snap_slots[slot].rec = NULL;
	snap_slots[slot].gen++;
	profile_free(s->profile);
	s->magic = 0;
	free(s);
}
