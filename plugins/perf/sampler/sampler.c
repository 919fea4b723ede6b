/*
 * The sampler: one of its backends, chosen by --perf-backend.  "auto"
 * takes the BPF program (sampler_bpf.c: stacks, generations and filters in
 * the kernel); when this kernel cannot load it, the same program without
 * the task's BTF helpers (bpf-compat, Linux 5.8 to 5.14), then its legacy
 * build (bpf-legacy, 4.18 to 5.7: perf events' rings, no global data, no
 * loop); when none loads, perf events alone (sampler_pev.c: what `perf
 * record` does, on every kernel perf runs on), saying why and what that
 * costs.  Everything else is the backend's.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sampler_int.h"

static const struct sampler_ops *const sampler_backends[] = {
	&sampler_bpf_ops,
	&sampler_bpf_compat_ops,
	&sampler_bpf_legacy_ops,
	&sampler_pev_ops,
};
#define NBACKENDS (sizeof(sampler_backends) / sizeof(sampler_backends[0]))

int
sampler_backend_parse(const char *name)
{
	size_t i;

	if (name == NULL || strcmp(name, "auto") == 0)
		return (SAMPLER_AUTO);
	for (i = 0; i < NBACKENDS; i++)
		if (strcmp(name, sampler_backends[i]->name) == 0)
			return ((int)i);
	return (-EINVAL);
}

/*
 * A backend asked for by name is the only one tried, and says what it
 * gives up (INFO); auto tries each in the table's order and says why the
 * first could not load and what the one taken gives up (WARN).  The
 * reasons of those between are not repeated: they fail for the first
 * one's reason or for the kernel's age.  perf events, the last, has the
 * final word when none opens (a named event that cannot be opened fails
 * every backend alike).
 */
struct sampler *
sampler_open(const struct sampler_opts *o, char *err, size_t errlen)
{
	const struct sampler_ops *b;
	struct sampler_opts q = *o;
	struct sampler *s = NULL;
	char why[1024], msg[2200];
	size_t i;

	if (o->backend >= 0 && (size_t)o->backend < NBACKENDS) {
		b = sampler_backends[o->backend];
		s = b->open(o, err, errlen);
		if (s != NULL && b->costs != NULL && o->log != NULL) {
			snprintf(msg, sizeof(msg), "--perf-backend %s: %s",
			    b->name, b->costs(o));
			o->log(o->arg, SAMPLER_LOG_INFO, msg);
		}
		return (s);
	}
	if ((s = sampler_backends[0]->open(o, why, sizeof(why))) != NULL)
		return (s);
	/* libbpf's lines said it all the first time */
	q.quiet_load = 1;
	for (i = 1; i < NBACKENDS && s == NULL; i++)
		s = sampler_backends[i]->open(&q, err, errlen);
	if (s == NULL) {
		snprintf(msg, sizeof(msg), "%s; %s", why, err);
		snprintf(err, errlen, "%s", msg);
		return (NULL);
	}
	b = s->ops;
	if (o->log != NULL) {
		snprintf(msg, sizeof(msg), "%s; sampling through %s instead "
		    "(--perf-backend %s): %s", why, b->desc, b->name,
		    b->costs(o));
		o->log(o->arg, SAMPLER_LOG_WARN, msg);
	}
	return (s);
}

/* What the compat program gives up against the full one, in words. */
const char *
sampler_compat_costs(const struct sampler_opts *o)
{
	return (o->want_dwarf ? "a sample taken while the kernel runs for "
	    "a task has its user stack from frame pointers, not DWARF (the "
	    "task's saved registers need Linux 5.15)" : "nothing in "
	    "frame-pointer mode");
}

/* What the legacy program gives up against the full one, in words. */
const char *
sampler_legacy_costs(const struct sampler_opts *o)
{
	return (o->want_dwarf ? "no interpreter frame walk in the kernel "
	    "(runtime profilers read the sampled thread's stack after a "
	    "wake-up), kernel names from /proc/kallsyms, DWARF user stacks "
	    "only for samples taken in user mode and copied up to 56 KiB" :
	    "no interpreter frame walk in the kernel (runtime profilers read "
	    "the sampled thread's stack after a wake-up), kernel names from "
	    "/proc/kallsyms");
}

const char *
sampler_backend_name(const struct sampler *s)
{
	return (s->ops->name);
}

const char *
sampler_backend_desc(const struct sampler *s)
{
	return (s->ops->desc);
}

void
sampler_close(struct sampler *s)
{
	if (s != NULL)
		s->ops->close(s);
}

void
sampler_resume(struct sampler *s)
{
	s->ops->resume(s);
}

int
sampler_drain(struct sampler *s)
{
	return (s->ops->drain(s));
}

int
sampler_wakeup_fd(const struct sampler *s)
{
	return (s->ops->wakeup_fd(s));
}

int
sampler_sync_cpus(struct sampler *s)
{
	return (s->ops->sync_cpus(s));
}

int
sampler_set_period(struct sampler *s, uint64_t period)
{
	return (s->ops->set_period(s, period));
}

void
sampler_stats(struct sampler *s, uint64_t out[STAT_NSTATS])
{
	s->ops->stats(s, out);
}

int
sampler_ksym_resolve(struct sampler *s, const uint64_t *addrs, size_t n,
    char *names, size_t name_len)
{
	if (s == NULL)
		return (-ENOTSUP);
	return (s->ops->ksym_resolve(s, addrs, n, names, name_len));
}

