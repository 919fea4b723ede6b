/*
 * Stack aggregation: a chained hash table of distinct stacks with counts.
 * Each entry is one allocation (header + ips); the table doubles when the
 * load passes 1 and is shrunk back on clear so one busy cycle does not pin
 * memory for the rest of the run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hash64.h"
#include "stackagg.h"

#define STACKAGG_MIN_BUCKETS	256

struct stackagg {
	struct stack_entry **buckets;
	size_t nbuckets;	/* a power of two */
	size_t nentries;
	uint64_t nsamples;
};

static uint64_t
stackagg_hash(int32_t pid, uint32_t gen, int32_t tid, const char *comm,
    const uint64_t *kips, uint16_t nk, const uint64_t *uips, uint16_t nu)
{
	uint64_t h = hash64_add(gen | (uint64_t)(uint32_t)tid << 32,
	    ((uint64_t)(uint32_t)pid << 32) |
	    ((uint64_t)nk << 16) | nu), w[2];
	uint16_t i;

	memcpy(w, comm, sizeof(w));
	h = hash64_add(hash64_add(h, w[0]), w[1]);
	for (i = 0; i < nk; i++)
		h = hash64_add(h, kips[i]);
	for (i = 0; i < nu; i++)
		h = hash64_add(h, uips[i]);
	return (hash64_fmix(h));
}

static int
stackagg_alloc_buckets(struct stackagg *a, size_t n)
{
	a->buckets = calloc(n, sizeof(*a->buckets));
	if (a->buckets == NULL)
		return (-ENOMEM);
	a->nbuckets = n;
	return (0);
}

struct stackagg *
stackagg_new(void)
{
	struct stackagg *a;

	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return (NULL);
	if (stackagg_alloc_buckets(a, STACKAGG_MIN_BUCKETS) != 0) {
		free(a);
		return (NULL);
	}
	return (a);
}

static void
stackagg_free_entries(struct stackagg *a)
{
	struct stack_entry *e, *next;
	size_t i;

	for (i = 0; i < a->nbuckets; i++) {
		for (e = a->buckets[i]; e != NULL; e = next) {
			next = e->next;
			free(e);
		}
		a->buckets[i] = NULL;
	}
	a->nentries = 0;
	a->nsamples = 0;
}

void
stackagg_free(struct stackagg *a)
{
	if (a == NULL)
		return;
	stackagg_free_entries(a);
	free(a->buckets);
	free(a);
}

/* Double the table; on allocation failure keep the old (longer chains). */
static void
stackagg_grow(struct stackagg *a)
{
	struct stack_entry **nb, *e, *next;
	size_t n = a->nbuckets * 2, i;

	nb = calloc(n, sizeof(*nb));
	if (nb == NULL)
		return;
	for (i = 0; i < a->nbuckets; i++) {
		for (e = a->buckets[i]; e != NULL; e = next) {
			next = e->next;
			e->next = nb[e->hash & (n - 1)];
			nb[e->hash & (n - 1)] = e;
		}
	}
	free(a->buckets);
	a->buckets = nb;
	a->nbuckets = n;
}

static int
stackagg_equal(const struct stack_entry *e, uint64_t h, int32_t pid,
    uint32_t gen, int32_t tid, const char *comm, const uint64_t *kips,
    uint16_t nk, const uint64_t *uips, uint16_t nu)
{
	return (e->hash == h && e->pid == pid && e->gen == gen &&
	    e->tid == tid &&
	    e->nkern == nk && e->nuser == nu &&
	    memcmp(e->comm, comm, sizeof(e->comm)) == 0 &&
	    (nk == 0 || memcmp(e->ips, kips, nk * sizeof(*kips)) == 0) &&
	    (nu == 0 || memcmp(e->ips + nk, uips, nu * sizeof(*uips)) == 0));
}

int
stackagg_add(struct stackagg *a, int32_t pid, const uint64_t *kips,
    uint16_t nk, const uint64_t *uips, uint16_t nu, uint64_t count)
{
	return (stackagg_add_sample(a, pid, 0, NULL, kips, nk, uips, nu,
	    count));
}

