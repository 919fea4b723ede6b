// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU sampler: runs on every perf_event sample (one event per online
 * CPU at -f Hz) and sends pid, tid, comm, the kernel stack, the user stack
 * (frame pointers) and, for DWARF unwinding, the user registers and the
 * top of the user stack to user space through a ring buffer.  Stacks go
 * into the record itself, not a stack map, so none is lost to hash
 * collisions; whatever is lost is counted in "stats".
 *
 * Built twice.  sampler.bpf.o holds the full program (Linux 5.15 and
 * later) and the compat one (5.8 to 5.14); with SAMPLER_LEGACY
 * (sampler_legacy.bpf.c), the legacy one, for 4.18 to 5.7: no global
 * data (5.2: its settings are the "cfg" map's), perf events' rings
 * instead of the BPF ring buffer (5.8), no loop the verifier must bound
 * (5.3: the stack copy is unrolled), bpf_probe_read (5.5 split it), no
 * call between BPF functions, no interpreter frame walk and no kernel
 * symbol resolver.  Raw tracepoints (exec and exit), bpf_get_stack and
 * the cgroup id are 4.17 and 4.18: that is its floor.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "sampler.h"

/*
 * Set by user space before loading (struct sampler_cfg).  A tracepoint's
 * program runs at every hit whatever the perf event's sample_period: one
 * sample every tp_period hits, counted here.  At most max_rate samples a
 * second on each CPU (0: no cap): with a period the rate is the event's,
 * and page faults or a tracepoint at period 1 would otherwise flood the
 * ring and the agent.
 */
#ifdef SAMPLER_LEGACY
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sampler_cfg);
} cfg SEC(".maps");

/*
 * Two rings per CPU: "urgent" wakes user space at every record (what the
 * BPF ring buffer's forced wake-up does), "events" a quarter full.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps"), urgent SEC(".maps");
#else
const volatile struct sampler_cfg cfg = {
	.tp_period = 1, .dwarf_size = 8192, .want_fp = 1,
};
/* Set by user space while it reads what runs already (sampler_resume). */
volatile __u8 paused = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);	/* resized by user space */
} events SEC(".maps");
#endif

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

/*
 * --perf-use-cgroups: the cgroup v2 ids (bpf_get_current_cgroup_id, the
 * inode of the cgroup's directory) whose tasks are sampled, refilled by
 * user space at each cycle with the busiest ones.  Empty: none is.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);	/* CG_WALK_MAX */
	__type(key, __u64);
	__type(value, __u8);
} cgroups SEC(".maps");

/*
 * Exec generations: tgid -> how many execs the program has seen it do
 * (raw_tp/sched_process_exec), so every sample carries the image it was
 * taken in and user space symbolizes it against that image's mappings and
 * comm, even when the process exec'ed again or exited before the drain.
 * A forked child has no entry (generation 0) until it execs: its samples
 * before the exec (bash's _Fork, execve) stay apart from the new
 * program's.  Entries go at exit (raw_tp/sched_process_exit), so a reused
 * PID starts at 0 again; LRU in case an exit is missed.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, __u32);
} exec_gen SEC(".maps");

/*
 * Tgids whose every sample wakes user space: a process profiler (Python)
 * reads the sampled thread's stack right after, so it samples exactly the
 * threads that were on CPU.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} watch SEC(".maps");

/*
 * User tgids user space has been woken for, with the generation (+1) it
 * was woken for (LRU: exited ones age out).
 * Only on_sample touches it, and a sampling interrupt (an NMI with the
 * cycles event) never nests in itself, so its locks are never re-entered.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u32);
} announced SEC(".maps");

/* Indexed by CPU: a per-CPU array cannot hold values this large. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* resized to the possible CPUs */
	__type(key, __u32);
	__type(value, struct sample_buf);
} scratch SEC(".maps");

