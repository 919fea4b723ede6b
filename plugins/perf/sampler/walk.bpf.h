/*
 * The interpreter frame walks of the sampler's BPF program (included by
 * sampler.bpf.c, its one compilation unit): the maps of each watched
 * process's layout and each thread's root, the walk of ABI 1.6 (a chain
 * of frames, verified frame by frame inline) and that of 1.7 (a root in
 * the thread's TLS, an array of frames, one callback per frame through
 * bpf_loop), and when a walked sample wakes user space.
 */
#ifndef GP_PERF_WALK_BPF_H
#define GP_PERF_WALK_BPF_H

/* Where a task's user thread pointer is saved (x86-64's thread.fsbase,
 * arm64's thread.uw.tp_value), from the kernel's BTF, written by user
 * space (mmapped .bss) before the first walk that needs it; 0: unknown,
 * and no such walk is set (sbpf_walk_set refuses it). */
__u32 task_tp_off;

/*
 * Interpreter frame walks (sampler_walk_set): a watched tgid's frame
 * layout, and each of its threads' roots by TID (LRU: a thread whose exit
 * was missed ages out; an evicted root only costs a wake-up).  A sample
 * of a thread whose walk completes does not wake user space: the frames
 * travel in the record, read at the sample.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct walk_cfg);
} walk_cfgs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct walk_root);
} walk_roots SEC(".maps");

/* One frame's bytes (a map value: fields are read at offsets the
 * verifier bounds, which a stack buffer would not allow on old kernels). */
struct walk_frame {
	__u8 b[WALK_FRAME_BUF + 8];	/* + a 4-byte position read as 8 */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk_frame);
} walk_buf SEC(".maps");

/* A field of the frame just read, at an offset below WALK_FRAME_BUF. */
static __always_inline __u64
walk_u64(const struct walk_frame *b, __u32 off)
{
	return *(const __u64 *)&b->b[off & (WALK_FRAME_BUF - 8)];
}

static __always_inline __u64
walk_u32(const struct walk_frame *b, __u32 off)
{
	return *(const __u32 *)&b->b[off & (WALK_FRAME_BUF - 4)];
}

/* Whether the code word is new to the process (walk_cfg.known), marking
 * it seen.  CPUs racing on a word at worst wake user space twice. */
static __always_inline int
walk_code_new(struct walk_cfg *c, __u64 code)
{
	__u32 h = (__u32)(((code >> 4) * 0x9e3779b97f4a7c15ull) >> 40);
	__u64 bit = 1ull << (h & 63);
	__u64 *w = &c->known[(h >> 6) & (WALK_KNOWN_BITS / 64 - 1)];

	if (*w & bit)
		return 0;
	*w |= bit;
	return 1;
}

/*
 * The sampled thread's root in its TLS (walk_cfg.root_tls): its thread
 * pointer, saved in the task at each switch to it, then the variable
 * through the thread's DTV (plugin.h).  0: none (a thread that never set
 * it, a module not allocated in this thread yet, a page not resident).
 */
static __always_inline __u64
walk_tls_root(const struct walk_cfg *c)
{
	__u64 task = bpf_get_current_task(), tp, v;

	if (task_tp_off == 0 || task == 0 ||
	    bpf_probe_read_kernel(&tp, sizeof(tp), (void *)(task +
	    task_tp_off)) != 0 || tp == 0 ||
	    bpf_probe_read_user(&v, sizeof(v), (void *)(tp +
	    (c->tls_dtv & (WALK_FRAME_BUF - 8)))) != 0 || v == 0 ||
	    bpf_probe_read_user(&v, sizeof(v), (void *)(v +
	    (__u64)c->tls_dtv_entry * (c->tls_module & 4095))) != 0 ||
	    v == 0 || v == (__u64)-1 ||
	    bpf_probe_read_user(&v, sizeof(v), (void *)(v +
	    (c->tls_offset & ((1u << 20) - 1)))) != 0)
		return 0;
	return v;
}

/*
 * Where a walk starts: the thread's root (told per thread, checked, or in
 * its TLS: tls, a constant where the walk has no TLS roots) and the top
 * frame.  0, or the STAT_WALK_* the walk ends with (STAT_WALK_OK: a
 * thread without interpreter frames, nothing to walk or wake for).
 */
static __always_inline __u32
walk_start(const struct walk_cfg *c, __u32 tgid, __u32 tid, int tls,
    __u64 *rootp, __u64 *fp)
{
	struct walk_root *r;
	__u64 root, f, v;

	if (tls) {
		if ((root = walk_tls_root(c)) == 0)
			return STAT_WALK_OK;
	} else {
		r = bpf_map_lookup_elem(&walk_roots, &tid);
		if (r == NULL || r->tgid != tgid)
			return STAT_WALK_NOROOT;
		if (r->root == WALK_ROOT_NONE)
			return bpf_ktime_get_ns() < r->check ? STAT_WALK_OK :
			    STAT_WALK_NOROOT;
		root = r->root;
		if (bpf_probe_read_user(&v, sizeof(v), (void *)(root +
		    (c->root_check & (WALK_FRAME_BUF - 8)))) != 0 ||
		    v != r->check)
			return STAT_WALK_STALE;
	}
	if (bpf_probe_read_user(&f, sizeof(f), (void *)(root +
	    (c->root_frame & (WALK_FRAME_BUF - 8)))) != 0)
		return STAT_WALK_FAULT;
	if (c->holder_frame >= 0 && f != 0 &&
	    bpf_probe_read_user(&f, sizeof(f), (void *)(f +
	    (c->holder_frame & (WALK_FRAME_BUF - 8)))) != 0)
		return STAT_WALK_FAULT;
	*rootp = root;
	*fp = f;
	return 0;
}

