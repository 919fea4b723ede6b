/*
 * The sampler room (plugins/perf/sampler/): the samplers behind one
 * table (sampler.c; the BPF program, sampler_bpf.c and sampler.bpf.c, its
 * legacy build, sampler_legacy.c, or perf events' own rings,
 * sampler_pev.c), the records they write, CPU lists, --perf-event names
 * (perfevent.h) and the kernel's mapping records (mmapfollow.h,
 * execmaps.h).  It includes no header of the symbolizer
 * (plugins/perf/sym/) nor of the plugin glue, which includes this header
 * as "sampler/sampler.h".
 *
 * The sample record the BPF program (sampler.bpf.c) writes into the ring
 * buffer and user space reads: plain old data shared by both sides, so only
 * fixed-width types and no pointers.
 *
 * A record is a struct sample_hdr, then nkern kernel and nuser user
 * instruction pointers (leaf first, as bpf_get_stack returns them), then
 * nwalk interpreter frames of two words each (code, position; leaf first)
 * when SAMPLE_F_WALKED, then,
 * when stack_len > 0 at offset stack_off, SAMPLE_NREGS user registers and
 * stack_len bytes of user stack copied from regs[SAMPLE_REG_SP] upwards
 * (for DWARF unwinding).
 */
#ifndef GP_PERF_SAMPLER_H
#define GP_PERF_SAMPLER_H

#ifndef __bpf__
#include <stdint.h>
#define __u8	uint8_t
#define __u16	uint16_t
#define __u32	uint32_t
#define __u64	uint64_t
#define __s32	int32_t
#endif

#define SAMPLE_MAX_DEPTH	127	/* kernel.perf_event_max_stack default */
/* Interpreter frames walked in a sample: deeper stacks are read from
 * user space after a wake-up, as without a walk. */
#define SAMPLE_MAX_WALK		96
#define WALK_FRAME_BUF		256	/* bytes of one frame read: offsets < 256 */
/* The BPF program masks a walk pair's index into ips[] with this (every
 * valid one, below 2 * (SAMPLE_MAX_DEPTH + SAMPLE_MAX_WALK), is kept). */
#define WALK_SLOT_MASK		511
/*
 * A walked sample needs no wake-up, but its frames name code objects
 * user space reads once, and only while they live: a walked sample wakes
 * user space when one of its code words is new to the process (a bit of
 * walk_cfg.known, hashed from the word, not set yet), at most every
 * WALK_WAKE_NS per process.  A busy process running code seen before
 * wakes nobody; a collision only defers a read to the next drain.
 */
#define WALK_WAKE_NS		5000000ull
/* A position new to a known code word (walk_cfg.pos_new: its line is read
 * from the code's table) wakes at most this often: a hot method's samples
 * land on tens of positions, and each cycle starts over. */
#define WALK_WAKE_POS_NS	250000000ull
#define WALK_KNOWN_BITS		2048	/* per process: 256 bytes */
#define SAMPLE_MAX_STACK	65528	/* --perf-dwarf-stack-size maximum */
#define SAMPLE_PAGE		4096
#define SAMPLE_COMM_LEN		16

/*
 * Registers kept for DWARF unwinding, in the architecture's DWARF
 * numbering: the first SAMPLE_DWARF_NREGS are DWARF registers 0.. as libdw
 * takes them; the pc is SAMPLE_REG_IP (x86_64's return address column
 * 16; arm64's own slot after sp, as DWARF numbers no pc there).
 */
#if defined(__aarch64__) || defined(__TARGET_ARCH_arm64)
#define SAMPLE_NREGS		33	/* x0-x30, sp, pc */
#define SAMPLE_DWARF_NREGS	32
#define SAMPLE_REG_BP		29	/* x29, the frame pointer */
#define SAMPLE_REG_SP		31
#define SAMPLE_REG_IP		32
#else
#define SAMPLE_NREGS		17	/* rax, rdx, rcx, rbx, rsi, rdi, rbp,
					 * rsp, r8-r15, rip */
#define SAMPLE_DWARF_NREGS	17
#define SAMPLE_REG_BP		6
#define SAMPLE_REG_SP		7
#define SAMPLE_REG_IP		16
#endif

/* The kernel symbol resolver (ksym_resolve in sampler.bpf.c). */
#define KSYM_BATCH		64	/* addresses per run */
#define KSYM_NAME_LEN		128	/* longer are cut: "name+0x1/0x2 [mod]" */