/* Hits of the tracepoint since its last sample, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} tp_hits SEC(".maps");

/* This CPU's one-second window of max_rate: its start and samples. */
struct rate_window {
	__u64 start;
	__u64 n;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rate_window);
} rate SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/*
 * No CO-RE relocation anywhere in this object: with one, libbpf parses the
 * whole kernel BTF (/sys/kernel/btf/vmlinux, ~5 MB, ~15 ms and several MB
 * of heap) at every start.  The verifier still uses the kernel's BTF for
 * bpf_get_current_task_btf, which costs user space nothing.
 */
struct task_struct;

#if defined(__TARGET_ARCH_arm64)
/*
 * The kernel's arm64 struct pt_regs begins with struct user_pt_regs, which
 * bpf_task_pt_regs points at: x0-x30, sp, pc, pstate.
 */
struct kregs {
	__u64 regs[31], sp, pc, pstate;
};
#define KREGS_PSR_MODE_MASK	0xf	/* PSR_MODE_MASK */
#define KREGS_PSR_MODE_EL0t	0x0	/* PSR_MODE_EL0t */
#elif defined(__TARGET_ARCH_x86)
/* The kernel's x86_64 struct pt_regs, which bpf_task_pt_regs points at. */
struct kregs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	__u64 ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};
#else
#error "the sampler knows the saved registers of x86_64 and arm64 only"
#endif

static __always_inline void
stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v != NULL)
		*v += 1;
}

/* A stack's frames from bpf_get_stack's answer (its bytes, or -errno),
 * at most SAMPLE_MAX_DEPTH; a stack that could not be read is flagged
 * on the sample and counted. */
static __always_inline long
stack_depth(struct sample_buf *s, long n, __u32 flag, __u32 stat)
{
	if (n < 0) {
		s->hdr.flags |= flag;
		stat_inc(stat);
		return 0;
	}
	n /= 8;
	return n > SAMPLE_MAX_DEPTH ? SAMPLE_MAX_DEPTH : n;
}

/* Saved registers in DWARF order (sampler.h). */
static __always_inline void
regs_to_dwarf(struct sample_buf *s, const struct kregs *r)
{
#if defined(__TARGET_ARCH_arm64)
	/* DWARF's x0-x30 and sp are the saved ones in order */
	__builtin_memcpy(s->regs, r->regs, sizeof(r->regs));
	s->regs[31] = r->sp;
	s->regs[32] = r->pc;
#else
	s->regs[0] = r->ax;  s->regs[1] = r->dx;  s->regs[2] = r->cx;
	s->regs[3] = r->bx;  s->regs[4] = r->si;  s->regs[5] = r->di;
	s->regs[6] = r->bp;  s->regs[7] = r->sp;  s->regs[8] = r->r8;
	s->regs[9] = r->r9;  s->regs[10] = r->r10; s->regs[11] = r->r11;
	s->regs[12] = r->r12; s->regs[13] = r->r13; s->regs[14] = r->r14;
	s->regs[15] = r->r15; s->regs[16] = r->ip;
#endif
}

/* Whether saved registers are user mode's (the kernel's user_mode()). */
static __always_inline int
regs_user_mode(const struct kregs *r)
{
#if defined(__TARGET_ARCH_arm64)
	return r->pc != 0 &&
	    (r->pstate & KREGS_PSR_MODE_MASK) == KREGS_PSR_MODE_EL0t;
#else
	return (r->cs & 3) == 3;
#endif
}

/* User registers of the current task, in DWARF order (sampler.h). */
static __always_inline int
copy_user_regs(struct sample_buf *s)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct kregs r;
	long p;

	p = bpf_task_pt_regs(task);
	if (p == 0 || bpf_probe_read_kernel(&r, sizeof(r), (void *)p) != 0)
		return -1;
	regs_to_dwarf(s, &r);
	return 0;
}

/*
 * The compat program's (no task BTF, no bpf_task_pt_regs): the user
 * registers only when the sample interrupted user mode, from the perf
 * event's own context (struct bpf_perf_event_data begins with the
 * interrupted registers, the uapi pt_regs); a sample taken in the kernel
 * has none (its user stack then comes from frame pointers).  Read field
 * by field: the verifier turns each load of the context into one of the
 * kernel's own struct (which holds a pointer to the registers), so the
 * context cannot be copied as bytes.
 */
