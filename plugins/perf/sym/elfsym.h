/*
 * ELF symbol tables for the symbolizer: the function symbols of one binary
 * (.symtab and .dynsym, optionally merged with a separate debug file) as one
 * address-sorted array plus one name blob, and the PT_LOAD segments needed
 * to turn a file offset into a link-time address.  No section data is kept.
 */
#ifndef PERF_ELFSYM_H
#define PERF_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

#include "gobuildinfo.h"

/*
 * Function symbols per table.  A load holds about 42 bytes a symbol at
 * its peak (the symbols, their attributes, the sort's index, merge and
 * kept copies), so this keeps one table's load near 21 MiB, within the
 * symbolizer's budget: 4M, the limit before, let a user's program whose
 * .symtab repeats a few names 4 million times raise the agent's RSS to
 * 113 MiB.  The largest real tables here have 154k (node); beyond the
 * limit the rest of the file is not read, and the log says how many.
 */
#define ELFSYM_MAX_SYMS		(512u * 1024)
#define ELFSYM_MAX_SEGS		16
#define ELFSYM_BUILD_ID_MAX	64
#define ELFSYM_GO_MAX		(256u << 20)	/* a larger .gopclntab: not read */

struct elfsym_sym {
	uint64_t addr;
	uint32_t size;
	uint32_t name;	/* offset into names */
};

/*
 * A stripped Go binary's function with inlined code, [addr, addr + size).
 * Its inline ranges are built the first time a look-up lands in it (the
 * whole binary's took 50-90 ms of one loop callback for Go's compiler):
 * until then chain is ELFSYM_GOINL_LAZY | k, go_chain[3k], [3k + 1] and
 * [3k + 2] the offsets of its PCDATA_InlTreeIndex table and of its tree
 * in their copies (go_lazy), and the tree's length (go_chain[3n], n the
 * number of such functions, is 0: an empty list of ranges, for one that
 * has none once built).  Built, chain is the index in go_chain of its
 * ranges: their count m, then m triples (start less addr, size, the
 * index of their chain); a chain is its length then names' offsets in
 * go_names, the innermost first.
 */
struct elfsym_goinl {
	uint64_t addr;
	uint32_t size;
	uint32_t chain;
};
#define ELFSYM_GOINL_LAZY	0x80000000u
struct elfsym_golazy;

struct elfsym_seg {
	uint64_t vaddr;
	uint64_t off;
	uint64_t filesz;
};

/*
 * Names are either copied into "names" (sym.name is an offset there) or,
 * for a table loaded with elfsym_load_fd_lazy, left in the file: sym.name
 * is then (string section << 31 | offset) and elfsym_name reads it.
 */
#define ELFSYM_NSTR		2	/* .symtab's and .dynsym's strings */

/* What perf's choice between aliases at one address looks at. */
#define ELFSYM_A_WEAK		0x1	/* STB_WEAK */
#define ELFSYM_A_NONGLOBAL	0x2	/* not STB_GLOBAL */
#define ELFSYM_A_DYNSYM		0x4	/* from .dynsym (perf reads it only
					 * without a .symtab) */
