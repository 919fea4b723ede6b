/*
 * Folded-stack counts for one snapshot of the iaprof stream
 * (docs/specs/iaprof.md §5, step 6): an open-addressing hash over an arena.  A
 * kernel's frames are interned once per snapshot, so an `eustall` line costs
 * one short hash per stall type rather than rebuilding a 200-byte stack.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash64.h"
#include "stacks.h"

#define ARENA_BLOCK	(64 * 1024)

static const char *const stall_names[10] = {
	"active", "control", "pipestall", "send", "dist_acc",
	"sbid", "sync", "inst_fetch", "other", "tdr"
};

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	char data[];
};

struct prefix {
	uint64_t hash;
	int32_t pid;
	uint32_t nframes;
	const char *joined;
	size_t len;
	const char **frames;
};

/* One (kernel, instruction, offset) with its ten stall counts: one hash
 * lookup per `eustall` line, the key inline when short (one cache miss). */
#define KEY_INLINE	40
struct stack {
	uint64_t hash;
	uint32_t prefix;
	uint32_t insnlen, offlen;
	const char *key;	/* insn then offset, not terminated */
	char inl[KEY_INLINE];
	uint64_t count[10];
};

struct stacks {
	uint32_t max_stacks;
	size_t max_bytes;
	struct arena_block *arena;
	size_t arena_bytes;

	struct prefix *pfx;
	uint32_t npfx, cappfx;
	uint32_t *pslot;	/* index + 1, 0 empty */
	uint32_t pmask;

	struct stack *st;
	uint32_t nst, capst;
	uint32_t *sslot;
	uint32_t smask;
};

static void *
arena_alloc(struct stacks *s, size_t n)
{
	struct arena_block *b = s->arena;
	size_t sz;
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (b == NULL || b->size - b->used < n) {
		sz = n > ARENA_BLOCK ? n : ARENA_BLOCK;
		if (s->arena_bytes + sz > s->max_bytes)
			return (NULL);
		if ((b = malloc(sizeof(*b) + sz)) == NULL)
			return (NULL);
		b->size = sz;
		b->used = 0;
		b->next = s->arena;
		s->arena = b;
		s->arena_bytes += sz;
	}
	p = b->data + b->used;
	b->used += n;
	return (p);
}

static char *
arena_strdup(struct stacks *s, const char *str, size_t n)
{
	char *p;

	if ((p = arena_alloc(s, n + 1)) == NULL)
		return (NULL);
	memcpy(p, str, n);
	p[n] = '\0';
	return (p);
}

/* Grow a slot table to twice its size when it is more than half full. */
static int
slots_grow(uint32_t **slots, uint32_t *mask, uint32_t used,
    const uint64_t *(*hash_of)(void *, uint32_t), void *ctx)
{
	uint32_t newcap, newmask, i, j, *ns;

	if (*slots != NULL && used < (*mask + 1) / 2)
		return (0);
	newcap = *slots == NULL ? 1024 : (*mask + 1) * 2;
	if ((ns = calloc(newcap, sizeof(*ns))) == NULL)
		return (-ENOMEM);
	newmask = newcap - 1;
	for (i = 0; i < used; i++) {
		j = (uint32_t)*hash_of(ctx, i) & newmask;
		while (ns[j] != 0)
			j = (j + 1) & newmask;
		ns[j] = i + 1;
	}
	free(*slots);
	*slots = ns;
	*mask = newmask;
	return (0);
}

static const uint64_t *
prefix_hash_of(void *ctx, uint32_t i)
{
	return (&((struct stacks *)ctx)->pfx[i].hash);
}

static const uint64_t *
stack_hash_of(void *ctx, uint32_t i)
{
	return (&((struct stacks *)ctx)->st[i].hash);
}

/* Make room for one more element in a growable array. */
static int
array_reserve(void **arr, uint32_t *cap, uint32_t n, size_t elsz)
{
	uint32_t nc;
	void *p;

	if (n < *cap)
		return (0);
	nc = *cap == 0 ? 256 : *cap * 2;
	if ((p = realloc(*arr, (size_t)nc * elsz)) == NULL)
		return (-ENOMEM);
	*arr = p;
	*cap = nc;
	return (0);
}

struct stacks *
stacks_new(uint32_t max_stacks, size_t max_bytes)
{
	struct stacks *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return (NULL);
	s->max_stacks = max_stacks;
	s->max_bytes = max_bytes;
	return (s);
}

