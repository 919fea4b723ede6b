/*
 * The ELF reader's internal header: shared by elfsym.c (symbol tables),
 * elfsym_load.c (the load in steps), elfsym_sort.c (their order) and
 * elfsym_go.c (what a Go binary adds: .gopclntab names, .go.buildinfo).
 */
#ifndef PERF_ELFSYM_INT_H
#define PERF_ELFSYM_INT_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "elfsym.h"
#include "gopclntab.h"

/* A table being built. */
struct elfsym_build {
	struct elfsym_table	*t;
	size_t			 cap;		/* syms */
	size_t			 names_cap;
	int			 lazy;		/* names stay in the file */
	/* Lazy: the string sections read (NUL-terminated copies, owned
	 * by the load), for names while sorting. */
	const char		*str[ELFSYM_NSTR];
	int			 src;		/* section being read */
	uint64_t		 file_size;	/* lazy: names must lie within */
};

/*
 * A stripped Go binary (-ldflags='-s -w'): no .symtab, but the runtime's
 * own function table in .gopclntab names every function.  Looked for
 * before reading (its names are copied, so the load is not lazy).
 */
struct elfsym_go {
	Elf		*e;
	Elf_Scn		*scn;		/* .gopclntab; NULL: none */
	Elf_Scn		*noptrdata;	/* .noptrdata: runtime.firstmoduledata */
	Elf_Scn		*buildinfo;	/* .go.buildinfo; NULL: none */
	uint64_t	 text;		/* .text address (1.18+ PIE base) */
	int		 symtab;	/* a SHT_SYMTAB section exists */
};

/* Add one symbol (name copied, or st_name in the lazy string table). */
int	elfsym_push(struct elfsym_build *, uint64_t addr, uint64_t size,
	    const char *name, size_t st_name, uint8_t attr);

/*
 * What building a function's inline ranges reads, kept from the load:
 * inside go_names' allocation, after funcnametab's copy.
 */
struct elfsym_golazy {
	struct gopclntab g;		/* over the tables' copy (pctab 0) */
	const uint8_t	*tree;		/* the trees' entries' copy */
	size_t		 tlen;
	size_t		 names_len;	/* funcnametab's copy */
	size_t		 ccap;		/* go_chain's capacity */
	size_t		 nfn;		/* functions with inlined code */
};

/*
 * .gopclntab read in slices (elfsym_go_read does it all in one call), for
 * a loader that spreads its work over loop turns: the section's bytes
 * read (pread from fd, ELFSYM_GO_UNIT_BYTES a unit; with fd -1 libelf
 * reads it at once), its functions added, then what the inline look-ups
 * need found and copied (a function a unit, or ELFSYM_GO_UNIT_BYTES
 * copied).  Until its end the table has no inline ranges.
 */
#define ELFSYM_GO_UNIT_BYTES	16
struct elfsym_goread {
	int		 phase;
	int		 fd;		/* not owned; -1: libelf reads */
	const struct elfsym_go *go;
	uint8_t		*own;		/* the bytes read from fd */
	const uint8_t	*buf;		/* .gopclntab's bytes */
	size_t		 len;
	size_t		 got;
	uint64_t	 off;		/* file offset of the bytes read */
	uint64_t	 pcaddr;	/* .gopclntab's address */
	struct gopclntab g;
	size_t		 i;		/* next function, or byte */
	uint64_t	 gofunc;
	uint64_t	 lo, hi;	/* the span of inline trees */
	size_t		 n;		/* functions with inlined code */
	size_t		 cap;		/* room in go_inl, go_chain / 4 */
	size_t		 k;
	size_t		 ptot, pp;	/* their tables' bytes */
	size_t		 ttot, tp;	/* their trees' bytes */
	size_t		 nlen;		/* funcnametab's */
	uint8_t		*span;		/* the trees' span (owned if fd) */
	const uint8_t	*sp;
	size_t		 slen;
	uint64_t	 saddr;
	int		 sorted;
};

/* elfsym_go.c */
void	elfsym_go_probe(Elf *, struct elfsym_go *);
void	elfsym_go_buildinfo(Elf *, struct elfsym_table *,
	    const struct elfsym_go *);
