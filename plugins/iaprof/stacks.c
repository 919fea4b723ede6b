/*
 * Folded-stack counts for one snapshot of the iaprof stream (spec §5.6):
 * an open-addressing hash over an arena.  A kernel's frames are interned
 * once per snapshot, so an `eustall` line costs one short hash per stall
 * type rather than rebuilding a 200-byte stack.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stacks.h"

#define ARENA_BLOCK	(64 * 1024)

static const char *const stall_names[10] = {
	"active", "control", "pipestall", "send", "dist_acc",
	"sbid", "sync", "inst_fetch", "other", "tdr"
};

struct arena_block {
	struct arena_block	*next;
	size_t			 used, size;
	char			 data[];
};

struct prefix {
	uint64_t	 hash;
	int32_t		 pid;
	uint32_t	 nframes;
	const char	*joined;
	size_t		 len;
	const char	**frames;
};

struct stack {
	uint64_t	 hash;
	uint32_t	 prefix;
	uint32_t	 stall;
	const char	*insn;		/* raw key texts */
	const char	*off;
	uint32_t	 insnlen, offlen;
	uint64_t	 count;
};

struct stacks {
	uint32_t		 max_stacks;
	size_t			 max_bytes;
	struct arena_block	*arena;
	size_t			 arena_bytes;

	struct prefix		*pfx;
	uint32_t		 npfx, cappfx;
	uint32_t		*pslot;		/* index + 1, 0 empty */
	uint32_t		 pmask;

	struct stack		*st;
	uint32_t		 nst, capst;
	uint32_t		*sslot;
	uint32_t		 smask;
};

/* FNV-1a, folded into a running hash. */
static uint64_t
hash_bytes(uint64_t h, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	while (n-- > 0) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return (h);
}

static uint64_t
hash_u64(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return (h * 0x100000001b3ULL);
}

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

/* Split a joined prefix into its frames (arena memory). */
static int
prefix_split(struct stacks *s, struct prefix *p)
{
	const char *c, *end = p->joined + p->len;
	char *copy;
	uint32_t n = 1, i;

	for (c = p->joined; c < end; c++)
		n += *c == ';';
	if ((p->frames = arena_alloc(s, n * sizeof(char *))) == NULL ||
	    (copy = arena_strdup(s, p->joined, p->len)) == NULL)
		return (-ENOMEM);
	for (i = 0; i < n; i++) {
		p->frames[i] = copy;
		if ((copy = strchr(copy, ';')) == NULL)
			break;
		*copy++ = '\0';
	}
	p->nframes = n;
	return (0);
}

uint32_t
stacks_prefix(struct stacks *s, int32_t pid, const char *joined, size_t len)
{
	uint64_t h = hash_bytes(hash_u64(0xcbf29ce484222325ULL,
	    (uint32_t)pid), joined, len);
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

int
stacks_add(struct stacks *s, uint32_t prefix, unsigned stall,
    const char *insn, size_t insnlen, const char *off, size_t offlen,
    uint64_t count)
{
	uint64_t h;
	struct stack *e;
	uint32_t j;

	h = hash_u64(0xcbf29ce484222325ULL, ((uint64_t)prefix << 8) | stall);
	h = hash_bytes(hash_bytes(h, insn, insnlen), off, offlen);
	if (s->sslot != NULL) {
		for (j = (uint32_t)h & s->smask; s->sslot[j] != 0;
		    j = (j + 1) & s->smask) {
			e = &s->st[s->sslot[j] - 1];
			if (e->hash == h && e->prefix == prefix &&
			    e->stall == stall && e->insnlen == insnlen &&
			    e->offlen == offlen &&
			    memcmp(e->insn, insn, insnlen) == 0 &&
			    memcmp(e->off, off, offlen) == 0) {
				e->count = e->count + count < e->count ?
				    UINT64_MAX : e->count + count;
				return (0);
			}
		}
	}
	if (s->nst >= s->max_stacks ||
	    array_reserve((void **)&s->st, &s->capst, s->nst,
	    sizeof(*s->st)) != 0 ||
	    slots_grow(&s->sslot, &s->smask, s->nst, stack_hash_of, s) != 0)
		return (-1);
	e = &s->st[s->nst];
	e->hash = h;
	e->prefix = prefix;
	e->stall = stall;
	e->insnlen = (uint32_t)insnlen;
	e->offlen = (uint32_t)offlen;
	e->count = count;
	if ((e->insn = arena_strdup(s, insn, insnlen)) == NULL ||
	    (e->off = arena_strdup(s, off, offlen)) == NULL)
		return (-1);
	for (j = (uint32_t)h & s->smask; s->sslot[j] != 0;
	    j = (j + 1) & s->smask)
		;
	s->sslot[j] = ++s->nst;
	return (0);
}

/* Render one stack's three GPU leaf frames and hand it to cb. */
static int
stacks_emit(struct stacks *s, const struct stack *e, const char **frames,
    char *buf, size_t bufsz, iaprof_stack_cb cb, void *arg)
{
	const struct prefix *p = &s->pfx[e->prefix];
	uint32_t n = p->nframes;
	size_t o = 0;

	memcpy(frames, p->frames, n * sizeof(*frames));
	frames[n++] = buf;
	o = (size_t)snprintf(buf, bufsz, "%s_[g]", e->insn) + 1;
	frames[n++] = buf + o;
	o += (size_t)snprintf(buf + o, bufsz - o, "%s_[g]",
	    stall_names[e->stall]) + 1;
	frames[n++] = buf + o;
	snprintf(buf + o, bufsz - o, "%s_[g]", e->off);
	return (cb(arg, p->pid, frames, n, e->count));
}

int
stacks_foreach(struct stacks *s, iaprof_stack_cb cb, void *arg)
{
	const char **frames = NULL;
	char *buf = NULL;
	size_t bufsz = 0, need;
	uint32_t i, maxf = 0;
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
		rc = stacks_emit(s, &s->st[i], frames, buf, bufsz, cb, arg);
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
