/*
 * The walk from _PyRuntime to frames (docs/specs/cpython.md §5, §8): the first
 * interpreter's thread states, then each thread's frame chain, one remote
 * read per struct prefix.  Reads race with the running target, so every
 * pointer is checked and every loop bounded; a bad read fails the sample.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "pyreader.h"

/* glibc x86_64: struct pthread's `tid` (verified on glibc 2.36). */
#define PY_PTHREAD_TID_OFF	0x2d0

int
py_walk_first_tstate(struct py_mem *m, const struct py_offsets *o,
    uint64_t runtime, uint64_t *interp, uint64_t *tstate)
{
	int rc;

	if ((rc = py_mem_read_ptr(m, runtime + o->rt_interp_head,
	    interp)) != 0)
		return (rc);
	if (*interp == 0) {
		*tstate = 0;	/* not initialised yet, or finalised */
		return (0);
	}
	if (!py_ptr_ok(*interp))
		return (-EINVAL);
	if ((rc = py_mem_read_ptr(m, *interp + o->is_tstate_head,
	    tstate)) != 0)
		return (rc);
	return (*tstate == 0 || py_ptr_ok(*tstate) ? 0 : -EINVAL);
}

/* Read one thread state; *next is the following one (0 at the end). */
int
py_walk_tstate(struct py_mem *m, const struct py_offsets *o, uint64_t addr,
    struct py_tstate *ts, uint64_t *next)
{
	uint8_t b[4096];
	int rc;

	if (!py_ptr_ok(addr) || o->ts_size > sizeof(b))
		return (-EINVAL);
	if ((rc = py_mem_read(m, addr, b, o->ts_size)) != 0)
		return (rc);
	memset(ts, 0, sizeof(*ts));
	ts->addr = addr;
	ts->interp = py_u64(b, o->ts_interp);
	ts->top = py_u64(b, o->ts_frame);
	ts->thread_id = py_u64(b, o->ts_thread_id);
	ts->native_tid = o->ts_native_tid >= 0 ?
	    (int32_t)py_u32(b, (uint32_t)o->ts_native_tid) : -1;
	*next = py_u64(b, o->ts_next);
	if (*next != 0 && !py_ptr_ok(*next))
		return (-EINVAL);
	return (0);
}

/* ≤ 3.10: the kernel TID behind a pthread_t (glibc-internal layout). */
int
py_walk_pthread_tid(struct py_mem *m, uint64_t thread_id, int32_t *tid)
{
	uint8_t b[4];
	int rc;

	if (!py_ptr_ok(thread_id))
		return (-EINVAL);
	if ((rc = py_mem_read(m, thread_id + PY_PTHREAD_TID_OFF, b,
	    sizeof(b))) != 0)
		return (rc);
	*tid = (int32_t)py_u32(b, 0);
	return (*tid > 0 ? 0 : -EINVAL);
}

/*
 * Frames of one thread, leaf first, into frames[max]; *n is the count.
 * Shim frames (owner "C stack", 3.12+) are left out.  Hitting max is not
 * an error: the caller gets the innermost max frames.
 */
int
py_walk_frames(struct py_mem *m, const struct py_offsets *o,
    const struct py_tstate *ts, struct py_frame *frames, uint32_t max,
    uint32_t *n)
{
	uint8_t b[4096];
	uint64_t f, prev = 0;
	uint32_t depth;
	int rc;

	*n = 0;
	if (o->fr_size > sizeof(b))
		return (-EINVAL);
	f = ts->top;
	if (f != 0 && o->cf_frame >= 0) {
		if (!py_ptr_ok(f))
			return (-EINVAL);
		if ((rc = py_mem_read_ptr(m, f + (uint32_t)o->cf_frame,
		    &f)) != 0)
			return (rc);
	}
	for (depth = 0; f != 0 && depth < PY_MAX_FRAMES + 64; depth++) {
		if (!py_ptr_ok(f) || f == prev)
			return (-EINVAL);
		if ((rc = py_mem_read(m, f, b, o->fr_size)) != 0)
			return (rc);
		prev = f;
		if (o->fr_owner < 0 ||
		    b[o->fr_owner] != (uint8_t)o->owner_cstack) {
			if (*n >= max)
				break;
			frames[*n].code = py_u64(b, o->fr_code);
			if (o->pos_kind == PY_POS_PTR)
				frames[*n].pos = (int64_t)py_u64(b, o->fr_pos);
			else
				frames[*n].pos = (int32_t)py_u32(b, o->fr_pos);
			(*n)++;
		}
		f = py_u64(b, o->fr_back);
	}
	return (0);
}