int
sampler_exec_gen(struct sampler *s, int32_t pid, uint32_t *gen)
{
	*gen = 0;
	if (s == NULL)
		return (-ENOENT);
	return (s->ops->exec_gen(s, pid, gen));
}

int
sampler_watch(struct sampler *s, int32_t pid, int on)
{
	return (s->ops->watch(s, pid, on));
}

/*
 * 1.7's fields: an array's stride and its end's words in the root, the
 * pointer to an alternative code word, a root in the TLS (the module a
 * small index: the DTV is an array).  All zero (a 1.6 layout) is valid.
 */
static int
sampler_walk_ok_1_7(const struct walk_cfg *c)
{
	if (c->frame_stride > 0 && (c->frame_stride % 8 != 0 ||
	    c->frame_stride > 1024 || c->stack_base > WALK_FRAME_BUF - 8 ||
	    c->stack_words > WALK_FRAME_BUF - 8 ||
	    ((c->stack_base | c->stack_words) & 7) || c->end_skip > 4))
		return (0);
	if (c->frame_alt >= 0 && (c->frame_alt > (int32_t)WALK_FRAME_BUF - 8 ||
	    (c->frame_alt & 7) || c->alt_off < -256 || c->alt_off > 255))
		return (0);
	if (c->root_tls > WALK_ROOT_TLS)
		return (0);
	if (c->root_tls == WALK_ROOT_TLS && (c->tls_dtv > WALK_FRAME_BUF - 8 ||
	    (c->tls_dtv & 7) || (c->tls_dtv_entry != 8 &&
	    c->tls_dtv_entry != 16) || c->tls_module == 0 ||
	    c->tls_module > 4096 || c->tls_offset > (1u << 20)))
		return (0);
	return (1);
}

/*
 * What the BPF program can read of a frame: every field inside its
 * WALK_FRAME_BUF bytes, at its alignment (the program masks offsets).
 * frame_read is set: the bytes up to the end of the last field, so a
 * frame at the end of a mapping is read whole.
 */
static int
sampler_walk_ok(struct walk_cfg *c)
{
	uint32_t end = 0;

	if (c->pos_size != 4 && c->pos_size != 8)
		return (0);
	if (c->root_check > WALK_FRAME_BUF - 8 ||
	    c->root_frame > WALK_FRAME_BUF - 8 ||
	    c->holder_frame > (int32_t)WALK_FRAME_BUF - 8 ||
	    c->frame_next > WALK_FRAME_BUF - 8 ||
	    c->frame_code > WALK_FRAME_BUF - 8 ||
	    c->frame_pos > WALK_FRAME_BUF - c->pos_size ||
	    c->frame_owner > (int32_t)WALK_FRAME_BUF - 1 ||
	    c->owner_skip > 255)
		return (0);
	/* the program masks offsets to their alignment */
	if ((c->root_check | c->root_frame | c->frame_next | c->frame_code) &
	    7 || (c->holder_frame >= 0 && (c->holder_frame & 7)) ||
	    (c->frame_pos & (c->pos_size - 1)))
		return (0);
	if (!sampler_walk_ok_1_7(c))
		return (0);
	end = c->frame_stride > 0 ? 0 : c->frame_next + 8;
	if (c->frame_alt >= 0 && (uint32_t)c->frame_alt + 8 > end)
		end = (uint32_t)c->frame_alt + 8;
	if (c->frame_code + 8 > end)
		end = c->frame_code + 8;
	if (c->frame_pos + c->pos_size > end)
		end = c->frame_pos + c->pos_size;
	if (c->frame_owner >= 0 && (uint32_t)c->frame_owner + 1 > end)
		end = (uint32_t)c->frame_owner + 1;
	c->frame_read = end;
	/* 1.7's choices: the BPF program's bpf_loop walker */
	c->looped = c->frame_stride > 0 || c->frame_alt >= 0 ||
	    c->root_tls != 0 || c->pos_new != 0;
	c->woken_ns = c->pos_woken_ns = 0;
	memset(c->known, 0, sizeof(c->known));
	return (1);
}

int
sampler_walks(const struct sampler *s)
{
	return (s->ops->walk_set != NULL);
}

int
sampler_walk_set(struct sampler *s, int32_t pid, const struct walk_cfg *c)
{
	struct walk_cfg w;

	if (s->ops->walk_set == NULL)
		return (-ENOTSUP);
	if (pid <= 0)
		return (-EINVAL);
	if (c == NULL)
		return (s->ops->walk_set(s, pid, NULL));
	w = *c;
	if (!sampler_walk_ok(&w))
		return (-EINVAL);
	return (s->ops->walk_set(s, pid, &w));
}

int
sampler_walk_root(struct sampler *s, int32_t pid, int32_t tid,
    uint64_t root, uint64_t check)
{
	if (s->ops->walk_root == NULL)
		return (-ENOTSUP);
	if (pid <= 0 || tid <= 0)
		return (-EINVAL);
	return (s->ops->walk_root(s, pid, tid, root, check));
}

int
sampler_cgroups_set(struct sampler *s, const uint64_t *ids, size_t n)
{
	if (n > SAMPLER_MAX_CGROUPS)
		return (-E2BIG);
	return (s->ops->cgroups_set(s, ids, n));
}

int
sampler_follows_exec(const struct sampler *s)
{
	return (s->ops->follows_exec(s));
}

const char *
sampler_event_name(const struct sampler *s)
{
	return (s->ops->event_name(s));
}
