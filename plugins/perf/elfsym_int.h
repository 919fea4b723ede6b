/*
 * The ELF reader's internal header: shared by elfsym.c (symbol tables) and
 * elfsym_go.c (what a Go binary adds: .gopclntab names, .go.buildinfo).
 */
#ifndef PERF_ELFSYM_INT_H
#define PERF_ELFSYM_INT_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "elfsym.h"

/* A table being built. */
struct elfsym_build {
	struct elfsym_table	*t;
	size_t			 cap;		/* syms */
	size_t			 names_cap;
	int			 lazy;		/* names stay in the file */
	Elf			*e;		/* lazy: for names while sorting */
	size_t			 link[ELFSYM_NSTR];	/* their sections */
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

/* elfsym_go.c */
void	elfsym_go_probe(Elf *, struct elfsym_go *);
void	elfsym_go_buildinfo(Elf *, struct elfsym_table *,
	    const struct elfsym_go *);
int	elfsym_go_read(struct elfsym_build *, const struct elfsym_go *);

#endif
