/*
 * A native function for Python's ctypes (tests/workloads/py_native.py):
 * native_spin(n) burns n iterations in native_spin_inner.
 */
#include <stdint.h>

volatile uint64_t native_sink;

__attribute__((noinline)) uint64_t
native_spin_inner(uint64_t n)
{
	uint64_t i, x = 1;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	native_sink = x;
	return (x);
}

uint64_t
native_spin(uint64_t n)
{
	return (native_spin_inner(n) + 1);
}
