/*
 * Aggregation of raw samples: a hash keyed by (pid, exec generation,
 * thread id when asked, thread comm, kernel ips, user ips) summing counts, so a cycle keeps one
 * entry per distinct stack however
 * many samples hit it.
 */
#ifndef GP_PERF_STACKAGG_H
#define GP_PERF_STACKAGG_H

#include <stddef.h>
#include <stdint.h>

#define STACKAGG_COMM_LEN	16	/* TASK_COMM_LEN, NUL included */

struct stack_entry {
	struct stack_entry *next;	/* hash chain */
	uint64_t hash;
	uint64_t count;
	int32_t pid;
	uint32_t gen;	/* exec generation (sampler.h) */
	int32_t tid;	/* 0: not kept */
	uint16_t nkern;
	uint16_t nuser;
	char comm[STACKAGG_COMM_LEN];	/* thread's */
	uint64_t ips[];			/* kernel then user, leaf first */
};

struct stackagg;

struct stackagg *stackagg_new(void);
void stackagg_free(struct stackagg *);
/* Add count samples of one stack; 0 or -ENOMEM. */
int stackagg_add(struct stackagg *, int32_t pid,
		    const uint64_t *kips, uint16_t nkern,
		    const uint64_t *uips, uint16_t nuser, uint64_t count);
/* The same, for the thread named comm (at most STACKAGG_COMM_LEN - 1
 * bytes are kept; NULL or "" when unknown): perf script folds per thread
 * name, and so does the profile's comm frame. */
int stackagg_add_comm(struct stackagg *, int32_t pid,
		    const char *comm, const uint64_t *kips, uint16_t nkern,
		    const uint64_t *uips, uint16_t nuser, uint64_t count);
/* The same, for samples of one exec generation of pid (sampler.h):
 * generations never share an entry. */
int stackagg_add_gen(struct stackagg *, int32_t pid, uint32_t gen,
		    const uint64_t *kips, uint16_t nkern,
		    const uint64_t *uips, uint16_t nuser, uint64_t count);
/* Both: the thread named comm, in exec generation gen of pid. */
int stackagg_add_sample(struct stackagg *, int32_t pid,
		    uint32_t gen, const char *comm, const uint64_t *kips,
		    uint16_t nkern,
		    const uint64_t *uips, uint16_t nuser, uint64_t count);
/* The same, kept apart per thread (tid; 0 merges threads): JVMs with
 * --java-collect-thread-names. */
int stackagg_add_thread(struct stackagg *, int32_t pid,
		    uint32_t gen, int32_t tid, const char *comm,
		    const uint64_t *kips, uint16_t nkern, const uint64_t *uips,
		    uint16_t nuser, uint64_t count);
/* Visit every entry (in no particular order); non-zero from cb stops. */
int stackagg_foreach(const struct stackagg *,
		    int (*cb)(const struct stack_entry *, void *), void *arg);
/* Forget every entry, keep the table's capacity bounded. */
void stackagg_clear(struct stackagg *);
size_t stackagg_entries(const struct stackagg *);
uint64_t stackagg_samples(const struct stackagg *);

#endif