int	elfsym_go_read(struct elfsym_build *, const struct elfsym_go *);
/* Begin (fd not owned, -1 for libelf), step (about budget units: 1
 * while work remains, 0 done, -errno), free (at any point). */
void	elfsym_go_begin(struct elfsym_goread *, const struct elfsym_go *,
	    int);
int	elfsym_go_step(struct elfsym_goread *, struct elfsym_build *, size_t);
void	elfsym_go_free(struct elfsym_goread *);

/* elfsym_goinl.c */
int	elfsym_go_inl_cmp(const void *, const void *);	/* by address */
void	elfsym_go_inl_none(struct elfsym_table *);	/* none after all */

/* elfsym.c */
#define ELFSYM_SHSTR_MAX	(1u << 20)	/* section names read */
int	elfsym_shstr_ok(Elf *, size_t);
void	elfsym_read_note(struct elfsym_table *, Elf_Data *);
void	elfsym_read_debuglink(struct elfsym_table *, Elf_Data *);
void	elfsym_read_segments(struct elfsym_table *, Elf *);

/*
 * The sort that ends a load, in steps: runs of ELFSYM_SORT_RUN symbol
 * indexes sorted at once, then merged pairwise (a unit an element: the
 * order is total, so the result is qsort's), then the preferred symbol
 * kept per address and unsized ones given the room to the next.
 */
#define ELFSYM_SORT_RUN		1024
struct elfsym_sort {
	int		 phase;
	uint32_t	*ix, *tmp;	/* the order being built, and merged */
	struct elfsym_sym *ns;		/* the kept symbols */
	uint8_t		*na;
	size_t		 n;
	size_t		 w, lo, i, j, k;	/* merge: width, pair, cursors */
	int		 inpair;
	size_t		 o;		/* kept so far */
};
/* Begin (the build's symbols are all pushed), step (1 while work
 * remains, 0 done), free (at any point). */
void	elfsym_sort_begin(struct elfsym_sort *);
int	elfsym_sort_step(struct elfsym_sort *, struct elfsym_build *, size_t);
void	elfsym_sort_free(struct elfsym_sort *);

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
	int			 phase;
	int			 error;		/* -errno once failed */
	Elf			*e;
	int			 own_e;		/* elf_end at the end */
	int			 fd;		/* the file (not owned); -1 */
	uint64_t		 file_size;	/* sections must lie within */
	int			 debug_file;	/* merging a debug file */
	struct elfsym_build	 b;
	struct elfsym_go	 go;
	struct elfsym_goread	 gr;
	struct elfsym_sort	 sort;
	size_t			 shstrndx;
	Elf_Scn			*scn;		/* the walk's cursor */
	Elf_Scn			*syms[ELFSYM_LOAD_SCNS];
	size_t			 nsyms, cur;	/* symbol sections */
	/* Its strings, read in slices of ELFSYM_LOAD_UNIT_BYTES a unit
	 * (libelf reads a section at once) into str (owned unless from
	 * memory), str_len bytes plus a NUL. */
	char			*str;
	int			 str_own;
	uint64_t		 str_off, str_len, str_got;
	int			 str_read;	/* all of it */
	char			*lazy_str[ELFSYM_NSTR];	/* kept */
	Elf_Data		*d;		/* the one being read */
	GElf_Shdr		 sh;
	size_t			 i, n, before;	/* its symbols */
	/* PLT stubs, named from .rela.plt while .dynsym is read: stub k at
	 * plt_addr + (k + plt_skip) * plt_ent (.plt has a header stub,
	 * .plt.sec none). */
	Elf_Scn			*rela_plt;
	uint64_t		 plt_addr, plt_ent, plt_skip;
	int			 plt_sec;	/* .plt.sec seen: it wins */
	Elf_Data		*plt_d;
	size_t			 plt_i, plt_n;
	int			 plt_done;
};
/* Over e (owned if own_e) from fd (-1: memory) of size bytes, into t
 * (NULL: a new table; else a debug file merged into t). */
int	elfsym_load_init(struct elfsym_load *, Elf *, int, int, uint64_t,
	    int, struct elfsym_table *);
int	elfsym_load_run(struct elfsym_load *, size_t);
void	elfsym_load_fini(struct elfsym_load *);

#endif
