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

/*
 * A table read in place (gopclntab_open_src): its bytes come from the
 * file through a few small windows, filled by read as the reader asks
 * (a 12 MB table was copied whole before, the largest block of a load).
 * fills counts the windows read; past max_fills the table reads as cut
 * (every later read fails), which bounds what a hostile layout whose
 * records jump around can cost.
 */
#define GOPCLNTAB_WIN		(16u << 10)
#define GOPCLNTAB_NWIN		8
struct gopclntab_src {
	int (*read)(void *, uint64_t, void *, size_t);
	void *arg;
	uint64_t fills, max_fills;
	uint64_t tick;
	struct {
		size_t off, len;
		uint64_t used;
		uint8_t *buf;
	}		 w[GOPCLNTAB_NWIN];
	uint8_t *mem;	/* the windows' bytes */
};

struct gopclntab {
	const uint8_t *p;	/* NULL when read in place */
	struct gopclntab_src *src;
	size_t len;
	int version;		/* 116, 118 or 120 */
	unsigned ptrsize;	/* 4 or 8 */
	size_t nfunc;
	uint64_t text_start;	/* 1.18+: base of entry offsets */
	size_t funcname;	/* offset of funcnametab in p */
	size_t pcln;		/* offset of pclntab (functab) in p */
	unsigned minlc;		/* pc quantum: 1 (x86), 4 (arm64) */
	size_t cutab;		/* offset of cutab (uint32 file offsets) */
	size_t filetab;		/* offset of filetab (NUL-ended names) */
	size_t pctab;		/* offset of pctab (pc-value tables) */
};

/*
 * What a function's _func record says beyond its name: the pc-value
 * tables of file, line and inline index (offsets into pctab, 0: none)
 * and where its inline tree (FUNCDATA_InlTree) lies.  The tree is not in
 * .gopclntab: Go 1.18+ give an offset from moduledata.gofunc (the
 * go:func.* data in .rodata), 1.16/1.17 its address.
 */
struct gopclntab_fn {
	uint64_t entry;
	uint64_t end;
	uint32_t nameoff;	/* into funcnametab */
	uint32_t pcfile;
	uint32_t pcln;
	uint32_t pcinl;	/* PCDATA_InlTreeIndex */
	uint32_t cuoff;	/* first of its files in cutab */
	int has_inltree;
	uint64_t inltree;	/* 1.18+: gofunc offset; 1.16: address */
};

/*
 * One entry of an inline tree (runtime.inlinedCall): 20 bytes up to Go
 * 1.19 (parent index, file, line, func_, parentPc), 16 from 1.20
 * (funcID, nameOff, parentPc, startLine: the parent is the inline index
 * at entry + parentPc).
 */
#define GOPCLNTAB_INL_SIZE(g)	((g)->version >= 120 ? 16u : 20u)
#define GOPCLNTAB_INL_DEPTH	32	/* deeper chains are cut */
#define GOPCLNTAB_INL_IDX_MAX	65536	/* larger tree indexes refused */

/* A walk over a pc-value table: the ranges [lo, hi) and their values. */
struct gopclntab_pciter {
	const struct gopclntab *g;
	size_t p;	/* next byte in g->p */
	uint64_t pc;
	uint64_t entry;
	int32_t val;
	int done;
};

/*
 * Check the header of a .gopclntab image (little-endian) and set up g to
 * read it; the buffer must outlive g.  text_addr stands in for a 1.18+
 * header's textStart when that is 0 (a PIE binary leaves it to a
 * relocation): the .text section's address.  0, -ENOEXEC (not a Go 1.16+
 * table) or -EINVAL (inconsistent).
 */
int gopclntab_open(struct gopclntab *, const void *, size_t, uint64_t);
/*
 * The same over a file: len bytes that src->read gives (0 or -1), read
 * as they are needed; src (its windows set up by gopclntab_src_init)
 * must outlive g.  Names and file names returned point into a window:
 * valid until the next call on g.
 */
int gopclntab_open_src(struct gopclntab *, struct gopclntab_src *,
	    size_t, uint64_t);
int gopclntab_src_init(struct gopclntab_src *,
	    int (*)(void *, uint64_t, void *, size_t), void *, size_t);
void gopclntab_src_free(struct gopclntab_src *);
/* len bytes at off, from the buffer or a window; NULL past the end (or
 * when the file can no longer be read). */
const uint8_t *gopclntab_at(const struct gopclntab *, size_t, size_t);
/*
 * Function i (< g->nfunc): its entry address, the next entry (its end)
 * and its name (not NUL-terminated in *name; *len bytes).  0 or -EINVAL
 * when the record points outside the buffer.
 */
int gopclntab_func(const struct gopclntab *, size_t, uint64_t *,
	    uint64_t *, const char **, size_t *);
/* The same with the name's offset in funcnametab rather than its text. */
int gopclntab_func_off(const struct gopclntab *, size_t, uint64_t *,
	    uint64_t *, uint32_t *);
/* Index of the function holding pc (binary search), or -1. */
long gopclntab_find(const struct gopclntab *, uint64_t);
/* Function i's record (pc-value tables, inline tree); 0 or -EINVAL. */
int gopclntab_fn(const struct gopclntab *, size_t, struct gopclntab_fn *);
/* A name in funcnametab (nameoff from a _func or an inline entry). */
int gopclntab_name(const struct gopclntab *, uint32_t, const char **,
	    size_t *);
/*
 * Walk the pc-value table at pctab offset off of the function starting
 * at entry (runtime.step): each gopclntab_pcnext gives the next range
 * and its value; 1, 0 at the end, -EINVAL on bytes past the buffer.
 */
void gopclntab_pcstart(struct gopclntab_pciter *, const struct gopclntab *,
	    uint32_t, uint64_t);
int gopclntab_pcnext(struct gopclntab_pciter *, uint64_t *, uint64_t *,
	    int32_t *);
/* The value at pc (runtime.pcvalue): 0, -ENOENT (pc not covered). */
int gopclntab_pcvalue(const struct gopclntab *, uint32_t, uint64_t,
	    uint64_t, int32_t *);
/*
 * The functions inlined at pc of fn, given the bytes of its inline tree
 * (tree, len: entry k at k * GOPCLNTAB_INL_SIZE): up to max nameoffs,
 * the innermost first; their count (0: pc is in fn's own code), or
 * -EINVAL.  pc is an instruction of fn (for a return address, the
 * caller passes ret - 1, as runtime's tracepc).
 */
int gopclntab_inline(const struct gopclntab *, const struct gopclntab_fn *,
	    const uint8_t *, size_t, uint64_t, uint32_t *, size_t);
/*
 * Entry ix of an inline tree: its nameoff, and its parent as an index
 * (up to 1.19; -1 for none) or, from 1.20 (*parent = INT32_MIN), as the
 * pc offset from the entry whose inline index is the parent.  0 or
 * -EINVAL (ix outside the tree).
 */
int gopclntab_inl_entry(const struct gopclntab *, const uint8_t *, size_t,
	    int32_t, uint32_t *, int32_t *, uint32_t *);
/*
 * File and line of pc in fn (pcfile, pcln through cutab and filetab);
 * for inlined code, the innermost function's.  0, -ENOENT, -EINVAL.
 */
int gopclntab_line(const struct gopclntab *, const struct gopclntab_fn *,
	    uint64_t, const char **, size_t *, int32_t *);
/* "1.16" ... for the log. */
const char *gopclntab_version(const struct gopclntab *);

#endif
