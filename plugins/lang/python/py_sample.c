/*
 * One sample of one attached process: either the thread the system
 * profiler's BPF sampler just caught on CPU (py_target_sample_tid), or,
 * without one, every thread state whose kernel thread is running (state
 * R, docs/specs/cpython.md §11, which also counts threads waiting for a CPU).
 * Frames are formatted `function (file:line)_[p]`, root first.  A failed
 * read drops the sample of that thread; -ESRCH means the process is gone.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "py_target.h"

/* ≤ 3.10: pthread_t → TID through glibc's struct pthread, cached. */
static int32_t
py_sample_tid(struct py_target *t, const struct py_tstate *ts)
{
	int32_t tid;
	uint32_t i;

	if (ts->native_tid > 0)
		return (ts->native_tid);
	for (i = 0; i < t->ntids; i++)
		if (t->tids[i].thread_id == ts->thread_id)
			return (t->tids[i].tid);
	if (py_walk_pthread_tid(&t->mem, ts->thread_id, &tid) != 0)
		return (-1);
	if (t->ntids == sizeof(t->tids) / sizeof(t->tids[0]))
		t->ntids = 0;	/* thread churn: start over */
	t->tids[t->ntids].thread_id = ts->thread_id;
	t->tids[t->ntids++].tid = tid;
	return (tid);
}

/*
 * Whether to sample the thread: its task is running; a TID that is not a
 * task of the process means the glibc rule does not hold here, so fall
 * back to every thread with Python frames (§11).
 */
static int
py_sample_wanted(struct py_target *t, int32_t tid)
{
	char state;
	int rc;

	if (t->tid_fallback)
		return (1);
	if (tid <= 0) {
		t->tid_fallback = 1;
		return (1);
	}
	rc = py_task_state(t->pid, tid, &state);
	if (rc == -ENOENT) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d", (int)t->pid);
		if (access(path, F_OK) != 0)
			return (-ESRCH);
		t->tid_fallback = 1;
		return (1);
	}
	return (rc == 0 && state == 'R');
}

static int
py_sample_reserve(struct py_scratch *s, size_t need)
{
	size_t cap = s->textcap ? s->textcap : 16384;
	char *nt;

	if (need <= s->textcap)
		return (0);
	while (cap < need)
		cap *= 2;
	if ((nt = realloc(s->text, cap)) == NULL)
		return (-ENOMEM);
	s->text = nt;
	s->textcap = cap;
	return (0);
}

void
py_scratch_free(struct py_scratch *s)
{
	free(s->frames);
	free(s->text);
	free(s->ptrs);
	memset(s, 0, sizeof(*s));
}

/* Format frames[0..n) (leaf first) into the scratch's ptrs, root first:
 * each frame's text comes made from its code object (py_code_text). */
static int
py_sample_format(struct py_target *t, uint32_t n, uint32_t *out)
{
	struct py_scratch *s = &t->scratch;
	struct py_code *c;
	const char *text;
	size_t used = 0, need;
	uint32_t i, k = 0;
	size_t offs[PY_MAX_FRAMES];
	int rc;

	for (i = n; i-- > 0;) {
		rc = py_code_get(t->codes, &t->mem, &t->off, t->code_type,
		    s->frames[i].code, &c);
		if (rc == -EINVAL && t->off.minor >= 13)
			continue;	/* 3.13 non-code executable */
		if (rc != 0)
			return (rc);
		text = py_code_text(t->codes, &t->off, c,
		    t->line_mode == PY_LINE_CURRENT ? s->frames[i].pos :
		    PY_TEXT_FIRST);
		if (text == NULL)
			return (-ENOMEM);
		need = strlen(text) + 1;
		if (py_sample_reserve(s, used + need) != 0)
			return (-ENOMEM);
		memcpy(s->text + used, text, need);
		offs[k++] = used;
		used += need;
	}
	for (i = 0; i < k; i++)
		s->ptrs[i] = s->text + offs[i];
	*out = k;
	return (0);
}

/*
 * A new sample: the caches made with the first one (most processes
 * attached are idle ones, never read again), the pages the last one
 * used read again.
 */
static int
py_sample_begin(struct py_target *t)
{
	int rc;

	if ((rc = py_target_caches(t)) != 0)
		return (rc);
	py_mem_cache_begin(&t->mem);
	py_mem_cache_prefetch(&t->mem);
	return (0);
}

/* A walk of the interpreter's thread states, at most PY_MAX_THREADS. */
struct py_tswalk {
	uint64_t interp, cur;
	uint32_t n;
};

