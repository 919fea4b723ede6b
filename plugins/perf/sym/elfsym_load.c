/*
 * An ELF symbol table loaded a step at a time, so that the perf plugin's
 * loop can spread a large library over its turns (libLLVM-14's table cost
 * one snapshot callback 27-71 ms): the sections walked (build-id,
 * .gnu_debuglink, which hold symbols), each symbol section read a symbol
 * a unit, a stripped Go binary's .gopclntab read (elfsym_go_step), then
 * the sort (elfsym_sort_step).  The caller keeps the file open until the
 * end: an fd read at first sight stays readable after its process exits.
 *
 * The file is read through plugins/common/elf's reader (bounded pread,
 * never mmap; a budget per file, ELFSYM_READ_BYTES; a file given up on
 * remembered by identity): every section read lies within the file (its
 * offset and size checked against the file's size, and the reader checks
 * again), so a lying header costs that section, not a read past the end.
 * Symbols and relocations are read ELFSYM_SYM_CHUNK at a time, in the
 * 64-bit forms whatever the file's class (i386 and armhf binaries too).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "elfsym_int.h"

enum {
	LOAD_SCNS,	/* the section walk */
	LOAD_SYMS,	/* symbol sections, a symbol a unit */
	LOAD_GO,	/* a stripped Go binary's .gopclntab */
	LOAD_SORT,
	LOAD_DONE
};

/* Whether [off, off + size) lies in a file of fsize bytes. */
static int
elfsym_load_within(uint64_t off, uint64_t size, uint64_t fsize)
{
	return (off <= fsize && size <= fsize - off);
}

static int
elfsym_section_exec(const struct elfread *le, size_t shndx)
{
	if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE || shndx >= le->nsh)
		return (0);
	return ((le->sh[shndx].sh_flags & SHF_EXECINSTR) != 0);
}

static uint8_t
elfsym_attr(const Elf64_Sym *s, uint32_t sh_type)
{
	int bind = ELF64_ST_BIND(s->st_info);

	return ((bind == STB_WEAK ? ELFSYM_A_WEAK : 0) |
	    (bind != STB_GLOBAL ? ELFSYM_A_NONGLOBAL : 0) |
	    (sh_type == SHT_DYNSYM ? ELFSYM_A_DYNSYM : 0));
}

/*
 * A symbol section found by the walk, kept when it and its strings lie
 * in the file.
 */
static void
elfsym_load_note_syms(struct elfsym_load *l, size_t i, const Elf64_Shdr *sh)
{
	const Elf64_Shdr *ssh;

	if (l->nsyms == ELFSYM_LOAD_SCNS || sh->sh_entsize == 0 ||
	    !elfsym_load_within(sh->sh_offset, sh->sh_size, l->file_size))
		return;
	if (sh->sh_link == 0 || sh->sh_link >= l->le->nsh)
		return;
	ssh = &l->le->sh[sh->sh_link];
	if (ssh->sh_type != SHT_STRTAB ||
	    !elfsym_load_within(ssh->sh_offset, ssh->sh_size, l->file_size))
		return;
	l->syms[l->nsyms++] = i;
}

/* A section's bytes in a copy (at most max), for fn; nothing if not. */
static void
elfsym_load_small(struct elfread *le, size_t i, uint64_t max,
    struct elfsym_table *t,
    void (*fn)(struct elfsym_table *, const uint8_t *, size_t))
{
	const Elf64_Shdr *sh = &le->sh[i];
	uint8_t *buf;

	if (sh->sh_size == 0 || sh->sh_size > max || sh->sh_type == SHT_NOBITS)
		return;
	if ((buf = malloc((size_t)sh->sh_size)) == NULL)
		return;
	if (elfread_read_section(le, i, 0, buf, (size_t)sh->sh_size) == 0)
		fn(t, buf, (size_t)sh->sh_size);
	free(buf);
}

static void
elfsym_load_debuglink(struct elfsym_table *t, const uint8_t *p, size_t n)
{
	elfsym_read_debuglink(t, (const char *)p, n);
}

/*
 * The PLT's layouts by machine, as the linkers write them and perf reads
 * them (its get_plt_sizes): the header's bytes before the first stub and
 * a stub's.  .plt's section entry size says neither on every machine
 * (i386 gives 4, arm64 0; arm64's header is two stubs long), and 32-bit
 * ARM's depend on the linker (GNU ld 20 and 12, lld 32 and 16): the one
 * whose size is .plt's for the section's stubs (nstubs) is taken, else
 * the machine's first.  .plt.sec (x86 with IBT) has no header.  Another
 * machine: the entry size for both, as perf does; 0, no stubs named.
 */
