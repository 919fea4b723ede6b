/*
 * Struct offsets per CPython minor version (docs/specs/cpython.md §6) and the
 * decoder of 3.13's self-describing _Py_DebugOffsets block (§7), which is
 * preferred to any compiled-in table.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pyreader.h"

static void
py_offsets_common(struct py_offsets *o, int major, int minor)
{
	memset(o, 0, sizeof(*o));
	o->major = major;
	o->minor = minor;
	o->ts_next = 8;
	o->ts_interp = 16;
	o->ob_type = 8;
	o->str_length = 16;
	o->str_state = 32;
	o->bytes_size = 16;
	o->bytes_sval = 32;
	o->cf_frame = -1;
	o->ts_native_tid = -1;
	o->fr_owner = -1;
	o->owner_cstack = -1;
	o->co_qualname = -1;
	o->co_code_adaptive = -1;
	o->str_ascii_size = minor <= 11 ? 48 : 40;
	o->str_compact_size = minor <= 11 ? 72 : 56;
}

/* 3.8 to 3.10: PyFrameObject chains hanging off tstate->frame. */
static void
py_offsets_38_310(struct py_offsets *o, int minor)
{
	o->rt_interp_head = 32;
	o->is_next = 0;
	o->is_tstate_head = 8;
	o->ts_frame = 24;
	o->ts_thread_id = 176;
	o->ts_size = 184;
	o->fr_back = 24;
	o->fr_code = 32;
	o->fr_pos = minor == 10 ? 96 : 104;
	o->fr_size = 108;
	o->pos_kind = minor == 10 ? PY_POS_LASTI_UNITS : PY_POS_LASTI_BYTES;
	o->co_firstlineno = 40;
	o->co_filename = 104;
	o->co_name = 112;
	o->co_linetable = 120;
	o->co_size = 128;
	o->line_kind = minor == 10 ? PY_LINE_310 : PY_LINE_LNOTAB;
}

/* 3.11 to 3.13: _PyInterpreterFrame chains. */
static void
py_offsets_311_313(struct py_offsets *o, int minor)
{
	o->is_next = 0;
	o->pos_kind = PY_POS_PTR;
	o->line_kind = PY_LINE_PEP657;
	o->fr_pos = 56;
	o->fr_size = 72;
	o->co_filename = 112;
	o->co_name = 120;
	o->co_qualname = 128;
	o->co_linetable = 136;
	o->co_size = 144;
	switch (minor) {
	case 11:
		o->rt_interp_head = 40;
		o->is_tstate_head = 16;
		o->ts_frame = 56;
		o->cf_frame = 8;
		o->ts_thread_id = 152;
		o->ts_native_tid = 160;
		o->fr_back = 48;
		o->fr_code = 32;
		o->fr_owner = 69;
		o->co_firstlineno = 72;
		o->co_code_adaptive = 184;
		break;
	case 12:
		o->rt_interp_head = 40;
		o->is_tstate_head = 72;
		o->ts_frame = 56;
		o->cf_frame = 0;
		o->ts_thread_id = 136;
		o->ts_native_tid = 144;
		o->fr_back = 8;
		o->fr_code = 0;
		o->fr_owner = 70;
		o->owner_cstack = 3;
		o->co_firstlineno = 68;
		o->co_code_adaptive = 192;
		break;
	default:	/* 13: the fallback when the debug block is unusable */
		o->rt_interp_head = 632;
		o->is_next = 8;		/* unused: 3.13 walks only the head */
		o->is_tstate_head = 7344;
		o->ts_frame = 72;
		o->ts_thread_id = 152;
		o->ts_native_tid = 160;
		o->fr_back = 8;
		o->fr_code = 0;
		o->fr_owner = 70;
		o->owner_cstack = 3;
		o->co_firstlineno = 68;
		o->co_code_adaptive = 200;
		break;
	}
	o->ts_size = (uint32_t)o->ts_native_tid + 8;
}

/* The compiled-in layout of major.minor; -ENOTSUP outside 3.8..3.13. */
int
py_offsets_for_version(int major, int minor, struct py_offsets *o)
{
	if (major != 3 || minor < 8 || minor > 13)
		return (-ENOTSUP);
	py_offsets_common(o, major, minor);
	if (minor <= 10)
		py_offsets_38_310(o, minor);
	else
		py_offsets_311_313(o, minor);
	return (0);
}

