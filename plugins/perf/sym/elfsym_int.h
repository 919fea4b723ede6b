/*
 * The ELF reader's internal header: shared by elfsym.c (symbol tables),
 * elfsym_load.c (the load in steps), elfsym_sort.c (their order) and
 * elfsym_go.c (what a Go binary adds: .gopclntab names, .go.buildinfo).
 */
#ifndef PERF_ELFSYM_INT_H
#define PERF_ELFSYM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "elfread.h"
#include "elfsym.h"
#include "gopclntab.h"

/* A table being built. */
struct elfsym_build {
	struct elfsym_table *t;
	size_t cap;	/* syms */
	size_t names_cap;
	int lazy;	/* names stay in the file */
	/* Lazy: the string sections read (NUL-terminated copies, owned
	 * by the load), for names while sorting. */
	const char *str[ELFSYM_NSTR];
	int src;		/* section being read */
	uint64_t file_size;	/* lazy: names must lie within */
};

/*
 * A stripped Go binary (-ldflags='-s -w'): no .symtab, but the runtime's
 * own function table in .gopclntab names every function.  Looked for
 * before reading (its names are copied, so the load is not lazy).
 */
struct elfsym_go {
	struct elfread *le;
	size_t scn;		/* .gopclntab's index; 0: none */
	size_t noptrdata;	/* .noptrdata: runtime.firstmoduledata */
	size_t buildinfo;	/* .go.buildinfo; 0: none */
	uint64_t text;		/* .text address (1.18+ PIE base) */
	int symtab;		/* a SHT_SYMTAB section exists */
};

/* Add one symbol (name copied, or st_name in the lazy string table). */
int elfsym_push(struct elfsym_build *, uint64_t addr, uint64_t size,
	    const char *name, size_t st_name, uint8_t attr);
int elfsym_push_at(struct elfsym_build *, uint64_t addr, uint64_t size,
	    uint32_t name, uint8_t attr);

/*
 * What building a function's inline ranges reads, kept from the load: at
 * the start of go_names' allocation (funcnametab's copy is in names, at
 * go_nbase: the functions' and the inlined frames' names are one copy).
 */
struct elfsym_golazy {
	struct gopclntab g;	/* over the tables' copy (pctab 0) */
	const uint8_t *tree;	/* the trees' entries' copy */
	size_t tlen;
	size_t names_len;	/* funcnametab's copy */
	size_t ccap;		/* go_chain's capacity */
	size_t nfn;		/* functions with inlined code */
};

/*
 * .gopclntab read in slices (elfsym_go_read does it all in one call), for
 * a loader that spreads its work over loop turns: funcnametab copied into
 * the table's names, its functions added, then what the inline look-ups
 * need found and copied (ELFSYM_GO_UNIT_BYTES read or copied a unit, a
 * few units a function).  The section is read in place, through the
 * load's ELF reader (go->le) and the table's windows (gopclntab_src): a
 * load holds what the table keeps, not the section.  Until its end the
 * table has no inline ranges.
 */
#define ELFSYM_GO_UNIT_BYTES	16
struct elfsym_goread {
	int phase;
	const struct elfsym_go *go;
	struct gopclntab_src src;	/* .gopclntab's windows */
	uint64_t pcoff;			/* its file offset */
	uint64_t fills;			/* its windows read, charged */
	uint64_t off;			/* file offset of the trees' span */
	uint64_t pcaddr;		/* .gopclntab's address */
	struct gopclntab g;
	size_t i;	/* next function, or byte */
	uint64_t gofunc;
	uint64_t lo, hi;	/* the span of inline trees */
	size_t n;		/* functions with inlined code */
	size_t cap;		/* room in go_inl, go_chain / 4 */
	size_t k;
	size_t ptot, pp;	/* their tables' bytes */
	size_t ttot, tp;	/* their trees' bytes */
	size_t nlen;		/* funcnametab's */
	uint32_t nbase;		/* its copy's offset in names */
	uint64_t saddr;		/* the trees' span, at file */
	size_t slen;		/* offset off */
	int sorted;
};

/* elfsym_go.c */
void elfsym_go_probe(struct elfread *, struct elfsym_go *);
void elfsym_go_buildinfo(struct elfsym_table *, const struct elfsym_go *);
int elfsym_go_read(struct elfsym_build *, const struct elfsym_go *);
/* Begin, step (about budget units: 1 while work remains, 0 done,
 * -errno), free (at any point). */
void elfsym_go_begin(struct elfsym_goread *, const struct elfsym_go *);
int elfsym_go_step(struct elfsym_goread *, struct elfsym_build *, size_t);
void elfsym_go_free(struct elfsym_goread *);

/* elfsym_goinl.c */
int elfsym_go_inl_cmp(const void *, const void *);	/* by address */
void elfsym_go_inl_none(struct elfsym_table *);	/* none after all */