static const struct {
	uint16_t machine;
	uint8_t head, ent;
} elfsym_plt_layouts[] = {
	{ EM_X86_64,	16, 16 },
	{ EM_386,	16, 16 },
	{ EM_AARCH64,	32, 16 },
	{ EM_ARM,	20, 12 },
	{ EM_ARM,	32, 16 },
};

static void
elfsym_plt_layout(const struct elfsym_load *l, uint64_t *head, uint64_t *ent)
{
	const Elf64_Shdr *sh = &l->le->sh[l->plt_scn];
	uint64_t n = l->rela_plt != 0 ?
	    elfread_nrelas(l->le, l->rela_plt) : 0;
	size_t k;
	int first = 1;

	*head = *ent = sh->sh_entsize;
	for (k = 0; k < sizeof(elfsym_plt_layouts) /
	    sizeof(elfsym_plt_layouts[0]); k++) {
		if (elfsym_plt_layouts[k].machine != l->le->eh.e_machine)
			continue;
		if (first || elfsym_plt_layouts[k].head +
		    n * elfsym_plt_layouts[k].ent == sh->sh_size) {
			*head = elfsym_plt_layouts[k].head;
			*ent = elfsym_plt_layouts[k].ent;
		}
		first = 0;
	}
	if (l->plt_sec)
		*head = 0;
}

/* A section of the walk: symbols, the build-id note, .gnu_debuglink. */
static void
elfsym_load_section(struct elfsym_load *l, size_t i)
{
	struct elfsym_table *t = l->b.t;
	struct elfread *le = l->le;
	const Elf64_Shdr *sh = &le->sh[i];
	int sec;

	if (sh->sh_type == SHT_SYMTAB || sh->sh_type == SHT_DYNSYM)
		elfsym_load_note_syms(l, i, sh);
	else if (sh->sh_type == SHT_NOTE && t->build_id_len == 0 &&
	    !l->debug_file) {
		if (elfsym_load_within(sh->sh_offset, sh->sh_size,
		    l->file_size))
			elfsym_load_small(le, i, ELFREAD_NOTE_MAX, t,
			    elfsym_read_note);
	} else if (sh->sh_type == SHT_PROGBITS && !l->debug_file) {
		if (elfread_section_is(le, i, ".gnu_debuglink") &&
		    elfsym_load_within(sh->sh_offset, sh->sh_size,
		    l->file_size))
			elfsym_load_small(le, i, 4096, t,
			    elfsym_load_debuglink);
		else if ((sh->sh_flags & SHF_EXECINSTR) &&
		    ((elfread_section_is(le, i, ".plt") && !l->plt_sec) ||
		    elfread_section_is(le, i, ".plt.sec"))) {
			sec = elfread_section_is(le, i, ".plt.sec");
			l->plt_sec = sec;
			l->plt_addr = sh->sh_addr;
			l->plt_scn = i;
		}
	} else if ((sh->sh_type == SHT_RELA || sh->sh_type == SHT_REL) &&
	    !l->debug_file && sh->sh_entsize != 0 &&
	    elfsym_load_within(sh->sh_offset, sh->sh_size, l->file_size)) {
		if (elfread_section_is(le, i, ".rela.plt") ||
		    elfread_section_is(le, i, ".rel.plt"))
			l->rela_plt = i;
	}
}

/* Units for reading a section of size bytes, at most the budget left. */
static void
elfsym_load_charge(size_t *budget, uint64_t size)
{
	uint64_t u = size / ELFSYM_LOAD_UNIT_BYTES;

	*budget -= u < *budget ? (size_t)u : *budget;
}

/*
 * The same inside a loop that takes a unit for the entry itself: one
 * unit left for it (the loop ends when the budget is spent).
 */
static void
elfsym_load_charge_entry(size_t *budget, uint64_t size)
{
	size_t keep;

	if (*budget <= 1)
		return;
	keep = *budget - 1;
	elfsym_load_charge(&keep, size);
	*budget = keep + 1;
}

