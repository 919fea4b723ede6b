/*
 * Unit tests for plugins/lang/python/py_mixed.c: Python frames merged with
 * the sample's native and kernel frames.
 */
#include "testing.h"
#include "py_mixed.h"

static const char *out[64];
static char buf[4096];
static char joined[8192];

/* The merged frames joined by ';' (into joined). */
static const char *
merge(const char *const *py, uint32_t npy, const struct gp_sample_stack *st,
    uint64_t lo, uint64_t hi, uint32_t cap, size_t buflen)
{
	uint32_t i, n;
	size_t used = 0;

	n = py_mixed_merge(py, npy, st, lo, hi, out, cap, buf, buflen);
	joined[0] = '\0';
	for (i = 0; i < n; i++)
		used += (size_t)snprintf(joined + used, sizeof(joined) - used,
		    "%s%s", i > 0 ? ";" : "", out[i]);
	return (joined);
}

int
main(void)
{
	static const char *py[] = { "<module> (a.py:1)_[p]",
	    "f (a.py:3)_[p]" };
	/* root first: main and the eval loop in the interpreter (0x1000-),
	 * then _ctypes, libffi, the C function */
	static const char *user[] = { "main", "_PyEval_EvalFrameDefault",
	    "PyCFuncPtr_call", "ffi_call", "spin" };
	static const uint64_t ips[] = { 0x1100, 0x1200, 0x7000, 0x8000,
	    0x9000 };
	static const char *kern[] = { "asm_sysvec_apic_timer_interrupt_[k]",
	    "hrtimer_interrupt_[k]" };
	static const char *broken[] = { "[unknown]", "spin_outer", "spin" };
	static const uint64_t bips[] = { 0x42, 0x9100, 0x9000 };
	struct gp_sample_stack st = { sizeof(st), 2, kern, 5, 0, user, ips };
	struct gp_sample_stack bst = { sizeof(st), 0, NULL, 3, 0, broken,
	    bips };

	CHECK_STREQ(merge(py, 2, NULL, 0x1000, 0x2000, 64, sizeof(buf)),
	    "<module> (a.py:1)_[p];f (a.py:3)_[p]",
	    "no report stack: the Python frames alone");
	CHECK_STREQ(merge(py, 2, &st, 0x1000, 0x2000, 64, sizeof(buf)),
	    "<module> (a.py:1)_[p];f (a.py:3)_[p];PyCFuncPtr_call_[pn];"
	    "ffi_call_[pn];spin_[pn];asm_sysvec_apic_timer_interrupt_[k];"
	    "hrtimer_interrupt_[k]",
	    "the native frames above the innermost interpreter frame, then "
	    "the kernel's");
	CHECK_STREQ(merge(py, 2, &bst, 0x1000, 0x2000, 64, sizeof(buf)),
	    "<module> (a.py:1)_[p];f (a.py:3)_[p];spin_outer_[pn];spin_[pn]",
	    "no interpreter frame (a broken chain): the leaf frames up to "
	    "the first unmapped one");
	CHECK_STREQ(merge(py, 2, &st, 0, 0, 64, sizeof(buf)),
	    "<module> (a.py:1)_[p];f (a.py:3)_[p];main_[pn];"
	    "_PyEval_EvalFrameDefault_[pn];PyCFuncPtr_call_[pn];"
	    "ffi_call_[pn];spin_[pn];asm_sysvec_apic_timer_interrupt_[k];"
	    "hrtimer_interrupt_[k]",
	    "interpreter range unknown: every mapped leaf frame");
	{
		static const uint64_t in[] = { 0x1100, 0x1200, 0x1300 };
		static const char *u[] = { "main", "eval", "PyObject_Hash" };
		struct gp_sample_stack s2 = { sizeof(s2), 1, kern, 3, 0, u,
		    in };

		CHECK_STREQ(merge(py, 2, &s2, 0x1000, 0x2000, 64,
		    sizeof(buf)), "<module> (a.py:1)_[p];f (a.py:3)_[p];"
		    "asm_sysvec_apic_timer_interrupt_[k]",
		    "the leaf in the interpreter: no native frame, the "
		    "kernel's still");
	}
	CHECK_STREQ(merge(py, 2, &st, 0x1000, 0x2000, 4, sizeof(buf)),
	    "<module> (a.py:1)_[p];f (a.py:3)_[p];PyCFuncPtr_call_[pn];"
	    "ffi_call_[pn]", "cut at the output's capacity");
	CHECK_STREQ(merge(py, 2, &st, 0x1000, 0x2000, 64, 25),
	    "<module> (a.py:1)_[p];f (a.py:3)_[p];PyCFuncPtr_call_[pn];"
	    "asm_sysvec_apic_timer_interrupt_[k];hrtimer_interrupt_[k]",
	    "names cut when the text buffer is full, kernel frames kept");
	return (testing_done());
}