static int
py_tswalk_first(struct py_target *t, struct py_tswalk *w)
{
	w->n = 0;
	return (py_walk_first_tstate(&t->mem, &t->off, t->runtime, &w->interp,
	    &w->cur));
}

/* The next thread state: 1 with *ts, 0 after the last, or -errno
 * (-EINVAL: the list changed while walked). */
static int
py_tswalk_next(struct py_target *t, struct py_tswalk *w, struct py_tstate *ts)
{
	uint64_t next;
	int rc;

	if (w->cur == 0 || w->n >= PY_MAX_THREADS)
		return (0);
	if ((rc = py_walk_tstate(&t->mem, &t->off, w->cur, ts, &next)) != 0)
		return (rc);
	if (ts->interp != w->interp)
		return (-EINVAL);	/* torn: list changed */
	w->n++;
	w->cur = next;
	return (1);
}

/* The frames of one thread state, formatted and emitted: 1, or 0 when
 * it has none, or -errno. */
static int
py_sample_emit(struct py_target *t, int32_t tid, const struct py_tstate *ts,
    py_emit_fn emit, void *arg)
{
	uint32_t n, k;
	int rc;

	if (ts->top == 0)
		return (0);
	if ((rc = py_walk_frames(&t->mem, &t->off, ts, t->scratch.frames,
	    PY_MAX_FRAMES, &n)) != 0)
		return (rc);
	if (n == 0 || (rc = py_sample_format(t, n, &k)) != 0)
		return (rc);
	if (k == 0)
		return (0);
	emit(arg, t, tid, t->scratch.ptrs, k);
	return (1);
}

/*
 * Sample every running thread once; emit() gets each non-empty stack.
 * *nthreads counts the stacks emitted.  0, -ESRCH (gone) or -errno of a
 * failed read (the sample is dropped, the process kept).
 */
int
py_target_sample(struct py_target *t, py_emit_fn emit, void *arg,
    uint32_t *nthreads)
{
	struct py_tswalk w;
	struct py_tstate ts;
	int rc, want;

	*nthreads = 0;
	if ((rc = py_sample_begin(t)) != 0 || (rc = py_tswalk_first(t,
	    &w)) != 0)
		return (rc);
	while ((rc = py_tswalk_next(t, &w, &ts)) > 0) {
		if (ts.top == 0)
			continue;
		want = py_sample_wanted(t, py_sample_tid(t, &ts));
		if (want < 0)
			return (want);
		if (want == 0)
			continue;
		if ((rc = py_sample_emit(t, ts.native_tid > 0 ? ts.native_tid :
		    -1, &ts, emit, arg)) < 0)
			return (rc);
		*nthreads += (uint32_t)rc;
	}
	return (rc);
}

/*
 * The thread state cached for tid (py_ts_slot), read and checked: 1 with
 * *ts filled, 0 when none is cached or it no longer is tid's (the slot is
 * dropped and the caller walks the list), -ESRCH when the process is gone.
 * A busy thread's samples then cost the thread state and its frames: the
 * two reads of _PyRuntime's and the interpreter's pages (and their
 * residency checks) are left out, about 40% of a sample's syscalls.
 */
static int
py_sample_cached(struct py_target *t, int32_t tid, struct py_tstate *ts)
{
	struct py_ts_slot *s = NULL;
	uint64_t next;
	uint32_t i;
	int rc;

	for (i = 0; i < PY_TS_SLOTS; i++)
		if (t->ts_slots[i].tid == tid) {
			s = &t->ts_slots[i];
			break;
		}
	if (s == NULL)
		return (0);
	rc = py_walk_tstate(&t->mem, &t->off, s->tstate, ts, &next);
	/* Freed and reused by another thread, or another interpreter: a
	 * thread state names its interpreter, pthread and (3.11+) TID. */
	if (rc == 0 && ts->interp == t->ts_interp &&
	    ts->thread_id == s->thread_id &&
	    (ts->native_tid <= 0 || ts->native_tid == tid))
		return (1);
	s->tid = 0;
	return (rc == -ESRCH ? rc : 0);
}

static int
py_sample_cached_drop(struct py_target *t, int32_t tid)
{
	uint32_t i;

	for (i = 0; i < PY_TS_SLOTS; i++)
		if (t->ts_slots[i].tid == tid)
			t->ts_slots[i].tid = 0;
	return (0);
}