/* Index of each field in the 3.13 block (uint64 entries). */
enum {
	DO_COOKIE = 0, DO_VERSION = 1, DO_FREE_THREADED = 2,
	DO_RT_SIZE = 3, DO_RT_INTERP_HEAD = 5,
	DO_IS_SIZE = 6, DO_IS_NEXT = 8, DO_IS_THREADS_HEAD = 9,
	DO_TS_SIZE = 19, DO_TS_NEXT = 21, DO_TS_INTERP = 22,
	DO_TS_CURRENT_FRAME = 23, DO_TS_THREAD_ID = 24, DO_TS_NATIVE_TID = 25,
	DO_FR_SIZE = 28, DO_FR_PREVIOUS = 29, DO_FR_EXECUTABLE = 30,
	DO_FR_INSTR_PTR = 31, DO_FR_OWNER = 33,
	DO_CO_SIZE = 34, DO_CO_FILENAME = 35, DO_CO_NAME = 36,
	DO_CO_QUALNAME = 37, DO_CO_LINETABLE = 38, DO_CO_FIRSTLINENO = 39,
	DO_CO_CODE_ADAPTIVE = 43,
	DO_OB_SIZE = 44, DO_OB_TYPE = 45,
	DO_BY_SIZE = 64, DO_BY_OB_SIZE = 65, DO_BY_SVAL = 66,
	DO_UN_SIZE = 67, DO_UN_STATE = 68, DO_UN_LENGTH = 69,
	DO_UN_ASCII_SIZE = 70,
	DO_COUNT = 73
};

#define DO_MAX_STRUCT	(1u << 20)

/* One field: offset + width must lie inside the group's struct size. */
static int
py_debug_field(const uint8_t *b, int size_idx, int idx, uint32_t width,
    uint32_t *out)
{
	uint64_t size = py_u64(b, (size_t)size_idx * 8);
	uint64_t off = py_u64(b, (size_t)idx * 8);

	if (size == 0 || size > DO_MAX_STRUCT || off + width > size)
		return (-EINVAL);
	*out = (uint32_t)off;
	return (0);
}

struct py_debug_row {
	int size_idx, idx;
	uint32_t width;
	size_t where;	/* offsetof in struct py_offsets */
};

#define ROW(s, i, w, f)	{ s, i, w, offsetof(struct py_offsets, f) }
static const struct py_debug_row py_debug_rows[] = {
	ROW(DO_RT_SIZE, DO_RT_INTERP_HEAD, 8, rt_interp_head),
	ROW(DO_IS_SIZE, DO_IS_NEXT, 8, is_next),
	ROW(DO_IS_SIZE, DO_IS_THREADS_HEAD, 8, is_tstate_head),
	ROW(DO_TS_SIZE, DO_TS_NEXT, 8, ts_next),
	ROW(DO_TS_SIZE, DO_TS_INTERP, 8, ts_interp),
	ROW(DO_TS_SIZE, DO_TS_CURRENT_FRAME, 8, ts_frame),
	ROW(DO_TS_SIZE, DO_TS_THREAD_ID, 8, ts_thread_id),
	ROW(DO_TS_SIZE, DO_TS_NATIVE_TID, 4, ts_native_tid),
	ROW(DO_FR_SIZE, DO_FR_PREVIOUS, 8, fr_back),
	ROW(DO_FR_SIZE, DO_FR_EXECUTABLE, 8, fr_code),
	ROW(DO_FR_SIZE, DO_FR_INSTR_PTR, 8, fr_pos),
	ROW(DO_FR_SIZE, DO_FR_OWNER, 1, fr_owner),
	ROW(DO_CO_SIZE, DO_CO_FILENAME, 8, co_filename),
	ROW(DO_CO_SIZE, DO_CO_NAME, 8, co_name),
	ROW(DO_CO_SIZE, DO_CO_QUALNAME, 8, co_qualname),
	ROW(DO_CO_SIZE, DO_CO_LINETABLE, 8, co_linetable),
	ROW(DO_CO_SIZE, DO_CO_FIRSTLINENO, 4, co_firstlineno),
	ROW(DO_CO_SIZE, DO_CO_CODE_ADAPTIVE, 1, co_code_adaptive),
	ROW(DO_OB_SIZE, DO_OB_TYPE, 8, ob_type),
	ROW(DO_BY_SIZE, DO_BY_OB_SIZE, 8, bytes_size),
	ROW(DO_BY_SIZE, DO_BY_SVAL, 1, bytes_sval),
	ROW(DO_UN_SIZE, DO_UN_STATE, 4, str_state),
	ROW(DO_UN_SIZE, DO_UN_LENGTH, 8, str_length),
};
#undef ROW