/* sample_hdr.flags */
#define SAMPLE_F_KERN_ERR	0x1	/* kernel stack could not be read */
#define SAMPLE_F_USER_ERR	0x2	/* user fp stack could not be read */
#define SAMPLE_F_FP		0x4	/* nuser holds a frame-pointer stack */
#define SAMPLE_F_DWARF		0x8	/* registers and stack bytes follow */
#define SAMPLE_F_WATCHED	0x10	/* the tgid is watched (sampler_watch) */
#define SAMPLE_F_WALKED		0x20	/* nwalk interpreter frames follow */
#define SAMPLE_F_WALK_NEW	0x40	/* one of them new: wake user space */
#define SAMPLE_F_WALK_NEWPOS	0x80	/* a position new to its code word */

/* Per-CPU counters in the "stats" map, summed by user space. */
#define STAT_SAMPLES		0	/* program runs that passed the filter */
#define STAT_RB_FULL		1	/* ring buffer had no room: sample lost */
#define STAT_KSTACK_ERR		2
#define STAT_USTACK_ERR		3
#define STAT_DWARF_ERR		4	/* user stack bytes unreadable */
#define STAT_TOO_LARGE		5	/* record over the scratch buffer: lost */
#define STAT_RATE_CAPPED	6	/* over max_rate a second on its CPU */
/* Interpreter frame walks (sampler_walk_set) and why one did not finish:
 * no root for the thread, a stale root, a read that faulted, a stack
 * deeper than SAMPLE_MAX_WALK.  Each of those wakes user space. */
#define STAT_WALK_OK		7
#define STAT_WALK_NOROOT	8
#define STAT_WALK_STALE		9
#define STAT_WALK_FAULT		10
#define STAT_WALK_DEEP		11
#define STAT_WALK_WAKE		12	/* walked samples that woke user space */
#define STAT_NSTATS		13

/*
 * What user space tells the program before it loads (sampler.bpf.c): in
 * the program's read-only data, or, in the legacy program (kernels
 * without global data, before 5.2), the one element of its "cfg" map,
 * where paused lives too.
 */
struct sampler_cfg {
	__u64 tp_period;	/* a tracepoint: one sample every n hits */
	__u32 self_tgid;	/* never sample the agent itself */
	__u32 dwarf_size;	/* user stack bytes copied for DWARF */
	__u32 max_rate;		/* samples a second per CPU, 0: no cap */
	__u8 filter_pids;	/* only tgids in "pids" */
	__u8 filter_cgroups;	/* only tasks of "cgroups" */
	__u8 want_fp;		/* frame-pointer user stack */
	__u8 want_dwarf;	/* registers + user stack bytes */
	__u8 paused;		/* legacy: sampler_resume clears it */
	__u8 pad[7];
};

/*
 * The legacy program's records go through perf events' rings, whose
 * record size is 16 bits: its DWARF stack copy stops short of that.
 */
#define SAMPLE_LEGACY_MAX_STACK	(14 * SAMPLE_PAGE)

struct sample_hdr {
	__u32 pid;	/* tgid; 0 = idle */
	__u32 tid;
	__u32 cpu;
	__u16 nkern;
	__u16 nuser;
	__u32 flags;		/* SAMPLE_F_* */
	__u32 stack_off;	/* offset of regs[], when SAMPLE_F_DWARF */
	__u32 stack_len;	/* bytes of stack after regs[] */
	__u32 gen;		/* the tgid's exec generation (0: none seen) */
	char comm[SAMPLE_COMM_LEN];	/* the thread's comm */
	__u32 nwalk;		/* interpreter frames, when SAMPLE_F_WALKED */
	__u32 walk_stat;	/* the walk's STAT_WALK_*, 0: none made */
};

/*
 * An interpreter's frame layout for the walk (plugin.h's gp_frame_walk,
 * checked: every offset below WALK_FRAME_BUF), keyed by tgid, and a
 * thread's root, keyed by TID.  frame_read: the bytes read of each frame,
 * up to the end of its last field used (set by sampler_walk_set).
 */
