/*
 * The perf-events sampler's state, shared by its files: sampler_pev.c (the
 * events, rings and sampler.h's operations), pev_record.c (one record at a
 * time) and pev_threads.c (names and exec generations).
 */
#ifndef GP_PERF_PEV_INT_H
#define GP_PERF_PEV_INT_H

#include <stddef.h>
#include <stdint.h>

#include "sampler_int.h"

#define PEV_MAP_MAX	(1u << 17)	/* threads remembered (3 MiB) */
#define PEV_EXEC_RANGES	4		/* kernel functions of exec */
#define PEV_WAKE_HZ	100		/* wake-ups a second per CPU, at most */

/* The registers sampler.h keeps, in perf's numbering: x86_64's
 * (arch/x86/include/uapi/asm/perf_regs.h) AX..IP are 0-8, R8..R15 16-23;
 * arm64's (arch/arm64/include/uapi/asm/perf_regs.h) X0..X30, SP, PC are
 * 0-32, DWARF's order already. */
#if defined(__aarch64__)
#define PEV_REGS_MASK	((1ull << 33) - 1)
#else
#define PEV_REGS_MASK	(0x1ffull | (0xffull << 16))
#endif

struct pev_cpu {
	int fd;			/* -1: offline */
	int exec_fd;		/* sched_process_exec, or -1 */
	uint64_t exec_id;	/* its samples' identifier */
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t size;		/* data bytes, a power of two */
	uint64_t head;		/* read this drain */
	uint64_t done;		/* the tail once this drain ends */
	uint64_t rate_start;	/* the rate cap's window */
	uint32_t rate_n;
};

/* A thread: its name, and its process's exec generation when it leads. */
struct pev_thread {
	uint32_t tid;	/* 0: free */
	uint32_t gen;
	uint32_t gen_old;	/* before the exec under way */
	int in_exec;		/* a COMM exec, no sample since */
	char comm[SAMPLE_COMM_LEN];
};

/* A record still in a ring, in the order records are handled. */
struct pev_ref {
	uint64_t time;
	uint64_t pos;	/* in its CPU's ring */
	uint32_t cpu;
	uint32_t seq;	/* ties: the ring's order */
};

struct spev {
	struct sampler base;	/* first */
	struct sampler_opts opts;
	struct sampler_ev ev;
	struct perf_event_attr attr;		/* every CPU's template */
	uint64_t exec_tp;	/* the tracepoint's id; 0: none */
	uint64_t exec_code[PEV_EXEC_RANGES][2];	/* kernel */
	size_t nexec_code;
	int ncpus;
	struct pev_cpu *cpus;
	uint64_t ring_pages;	/* data pages a CPU */
	int epfd;
	int more;	/* eventfd: a drain stopped */
	int paused;
	uint64_t stats[STAT_NSTATS];
	struct pev_thread *threads;	/* open addressing */
	size_t nthreads, cap;
	int32_t *pids;	/* sorted: opts.pids */
	int32_t *watch;	/* sorted */
	size_t nwatch;
	uint64_t *cgroups;	/* sorted */
	size_t ncgroups;
	struct pev_ref *refs;
	size_t nrefs, refcap;
	struct sample_buf *out;	/* the record handed on */
	uint8_t *copy;		/* a record across the wrap */
	size_t copycap;
};

/* pev_threads.c */
struct pev_thread *pev_find(const struct spev *, uint32_t tid);
struct pev_thread *pev_get(struct spev *, uint32_t tid);
void pev_forget(struct spev *, uint32_t tid);
void pev_comm(struct spev *, uint32_t pid, uint32_t tid,
			    char *comm);

/* pev_record.c */
int pev_cmp_i32(const void *, const void *);
int pev_cmp_u64(const void *, const void *);
void pev_exec_code(struct spev *);
void pev_exec(struct spev *, uint32_t pid, int from_comm);
int pev_sample(struct spev *, struct pev_cpu *, const uint8_t *, size_t);
void pev_sideband(struct spev *, const struct perf_event_header *,
	    const uint8_t *, size_t);

#endif
