/*
 * The profile store: one cycle's folded stacks.  Frames are interned, each
 * PID has a hash table of stacks keyed by (comm, frame pointer sequence), so
 * adding a sample costs O(depth).  Per-PID attributes (container, appid,
 * application metadata, error frame) live beside the stacks.
 *
 * Memory: the interning table belongs to the profile, not to the process.
 * A profile lives for one cycle (each plugin's result, then the merged
 * output) and is freed after writing, so nothing accumulates when PIDs and
 * frames come and go over a long run; the price is re-interning the hot
 * frames once per cycle, which is cheap next to symbolization.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "hash64.h"

#include "base/textesc.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "gprofiler.h"
#include "profile/profile.h"

#define PROFILE_MAGIC	0x50524f46u
#define HT_MIN		16

/* Interned strings: open addressing, linear probing. */
struct strtab {
	char **slots;
	uint64_t *hashes;
	size_t cap;
	size_t n;
};

struct pstack {
	uint64_t hash;
	const char *comm;
	const char **frames;
	uint32_t nframes;
	uint64_t count;
};

struct pentry {
	int32_t pid;
	int used;
	struct pstack *stacks;	/* open addressing on hash */
	size_t cap;
	size_t n;
	uint64_t total;
	const char *comm;	/* last comm seen */
	const char *container;
	const char *appid;
	const char *error;	/* "[Profiling error: ...]" or NULL */
	struct json_object *appmeta;
	uint32_t appmeta_idx;
};

struct profile {
	unsigned magic;
	struct strtab strs;
	struct pentry *pids;	/* open addressing on pid */
	size_t cap;
	size_t n;
	uint64_t total;
};

static const char *strtab_intern_clean(struct strtab *, const char *,
			    size_t);

/*
 * Every name enters the profile here (comm, frames, container, appid, error
 * frame), so this is where the one text rule (textesc.c) is applied: what a
 * profile holds is valid UTF-8, without control characters, and no name
 * can split a frame or a line in any output.
 */
static const char *
strtab_intern(struct strtab *t, const char *s, size_t len)
{
	const char *r;
	char *e;
	size_t elen;

	if (textesc_clean(s, len, TEXTESC_FRAME))
		return (strtab_intern_clean(t, s, len));
	elen = textesc_len(s, len, TEXTESC_FRAME);
	e = xmalloc(elen + 1);
	textesc_write(e, s, len, TEXTESC_FRAME);
	r = strtab_intern_clean(t, e, elen);
	free(e);
	return (r);
}

static const char *
strtab_intern_clean(struct strtab *t, const char *s, size_t len)
{
	uint64_t h = hash64_fmix(hash64_bytes(HASH64_INIT, s, len));
	size_t i, j, ncap;
	char **ns;
	uint64_t *nh;

	if ((t->n + 1) * 10 >= t->cap * 7) {
		ncap = t->cap ? t->cap * 2 : 256;
		ns = xcalloc(ncap, sizeof(*ns));
		nh = xcalloc(ncap, sizeof(*nh));
		for (i = 0; i < t->cap; i++) {
			if (t->slots[i] == NULL)
				continue;
			for (j = t->hashes[i] & (ncap - 1); ns[j] != NULL;
			    j = (j + 1) & (ncap - 1))
				;
			ns[j] = t->slots[i];
			nh[j] = t->hashes[i];
		}
		free(t->slots);
		free(t->hashes);
		t->slots = ns;
		t->hashes = nh;
		t->cap = ncap;
	}
	for (i = h & (t->cap - 1); t->slots[i] != NULL;
	    i = (i + 1) & (t->cap - 1))
		if (t->hashes[i] == h && strncmp(t->slots[i], s, len) == 0 &&
		    t->slots[i][len] == '\0')
			return (t->slots[i]);
	t->slots[i] = xstrndup(s, len);
	t->hashes[i] = h;
	t->n++;
	return (t->slots[i]);
}

static void
strtab_free(struct strtab *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->slots[i]);
	free(t->slots);
	free(t->hashes);
}

struct profile *
profile_new(void)
{
	struct profile *p;

	p = xcalloc(1, sizeof(*p));
	p->magic = PROFILE_MAGIC;
	return (p);
}

void
profile_free(struct profile *p)
{
	size_t i, j;

	if (p == NULL)
		return;
	CHECK_OBJ(p, PROFILE_MAGIC);
	for (i = 0; i < p->cap; i++) {
		if (!p->pids[i].used)
			continue;
		for (j = 0; j < p->pids[i].cap; j++)
			free(p->pids[i].stacks[j].frames);
		free(p->pids[i].stacks);
		json_object_put(p->pids[i].appmeta);
	}
	free(p->pids);
	strtab_free(&p->strs);
	p->magic = 0;
	free(p);
}

static struct pentry *
pid_find(const struct profile *p, int32_t pid)
{
	size_t i;

	if (p->cap == 0)
		return (NULL);
	for (i = (uint32_t)pid * 2654435761u & (p->cap - 1); p->pids[i].used;
	    i = (i + 1) & (p->cap - 1))
		if (p->pids[i].pid == pid)
			return (&p->pids[i]);
	return (NULL);
}