struct walk_cfg {
	__u32 root_check;
	__u32 root_frame;
	__s32 holder_frame;	/* -1: none */
	__u32 frame_next;
	__u32 frame_code;
	__u32 frame_pos;
	__u32 pos_size;		/* 4 or 8 */
	__s32 frame_owner;	/* -1: none */
	__u32 owner_skip;
	/* an array of frames (frame_stride > 0), a code word behind a
	 * pointer, the root in the thread's TLS (plugin.h, 1.7) */
	__u32 frame_stride;
	__u32 stack_base;
	__u32 stack_words;
	__u32 end_skip;
	__s32 frame_alt;	/* -1: none */
	__s32 alt_off;
	__u32 root_tls;		/* WALK_ROOT_TLS, or 0: told per thread */
	__u32 tls_dtv;
	__u32 tls_dtv_entry;
	__u32 tls_module;
	__u32 frame_read;
	__u64 tls_offset;
	__u32 pos_new;		/* a new (code, position) pair wakes */
	__u32 looped;		/* 1.7's walker (bpf_loop), set by
				 * sampler_walk_set */
	/* The program's: when a walked sample of the process last woke
	 * user space (WALK_WAKE_NS), and the code words seen (hashed). */
	__u64 woken_ns;
	__u64 pos_woken_ns;
	__u64 known[WALK_KNOWN_BITS / 64];
};

/* root WALK_ROOT_NONE: no interpreter frames until check (ns, the
 * program's clock, CLOCK_MONOTONIC) */
#define WALK_ROOT_NONE		1
/* walk_cfg.root_tls: the root is the sampled thread's TLS variable */
#define WALK_ROOT_TLS		1
struct walk_root {
	__u64 root;
	__u64 check;
	__u32 tgid;
	__u32 pad;
};

/*
 * The BPF program's per-CPU scratch record (too large for the BPF stack);
 * its prefix up to the last valid byte is what goes into the ring buffer.
 */
struct sample_buf {
	struct sample_hdr hdr;
	/* kernel, user, then walk pairs; room for a masked pair index */
	__u64 ips[WALK_SLOT_MASK + 2];
	__u64 regs[SAMPLE_NREGS];
	/* one extra page so a page-sized read at any offset stays inside */
	__u8 stack[SAMPLE_MAX_STACK + 8 + SAMPLE_PAGE];
};

#ifndef __bpf__
#include <stddef.h>

/*
 * sampler.c: samples from one perf event per online CPU, through a BPF
 * program (sampler_bpf.c) or perf events' own ring buffers (sampler_pev.c).
 */
struct sampler;
#define SAMPLER_AUTO	(-1)	/* sampler_opts.backend: the best that loads */
/* sampler_opts.log's levels: the plugin API's WARN, INFO and DEBUG */
#define SAMPLER_LOG_WARN	1
#define SAMPLER_LOG_INFO	2
#define SAMPLER_LOG_DEBUG	3
struct sampler_opts {
	/* SAMPLER_AUTO, or sampler_backend_parse's answer */
	int backend;
	int32_t self_pid;	/* never sampled */
	uint32_t freq;		/* Hz, when period is 0 */
	uint64_t period;	/* one sample every period events */
	/* At most this many samples a second per CPU (0: no cap): with a
	 * period, the rate is the event's, not ours (sampler_set_period) */
	uint32_t max_rate;
	/* The event (--perf-event), or ev_name NULL: the first of cycles,
	 * cpu-clock, task-clock the host has.  A named event that cannot be
	 * opened fails sampler_open; there is no fallback. */
	const char *ev_name;
	uint32_t ev_type;	/* PERF_TYPE_* */
	uint64_t ev_config;
	int want_fp;
	int want_dwarf;
	uint32_t dwarf_size;	/* bytes of user stack */
	const int32_t *pids;	/* only these tgids; NULL: all */
	uint32_t npids;
	/* only tasks of the cgroups given to sampler_cgroups_set (none until
	 * then) */
	int filter_cgroups;
	/* take no sample until sampler_resume (exec and exit are followed
	 * from the start): what user space reads first is complete */
	int start_paused;
	/* one record (a ring-buffer sample); non-zero stops the drain */
	int (*on_record)(void *arg, const void *rec, size_t len);
	/* libbpf warnings and sampler notes, at a SAMPLER_LOG_* level */
	void (*log)(void *arg, int level, const char *msg);
	int quiet_load;	/* no libbpf lines (sampler_open) */
	void *arg;
};
/* "auto", "bpf", "bpf-compat", "bpf-legacy" or "perf-events": a backend,
 * or -EINVAL. */
int sampler_backend_parse(const char *);
/* The backend sampling: "bpf", "bpf-compat", "bpf-legacy" or
 * "perf-events"; and in words ("a BPF program", ..., "perf events"). */
const char *sampler_backend_name(const struct sampler *);
const char *sampler_backend_desc(const struct sampler *);
/* NULL with a message in err saying what is missing. */
struct sampler *sampler_open(const struct sampler_opts *, char *err,
		    size_t errlen);
