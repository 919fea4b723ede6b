/*
 * The hash of the agent's tables (interned strings, stacks, caches keyed
 * by an address), for the core and the plugins alike: each table had its
 * own copy of these lines, some with half the finaliser.  A key is fed a
 * word at a time (hash64_add: one multiply a word) and finished once
 * (hash64_fmix), whose every input bit reaches the low bits a
 * power-of-two table indexes by: a multiply alone leaves them clustered.
 * Not for anything an attacker may choose to collide: the tables that hold
 * what a local user names are bounded by count, not by this hash.
 */
#ifndef GP_LIB_HASH64_H
#define GP_LIB_HASH64_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HASH64_INIT	0xcbf29ce484222325ULL	/* FNV's offset basis */

/* Murmur3's 64-bit finaliser. */
static inline uint64_t
hash64_fmix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return (h);
}

/* One word more into h (boost's hash_combine, then FNV's prime). */
static inline uint64_t
hash64_add(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return (h * 0x100000001b3ULL);
}

/* n bytes more into h, eight a step, the length in the last word. */
static inline uint64_t
hash64_bytes(uint64_t h, const void *p, size_t n)
{
	const char *s = p;
	uint64_t w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	w = 0;
	if (n > 0)
		memcpy(&w, s, n);
	h = (h ^ w ^ ((uint64_t)n << 56)) * 0x100000001b3ULL;
	return (h ^ (h >> 29));
}

#endif
