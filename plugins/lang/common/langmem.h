/*
 * Little-endian integers of a target's memory, over a reader's read
 * callback (a live process, or a memory image in tests and fuzzers):
 * for the Ruby and PHP walks (langmem.c).  Pure over the callback.
 */
#ifndef GP_LANGMEM_H
#define GP_LANGMEM_H

#include <stddef.h>
#include <stdint.h>

/* Reads len bytes at addr of the target; 0 or -errno (-ESRCH: gone). */
typedef int (*langmem_read_fn)(void *, uint64_t, void *, size_t);

/* The integer at addr: 0, -EFAULT for a null or wrapping address, or
 * the read's error. */
int langmem_read_u64(langmem_read_fn, void *, uint64_t addr, uint64_t *);
int langmem_read_u32(langmem_read_fn, void *, uint64_t addr, uint32_t *);
/*
 * n bytes of text at addr into buf (len > 0: cut at len - 1 bytes,
 * NUL-terminated), our delimiters (newline, ';') and other control bytes
 * made '?', so that a name cannot split a frame or a stack: 0, or the
 * read's error with buf empty.
 */
int langmem_read_text(langmem_read_fn, void *, uint64_t addr, uint64_t n,
	    char *buf, size_t len);

#endif