/*
 * Follow the thread's interpreter frames from its root, leaf first, into
 * the record after its user ips: (code word, position) per frame.  One
 * read per frame (bpf_probe_read_user never faults a page in: a frame on
 * a page that is not resident ends the walk, and user space reads it).
 * Returns the STAT_WALK_* outcome; hdr.nwalk counts the frames written.
 * The count lives in the record, not in a register, so the verifier sees
 * every iteration end in the same state whichever branch it took.
 */
static __always_inline __u32
walk_frames(struct sample_buf *s, struct walk_cfg *c, __u32 tgid,
    __u32 tid)
{
	struct walk_frame *b;
	__u32 k = 0, i, n, idx, base, slot;
	__u64 *d;
	__u64 f, root;

	if ((i = walk_start(c, tgid, tid, 0, &root, &f)) != 0)
		return i;
	b = bpf_map_lookup_elem(&walk_buf, &k);
	if (b == NULL)
		return STAT_WALK_FAULT;
	n = c->frame_read;
	base = s->hdr.nkern + s->hdr.nuser;
	if (n == 0 || n > WALK_FRAME_BUF || base > 2 * SAMPLE_MAX_DEPTH)
		return STAT_WALK_FAULT;
	s->hdr.nwalk = 0;
	/* shim frames are passed over: a few more reads than frames */
	for (i = 0; i < SAMPLE_MAX_WALK + 32; i++) {
		if (f == 0)
			return STAT_WALK_OK;
		barrier_var(n);
		if (n == 0 || n > WALK_FRAME_BUF)
			return STAT_WALK_FAULT;
		if (bpf_probe_read_user(b->b, n, (void *)f) != 0)
			return STAT_WALK_FAULT;
		if (c->frame_owner < 0 || b->b[c->frame_owner &
		    (WALK_FRAME_BUF - 1)] != (__u8)c->owner_skip) {
			idx = s->hdr.nwalk;
			if (idx >= SAMPLE_MAX_WALK)
				return STAT_WALK_DEEP;
			/* Masked where it is used, into one pointer: older
			 * verifiers (6.1) lose a bound checked on another
			 * copy of the index.  The mask never cuts a valid
			 * one (sampler.h). */
			slot = base + 2 * idx;
			barrier_var(slot);
			slot &= WALK_SLOT_MASK;
			d = &s->ips[slot];
			d[0] = walk_u64(b, c->frame_code);
			d[1] = c->pos_size == 8 ? walk_u64(b, c->frame_pos) :
			    walk_u32(b, c->frame_pos);
			if (walk_code_new(c, d[0]))
				s->hdr.flags |= SAMPLE_F_WALK_NEW;
			s->hdr.nwalk = idx + 1;
		}
		f = walk_u64(b, c->frame_next);
	}
	return f == 0 ? STAT_WALK_OK : STAT_WALK_DEEP;
}

/*
 * The walks of ABI 1.7 (walk_cfg.looped): a root in the thread's TLS, an
 * array of frames, a code word behind a pointer, new positions counted
 * as new code.  One frame per call of bpf_loop's callback, which the
 * verifier checks once, whatever the number of frames: the inline loop
 * above is checked frame by frame, and these choices would have taken it
 * past the verifier's budget.  Kernels without bpf_loop (before 5.17)
 * are not given such layouts (sbpf_walk_set refuses them) and get a program
 * without this code (sample_take's loop).
 */
struct walk_loop {
	struct sample_buf *s;
	struct walk_cfg *c;
	struct walk_frame *b;
	__u64 f, end, stride, pos_mask;
	__s64 alt_add;
	__u32 base, n, stat, pos_new;
	__s32 alt, owner, next;
	__u32 code, pos;
	__u8 skip;
};

/*
 * Where an array of frames (walk_cfg.frame_stride) ends for the walk:
 * the stack's end less its last end_skip frames.  0: none sane (the top
 * frame f outside the stack: a read torn by the thread's own change).
 */
static __always_inline __u64
walk_array_end(const struct walk_cfg *c, __u64 root, __u64 f)
{
	__u64 base, words, end;

	if (bpf_probe_read_user(&base, sizeof(base), (void *)(root +
	    (c->stack_base & (WALK_FRAME_BUF - 8)))) != 0 ||
	    bpf_probe_read_user(&words, sizeof(words), (void *)(root +
	    (c->stack_words & (WALK_FRAME_BUF - 8)))) != 0 ||
	    words > (1ull << 32))
		return 0;
	end = base + 8 * words - (__u64)c->frame_stride * (c->end_skip & 7);
	if (end < base || f < base || f > end)
		return 0;
	return end;
}

