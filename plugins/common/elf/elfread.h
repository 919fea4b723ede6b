/*
 * The plugins' ELF reader: a file any local user controls, read with
 * bounded pread (never mmap: a file truncated under us reads short instead
 * of raising SIGBUS), from a file descriptor or from bytes in memory (unit
 * tests, fuzzers).  It gives what its readers need and nothing more: the
 * headers, section names, named symbols, the build-id note, and a few
 * bytes at a virtual address.  The runtime plugins (Ruby, PHP, Python)
 * read an interpreter's image with it; the perf plugin's symbol tables
 * (plugins/perf/sym/elfsym*.c) are loaded through it too, a step at a time
 * across loop turns, from a file held open (elfread_open_fd): one ELF
 * loader for symbols.  Only DWARF unwinding (perf's unwind_dwarf.c) still
 * reads ELF through libdw.  The held-open reader also takes 32-bit
 * little-endian files (i386, armhf processes on a 64-bit host), their
 * headers and symbols given in the 64-bit forms; the runtime readers'
 * calls (elfread_read_fd, _mem) still take only 64-bit ones.
 *
 * Every read is charged to a budget per file (bytes and read calls): a
 * hostile file costs at most that, however large its tables.  Names are
 * compared, never walked as C strings: a string table without its final
 * NUL costs nothing more than one that has it (libelf's elf_strptr
 * scanned the whole table backwards at each call).  A file that is
 * malformed, changes or shrinks while read, or exceeds its budget is
 * remembered by identity (dev, inode, size, mtime) and not read again
 * until it changes; one log line says so.
 *
 */
#ifndef GP_ELFREAD_H
#define GP_ELFREAD_H

#include <sys/stat.h>

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#define ELFREAD_MAX_PHDRS	256
#define ELFREAD_MAX_SHDRS	4096
#define ELFREAD_MAX_SYMS	(1u << 20)	/* per symbol table */
#define ELFREAD_SHSTR_MAX	(64u << 10)	/* section names, read once */
#define ELFREAD_STR_WHOLE	(4u << 20)	/* a string table read at once */
#define ELFREAD_NAME_MAX	64		/* longest name looked for */
#define ELFREAD_NOTE_MAX	(64u << 10)	/* a note section read */
/*
 * What one file may cost (measured: see elfread.c): the real interpreters'
 * images need at most 29 reads and 860 KB (pyenv's unstripped libpython
 * 3.12; php8.2's 600 KB is mostly the search for its version).
 */
#define ELFREAD_BUDGET_BYTES	(4u << 20)
#define ELFREAD_BUDGET_READS	512u
/*
 * What the reads from files may cost in all in one loop turn, taken as
 * ELFREAD_TURN_MS of the clock: a file is begun only while the turn has
 * spent less than this, so that a callback that attaches to many
 * processes, each mapping its own large or hostile file, spends at most
 * this plus one file's budget before the rest wait for a later turn
 * (-EINPROGRESS: nothing is wrong with them).
 */
#define ELFREAD_TURN_MS		50
#define ELFREAD_TURN_BYTES	(1u << 20)
#define ELFREAD_TURN_READS	256u

struct elfread {
	int fd;	/* -1: mem */
	const uint8_t *mem;
	uint64_t size;	/* the file's, at open */
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	size_t nph;
	Elf64_Shdr *sh;
	size_t nsh;
	char *shstr;	/* section names; NULL: none */
	size_t shstr_len;
	uint64_t bytes, reads;		/* spent */
	uint64_t max_bytes, max_reads;	/* the budget */
	int error;			/* first fatal error, -errno */
	int class32;			/* ELFCLASS32: converted */
	int held;			/* elfread_open_fd's */
	struct stat st;			/* held: the file at open */
};

typedef int (*elfread_fn)(struct elfread *, void *);
/* A symbol whose name is names[which]; st_shndx is never SHN_UNDEF. */
typedef void (*elfread_sym_fn)(void *, size_t which, const Elf64_Sym *);

/*
 * fn(le, arg)'s result, or: -ENOEXEC not a 64-bit little-endian ELF;
 * -EBADMSG malformed headers; -E2BIG over the budget; -EIO shorter than
 * its size (truncated while read); -ESTALE changed while read; -ENOMEM;
 * from a file, -EINPROGRESS: not read, this loop turn's reads are spent
 * (ask again in a later turn).  -EBADMSG, -E2BIG, -EIO and -ESTALE mark
 * the file bad: the same answer, without reading, until it changes.
 */