static void
elfsym_load_str_free(struct elfsym_load *l)
{
	if (l->str_own)
		free(l->str);
	l->str = NULL;
	l->str_own = 0;
	l->str_len = l->str_got = 0;
	l->str_read = 0;
}

/*
 * The current section's strings, a slice at a time (a large library's
 * 3 MB took 1.7 ms in one read): 1 while more remain, 0 read, -1 not
 * readable.
 */
static int
elfsym_load_strings(struct elfsym_load *l, size_t ss, size_t *budget)
{
	const Elf64_Shdr *ssh = &l->le->sh[ss];
	uint64_t want;

	if (l->str == NULL) {
		if (ssh->sh_type != SHT_STRTAB || ssh->sh_size == 0 ||
		    ssh->sh_size >= SIZE_MAX || !elfsym_load_within(
		    ssh->sh_offset, ssh->sh_size, l->file_size))
			return (-1);
		/* Copied whole: bounded, and in proportion to its symbols
		 * (a hostile 64 MB table under a few thousand symbols cost
		 * the agent its memory budget).  node's .strtab is 7.5 MB. */
		if (ssh->sh_size > ELFSYM_MAX_STR || (l->sh.sh_entsize != 0 &&
		    ssh->sh_size > l->sh.sh_size / l->sh.sh_entsize *
		    ELFSYM_STR_PER_SYM + ELFSYM_STR_SLACK))
			return (-1);
		if ((l->str = malloc((size_t)ssh->sh_size + 1)) == NULL)
			return (-1);
		l->str_own = 1;
		l->str_scn = ss;
		l->str_len = ssh->sh_size;
		l->str_got = 0;
	}
	while (l->str_got < l->str_len && *budget > 0) {
		want = l->str_len - l->str_got;
		if (want / ELFSYM_LOAD_UNIT_BYTES >= *budget)
			want = (uint64_t)*budget * ELFSYM_LOAD_UNIT_BYTES;
		if (elfread_read_section(l->le, l->str_scn, l->str_got,
		    l->str + l->str_got, (size_t)want) != 0)
			return (-1);	/* an error, or the file shrank */
		l->str_got += want;
		elfsym_load_charge(budget, want);
	}
	if (l->str_got < l->str_len)
		return (1);
	/* a name at any offset ends inside the copy (a table without
	 * its final NUL costs nothing more) */
	l->str[l->str_len] = '\0';
	return (0);
}

/*
 * Start the next symbol section: its strings read (1: call again, they
 * take several steps), then its symbols (0: read them a chunk at a
 * time); -1 to skip it.  Lazily, one of each kind, whose names are read
 * at the recorded offset much later.
 */
static int
elfsym_load_open_syms(struct elfsym_load *l, size_t *budget)
{
	struct elfsym_build *b = &l->b;
	struct elfsym_table *t = b->t;
	const Elf64_Shdr *ssh;
	size_t scn = l->syms[l->cur];
	int r, src;

	l->sh = l->le->sh[scn];
	if (l->sh.sh_link >= l->le->nsh)
		return (-1);
	ssh = &l->le->sh[l->sh.sh_link];
	src = l->sh.sh_type == SHT_DYNSYM;
	if (b->lazy && t->str_size[src] != 0)
		return (-1);
	if (!l->str_read) {
		if ((r = elfsym_load_strings(l, l->sh.sh_link, budget)) != 0)
			return (r);
		l->str_read = 1;
		if (*budget == 0)
			return (1);
	}
	if (l->chunk == NULL && (l->chunk = calloc(ELFSYM_SYM_CHUNK,
	    sizeof(*l->chunk))) == NULL)
		return (-1);
	if (b->lazy) {
		b->src = src;
		t->str_off[src] = ssh->sh_offset;
		t->str_size[src] = ssh->sh_size;
	}
	l->n = (size_t)elfread_nsyms(l->le, scn);
	l->chunk_first = l->chunk_n = 0;
	if (l->sh.sh_type == SHT_DYNSYM && l->rela_plt != 0 &&
	    l->plt_addr != 0 && l->le->sh[l->rela_plt].sh_link == scn &&
	    l->n <= ELFSYM_PLT_NAMES)
		l->dyn_name = calloc(l->n + 1, sizeof(*l->dyn_name));
	l->i = 1;
	l->before = t->nsyms;
	l->open = 1;
	return (0);
}