static __always_inline int
copy_ctx_regs(struct sample_buf *s, void *ctx)
{
	const struct kregs *c = ctx;
	struct kregs r;

	__builtin_memcpy(&r, c, sizeof(r));
	if (!regs_user_mode(&r))
		return -1;
	regs_to_dwarf(s, &r);
	return 0;
}

/*
 * Kernel threads have no user context: the kernel zeroes their saved user
 * registers (pt_regs is ABI, read without CO-RE).  On x86_64 they then
 * hold no user code segment, and every user task's saved cs is the user
 * one.  On arm64 a user task was interrupted in EL0t (the kernel's
 * user_mode()), but zeroed registers read as EL0t too: a kernel thread's
 * saved pc is 0, a user task's never is.
 */
static __always_inline int
task_is_user(void)
{
	long p = bpf_task_pt_regs(bpf_get_current_task_btf());
#if defined(__TARGET_ARCH_arm64)
	__u64 pc_pstate[2];

	if (p == 0 || bpf_probe_read_kernel(pc_pstate, sizeof(pc_pstate),
	    (void *)(p + __builtin_offsetof(struct kregs, pc))) != 0)
		return 0;
	return pc_pstate[0] != 0 &&
	    (pc_pstate[1] & KREGS_PSR_MODE_MASK) == KREGS_PSR_MODE_EL0t;
#else
	__u64 cs;

	if (p == 0 || bpf_probe_read_kernel(&cs, sizeof(cs),
	    (void *)(p + __builtin_offsetof(struct kregs, cs))) != 0)
		return 0;
	return (cs & 3) == 3;
#endif
}

/*
 * Copy up to dwarf_size bytes from the user sp upwards, page by page, so a
 * stack whose mapping ends before dwarf_size still yields what it has.
 */
#ifdef SAMPLER_LEGACY
#define COPY_MAX_STACK	SAMPLE_LEGACY_MAX_STACK
#define probe_read_user	bpf_probe_read
#else
#define COPY_MAX_STACK	SAMPLE_MAX_STACK
#define probe_read_user	bpf_probe_read_user
#endif

/* One page's worth at *off, at most up to want: 0 when the copy ends. */
static __always_inline int
copy_user_page(struct sample_buf *s, __u64 sp, __u64 *off, __u64 want)
{
	__u64 o = *off, n;

	if (o >= want)
		return 0;
	n = SAMPLE_PAGE - ((sp + o) & (SAMPLE_PAGE - 1));
	if (n > want - o)
		n = want - o;
	/* bounds the verifier can see, whatever the compiler knows */
	barrier_var(n);
	n &= 2 * SAMPLE_PAGE - 1;
	if (n == 0 || n > SAMPLE_PAGE)
		return 0;
	barrier_var(o);
	o &= 0xffff;
	if (probe_read_user(&s->stack[o], n, (void *)(sp + o)) != 0)
		return 0;
	*off = o + n;
	return 1;
}

static __always_inline __u32
copy_user_stack(struct sample_buf *s, __u64 want)
{
	__u64 sp = s->regs[SAMPLE_REG_SP];
	__u64 off = 0;

	if (want > COPY_MAX_STACK)
		want = COPY_MAX_STACK;
#ifdef SAMPLER_LEGACY
	/* COPY_MAX_STACK / SAMPLE_PAGE + 2 steps, spelled out: a verifier
	 * before 5.3 refuses any loop, and clang does not unroll this one */
	_Static_assert(COPY_MAX_STACK / SAMPLE_PAGE + 2 == 16,
	    "the steps below are COPY_MAX_STACK's");
#define STEP	if (!copy_user_page(s, sp, &off, want)) goto out
	STEP; STEP; STEP; STEP; STEP; STEP; STEP; STEP;
	STEP; STEP; STEP; STEP; STEP; STEP; STEP; STEP;
#undef STEP
out:
#else
	for (int i = 0; i < COPY_MAX_STACK / SAMPLE_PAGE + 2; i++)
		if (!copy_user_page(s, sp, &off, want))
			break;
#endif
	return ((__u32)off);
}