#define ELFSYM_A_PLT		0x8	/* a PLT stub: "name@plt", as perf
					 * names it (the name is the target's) */

struct elfsym_table {
	struct elfsym_sym *syms;
	uint8_t *attr;	/* per sym: ELFSYM_A_* */
	size_t nsyms;
	char *names;	/* NULL when lazy */
	size_t names_len;
	int fd;	/* lazy: the file (owned), else -1 */
	uint64_t str_off[ELFSYM_NSTR];
	uint64_t str_size[ELFSYM_NSTR];
	struct elfsym_seg segs[ELFSYM_MAX_SEGS];
	size_t nsegs;
	uint8_t build_id[ELFSYM_BUILD_ID_MAX];
	size_t build_id_len;
	char *debuglink;	/* .gnu_debuglink file name */
	int has_symtab;		/* had a non-empty .symtab */
	size_t dropped;		/* symbols over ELFSYM_MAX_SYMS */
	/* Without a .symtab, Go's functions come from .gopclntab (their
	 * names are then in memory, not lazy: funcnametab copied whole into
	 * names at go_nbase, each function's name an offset there). */
	size_t go_funcs;	/* functions read from it */
	int go_version;		/* its format: 116, 118, 120 */
	/* What gProfiler's Go application metadata says of the binary;
	 * the version as `go version` prints it ("go1.19.8"). */
	char go_buildver[GOBUILDINFO_VER_MAX];
	/* Inlined frames from .gopclntab (FUNCDATA_InlTree): the sorted
	 * functions that have some, their ranges and chains (go_chain; the
	 * names they give are funcnametab's, in names at go_nbase), and
	 * one allocation (go_names, go_names_len bytes) holding what
	 * building a function's ranges reads (go_lazy at its start: pctab's
	 * and the trees' copies, freed with it). */
	struct elfsym_goinl *go_inl;
	size_t go_ninl;
	uint32_t *go_chain;
	size_t go_nchain;
	char *go_names;
	size_t go_names_len;
	size_t go_nbase;
	struct elfsym_golazy *go_lazy;
	int go_inl_state;	/* 0 read, -errno: none */
	int go_buildinfo;	/* 0: read; -ENOENT: none */
	int symtab_sect;	/* a SHT_SYMTAB section, even
				 * empty ("stripped" is none) */
	int dynamic;		/* a PT_DYNAMIC segment */
	int interp_musl;	/* PT_INTERP names ld-musl */
};

/* Load from an open file (not closed) or from memory; 0 or -errno. */
int elfsym_load_fd(int, struct elfsym_table **);
/* The same without copying names: the table keeps a dup of the fd and
 * reads a name when asked (elfsym_name).  Falls back to copying when the
 * strings cannot be addressed in the file. */
int elfsym_load_fd_lazy(int, struct elfsym_table **);
int elfsym_load_mem(const void *, size_t, struct elfsym_table **);
/*
 * The same load in steps, for a loop that must not spend long in one
 * callback: begin from an open file (not closed, and kept open by the
 * caller until the load is freed; lazy as elfsym_load_fd_lazy), then
 * step about budget units (a symbol read or placed in order, or
 * ELFSYM_LOAD_UNIT_BYTES of a section) at a time: 1 while work remains,
 * 0 done with the table in *out (the caller's), -errno.  The table is the
 * one elfsym_load_fd gives, whatever the steps.
 */
struct elfsym_load;
int elfsym_load_begin(int, int, struct elfsym_load **);
int elfsym_load_step(struct elfsym_load *, size_t,
		    struct elfsym_table **);
void elfsym_load_free(struct elfsym_load *);
/*
 * Merge the symbols of a separate debug file into t.  -ESTALE when both
 * carry a build-id and they differ (a debug file for another build).
 */
int elfsym_add_debug_fd(struct elfsym_table *, int);
void elfsym_free(struct elfsym_table *);

/* Link-time address of a file offset (through PT_LOAD); 0 or -ENOENT. */
int elfsym_file_to_vaddr(const struct elfsym_table *, uint64_t,
		    uint64_t *);
/* The function holding vaddr, or NULL; index in *idx when not NULL.
 * A lazy table answers NULL: use elfsym_find and elfsym_name. */
const char *elfsym_lookup(const struct elfsym_table *, uint64_t, size_t *);
/* Index of the function holding vaddr, or -1. */
long elfsym_find(const struct elfsym_table *, uint64_t);
/* Name of syms[idx] into buf (cut to len - 1); NULL if unreadable. */
const char *elfsym_name(const struct elfsym_table *, size_t, char *,
		    size_t);
/* Lower-case hex of the build-id into buf (2 * len + 1); "" without one. */
void elfsym_build_id_hex(const struct elfsym_table *, char *,
		    size_t);
/*
 * The functions a stripped Go binary inlined at vaddr, from its
 * .gopclntab: up to max names, the innermost first; their count (0:
 * none, or not such a binary).  vaddr is an instruction (a return
 * address less one).  The first look-up in a function builds its inline
 * ranges (the table is const to its readers, but this cache in it is
 * not: one thread at a time).
 */
size_t elfsym_go_inlined(const struct elfsym_table *, uint64_t,
		    const char **, size_t);
/*
 * Every inline range (for tests and benchmarks: it builds them all):
 * their count, the first max starts in lo (in address order).
 */
size_t elfsym_go_inl_ranges(const struct elfsym_table *, uint64_t *,
		    size_t);
/* Heap bytes held by the table. */
size_t elfsym_bytes(const struct elfsym_table *);

#endif
