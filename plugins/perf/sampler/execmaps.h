/*
 * The kernel's own account of every process's executable mappings, as
 * perf record follows them: a dummy software event per CPU with mmap2,
 * comm_exec and task set delivers a record for each executable mmap, each
 * exec and each exit, written synchronously by the process itself.  Kept
 * per (PID, exec generation), so a program that exec'ed and exited before
 * its /proc/PID/maps could be read (a shell's short programs on a busy
 * host) is still symbolized, as perf symbolizes it.
 *
 * execrec_parse is a pure function over one record's bytes (unit-tested
 * and fuzzed); the log is plain memory, fed by mmapfollow.c.
 */
#ifndef PERF_EXECMAPS_H
#define PERF_EXECMAPS_H

#include <stddef.h>
#include <stdint.h>

#define EXECREC_MMAP	1	/* PERF_RECORD_MMAP2 of an executable map */
#define EXECREC_EXEC	2	/* PERF_RECORD_COMM with COMM_EXEC */
#define EXECREC_EXIT	3	/* PERF_RECORD_EXIT of a thread */
#define EXECREC_LOST	4	/* PERF_RECORD_LOST: records dropped */
#define EXECREC_FORK	5	/* PERF_RECORD_FORK of a process */
#define EXECREC_OTHER	6	/* anything else (a thread's fork too) */

struct execrec {
	int type;
	uint32_t pid;
	uint32_t tid;
	uint32_t ppid;	/* FORK */
	uint64_t addr;	/* MMAP */
	uint64_t len;
	uint64_t pgoff;
	uint64_t ino;
	uint32_t maj;
	uint32_t min;
	uint32_t prot;
	const char *path;	/* MMAP: into the record, path_len */
	size_t path_len;
	uint64_t lost;	/* LOST */
	uint64_t time;	/* CLOCK_MONOTONIC ns (sample_id) */
};

/*
 * One record (a struct perf_event_header first, sample_id_all with
 * PERF_SAMPLE_TIME only: the time is its last 8 bytes): 0, or -EINVAL.
 */
int execrec_parse(const void *rec, size_t len,
		    struct execrec *out);

/* A mapping as the kernel reported it; path valid until the next feed. */
struct execmap {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint64_t ino;
	uint32_t maj;
	uint32_t min;
	const char *path;
};

/* Past this a live image's mappings are left to /proc, an exited one's
 * dropped: its samples were drained before (a drain at least each 10 s;
 * on a host starting 100 programs a second the log holds ~1 MB). */
#define EXECMAPS_KEEP_NS	(15ull * 1000 * 1000 * 1000)
/* Bounds: mappings per image and in all (more are counted, not kept). */
#define EXECMAPS_MAX_PER	4096
#define EXECMAPS_MAX_ALL	(256 * 1024)

struct execmaps;
struct execmaps *execmaps_new(void);
void execmaps_free(struct execmaps *);
/* Apply one record received at now_ns: 0, or -ENOMEM. */
int execmaps_feed(struct execmaps *, const struct execrec *,
		    uint64_t now_ns);
/*
 * The mapping holding addr in pid's image gen (the exec count since the
 * log started, as the sampler counts them): 0, or -ENOENT.
 */
int execmaps_find(const struct execmaps *, int32_t pid,
		    uint32_t gen, uint64_t addr, struct execmap *out);
/* The parent a forked pid's image gen 0 was copied from, or 0. */
int32_t execmaps_parent(const struct execmaps *, int32_t pid,
		    uint32_t gen);
/*
 * Whether pid's image gen provably mapped no code since since_ns (the
 * records' clock, CLOCK_MONOTONIC): 1 when the log follows that image,
 * has had no mapping of it and lost no record since; 0 when it did or
 * may have; -ENOENT when the log does not follow it.  A symbolizer whose
 * snapshot of the image's maps was read at since_ns then knows an address
 * outside it is no code at all.
 */
int execmaps_quiet_since(const struct execmaps *, int32_t pid,
		    uint32_t gen, uint64_t since_ns);
/*
 * Follow pid's image gen from now_ns (a process running before the log
 * began that the seed left out): its mappings are left to /proc, the
 * records from now on mark it as having mapped code.  0, -EEXIST when a
 * live image of pid is followed, or -ENOMEM.
 */
int execmaps_follow(struct execmaps *, int32_t pid, uint32_t gen,
		    uint64_t now_ns);
/* Drop what is older than EXECMAPS_KEEP_NS. */
void execmaps_expire(struct execmaps *, uint64_t now_ns);
/*
 * What /proc showed of a process the records began too late for (it was
 * running when the log started): its executable mappings, as image gen
 * (the sampler's count when it was read).  Records older than now_ns (the
 * time taken before gen and the mappings were read) are already in what
 * was read, and are not applied to it again; newer ones are.  0, -EEXIST
 * when the log already follows pid, or -ENOMEM.
 */
int execmaps_seed(struct execmaps *, int32_t pid, uint32_t gen,
		    const struct execmap *v, size_t n, uint64_t now_ns);

struct execmaps_stats {
	uint64_t images;	/* kept now */
	uint64_t maps;		/* kept now */
	uint64_t dropped;	/* over a bound */
	uint64_t lost;		/* the kernel's LOST records */
};
void execmaps_stats(const struct execmaps *,
		    struct execmaps_stats *);

#endif