/*
 * Wake user space only when it has work that cannot wait: the first
 * sample of a process image, a (tgid, exec generation) pair (its maps are
 * read while it lives, and short-lived processes exec and exit within a
 * drain period), a watched process's sample (urgent), or a ring a
 * quarter full (three quarters of headroom for the wake-up to be served:
 * sample_output's, or the legacy rings' watermark).  Otherwise samples
 * wait for the cycle's snapshot or the slow drain timer: no wake-up per
 * sample, nor per fixed period.
 */
static __always_inline int
wake_due(__u32 tgid, __u32 gen, int is_user, int urgent)
{
	__u32 *seen, want = gen + 1;

	if (urgent)
		return 1;
	if (is_user && ((seen = bpf_map_lookup_elem(&announced, &tgid)) ==
	    NULL || *seen != want)) {
		bpf_map_update_elem(&announced, &tgid, &want, BPF_ANY);
		return 1;
	}
	return 0;
}

#ifdef SAMPLER_LEGACY
/* A wake-up due goes through the ring that wakes at every record. */
static __always_inline long
sample_output(void *ctx, struct sample_buf *s, __u64 size, int wake)
{
	if (wake)
		return bpf_perf_event_output(ctx, &urgent, BPF_F_CURRENT_CPU,
		    s, size);
	return bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, s,
	    size);
}
#else
static __always_inline long
sample_output(void *ctx, struct sample_buf *s, __u64 size, int wake)
{
	if (!wake && bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >
	    bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 4)
		wake = 1;
	return bpf_ringbuf_output(&events, s, size, wake ?
	    BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

#include "walk.bpf.h"
#endif

/*
 * One sample; ctx is what bpf_get_stack takes in both program types (the
 * perf event's, or the tracepoint's whose first word points at its regs).
 * loop (a constant too): the walks of ABI 1.7, through bpf_loop.
 * compat (a constant: each program its own code): without the task's BTF
 * and bpf_task_pt_regs (Linux 5.11, 5.15), a task's user stack is what
 * bpf_get_stack finds (none for a kernel thread), and DWARF registers
 * come only with ctx_regs, a sample taken in user mode (the others fall
 * back to the frame-pointer stack).
 */
static __always_inline int
sample_take(void *ctx, int tp, int compat, int ctx_regs, int loop)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, cpu = bpf_get_smp_processor_id();
	struct sample_buf *s;
	__u32 *genp;
	__u64 size, period;
	long kn, un = 0;
	int is_user, watched, urgent, dwarf;
#ifdef SAMPLER_LEGACY
	__u32 zero = 0;
	const struct sampler_cfg *c = bpf_map_lookup_elem(&cfg, &zero);

	if (c == NULL || c->paused)
		return 0;
#else
	const volatile struct sampler_cfg *c = &cfg;
	struct walk_cfg *wc;
	__u32 walk;

	if (paused)
		return 0;
#endif
	if (tgid != 0 && tgid == c->self_tgid)
		return 0;
	if (c->filter_pids && bpf_map_lookup_elem(&pids, &tgid) == NULL)
		return 0;
	/* A process profiler's process is sampled wherever it runs: its
	 * profiler reads the thread caught here, and gProfiler's -G limits
	 * perf, not the runtime profilers (whose stacks replace perf's). */
	if (c->filter_cgroups) {
		__u64 cg = bpf_get_current_cgroup_id();

		if (bpf_map_lookup_elem(&cgroups, &cg) == NULL &&
		    bpf_map_lookup_elem(&watch, &tgid) == NULL)
			return 0;
	}
	period = tp ? c->tp_period : 1;
	if (period > 1) {
		__u32 k = 0;
		__u64 *n = bpf_map_lookup_elem(&tp_hits, &k);

		if (n == NULL || ++*n < period)
			return 0;
		*n = 0;
	}
	if (c->max_rate != 0) {
		__u32 k = 0;
		struct rate_window *w = bpf_map_lookup_elem(&rate, &k);
		__u64 now = bpf_ktime_get_ns();

		if (w == NULL)
			return 0;
		if (now - w->start >= 1000000000ull) {
			w->start = now;
			w->n = 0;
		}
		if (++w->n > c->max_rate) {
			stat_inc(STAT_RATE_CAPPED);
			return 0;
		}
	}
	s = bpf_map_lookup_elem(&scratch, &cpu);
	if (s == NULL)
		return 0;
	stat_inc(STAT_SAMPLES);

	s->hdr.pid = tgid;
	s->hdr.tid = (__u32)id;
	s->hdr.cpu = cpu;
	s->hdr.flags = 0;
	s->hdr.stack_off = 0;
	s->hdr.stack_len = 0;
	s->hdr.nwalk = 0;
	s->hdr.walk_stat = 0;
	genp = bpf_map_lookup_elem(&exec_gen, &tgid);
	s->hdr.gen = genp != NULL ? *genp : 0;
	bpf_get_current_comm(s->hdr.comm, sizeof(s->hdr.comm));

	kn = stack_depth(s, bpf_get_stack(ctx, s->ips, SAMPLE_MAX_DEPTH * 8,
	    0), SAMPLE_F_KERN_ERR, STAT_KSTACK_ERR);
	/* kernel threads have no user stack: not an error */
	is_user = tgid != 0 && (compat || task_is_user());
	dwarf = c->want_dwarf && is_user && (compat ? ctx_regs &&
	    copy_ctx_regs(s, ctx) == 0 : copy_user_regs(s) == 0);
	if ((c->want_fp || (compat && c->want_dwarf && !dwarf)) && is_user) {
		s->hdr.flags |= SAMPLE_F_FP;
		un = stack_depth(s, bpf_get_stack(ctx, &s->ips[kn & 0xff],
		    SAMPLE_MAX_DEPTH * 8, BPF_F_USER_STACK), SAMPLE_F_USER_ERR,
		    STAT_USTACK_ERR);
	}
	s->hdr.nkern = kn;
	s->hdr.nuser = un;
	/* compat: a task with no user stack at all is a kernel thread (or
	 * one whose stack is gone): not announced, not walked */
	if (compat && un == 0 && !dwarf)
		is_user = 0;
	watched = tgid != 0 && bpf_map_lookup_elem(&watch, &tgid) != NULL;
	/* A process profiler reads a watched thread's stack at once, unless
	 * its frames were walked here. */
	urgent = watched;
#ifndef SAMPLER_LEGACY
	if (watched && is_user &&
	    (wc = bpf_map_lookup_elem(&walk_cfgs, &tgid)) != NULL) {
		/* a 1.7 layout only where the program has its walk */
		walk = !wc->looped ? walk_frames(s, wc, tgid, (__u32)id) :
		    !loop ? STAT_WALK_FAULT :
		    walk_frames_loop(s, wc, tgid, (__u32)id);
		stat_inc(walk);
		s->hdr.walk_stat = walk;
		if (walk == STAT_WALK_OK) {
			s->hdr.flags |= SAMPLE_F_WALKED;
			urgent = walk_wake_due(s, wc);
		} else
			s->hdr.nwalk = 0;
	}
#endif
	size = sizeof(s->hdr) + (kn + un + 2 * (__u64)(s->hdr.nwalk &
	    0xff)) * 8;

	if (dwarf) {
		s->hdr.flags |= SAMPLE_F_DWARF;
		s->hdr.stack_off = __builtin_offsetof(struct sample_buf, regs);
		s->hdr.stack_len = copy_user_stack(s, c->dwarf_size);
		if (s->hdr.stack_len == 0)
			stat_inc(STAT_DWARF_ERR);
		size = s->hdr.stack_off + sizeof(s->regs) + s->hdr.stack_len;
	}
	if (size > sizeof(*s)) {
		stat_inc(STAT_TOO_LARGE);
		return 0;
	}
	if (watched)
		s->hdr.flags |= SAMPLE_F_WATCHED;
	if (sample_output(ctx, s, size, wake_due(tgid, s->hdr.gen, is_user,
	    urgent)) != 0)
		stat_inc(STAT_RB_FULL);
	return 0;
}

/*
 * The programs: per event type, the full one, the same with the walks of
 * ABI 1.7 (bpf_loop), and the compat one; the legacy object has only the
 * compat ones.
 */
#ifndef SAMPLER_LEGACY
/* A hardware, software, cache or raw event overflowed (--perf-event). */
SEC("perf_event")
int
on_sample(void *ctx)
{
	return sample_take(ctx, 0, 0, 1, 0);
}

/* The same with the walks of ABI 1.7, for kernels with bpf_loop. */
SEC("perf_event")
int
on_sample_loop(void *ctx)
{
	return sample_take(ctx, 0, 0, 1, 1);
}
#endif

/* The same for kernels without the task's BTF helpers (sample_take). */
SEC("perf_event")
int
on_sample_compat(void *ctx)
{
	return sample_take(ctx, 0, 1, 1, 0);
}

/*
 * A tracepoint event (--perf-event sys:name): the kernel attaches only a
 * tracepoint program to it, once (to the tracepoint, for every CPU), and
 * runs it at every hit on any CPU; loaded only then.
 */
#ifndef SAMPLER_LEGACY
SEC("tracepoint")
int
on_tracepoint(void *ctx)
{
	return sample_take(ctx, 1, 0, 0, 0);
}

SEC("tracepoint")
int
on_tracepoint_loop(void *ctx)
{
	return sample_take(ctx, 1, 0, 0, 1);
}
#endif

SEC("tracepoint")
int
on_tracepoint_compat(void *ctx)
{
	return sample_take(ctx, 1, 1, 0, 0);
}

/*
 * A new image: the exec'ing task is current, its mm and comm already the
 * new program's.  Raw tracepoints attach by name (no tracefs needed) and
 * the program reads no argument, so no kernel struct layout.
 */
SEC("raw_tp/sched_process_exec")
int
on_exec(void *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, gen = 1, *old;

	old = bpf_map_lookup_elem(&exec_gen, &tgid);
	if (old != NULL)
		gen = *old + 1;
	if (gen == 0)
		gen = 1;
	bpf_map_update_elem(&exec_gen, &tgid, &gen, BPF_ANY);
	return 0;
}

/* The process is gone when its leader exits: its PID may be reused. */
SEC("raw_tp/sched_process_exit")
int
on_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;

#ifndef SAMPLER_LEGACY
	/* every thread: its walk root dies with it */
	bpf_map_delete_elem(&walk_roots, &tid);
#endif
	if (tid != tgid)
		return 0;
#ifndef SAMPLER_LEGACY
	bpf_map_delete_elem(&walk_cfgs, &tgid);
#endif
	bpf_map_delete_elem(&exec_gen, &tgid);
	bpf_map_delete_elem(&announced, &tgid);
	return 0;
}

#ifndef SAMPLER_LEGACY
/*
 * Kernel symbol names for user space, by the kernel's own kallsyms lookup
 * (%pS: "name+0xoff/0xsize [module]"): user space writes ksym_n addresses into ksym_addr (mmapped .bss),
 * runs this once (BPF_PROG_TEST_RUN) and reads ksym_name; no copy of the
 * kernel's symbol table in user space, no 5 MB /proc/kallsyms read.
 * Unknown addresses come back as "0x..." (user space then says [unknown]).
 */
__u64 ksym_addr[KSYM_BATCH];
char ksym_name[KSYM_BATCH][KSYM_NAME_LEN];
__u32 ksym_n;

SEC("syscall")
int
ksym_resolve(void *ctx)
{
	__u32 i, n = ksym_n;
	__u64 a;

	for (i = 0; i < KSYM_BATCH && i < n; i++) {
		a = ksym_addr[i];
		if (bpf_snprintf(ksym_name[i], KSYM_NAME_LEN, "%pS", &a,
		    sizeof(a)) < 0)
			ksym_name[i][0] = '\0';
	}
	return 0;
}
#endif

char LICENSE[] SEC("license") = "GPL";