static void
py_sample_remember(struct py_target *t, int32_t tid, uint64_t interp,
    const struct py_tstate *ts)
{
	struct py_ts_slot *s;

	if (interp != t->ts_interp) {
		memset(t->ts_slots, 0, sizeof(t->ts_slots));
		t->ts_interp = interp;
	}
	s = &t->ts_slots[t->ts_next++ % PY_TS_SLOTS];
	s->tid = tid;
	s->tstate = ts->addr;
	s->thread_id = ts->thread_id;
}

/* The thread state read for tid: the system profiler may walk from it. */
static void
py_sample_walk_note(struct py_target *t, int32_t tid,
    const struct py_tstate *ts)
{
	t->walk_tid = tid;
	t->walk_root = ts->addr;
	t->walk_check = ts->thread_id;
}

int
py_target_walk_layout(const struct py_target *t, struct gp_frame_walk *w)
{
	const struct py_offsets *o = &t->off;

	memset(w, 0, sizeof(*w));
	w->size = sizeof(*w);
	/* a stale root is told by its pthread id, as py_sample_cached does */
	w->root_check = o->ts_thread_id;
	w->root_frame = o->ts_frame;
	w->holder_frame = o->cf_frame;
	w->frame_next = o->fr_back;
	w->frame_code = o->fr_code;
	w->frame_pos = o->fr_pos;
	w->pos_size = o->pos_kind == PY_POS_PTR ? 8 : 4;
	w->frame_owner = o->owner_cstack >= 0 ? o->fr_owner : -1;
	w->owner_skip = o->owner_cstack >= 0 ? o->owner_cstack : 0;
	if (t->tid_fallback)
		return (-ENOTSUP);	/* TIDs unknown: no root per thread */
	return (0);
}

int
py_target_sample_walked(struct py_target *t, int32_t tid,
    const uint64_t *walk, uint32_t n, py_emit_fn emit, void *arg)
{
	uint32_t i, k;
	int rc = 0;

	if (n > PY_MAX_FRAMES)
		return (-EINVAL);
	if ((rc = py_target_caches(t)) != 0)
		return (rc);
	py_mem_cache_begin(&t->mem);
	/* py_sample_format wants them leaf first */
	for (i = 0; i < n; i++) {
		struct py_frame *f = &t->scratch.frames[n - 1 - i];

		f->code = walk[2 * i];
		f->pos = t->off.pos_kind == PY_POS_PTR ?
		    (int64_t)walk[2 * i + 1] : (int32_t)walk[2 * i + 1];
	}
	t->walked++;
	if (n == 0 || (rc = py_sample_format(t, n, &k)) != 0)
		return (rc);
	if (k > 0)
		emit(arg, t, tid, t->scratch.ptrs, k);
	return (0);
}

/*
 * Sample the thread tid, which the BPF sampler found on CPU: its stack is
 * read right after the sample (the ring buffer wakes us for watched
 * processes), so only threads that ran are charged, each once per sample.
 * 0 (emitted, or tid runs no Python), -ENOENT when thread states cannot be
 * told apart by TID here (the caller falls back to py_target_sample),
 * -ESRCH (gone) or -errno of a failed read.
 */
int
py_target_sample_tid(struct py_target *t, int32_t tid, py_emit_fn emit,
    void *arg)
{
	struct py_tswalk w;
	struct py_tstate ts;
	int32_t ttid;
	int rc;

	if (t->tid_fallback)
		return (-ENOENT);
	if ((rc = py_sample_begin(t)) != 0)
		return (rc);
	if ((rc = py_sample_cached(t, tid, &ts)) < 0)
		return (rc);
	if (rc == 1) {
		t->ts_hits++;
		py_sample_walk_note(t, tid, &ts);
		/* a failed read walks the list next time */
		if ((rc = py_sample_emit(t, tid, &ts, emit, arg)) < 0)
			(void)py_sample_cached_drop(t, tid);
		return (rc < 0 ? rc : 0);
	}
	t->ts_walks++;
	if ((rc = py_tswalk_first(t, &w)) != 0)
		return (rc);
	while ((rc = py_tswalk_next(t, &w, &ts)) > 0) {
		if ((ttid = py_sample_tid(t, &ts)) <= 0) {
			t->tid_fallback = 1;
			return (-ENOENT);
		}
		if (ttid != tid)
			continue;
		py_sample_remember(t, tid, w.interp, &ts);
		py_sample_walk_note(t, tid, &ts);
		rc = py_sample_emit(t, tid, &ts, emit, arg);
		return (rc < 0 ? rc : 0);
	}
	return (rc);
}