/* The section is read: its strings kept for the sort if lazy. */
static void
elfsym_load_close_syms(struct elfsym_load *l)
{
	int src = l->sh.sh_type == SHT_DYNSYM;

	if (l->b.lazy && l->str != NULL && l->b.str[src] == NULL) {
		l->b.str[src] = l->str;
		if (l->str_own)
			l->lazy_str[src] = l->str;
		l->str = NULL;
		l->str_own = 0;
	}
	elfsym_load_str_free(l);
	free(l->dyn_name);
	l->dyn_name = NULL;
	l->open = 0;
	l->chunk_n = 0;
}

/*
 * Symbol k of the section being read, from its chunk (read when k is
 * outside it, ELFSYM_SYM_CHUNK from k, its bytes charged); NULL when it
 * cannot be read.
 */
static const Elf64_Sym *
elfsym_load_sym(struct elfsym_load *l, size_t k, size_t *budget)
{
	int64_t got;
	size_t i;

	if (k < l->chunk_first || k - l->chunk_first >= l->chunk_n) {
		l->chunk_n = 0;
		got = elfread_read_syms(l->le, l->syms[l->cur], k, l->chunk,
		    ELFSYM_SYM_CHUNK);
		if (got <= 0)
			return (NULL);
		l->chunk_first = k;
		l->chunk_n = (size_t)got;
		for (i = 0; l->dyn_name != NULL && i < l->chunk_n; i++)
			if (k + i < l->n)
				l->dyn_name[k + i] = l->chunk[i].st_name;
		elfsym_load_charge_entry(budget, (uint64_t)got *
		    sizeof(Elf64_Sym));
	}
	return (&l->chunk[k - l->chunk_first]);
}

/* Function symbols of the current section, about budget of them. */
static int
elfsym_load_read_syms(struct elfsym_load *l, size_t *budget)
{
	struct elfsym_build *b = &l->b;
	const Elf64_Sym *s;
	const char *name;
	int type, r;

	for (; l->i < l->n && *budget > 0; l->i++, (*budget)--) {
		/* A full table reads no further: what is left is counted,
		 * not read (the bound on a hostile table's time too). */
		if (b->t->nsyms >= ELFSYM_MAX_SYMS) {
			b->t->dropped += l->n - l->i;
			l->i = l->n;
			break;
		}
		if ((s = elfsym_load_sym(l, l->i, budget)) == NULL) {
			l->i = l->n;
			break;
		}
		type = ELF64_ST_TYPE(s->st_info);
		if (s->st_shndx == SHN_UNDEF || s->st_value == 0)
			continue;
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    !(type == STT_NOTYPE && elfsym_section_exec(l->le,
		    s->st_shndx)))
			continue;
		if (s->st_name >= l->str_len)
			continue;
		name = l->str + s->st_name;
		if (name[0] == '\0' || name[0] == '$' ||
		    strncmp(name, ".L", 2) == 0)
			continue;
		if ((r = elfsym_push(b, s->st_value, s->st_size, name,
		    s->st_name, elfsym_attr(s, l->sh.sh_type))) != 0)
			return (r);
	}
	return (0);
}

/*
 * The name of .dynsym's symbol k for a PLT stub: from the chunk read
 * when it holds k, else that one symbol read (a stub's symbols are in
 * no order).
 */
static int
elfsym_load_plt_sym(struct elfsym_load *l, size_t k, Elf64_Sym *s)
{
	if (k >= l->chunk_first && k - l->chunk_first < l->chunk_n) {
		*s = l->chunk[k - l->chunk_first];
		return (0);
	}
	if (l->dyn_name != NULL) {
		memset(s, 0, sizeof(*s));
		s->st_name = l->dyn_name[k];
		return (0);
	}
	return (elfread_read_syms(l->le, l->syms[l->cur], k, s, 1) == 1 ?
	    0 : -1);
}

/*
 * The PLT stubs, named by the .dynsym symbols their .rela.plt entries
 * point at, about budget of them; called while that .dynsym and its
 * strings are the section being read.  Entry k's stub is the k-th
 * (after .plt's header), as perf synthesizes them; an IRELATIVE entry
 * has no symbol and is "@plt", as perf says too.
 */