int
stackagg_add_comm(struct stackagg *a, int32_t pid, const char *comm,
    const uint64_t *kips, uint16_t nk, const uint64_t *uips, uint16_t nu,
    uint64_t count)
{
	return (stackagg_add_sample(a, pid, 0, comm, kips, nk, uips, nu,
	    count));
}

int
stackagg_add_gen(struct stackagg *a, int32_t pid, uint32_t gen,
    const uint64_t *kips, uint16_t nk, const uint64_t *uips, uint16_t nu,
    uint64_t count)
{
	return (stackagg_add_sample(a, pid, gen, NULL, kips, nk, uips, nu,
	    count));
}

int
stackagg_add_sample(struct stackagg *a, int32_t pid, uint32_t gen,
    const char *comm,
    const uint64_t *kips, uint16_t nk, const uint64_t *uips, uint16_t nu,
    uint64_t count)
{
	return (stackagg_add_thread(a, pid, gen, 0, comm, kips, nk, uips, nu,
	    count));
}

int
stackagg_add_thread(struct stackagg *a, int32_t pid, uint32_t gen,
    int32_t tid, const char *comm, const uint64_t *kips, uint16_t nk,
    const uint64_t *uips, uint16_t nu, uint64_t count)
{
	struct stack_entry *e, **bp;
	char key[STACKAGG_COMM_LEN];
	uint64_t h;

	/* Zero-padded, so equal names compare and hash equal. */
	memset(key, 0, sizeof(key));
	if (comm != NULL)
		strncpy(key, comm, sizeof(key) - 1);
	h = stackagg_hash(pid, gen, tid, key, kips, nk, uips, nu);
	bp = &a->buckets[h & (a->nbuckets - 1)];
	for (e = *bp; e != NULL; e = e->next) {
		if (stackagg_equal(e, h, pid, gen, tid, key, kips, nk, uips,
		    nu)) {
			e->count += count;
			a->nsamples += count;
			return (0);
		}
	}
	e = malloc(sizeof(*e) + ((size_t)nk + nu) * sizeof(uint64_t));
	if (e == NULL)
		return (-ENOMEM);
	e->hash = h;
	e->count = count;
	e->pid = pid;
	e->gen = gen;
	e->tid = tid;
	e->nkern = nk;
	e->nuser = nu;
	memcpy(e->comm, key, sizeof(e->comm));
	if (nk > 0)
		memcpy(e->ips, kips, nk * sizeof(*kips));
	if (nu > 0)
		memcpy(e->ips + nk, uips, nu * sizeof(*uips));
	e->next = *bp;
	*bp = e;
	a->nentries++;
	a->nsamples += count;
	if (a->nentries > a->nbuckets)
		stackagg_grow(a);
	return (0);
}

int
stackagg_foreach(const struct stackagg *a,
    int (*cb)(const struct stack_entry *, void *), void *arg)
{
	const struct stack_entry *e;
	size_t i;
	int rc;

	for (i = 0; i < a->nbuckets; i++) {
		for (e = a->buckets[i]; e != NULL; e = e->next) {
			if ((rc = cb(e, arg)) != 0)
				return (rc);
		}
	}
	return (0);
}

void
stackagg_clear(struct stackagg *a)
{
	struct stack_entry **nb;

	stackagg_free_entries(a);
	if (a->nbuckets > STACKAGG_MIN_BUCKETS * 16 &&
	    (nb = calloc(STACKAGG_MIN_BUCKETS, sizeof(*nb))) != NULL) {
		free(a->buckets);
		a->buckets = nb;
		a->nbuckets = STACKAGG_MIN_BUCKETS;
	}
}

size_t
stackagg_entries(const struct stackagg *a)
{
	return (a->nentries);
}

uint64_t
stackagg_samples(const struct stackagg *a)
{
	return (a->nsamples);
}