void
stacks_clear(struct stacks *s)
{
	struct arena_block *b, *next;

	for (b = s->arena; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	s->arena = NULL;
	s->arena_bytes = 0;
	s->npfx = 0;
	s->nst = 0;
	/* Keep the arrays for the next snapshot, but empty the slots and
	 * give back what a burst made large. */
	if (s->pslot != NULL)
		memset(s->pslot, 0, (s->pmask + 1) * sizeof(*s->pslot));
	if (s->sslot != NULL && s->smask + 1 > 65536) {
		free(s->sslot);
		s->sslot = NULL;
		free(s->st);
		s->st = NULL;
		s->capst = 0;
	} else if (s->sslot != NULL)
		memset(s->sslot, 0, (s->smask + 1) * sizeof(*s->sslot));
}

void
stacks_free(struct stacks *s)
{
	if (s == NULL)
		return;
	stacks_clear(s);
	free(s->pfx);
	free(s->pslot);
	free(s->st);
	free(s->sslot);
	free(s);
}

/* Split a joined prefix into its frames (arena memory).  By length, not
 * strchr(): a text may hold a NUL byte, which then just ends its frame. */
static int
prefix_split(struct stacks *s, struct prefix *p)
{
	const char *c, *end = p->joined + p->len;
	char *copy, *semi, *cend;
	uint32_t n = 1, i;

	for (c = p->joined; c < end; c++)
		n += *c == ';';
	if ((p->frames = arena_alloc(s, n * sizeof(char *))) == NULL ||
	    (copy = arena_strdup(s, p->joined, p->len)) == NULL)
		return (-ENOMEM);
	cend = copy + p->len;
	for (i = 0; i < n; i++) {
		p->frames[i] = copy;
		if ((semi = memchr(copy, ';', (size_t)(cend - copy))) == NULL)
			break;
		*semi = '\0';
		copy = semi + 1;
	}
	p->nframes = n;
	return (0);
}

uint32_t
stacks_prefix(struct stacks *s, int32_t pid, const char *joined, size_t len)
{
	uint64_t h = hash64_fmix(hash64_bytes(hash64_add(HASH64_INIT,
	    (uint32_t)pid), joined, len));
	struct prefix *p;
	uint32_t j;

	if (s->pslot != NULL) {
		for (j = (uint32_t)h & s->pmask; s->pslot[j] != 0;
		    j = (j + 1) & s->pmask) {
			p = &s->pfx[s->pslot[j] - 1];
			if (p->hash == h && p->pid == pid && p->len == len &&
			    memcmp(p->joined, joined, len) == 0)
				return (s->pslot[j] - 1);
		}
	}
	if (s->npfx >= s->max_stacks ||
	    array_reserve((void **)&s->pfx, &s->cappfx, s->npfx,
	    sizeof(*s->pfx)) != 0 ||
	    slots_grow(&s->pslot, &s->pmask, s->npfx, prefix_hash_of, s) != 0)
		return (STACKS_NONE);
	p = &s->pfx[s->npfx];
	p->hash = h;
	p->pid = pid;
	p->len = len;
	if ((p->joined = arena_strdup(s, joined, len)) == NULL ||
	    prefix_split(s, p) != 0)
		return (STACKS_NONE);
	for (j = (uint32_t)h & s->pmask; s->pslot[j] != 0;
	    j = (j + 1) & s->pmask)
		;
	s->pslot[j] = ++s->npfx;
	return (s->npfx - 1);
}

/* The key: inline keys are found through e, as the array may move. */
static const char *
stack_key(const struct stack *e)
{
	return (e->key != NULL ? e->key : e->inl);
}

static int
stack_matches(const struct stack *e, uint64_t h, uint32_t prefix,
    const char *insn, size_t insnlen, const char *off, size_t offlen)
{
	return (e->hash == h && e->prefix == prefix &&
	    e->insnlen == insnlen && e->offlen == offlen &&
	    memcmp(stack_key(e), insn, insnlen) == 0 &&
	    memcmp(stack_key(e) + insnlen, off, offlen) == 0);
}

static struct stack *
stack_new(struct stacks *s, uint64_t h, uint32_t prefix, const char *insn,
    size_t insnlen, const char *off, size_t offlen)
{
	struct stack *e;
	char *key;
	uint32_t j;

	if (s->nst >= s->max_stacks || insnlen + offlen > UINT32_MAX ||
	    array_reserve((void **)&s->st, &s->capst, s->nst,
	    sizeof(*s->st)) != 0 ||
	    slots_grow(&s->sslot, &s->smask, s->nst, stack_hash_of, s) != 0)
		return (NULL);
	e = &s->st[s->nst];
	if (insnlen + offlen <= KEY_INLINE)
		key = e->inl;
	else if ((key = arena_alloc(s, insnlen + offlen)) == NULL)
		return (NULL);
	memcpy(key, insn, insnlen);
	memcpy(key + insnlen, off, offlen);
	e->hash = h;
	e->prefix = prefix;
	e->insnlen = (uint32_t)insnlen;
	e->offlen = (uint32_t)offlen;
	e->key = key == e->inl ? NULL : key;
	memset(e->count, 0, sizeof(e->count));
	for (j = (uint32_t)h & s->smask; s->sslot[j] != 0;
	    j = (j + 1) & s->smask)
		;
	s->sslot[j] = ++s->nst;
	return (e);
}

int
stacks_add(struct stacks *s, uint32_t prefix, const char *insn,
    size_t insnlen, const char *off, size_t offlen, const uint64_t *cnt)
{
	struct stack *e = NULL;
	uint64_t h;
	uint32_t j;
	unsigned i;

	h = hash64_add(HASH64_INIT, prefix);
	h = hash64_fmix(hash64_bytes(hash64_bytes(h, insn, insnlen), off,
	    offlen));
	if (s->sslot != NULL) {
		for (j = (uint32_t)h & s->smask; s->sslot[j] != 0;
		    j = (j + 1) & s->smask) {
			e = &s->st[s->sslot[j] - 1];
			if (stack_matches(e, h, prefix, insn, insnlen, off,
			    offlen))
				break;
			e = NULL;
		}
	}
	if (e == NULL && (e = stack_new(s, h, prefix, insn, insnlen, off,
	    offlen)) == NULL)
		return (-1);
	for (i = 0; i < 10; i++)
		e->count[i] = e->count[i] + cnt[i] < e->count[i] ?
		    UINT64_MAX : e->count[i] + cnt[i];
	return (0);
}

/* Render one stack's three GPU leaf frames and hand it to cb. */
static int
stacks_emit(struct stacks *s, const struct stack *e, unsigned stall,
    const char **frames, char *buf, size_t bufsz, iaprof_stack_cb cb,
    void *arg)
{
	const struct prefix *p = &s->pfx[e->prefix];
	const char *key = stack_key(e);
	uint32_t n = p->nframes;
	size_t o;

	memcpy(frames, p->frames, n * sizeof(*frames));
	frames[n++] = buf;
	o = (size_t)snprintf(buf, bufsz, "%.*s_[g]", (int)e->insnlen, key) + 1;
	frames[n++] = buf + o;
	o += (size_t)snprintf(buf + o, bufsz - o, "%s_[g]",
	    stall_names[stall]) + 1;
	frames[n++] = buf + o;
	snprintf(buf + o, bufsz - o, "%.*s_[g]", (int)e->offlen,
	    key + e->insnlen);
	return (cb(arg, p->pid, frames, n, e->count[stall]));
}

int
stacks_foreach(struct stacks *s, iaprof_stack_cb cb, void *arg)
{
	const char **frames = NULL;
	char *buf = NULL;
	size_t bufsz = 0, need;
	uint32_t i, maxf = 0;
	unsigned j;
	int rc = 0;

	for (i = 0; i < s->npfx; i++)
		if (s->pfx[i].nframes > maxf)
			maxf = s->pfx[i].nframes;
	if ((frames = calloc(maxf + 3, sizeof(*frames))) == NULL)
		return (-ENOMEM);
	for (i = 0; i < s->nst && rc == 0; i++) {
		need = (size_t)s->st[i].insnlen + s->st[i].offlen + 64;
		if (need > bufsz) {
			free(buf);
			if ((buf = malloc(need)) == NULL) {
				rc = -ENOMEM;
				break;
			}
			bufsz = need;
		}
		for (j = 0; j < 10 && rc == 0; j++)
			if (s->st[i].count[j] > 0)
				rc = stacks_emit(s, &s->st[i], j, frames, buf,
				    bufsz, cb, arg);
	}
	free(buf);
	free(frames);
	return (rc);
}

uint32_t
stacks_count(const struct stacks *s)
{
	return (s->nst);
}

size_t
stacks_memory(const struct stacks *s)
{
	return (s->arena_bytes + (size_t)s->cappfx * sizeof(*s->pfx) +
	    (size_t)s->capst * sizeof(*s->st) +
	    (s->pslot != NULL ? (s->pmask + 1) * sizeof(uint32_t) : 0) +
	    (s->sslot != NULL ? (s->smask + 1) * sizeof(uint32_t) : 0));
}
