/*
 * Stack aggregation for the runtime plugins (Python, PHP, ...): an
 * open-addressing table keyed by (pid, frames).  Frames are kept as one
 * blob of NUL-terminated texts so an entry costs one allocation.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "langagg.h"

struct langagg_entry {
	uint64_t hash;
	int32_t pid;
	uint32_t nframes;
	uint64_t count;
	size_t bloblen;
	char *blob;	/* NULL: empty slot */
};

struct langagg {
	struct langagg_entry *slots;
	uint32_t cap;	/* power of two */
	uint32_t used;
	const char **ptrs;	/* scratch for foreach */
	uint32_t max_frames;
};

struct langagg *
langagg_new(uint32_t max_frames)
{
	struct langagg *a;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return (NULL);
	a->cap = 256;
	a->max_frames = max_frames;
	a->slots = calloc(a->cap, sizeof(*a->slots));
	a->ptrs = calloc(max_frames > 0 ? max_frames : 1, sizeof(*a->ptrs));
	if (a->slots == NULL || a->ptrs == NULL) {
		langagg_free(a);
		return (NULL);
	}
	return (a);
}

void
langagg_clear(struct langagg *a)
{
	uint32_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->cap; i++) {
		free(a->slots[i].blob);
		a->slots[i].blob = NULL;
	}
	a->used = 0;
}

void
langagg_free(struct langagg *a)
{
	if (a == NULL)
		return;
	langagg_clear(a);
	free(a->slots);
	free(a->ptrs);
	free(a);
}

static uint64_t
langagg_hash(int32_t pid, const char *const *frames, uint32_t n)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(uint32_t)pid;
	uint32_t i;
	const char *p;

	for (i = 0; i < n; i++) {
		for (p = frames[i]; *p != '\0'; p++)
			h = (h ^ (uint8_t)*p) * 1099511628211ull;
		h = (h ^ 0xff) * 1099511628211ull;
	}
	return (h);
}

static int
langagg_same(const struct langagg_entry *e, int32_t pid,
    const char *const *frames, uint32_t n)
{
	const char *p = e->blob;
	uint32_t i;
	size_t l;

	if (e->pid != pid || e->nframes != n)
		return (0);
	for (i = 0; i < n; i++) {
		l = strlen(frames[i]);
		if (memcmp(p, frames[i], l + 1) != 0)
			return (0);
		p += l + 1;
	}
	return (1);
}

static int
langagg_grow(struct langagg *a)
{
	struct langagg_entry *old = a->slots, *ns;
	uint32_t oldcap = a->cap, i, j;

	if ((ns = calloc((size_t)a->cap * 2, sizeof(*ns))) == NULL)
		return (-ENOMEM);
	a->slots = ns;
	a->cap *= 2;
	for (i = 0; i < oldcap; i++) {
		if (old[i].blob == NULL)
			continue;
		for (j = (uint32_t)old[i].hash & (a->cap - 1);
		    ns[j].blob != NULL; j = (j + 1) & (a->cap - 1))
			;
		ns[j] = old[i];
	}
	free(old);
	return (0);
}

int
langagg_add(struct langagg *a, int32_t pid, const char *const *frames,
    uint32_t n, uint64_t count)
{
	uint64_t h;
	uint32_t i, j;
	size_t len = 0;
	char *blob, *p;

	if (n == 0 || n > a->max_frames)
		return (-EINVAL);
	if ((a->used + 1) * 4 > a->cap * 3 && langagg_grow(a) != 0)
		return (-ENOMEM);
	h = langagg_hash(pid, frames, n);
	for (j = (uint32_t)h & (a->cap - 1); a->slots[j].blob != NULL;
	    j = (j + 1) & (a->cap - 1)) {
		if (a->slots[j].hash == h &&
		    langagg_same(&a->slots[j], pid, frames, n)) {
			a->slots[j].count += count;
			return (0);
		}
	}
	for (i = 0; i < n; i++)
		len += strlen(frames[i]) + 1;
	if ((blob = malloc(len)) == NULL)
		return (-ENOMEM);
	for (i = 0, p = blob; i < n; i++) {
		size_t l = strlen(frames[i]) + 1;

		memcpy(p, frames[i], l);
		p += l;
	}
	a->slots[j] = (struct langagg_entry){ h, pid, n, count, len, blob };
	a->used++;
	return (0);
}

void
langagg_foreach(struct langagg *a, struct gp_snapshot *snap, langagg_fn fn,
    void *arg)
{
	uint32_t i, k;
	const char *p;

	for (i = 0; i < a->cap; i++) {
		struct langagg_entry *e = &a->slots[i];

		if (e->blob == NULL)
			continue;
		for (k = 0, p = e->blob; k < e->nframes; k++) {
			a->ptrs[k] = p;
			p += strlen(p) + 1;
		}
		fn(arg, snap, e->pid, a->ptrs, e->nframes, e->count);
	}
}

uint64_t
langagg_pid_total(struct langagg *a, int32_t pid)
{
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < a->cap; i++)
		if (a->slots[i].blob != NULL && a->slots[i].pid == pid)
			total += a->slots[i].count;
	return (total);
}

uint32_t
langagg_count(const struct langagg *a)
{
	return (a->used);
}