void sampler_close(struct sampler *);
/* Start sampling (opened with start_paused). */
void sampler_resume(struct sampler *);
/* Consume what the ring buffer holds: records, or -errno. */
int sampler_drain(struct sampler *);
/* Readable when the program wakes user space (a new process, a ring a
 * quarter full): watch it and drain. */
int sampler_wakeup_fd(const struct sampler *);
/* Follow CPU hot-plug: events for CPUs that came online, close the rest.
 * Returns the number of CPUs sampled. */
int sampler_sync_cpus(struct sampler *);
/* A perf event's new period on every CPU (PERF_EVENT_IOC_PERIOD): 0 or
 * -errno (a tracepoint's program counts its own period: -ENOTSUP). */
int sampler_set_period(struct sampler *, uint64_t);
/* Cumulative STAT_* counters summed over CPUs. */
void sampler_stats(struct sampler *, uint64_t out[STAT_NSTATS]);
/*
 * Kernel symbol names of n addresses by the kernel's own lookup, into
 * names[i * name_len] ("name+0xoff/0xsize", then " [module]" for a module;
 * "0x..." when unknown).
 * -ENOTSUP when the kernel cannot run the resolver (before Linux 5.14).
 */
int sampler_ksym_resolve(struct sampler *, const uint64_t *addrs,
		    size_t n, char *names, size_t name_len);
/*
 * The exec generation the program gives pid now (0 when it has seen no
 * exec of it): samples carry the generation they were taken in, so one
 * that differs from this one belongs to an image the process has left.
 * 0, or -ENOENT (*gen = 0) when the kernel has no entry for pid.
 */
int sampler_exec_gen(struct sampler *, int32_t pid,
		    uint32_t *gen);
/*
 * Wake user space at every sample of pid (on) and flag its records
 * SAMPLE_F_WATCHED, for a process profiler reading the sampled thread's
 * stack right after; or no more (!on).  0 or -errno.
 */
int sampler_watch(struct sampler *, int32_t pid, int on);
/* Whether the backend can walk interpreter frames (BPF). */
int sampler_walks(const struct sampler *);
/*
 * Walk pid's interpreter frames in each of its samples as c says (NULL:
 * no more; frame_read, woken_ns and known are set here: set again, every
 * code word is new again); the walk of a thread
 * starts from the root sampler_walk_root gave it.  0, -EINVAL (an offset
 * out of bounds or misaligned), -ENOTSUP (the perf-events backend cannot
 * walk) or -errno.
 */
int sampler_walk_set(struct sampler *, int32_t pid,
		    const struct walk_cfg *c);
/* tid's root and check value (root 0: forget it): 0, -ENOENT (pid has
 * no walk), -ENOTSUP or -errno. */
int sampler_walk_root(struct sampler *, int32_t pid, int32_t tid,
		    uint64_t root, uint64_t check);
/*
 * With filter_cgroups: sample the tasks of these cgroup v2 ids (at most
 * SAMPLER_MAX_CGROUPS) and no others from now on.  0 or -errno.
 */
#define SAMPLER_MAX_CGROUPS	4096
int sampler_cgroups_set(struct sampler *, const uint64_t *ids,
		    size_t n);
/* Whether exec and exit events are followed (generations counted). */
int sampler_follows_exec(const struct sampler *);
/* The event sampled: "cpu-cycles", "cpu-clock", "task-clock", or the
 * --perf-event name. */
const char *sampler_event_name(const struct sampler *);

/* record.c: a ring-buffer record checked and split into its parts. */
struct sample_view {
	struct sample_hdr hdr;
	const uint64_t *kips;	/* hdr.nkern, leaf first */
	const uint64_t *uips;	/* hdr.nuser, leaf first */
	const uint64_t *walk;	/* 2 * hdr.nwalk words, leaf first */
	const uint64_t *regs;	/* SAMPLE_NREGS, or NULL */
	const uint8_t *stack;	/* hdr.stack_len bytes, or NULL */
};
/* 0, or -EINVAL when the record is malformed (then v is undefined). */
int sample_record_parse(const void *rec, size_t len,
		    struct sample_view *v);

/* cpulist.c: "0-3,5" as in /sys/devices/system/cpu/online. */
/* Sets set[i] = 1 for each listed CPU below n; the count, or -EINVAL. */
int cpulist_parse(const char *buf, size_t len, uint8_t *set,
		    size_t n);
#endif

#endif