static int
elfsym_load_plt(struct elfsym_load *l, size_t *budget)
{
	const Elf64_Rela *rel;
	Elf64_Sym s;
	const char *name;
	char buf[512];
	size_t symi, st_name;
	int64_t got;
	int r;

	if (!l->plt_open) {
		elfsym_plt_layout(l, &l->plt_head, &l->plt_ent);
		if (l->plt_ent == 0 ||
		    l->le->sh[l->rela_plt].sh_link != l->syms[l->cur] ||
		    (l->rchunk == NULL && (l->rchunk = calloc(
		    ELFSYM_SYM_CHUNK, sizeof(*l->rchunk))) == NULL)) {
			l->plt_done = 1;
			return (0);
		}
		l->plt_open = 1;
		l->plt_n = (size_t)elfread_nrelas(l->le, l->rela_plt);
		l->plt_i = 0;
		l->rchunk_first = l->rchunk_n = 0;
	}
	for (; l->plt_i < l->plt_n && *budget > 0; l->plt_i++, (*budget)--) {
		if (l->plt_i - l->rchunk_first >= l->rchunk_n) {
			got = elfread_read_relas(l->le, l->rela_plt, l->plt_i,
			    l->rchunk, ELFSYM_SYM_CHUNK);
			if (got <= 0)
				break;
			l->rchunk_first = l->plt_i;
			l->rchunk_n = (size_t)got;
			elfsym_load_charge_entry(budget, (uint64_t)got *
			    sizeof(Elf64_Rela));
		}
		rel = &l->rchunk[l->plt_i - l->rchunk_first];
		symi = ELF64_R_SYM(rel->r_info);
		name = "";
		st_name = 0;
		if (symi != 0 && symi < l->n &&
		    elfsym_load_plt_sym(l, symi, &s) == 0 &&
		    s.st_name < l->str_len) {
			name = l->str + s.st_name;
			st_name = s.st_name;
		}
		/* lazily the name stays in the file: "@plt" is added when
		 * it is read (elfsym_name) */
		if (!l->b.lazy) {
			snprintf(buf, sizeof(buf), "%s@plt", name);
			name = buf;
		}
		if ((r = elfsym_push(&l->b, l->plt_addr + l->plt_head +
		    l->plt_i * l->plt_ent, l->plt_ent, name, st_name,
		    ELFSYM_A_PLT | ELFSYM_A_DYNSYM)) != 0)
			return (r);
	}
	if (l->plt_i >= l->plt_n)
		l->plt_done = 1;
	return (0);
}

int
elfsym_load_init(struct elfsym_load *l, struct elfread *le, int own_le,
    int fd, uint64_t size, int lazy, struct elfsym_table *t)
{
	memset(l, 0, sizeof(*l));
	l->le = le;
	l->own_le = own_le;
	l->fd = fd;
	l->file_size = size;
	l->debug_file = t != NULL;
	l->phase = LOAD_SCNS;
	l->go.le = le;
	elfsym_sort_begin(&l->sort);
	/* .gopclntab read in slices */
	elfsym_go_begin(&l->gr, &l->go);
	if (t != NULL) {
		lazy = 0;
		l->b.t = t;
		l->b.cap = t->nsyms;
		l->b.names_cap = t->names_len;
	}
	if (t == NULL) {
		elfsym_go_probe(le, &l->go);
		if (l->go.scn != 0 && !l->go.symtab)
			lazy = 0;	/* Go's names are copied */
		if ((t = calloc(1, sizeof(*t))) == NULL)
			return (l->error = -ENOMEM);
		t->fd = -1;
		elfsym_read_segments(t, le);
		l->b.t = t;
	}
	if (lazy && fd >= 0) {
		l->b.lazy = 1;
		l->b.file_size = size;
	}
	return (0);
}

/*
 * About budget units of the load: 1 while work remains, 0 done (the
 * table in l->b.t), -errno.  A budget of SIZE_MAX does it all.
 */