static uint32_t
py_max3(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t m = a > b ? a : b;

	return (m > c ? m : c);
}

/*
 * Decode the 3.13 _Py_DebugOffsets block (len >= PY_DEBUG_OFFSETS_SIZE)
 * for an interpreter whose minor version is already known; every offset is
 * validated against its group's size so a shifted layout is refused
 * (-EINVAL, reason in err) instead of producing garbage.
 */
int
py_offsets_from_debug(const uint8_t *b, size_t len, int minor,
    struct py_offsets *o, char *err, size_t errlen)
{
	struct py_version v;
	uint32_t val, ascii;
	size_t i;

	if (len < PY_DEBUG_OFFSETS_SIZE || memcmp(b, "xdebugpy", 8) != 0) {
		snprintf(err, errlen, "no _Py_DebugOffsets cookie");
		return (-EINVAL);
	}
	if (py_version_from_hex(py_u64(b, DO_VERSION * 8), &v) != 0 ||
	    v.major != 3 || v.minor != minor || minor != 13) {
		snprintf(err, errlen, "_Py_DebugOffsets version %#llx "
		    "unexpected", (unsigned long long)py_u64(b, 8));
		return (-EINVAL);
	}
	if (py_u64(b, DO_FREE_THREADED * 8) != 0) {
		snprintf(err, errlen, "free-threaded build");
		return (-ENOTSUP);
	}
	py_offsets_for_version(3, minor, o);
	for (i = 0; i < sizeof(py_debug_rows) / sizeof(py_debug_rows[0]);
	    i++) {
		const struct py_debug_row *r = &py_debug_rows[i];

		if (py_debug_field(b, r->size_idx, r->idx, r->width,
		    &val) != 0) {
			snprintf(err, errlen, "_Py_DebugOffsets entry %d "
			    "out of bounds", r->idx);
			return (-EINVAL);
		}
		memcpy((char *)o + r->where, &val, sizeof(val));
	}
	ascii = (uint32_t)py_u64(b, DO_UN_ASCII_SIZE * 8);
	if (ascii < 24 || ascii > 256) {
		snprintf(err, errlen, "_Py_DebugOffsets unicode size %u", ascii);
		return (-EINVAL);
	}
	o->str_ascii_size = ascii;
	o->str_compact_size = ascii + 16;	/* utf8_length, utf8 */
	o->ts_size = py_max3(o->ts_next, o->ts_interp, o->ts_frame);
	o->ts_size = py_max3(o->ts_size, o->ts_thread_id,
	    (uint32_t)o->ts_native_tid) + 8;
	o->fr_size = py_max3(o->fr_back, o->fr_code, o->fr_pos) + 8;
	if ((uint32_t)o->fr_owner + 1 > o->fr_size)
		o->fr_size = (uint32_t)o->fr_owner + 1;
	o->fr_size = (o->fr_size + 7) & ~7u;
	o->co_size = py_max3(o->co_filename, o->co_name,
	    (uint32_t)o->co_qualname);
	o->co_size = py_max3(o->co_size, o->co_linetable,
	    o->co_firstlineno) + 8;
	if (o->ob_type + 8 > o->co_size)
		o->co_size = o->ob_type + 8;
	if (o->ts_size > 4096 || o->fr_size > 4096 || o->co_size > 4096) {
		snprintf(err, errlen, "_Py_DebugOffsets struct prefix too "
		    "large");
		return (-EINVAL);
	}
	return (0);
}