/* One frame (bpf_loop's callback): 0 for the next, 1 when done. */
static long
walk_step(__u32 i, void *arg)
{
	struct walk_loop *L = arg;
	struct sample_buf *s = L->s;
	struct walk_frame *b = L->b;
	__u32 n = L->n, idx, slot;
	__u64 *d, f = L->f;

	if (f == 0) {
		L->stat = STAT_WALK_OK;
		return 1;
	}
	if (n == 0 || n > WALK_FRAME_BUF ||
	    bpf_probe_read_user(b->b, n, (void *)f) != 0) {
		L->stat = STAT_WALK_FAULT;
		return 1;
	}
	if (L->owner < 0 || b->b[L->owner & (WALK_FRAME_BUF - 1)] != L->skip) {
		idx = s->hdr.nwalk;
		if (idx >= SAMPLE_MAX_WALK) {
			L->stat = STAT_WALK_DEEP;
			return 1;
		}
		slot = (L->base + 2 * idx) & WALK_SLOT_MASK;
		d = &s->ips[slot];
		d[0] = walk_u64(b, L->code);
		d[1] = *(const __u64 *)&b->b[L->pos & (WALK_FRAME_BUF - 4)] &
		    L->pos_mask;
		/* no code object (a C function's frame): the code word is
		 * behind a pointer (0 if that read fails: user space skips
		 * it) */
		if (L->alt >= 0 && d[0] == 0 &&
		    bpf_probe_read_user(&d[0], sizeof(d[0]),
		    (void *)(walk_u64(b, L->alt) + L->alt_add)) != 0)
			d[0] = 0;
		if (walk_code_new(L->c, d[0]))
			s->hdr.flags |= SAMPLE_F_WALK_NEW;
		if (L->pos_new && walk_code_new(L->c, d[0] ^ d[1] *
		    0x9e3779b97f4a7c15ull))
			s->hdr.flags |= SAMPLE_F_WALK_NEWPOS;
		s->hdr.nwalk = idx + 1;
	}
	if (L->stride > 0)
		L->f = f + 2 * L->stride <= L->end ? f + L->stride : 0;
	else
		L->f = walk_u64(b, L->next);
	return 0;
}

static __always_inline __u32
walk_frames_loop(struct sample_buf *s, struct walk_cfg *c, __u32 tgid,
    __u32 tid)
{
	struct walk_loop L = {};
	__u32 k = 0, rc;
	__u64 f, root;

	if ((rc = walk_start(c, tgid, tid, c->root_tls == WALK_ROOT_TLS,
	    &root, &f)) != 0)
		return rc;
	if (c->frame_stride > 0 && f != 0) {
		if ((L.end = walk_array_end(c, root, f)) == 0)
			return STAT_WALK_FAULT;
		if (f + c->frame_stride > L.end)	/* only the VM's own */
			return STAT_WALK_OK;
	}
	L.b = bpf_map_lookup_elem(&walk_buf, &k);
	if (L.b == NULL)
		return STAT_WALK_FAULT;
	L.s = s;
	L.c = c;
	L.f = f;
	L.stride = c->frame_stride;
	L.pos_mask = c->pos_size == 8 ? ~0ull : 0xffffffffull;
	L.pos_new = c->pos_new;
	L.alt_add = c->alt_off;
	L.base = s->hdr.nkern + s->hdr.nuser;
	L.n = c->frame_read;
	L.alt = c->frame_alt;
	L.owner = c->frame_owner;
	L.skip = (__u8)c->owner_skip;
	L.next = (__s32)c->frame_next;
	L.code = c->frame_code;
	L.pos = c->frame_pos;
	L.stat = STAT_WALK_DEEP;	/* unless a step ends it first */
	if (L.base > 2 * SAMPLE_MAX_DEPTH)
		return STAT_WALK_FAULT;
	s->hdr.nwalk = 0;
	bpf_loop(SAMPLE_MAX_WALK + 32, walk_step, &L, 0);
	return L.stat;
}

/* Whether this walked sample wakes user space: it names a code word new
 * to the process, and the last wake-up for one was WALK_WAKE_NS ago, or
 * (pos_new) a position new to its code word, WALK_WAKE_POS_NS after the
 * last such wake-up (a word marked seen meanwhile is read at the next
 * drain).  CPUs racing on woken_ns at worst wake it twice. */
static __always_inline int
walk_wake_due(struct sample_buf *s, struct walk_cfg *c)
{
	__u64 now;

	now = bpf_ktime_get_ns();
	if (s->hdr.flags & SAMPLE_F_WALK_NEW) {
		if (now - c->woken_ns < WALK_WAKE_NS)
			return 0;
		c->woken_ns = now;
	} else if (s->hdr.flags & SAMPLE_F_WALK_NEWPOS) {
		if (now - c->pos_woken_ns < WALK_WAKE_POS_NS)
			return 0;
		c->pos_woken_ns = now;
	} else
		return 0;
	stat_inc(STAT_WALK_WAKE);
	return 1;
}

#endif