static void
pid_grow(struct profile *p)
{
	struct pentry *old = p->pids;
	size_t ocap = p->cap, i, j;

	p->cap = ocap ? ocap * 2 : HT_MIN;
	p->pids = xcalloc(p->cap, sizeof(*p->pids));
	for (i = 0; i < ocap; i++) {
		if (!old[i].used)
			continue;
		for (j = (uint32_t)old[i].pid * 2654435761u & (p->cap - 1);
		    p->pids[j].used; j = (j + 1) & (p->cap - 1))
			;
		p->pids[j] = old[i];
	}
	free(old);
}

static struct pentry *
pid_get(struct profile *p, int32_t pid)
{
	struct pentry *e;
	size_t i;

	if ((e = pid_find(p, pid)) != NULL)
		return (e);
	if ((p->n + 1) * 10 >= p->cap * 7)
		pid_grow(p);
	for (i = (uint32_t)pid * 2654435761u & (p->cap - 1); p->pids[i].used;
	    i = (i + 1) & (p->cap - 1))
		;
	e = &p->pids[i];
	memset(e, 0, sizeof(*e));
	e->used = 1;
	e->pid = pid;
	p->n++;
	return (e);
}

static void
stacks_grow(struct pentry *e)
{
	struct pstack *old = e->stacks;
	size_t ocap = e->cap, i, j;

	e->cap = ocap ? ocap * 2 : HT_MIN;
	e->stacks = xcalloc(e->cap, sizeof(*e->stacks));
	for (i = 0; i < ocap; i++) {
		if (old[i].comm == NULL)
			continue;
		for (j = old[i].hash & (e->cap - 1); e->stacks[j].comm != NULL;
		    j = (j + 1) & (e->cap - 1))
			;
		e->stacks[j] = old[i];
	}
	free(old);
}

/* Add count samples of one stack (frames root first); count 0 is a no-op. */
int
profile_add_stack(struct profile *p, int32_t pid, const char *comm,
    const char *const *frames, uint32_t nframes, uint64_t count)
{
	const char *ifr[512], **fr = (const char **)ifr;
	const char *icomm;
	struct pentry *e;
	struct pstack *s;
	uint64_t h;
	uint32_t k;
	size_t i;

	CHECK_OBJ(p, PROFILE_MAGIC);
	if (count == 0)
		return (0);
	if (comm == NULL || (nframes > 0 && frames == NULL))
		return (-EINVAL);
	if (nframes > sizeof(ifr) / sizeof(ifr[0]))
		fr = xreallocarray(NULL, nframes, sizeof(*fr));
	icomm = strtab_intern(&p->strs, comm, strlen(comm));
	h = hash64_add(HASH64_INIT, (uint64_t)(uintptr_t)icomm);
	for (k = 0; k < nframes; k++) {
		fr[k] = strtab_intern(&p->strs, frames[k] ? frames[k] : "",
		    frames[k] ? strlen(frames[k]) : 0);
		h = hash64_add(h, (uint64_t)(uintptr_t)fr[k]);
	}
	h = hash64_fmix(h);
	e = pid_get(p, pid);
	e->comm = icomm;
	if ((e->n + 1) * 10 >= e->cap * 7)
		stacks_grow(e);
	for (i = h & (e->cap - 1); e->stacks[i].comm != NULL;
	    i = (i + 1) & (e->cap - 1)) {
		s = &e->stacks[i];
		if (s->hash == h && s->comm == icomm && s->nframes ==
		    nframes && memcmp(s->frames, fr, nframes *
		    sizeof(*fr)) == 0)
			goto found;
	}
	s = &e->stacks[i];
	s->hash = h;
	s->comm = icomm;
	s->nframes = nframes;
	s->frames = xreallocarray(NULL, nframes ? nframes : 1,
	    sizeof(*fr));
	memcpy(s->frames, fr, nframes * sizeof(*fr));
	e->n++;
found:
	s->count += count;
	e->total += count;
	p->total += count;
	if (fr != (const char **)ifr)
		free(fr);
	return (0);
}

static int
pid_visit(const struct pentry *e, int (*cb)(const struct profile_stack *,
    void *), void *arg)
{
	struct profile_stack v;
	size_t j;
	int rc;

	for (j = 0; j < e->cap; j++) {
		if (e->stacks[j].comm == NULL)
			continue;
		v.pid = e->pid;
		v.comm = e->stacks[j].comm;
		v.container = e->container != NULL ? e->container : "";
		v.appid = e->appid;
		v.appmeta_idx = e->appmeta_idx;
		v.frames = e->stacks[j].frames;
		v.nframes = e->stacks[j].nframes;
		v.count = e->stacks[j].count;
		if ((rc = cb(&v, arg)) != 0)
			return (rc);
	}
	return (0);
}

int
profile_foreach(const struct profile *p,
    int (*cb)(const struct profile_stack *, void *), void *arg)
{
	size_t i;
	int rc;

	CHECK_OBJ(p, PROFILE_MAGIC);
	for (i = 0; i < p->cap; i++)
		if (p->pids[i].used &&
		    (rc = pid_visit(&p->pids[i], cb, arg)) != 0)
			return (rc);
	return (0);
}

