/*
 * The one binary search of the agent's address tables (symbols, JIT and
 * kernel maps, mappings, Go's inline ranges, a process's readable
 * ranges): each was its own copy of these lines.  In n records of size
 * bytes, sorted by the uint64_t at offset off in each, it counts those
 * whose key is at most key: the index after the last record that may
 * hold an address (0: none does).  Inline, so that a constant size and
 * offset make it the loop each copy was.
 */
#ifndef GP_LIB_SORTED_H
#define GP_LIB_SORTED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline size_t
sorted_upper(const void *base, size_t n, size_t size, size_t off,
    uint64_t key)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n, mid;
	uint64_t k;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		memcpy(&k, b + mid * size + off, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

#endif
