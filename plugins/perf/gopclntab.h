/*
 * Go's function table (.gopclntab, Go 1.16 and later): a pure reader over
 * the section's bytes, for binaries whose .symtab was stripped (the usual
 * -ldflags='-s -w' build).  The bytes are untrusted: every offset read is
 * checked against the buffer, nothing is trusted to be sorted.
 *
 * Layout (runtime/symtab.go, debug/gosym/pclntab.go): a pcHeader (magic,
 * minLC, ptrSize, nfunc, ..., offsets of funcnametab and pclntab from the
 * header); pclntab begins with the functab, nfunc + 1 (entry, funcoff)
 * pairs, whose funcoff locates a _func record (in pclntab) holding the
 * nameOff of the function's name in funcnametab.  Go 1.16/1.17 store the
 * entry as an address (uintptr pairs); 1.18 and later as a uint32 offset
 * from textStart.
 */
#ifndef PERF_GOPCLNTAB_H
#define PERF_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>

#define GOPCLNTAB_MAGIC_116	0xfffffffau	/* Go 1.16, 1.17 */
#define GOPCLNTAB_MAGIC_118	0xfffffff0u	/* Go 1.18, 1.19 */
#define GOPCLNTAB_MAGIC_120	0xfffffff1u	/* Go 1.20 and later */
#define GOPCLNTAB_NAME_MAX	4096		/* longer names are refused */

struct gopclntab {
	const uint8_t	*p;
	size_t		 len;
	int		 version;	/* 116, 118 or 120 */
	unsigned	 ptrsize;	/* 4 or 8 */
	size_t		 nfunc;
	uint64_t	 text_start;	/* 1.18+: base of entry offsets */
	size_t		 funcname;	/* offset of funcnametab in p */
	size_t		 pcln;		/* offset of pclntab (functab) in p */
};

/*
 * Check the header of a .gopclntab image (little-endian) and set up g to
 * read it; the buffer must outlive g.  text_addr stands in for a 1.18+
 * header's textStart when that is 0 (a PIE binary leaves it to a
 * relocation): the .text section's address.  0, -ENOEXEC (not a Go 1.16+
 * table) or -EINVAL (inconsistent).
 */
int	 gopclntab_open(struct gopclntab *, const void *, size_t, uint64_t);
/*
 * Function i (< g->nfunc): its entry address, the next entry (its end)
 * and its name (not NUL-terminated in *name; *len bytes).  0 or -EINVAL
 * when the record points outside the buffer.
 */
int	 gopclntab_func(const struct gopclntab *, size_t, uint64_t *,
	    uint64_t *, const char **, size_t *);
/* Index of the function holding pc (binary search), or -1. */
long	 gopclntab_find(const struct gopclntab *, uint64_t);
/* "1.16" ... for the log. */
const char *gopclntab_version(const struct gopclntab *);

#endif