int elfread_read_fd(int fd, elfread_fn fn, void *arg);
int elfread_read_mem(const void *buf, size_t len, elfread_fn fn,
	    void *arg);
/* Whether rc is one of those that mark a file bad. */
int elfread_is_bad(int);
/* Text for the codes above ("over its read budget", ...). */
const char *elfread_strerror(int);
/* What every read so far cost, in all (benchmarks, tests). */
void elfread_spent(uint64_t *bytes, uint64_t *reads);
/* A new loop turn now, whatever the clock says (tests, benchmarks). */
void elfread_turn_clear(void);
/* Where the one line about a bad file goes (the plugin's log); at most
 * ten such lines a minute, the next one counting those not named. */
void elfread_set_log(void (*)(void *, const char *), void *);
/* A new minute for those lines, whatever the clock says (tests). */
void elfread_log_clear(void);

/* Link-time address of the first PT_LOAD, aligned down; -ENOEXEC. */
int elfread_first_load(struct elfread *, uint64_t *);
/* Whether section i is named name (compared within the names read). */
int elfread_section_is(const struct elfread *, size_t i, const char *);
/*
 * Walk the symbol tables of type (SHT_DYNSYM, SHT_SYMTAB): fn for each
 * defined symbol named one of names[0..n) (each at most ELFREAD_NAME_MAX
 * bytes).  0, or the reader's error.
 */
int elfread_symbols(struct elfread *, uint32_t type,
	    const char *const *names, size_t n, elfread_sym_fn fn, void *arg);
/* The GNU build-id (at most cap bytes): its length, 0 without one. */
size_t elfread_build_id(struct elfread *, uint8_t *, size_t cap);
/*
 * Up to len bytes at vaddr from the PROGBITS section holding it
 * (executable ones only with exec): the count read (cut at the
 * section's end), -1 when none holds it or the read failed.
 */
int64_t elfread_read_vaddr(struct elfread *, uint64_t vaddr, void *,
	    size_t len, int exec);
/* len bytes at off of section i's data; 0 or -1. */
int elfread_read_section(struct elfread *, size_t i, uint64_t off,
	    void *, size_t len);

/*
 * A reader held across loop turns (perf's symbol loader, which reads a
 * file in steps): the headers read and checked at open, then the
 * calls above and below at any time, all charged to the budget given
 * (bytes, read calls).  Takes ELFCLASS32 too.  0 with *out, or an
 * error of elfread_read_fd's (-EINPROGRESS never: the caller paces
 * itself); a file marked bad answers its mark without being read.
 * elfread_free says whether what was read was one file (the same size
 * and mtime) and, when the reader failed for a cause of
 * elfread_is_bad, marks the file in elfbad (one log line): its result
 * is the reader's error, or -ESTALE, or 0.
 */
int elfread_open_fd(int fd, uint64_t max_bytes, uint64_t max_reads,
	    struct elfread **out);
int elfread_open_mem(const void *, size_t, uint64_t max_bytes,
	    uint64_t max_reads, struct elfread **out);
int elfread_free(struct elfread *);
/* len bytes at file offset off: 0 or -1 (outside the file, or failed). */
int elfread_read_at(struct elfread *, uint64_t off, void *, size_t len);
/*
 * Symbols [first, first + n) of symbol section i, in the 64-bit form;
 * the count read (cut at the section's end), -1 on failure.  Its
 * entries must be Elf32_Sym or Elf64_Sym as the class says.
 */
int64_t elfread_read_syms(struct elfread *, size_t i, uint64_t first,
	    Elf64_Sym *, size_t n);
/* Its number of symbols (0: not a symbol section of this class). */
uint64_t elfread_nsyms(const struct elfread *, size_t i);
/* The same for the entries of a SHT_RELA or SHT_REL section (i386's
 * .rel.plt), as Elf64_Rela (r_info in ELF64's form: ELF64_R_SYM gives the
 * symbol; a REL entry's addend 0). */
int64_t elfread_read_relas(struct elfread *, size_t i, uint64_t first,
	    Elf64_Rela *, size_t n);
uint64_t elfread_nrelas(const struct elfread *, size_t i);

/* Pure parsers, tested and fuzzed on their own. */
size_t elfread_note_build_id(const uint8_t *, size_t, uint8_t *, size_t);
/* Whether the name at off of a string table of len bytes (no final NUL
 * needed) is name; p holds the table's bytes from off, avail of them. */
int elfread_name_eq(const uint8_t *p, size_t avail, uint64_t off,
	    uint64_t len, const char *name);

#endif