/* elfsym.c */
void elfsym_read_note(struct elfsym_table *, const uint8_t *, size_t);
void elfsym_read_debuglink(struct elfsym_table *, const char *, size_t);
void elfsym_read_segments(struct elfsym_table *, struct elfread *);
/*
 * What one file's load may read (plugins/common/elf's budget per file):
 * its symbol sections (up to ELFSYM_LOAD_SCNS; a .symtab of
 * ELFSYM_MAX_SYMS functions may hold many other entries: 1 GiB),
 * their strings (ELFSYM_MAX_STR each), a stripped Go binary's .gopclntab
 * (in windows, at most 6 times over) and inline trees (ELFSYM_GO_MAX
 * each, .noptrdata as much), the rest
 * small.  The largest library here (libLLVM-15, 117 MB) reads 4.3 MB in
 * 100 reads; Go 1.19's compiler 5.8 MB in 10.
 * Beyond it the file is marked bad by identity (elfbad) and not read
 * again until it changes.
 */
#define ELFSYM_READ_BYTES	((uint64_t)1 << 30)
#define ELFSYM_READ_CALLS	((uint64_t)1 << 20)
#define ELFSYM_SYM_CHUNK	512	/* symbols read at once */
#define ELFSYM_PLT_NAMES	(1u << 20)	/* .dynsym's st_name kept */

/*
 * The sort that ends a load, in steps: runs of ELFSYM_SORT_RUN symbol
 * indexes sorted at once, then merged pairwise (a unit an element: the
 * order is total, so the result is qsort's), then the preferred symbol
 * kept per address and unsized ones given the room to the next.
 */
#define ELFSYM_SORT_RUN		1024
struct elfsym_sort {
	int phase;
	uint32_t *ix, *tmp;	/* the order being built, and merged */
	struct elfsym_sym *ns;	/* the kept symbols */
	uint8_t *na;
	size_t n;
	size_t w, lo, i, j, k;	/* merge: width, pair, cursors */
	int inpair;
	size_t o;		/* kept so far */
	char *nn;		/* the kept names' copy */
	size_t nlen;		/* its length */
	size_t blo, blen;	/* funcnametab's copy in names */
};
/* Begin (the build's symbols are all pushed), step (1 while work
 * remains, 0 done), free (at any point). */
void elfsym_sort_begin(struct elfsym_sort *);
int elfsym_sort_step(struct elfsym_sort *, struct elfsym_build *, size_t);
void elfsym_sort_free(struct elfsym_sort *);

/*
 * A table being loaded, a step at a time (elfsym_load_fd is the same in
 * one step): the sections walked, each symbol section read a symbol a
 * unit, a stripped Go binary's .gopclntab (elfsym_go_step), the sort.
 */
#define ELFSYM_LOAD_SCNS	8	/* symbol sections read, at most */
#define ELFSYM_MAX_STR		(16u << 20)	/* a string table copied */
#define ELFSYM_STR_PER_SYM	1024	/* its bytes per symbol, at most, */
#define ELFSYM_STR_SLACK	(64u << 10)	/* plus these */
#define ELFSYM_LOAD_UNIT_BYTES	256	/* section bytes read per unit */
struct elfsym_load {
	int phase;
	int error;	/* -errno once failed */
	struct elfread *le;
	int own_le;		/* elfread_free at the end */
	int fd;			/* the file (not owned); -1 */
	uint64_t file_size;	/* sections must lie within */
	int debug_file;		/* merging a debug file */
	struct elfsym_build b;
	struct elfsym_go go;
	struct elfsym_goread gr;
	struct elfsym_sort sort;
	size_t scn;	/* the walk's cursor */
	size_t syms[ELFSYM_LOAD_SCNS];
	size_t nsyms, cur;	/* symbol sections */
	/* Its strings, read in slices of ELFSYM_LOAD_UNIT_BYTES a unit
	 * into str (owned), str_len bytes plus a NUL. */
	char *str;
	int str_own;
	uint64_t str_len, str_got;
	size_t str_scn;
	int str_read;			/* all of it */
	char *lazy_str[ELFSYM_NSTR];	/* kept */
	int open;			/* a section being read */
	Elf64_Shdr sh;			/* it */
	size_t i, n, before;		/* its symbols */
	/* Its symbols, read ELFSYM_SYM_CHUNK at a time: chunk_n of them
	 * from chunk_first. */
	Elf64_Sym *chunk;
	uint64_t chunk_first;
	size_t chunk_n;
	/* .rela.plt's .dynsym: each symbol's st_name, kept as its chunks
	 * are read (a stub's symbol is in no order); NULL: one read each */
	uint32_t *dyn_name;
	/* PLT stubs, named from .rela.plt (i386: .rel.plt) while .dynsym
	 * is read: stub k at plt_addr + plt_head + k * plt_ent (.plt has a
	 * header, .plt.sec none; elfsym_plt_layout). */
	size_t rela_plt;	/* 0: none */
	size_t plt_scn;		/* .plt or .plt.sec */
	uint64_t plt_addr, plt_ent, plt_head;
	int plt_sec;		/* .plt.sec seen: it wins */
	Elf64_Rela *rchunk;	/* .rela.plt's, as chunk */
	uint64_t rchunk_first;
	size_t rchunk_n;
	int plt_open;
	size_t plt_i, plt_n;
	int plt_done;
};
/* Over le (freed at the end if own_le) from fd (-1: memory) of size
 * bytes, into t (NULL: a new table; else a debug file merged into t). */
int elfsym_load_init(struct elfsym_load *, struct elfread *, int, int,
	    uint64_t, int, struct elfsym_table *);
int elfsym_load_run(struct elfsym_load *, size_t);
void elfsym_load_fini(struct elfsym_load *);

#endif