/* The stacks of one PID only. */
int
profile_foreach_in_pid(const struct profile *p, int32_t pid,
    int (*cb)(const struct profile_stack *, void *), void *arg)
{
	const struct pentry *e;

	CHECK_OBJ(p, PROFILE_MAGIC);
	if ((e = pid_find(p, pid)) == NULL)
		return (0);
	return (pid_visit(e, cb, arg));
}

/* Every PID with stacks or an error, in table order. */
int
profile_foreach_pid(const struct profile *p, int (*cb)(int32_t, void *),
    void *arg)
{
	size_t i;
	int rc;

	CHECK_OBJ(p, PROFILE_MAGIC);
	for (i = 0; i < p->cap; i++)
		if (p->pids[i].used && (rc = cb(p->pids[i].pid, arg)) != 0)
			return (rc);
	return (0);
}

uint64_t
profile_total(const struct profile *p)
{
	CHECK_OBJ(p, PROFILE_MAGIC);
	return (p->total);
}

uint64_t
profile_pid_total(const struct profile *p, int32_t pid)
{
	const struct pentry *e;

	CHECK_OBJ(p, PROFILE_MAGIC);
	return ((e = pid_find(p, pid)) != NULL ? e->total : 0);
}

size_t
profile_npids(const struct profile *p)
{
	CHECK_OBJ(p, PROFILE_MAGIC);
	return (p->n);
}

int
profile_has_pid(const struct profile *p, int32_t pid)
{
	CHECK_OBJ(p, PROFILE_MAGIC);
	return (pid_find(p, pid) != NULL);
}

/* The PID's whole result is one error/skip frame (GP_PID_ERROR/SKIPPED). */
void
profile_set_error(struct profile *p, int32_t pid, const char *comm,
    int kind, const char *reason)
{
	struct pentry *e;
	char *txt;

	CHECK_OBJ(p, PROFILE_MAGIC);
	xasprintf(&txt, "[Profiling %s: %s]", kind == GP_PID_SKIPPED ?
	    "skipped" : "error", reason != NULL && *reason ? reason :
	    "unknown");
	e = pid_get(p, pid);
	e->error = strtab_intern(&p->strs, txt, strlen(txt));
	if (comm != NULL)
		e->comm = strtab_intern(&p->strs, comm, strlen(comm));
	free(txt);
}

const char *
profile_pid_error(const struct profile *p, int32_t pid)
{
	const struct pentry *e;

	CHECK_OBJ(p, PROFILE_MAGIC);
	return ((e = pid_find(p, pid)) != NULL ? e->error : NULL);
}

const char *
profile_pid_comm(const struct profile *p, int32_t pid)
{
	const struct pentry *e;

	CHECK_OBJ(p, PROFILE_MAGIC);
	return ((e = pid_find(p, pid)) != NULL ? e->comm : NULL);
}

/* name NULL or "" clears. */
void
profile_set_container(struct profile *p, int32_t pid, const char *name)
{
	struct pentry *e;

	CHECK_OBJ(p, PROFILE_MAGIC);
	e = pid_get(p, pid);
	e->container = name != NULL && *name ? strtab_intern(&p->strs, name,
	    strlen(name)) : NULL;
}

const char *
profile_pid_container(const struct profile *p, int32_t pid)
{
	const struct pentry *e;

	CHECK_OBJ(p, PROFILE_MAGIC);
	return ((e = pid_find(p, pid)) != NULL ? e->container : NULL);
}

void
profile_set_appid(struct profile *p, int32_t pid, const char *appid)
{
	struct pentry *e;

	CHECK_OBJ(p, PROFILE_MAGIC);
	e = pid_get(p, pid);
	e->appid = appid != NULL && *appid ? strtab_intern(&p->strs, appid,
	    strlen(appid)) : NULL;
}

const char *
profile_pid_appid(const struct profile *p, int32_t pid)
{
	const struct pentry *e;

	CHECK_OBJ(p, PROFILE_MAGIC);
	return ((e = pid_find(p, pid)) != NULL ? e->appid : NULL);
}

/* Plugin-provided application metadata keys; takes ownership of md. */
void
profile_set_appmeta(struct profile *p, int32_t pid, struct json_object *md)
{
	struct pentry *e;

	CHECK_OBJ(p, PROFILE_MAGIC);
	e = pid_get(p, pid);
	json_object_put(e->appmeta);
	e->appmeta = md;
}

/* Borrowed. */
struct json_object *
profile_pid_appmeta(const struct profile *p, int32_t pid)
{
	const struct pentry *e;

	CHECK_OBJ(p, PROFILE_MAGIC);
	return ((e = pid_find(p, pid)) != NULL ? e->appmeta : NULL);
}

void
profile_set_appmeta_idx(struct profile *p, int32_t pid, uint32_t idx)
{
	CHECK_OBJ(p, PROFILE_MAGIC);
	pid_get(p, pid)->appmeta_idx = idx;
}
