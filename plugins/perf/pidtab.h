/*
 * Per-process-image facts (one per PID and exec generation) gathered
 * during one cycle: the comm the BPF program
 * saw, whether the run wants the PID, and the smart-mode depth tallies.
 */
#ifndef GP_PERF_PIDTAB_H
#define GP_PERF_PIDTAB_H

#include <stdint.h>

struct pidinfo {
	struct pidinfo *next;
	int32_t pid;
	uint32_t gen;		/* exec generation (sampler.h) */
	int32_t wanted;		/* -1 unknown, 0, 1 */
	int32_t use_dwarf;	/* smart mode's choice */
	char comm[16];		/* thread comm from the first sample */
	int32_t emitted;	/* stacks handed to the host */
	int32_t jvm;		/* maps libjvm.so: 0 unknown, 1 no,
				 * 2 yes (asked at the emit) */
	/* reported to process profilers (CLOCK_MONOTONIC ns; 0: not
	 * yet), and the wait before a new mapping reports it again */
	uint64_t report_ns;
	uint32_t report_wait_s;
	/* smart mode: samples and known user frames per table */
	uint64_t fp_samples, fp_frames;
	uint64_t dw_samples, dw_frames;
};

struct pidtab;
struct pidtab *pidtab_new(void);
void pidtab_free(struct pidtab *);
/* The entry for pid, created (zeroed, wanted = -1) on first sight; *isnew
 * says which.  NULL on allocation failure. */
struct pidinfo *pidtab_get(struct pidtab *, int32_t pid, int *isnew);
struct pidinfo *pidtab_find(const struct pidtab *, int32_t pid);
/* The same for one exec generation of pid; the above are generation 0. */
struct pidinfo *pidtab_get_gen(struct pidtab *, int32_t pid, uint32_t gen,
		    int *isnew);
struct pidinfo *pidtab_find_gen(const struct pidtab *, int32_t pid,
		    uint32_t gen);
/* The image of pid sampled last created, whatever its generation. */
struct pidinfo *pidtab_find_newest(const struct pidtab *, int32_t pid);
void pidtab_clear(struct pidtab *);
uint32_t pidtab_count(const struct pidtab *);
void pidtab_foreach(struct pidtab *,
		    void (*cb)(struct pidinfo *, void *), void *arg);

#endif
