/*
 * The cycle's process table: a small chained hash of struct pidinfo, one
 * per (PID, exec generation) sampled, cleared
 * at every snapshot so exited processes do not accumulate.  Hashed by PID
 * alone, newest first, so a PID's latest image is found without its
 * generation (which the kernel's mapping records count on their own).
 */
#include <stdlib.h>

#include "pidtab.h"

#define PIDTAB_BUCKETS	1024	/* a power of two */

struct pidtab {
	struct pidinfo *buckets[PIDTAB_BUCKETS];
	uint32_t count;
};

static uint32_t
pidtab_slot(int32_t pid)
{
	return (((uint32_t)pid * 2654435761u) >> 22) & (PIDTAB_BUCKETS - 1);
}

struct pidtab *
pidtab_new(void)
{
	return (calloc(1, sizeof(struct pidtab)));
}

void
pidtab_clear(struct pidtab *t)
{
	struct pidinfo *p, *next;
	uint32_t i;

	for (i = 0; i < PIDTAB_BUCKETS; i++) {
		for (p = t->buckets[i]; p != NULL; p = next) {
			next = p->next;
			free(p);
		}
		t->buckets[i] = NULL;
	}
	t->count = 0;
}

void
pidtab_free(struct pidtab *t)
{
	if (t == NULL)
		return;
	pidtab_clear(t);
	free(t);
}

struct pidinfo *
pidtab_find_gen(const struct pidtab *t, int32_t pid, uint32_t gen)
{
	struct pidinfo *p;

	for (p = t->buckets[pidtab_slot(pid)]; p != NULL; p = p->next)
		if (p->pid == pid && p->gen == gen)
			return (p);
	return (NULL);
}

struct pidinfo *
pidtab_find_newest(const struct pidtab *t, int32_t pid)
{
	struct pidinfo *p;

	for (p = t->buckets[pidtab_slot(pid)]; p != NULL; p = p->next)
		if (p->pid == pid)
			return (p);
	return (NULL);
}

struct pidinfo *
pidtab_find(const struct pidtab *t, int32_t pid)
{
	return (pidtab_find_gen(t, pid, 0));
}

struct pidinfo *
pidtab_get(struct pidtab *t, int32_t pid, int *isnew)
{
	return (pidtab_get_gen(t, pid, 0, isnew));
}

struct pidinfo *
pidtab_get_gen(struct pidtab *t, int32_t pid, uint32_t gen, int *isnew)
{
	struct pidinfo *p;
	uint32_t slot = pidtab_slot(pid);

	*isnew = 0;
	if ((p = pidtab_find_gen(t, pid, gen)) != NULL)
		return (p);
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (NULL);
	p->pid = pid;
	p->gen = gen;
	p->wanted = -1;
	p->next = t->buckets[slot];
	t->buckets[slot] = p;
	t->count++;
	*isnew = 1;
	return (p);
}

uint32_t
pidtab_count(const struct pidtab *t)
{
	return (t->count);
}

void
pidtab_foreach(struct pidtab *t, void (*cb)(struct pidinfo *, void *),
    void *arg)
{
	struct pidinfo *p;
	uint32_t i;

	for (i = 0; i < PIDTAB_BUCKETS; i++)
		for (p = t->buckets[i]; p != NULL; p = p->next)
			cb(p, arg);
}