int
elfsym_load_run(struct elfsym_load *l, size_t budget)
{
	struct elfsym_table *t = l->b.t;
	int r;

	if (l->error != 0)
		return (l->error);
	while (budget > 0) {
		switch (l->phase) {
		case LOAD_SCNS:
			/* a unit a section header */
			while (budget > 0 && ++l->scn < l->le->nsh) {
				elfsym_load_section(l, l->scn);
				budget--;
			}
			if (l->scn >= l->le->nsh) {
				l->cur = 0;
				l->open = 0;
				l->phase = LOAD_SYMS;
			}
			break;
		case LOAD_SYMS:
			if (l->cur == l->nsyms) {
				l->phase = LOAD_GO;
				break;
			}
			if (!l->open) {
				if ((r = elfsym_load_open_syms(l,
				    &budget)) == 1)
					break;
				if (r < 0) {
					elfsym_load_str_free(l);
					l->cur++;
					break;
				}
				if (budget == 0)
					break;
			}
			if ((r = elfsym_load_read_syms(l, &budget)) != 0)
				return (l->error = r);
			if (l->i < l->n)
				break;
			if (l->sh.sh_type == SHT_DYNSYM && l->rela_plt != 0 &&
			    l->plt_addr != 0 && !l->plt_done) {
				if ((r = elfsym_load_plt(l, &budget)) != 0)
					return (l->error = r);
				if (!l->plt_done)
					break;
			}
			if (l->sh.sh_type == SHT_SYMTAB && t->nsyms > l->before)
				t->has_symtab = 1;
			elfsym_load_close_syms(l);
			l->cur++;
			break;
		case LOAD_GO:
			if (l->debug_file || l->go.scn == 0 ||
			    t->has_symtab || l->b.lazy) {
				l->phase = LOAD_SORT;
				break;
			}
			/* 1: it used the budget */
			if ((r = elfsym_go_step(&l->gr, &l->b, budget)) < 0)
				return (l->error = r);
			if (r == 1) {
				budget = 0;
				break;
			}
			elfsym_go_free(&l->gr);
			l->phase = LOAD_SORT;
			break;
		case LOAD_SORT:
			if (elfsym_sort_step(&l->sort, &l->b, budget) == 1) {
				budget = 0;
				break;
			}
			if (!l->debug_file) {
				t->symtab_sect = l->go.symtab;
				elfsym_go_buildinfo(t, &l->go);
			}
			/* A file that could not be read to its end (over its
			 * budget, truncated while read) gives no table. */
			if (l->le->error != 0)
				return (l->error = l->le->error);
			l->phase = LOAD_DONE;
			break;
		case LOAD_DONE:
		default:
			return (0);
		}
	}
	return (l->phase == LOAD_DONE ? 0 : 1);
}

/* Free what the load holds (its table too, unless taken: l->b.t NULL). */
void
elfsym_load_fini(struct elfsym_load *l)
{
	size_t i;

	elfsym_load_str_free(l);
	for (i = 0; i < ELFSYM_NSTR; i++) {
		free(l->lazy_str[i]);
		l->lazy_str[i] = NULL;
		l->b.str[i] = NULL;
	}
	free(l->chunk);
	free(l->rchunk);
	free(l->dyn_name);
	l->dyn_name = NULL;
	l->chunk = NULL;
	l->rchunk = NULL;
	elfsym_go_free(&l->gr);
	elfsym_sort_free(&l->sort);
	if (!l->debug_file)
		elfsym_free(l->b.t);
	l->b.t = NULL;
	if (l->own_le)
		(void)elfread_free(l->le);
	l->le = NULL;
}

/* The public, heap-allocated load (symbin.c's, across loop turns). */
int
elfsym_load_begin(int fd, int lazy, struct elfsym_load **out)
{
	struct elfsym_load *l;
	struct elfread *le;
	int r;

	*out = NULL;
	if ((r = elfread_open_fd(fd, ELFSYM_READ_BYTES, ELFSYM_READ_CALLS,
	    &le)) != 0)
		return (r);
	if ((l = calloc(1, sizeof(*l))) == NULL) {
		(void)elfread_free(le);
		return (-ENOMEM);
	}
	if ((r = elfsym_load_init(l, le, 1, fd, le->size, lazy,
	    NULL)) != 0) {
		elfsym_load_fini(l);
		free(l);
		return (r);
	}
	*out = l;
	return (0);
}

int
elfsym_load_step(struct elfsym_load *l, size_t budget,
    struct elfsym_table **out)
{
	struct elfsym_table *t;
	int r;

	*out = NULL;
	if ((r = elfsym_load_run(l, budget)) != 0)
		return (r);
	t = l->b.t;
	/* A lazy table reads its names from the file later: its own fd. */
	if (l->b.lazy && (t->fd = fcntl(l->fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return (l->error = -errno);
	l->b.t = NULL;
	l->error = -EALREADY;
	*out = t;
	return (0);
}

void
elfsym_load_free(struct elfsym_load *l)
{
	if (l == NULL)
		return;
	elfsym_load_fini(l);
	free(l);
}
