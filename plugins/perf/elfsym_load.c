/*
 * An ELF symbol table loaded a step at a time, so that the perf plugin's
 * loop can spread a large library over its turns (libLLVM-14's table cost
 * one snapshot callback 27-71 ms): the sections walked (build-id,
 * .gnu_debuglink, which hold symbols), each symbol section read a symbol
 * a unit, a stripped Go binary's .gopclntab read (elfsym_go_step), then
 * the sort (elfsym_sort_step).  The caller keeps the file open until the
 * end: an fd read at first sight stays readable after its process exits.
 *
 * Every section read lies within the file (its offset and size checked
 * against the file's size, and libelf checks again): a lying header
 * costs that section, not a read past the end.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
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
elfsym_section_exec(Elf *e, size_t shndx)
{
	Elf_Scn		*scn;
	GElf_Shdr	 sh;

	if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return (0);
	if ((scn = elf_getscn(e, shndx)) == NULL || gelf_getshdr(scn, &sh) ==
	    NULL)
		return (0);
	return ((sh.sh_flags & SHF_EXECINSTR) != 0);
}

static uint8_t
elfsym_attr(const GElf_Sym *s, uint32_t sh_type)
{
	int	 bind = GELF_ST_BIND(s->st_info);

	return ((bind == STB_WEAK ? ELFSYM_A_WEAK : 0) |
	    (bind != STB_GLOBAL ? ELFSYM_A_NONGLOBAL : 0) |
	    (sh_type == SHT_DYNSYM ? ELFSYM_A_DYNSYM : 0));
}

/*
 * A symbol section found by the walk, kept when it and its strings lie
 * in the file.
 */
static void
elfsym_load_note_syms(struct elfsym_load *l, Elf_Scn *scn,
    const GElf_Shdr *sh)
{
	Elf_Scn		*ss;
	GElf_Shdr	 ssh;

	if (l->nsyms == ELFSYM_LOAD_SCNS || sh->sh_entsize == 0 ||
	    !elfsym_load_within(sh->sh_offset, sh->sh_size, l->file_size))
		return;
	if ((ss = elf_getscn(l->e, sh->sh_link)) == NULL ||
	    gelf_getshdr(ss, &ssh) == NULL || ssh.sh_type != SHT_STRTAB ||
	    !elfsym_load_within(ssh.sh_offset, ssh.sh_size, l->file_size))
		return;
	l->syms[l->nsyms++] = scn;
}

/* A section of the walk: symbols, the build-id note, .gnu_debuglink. */
static void
elfsym_load_section(struct elfsym_load *l, Elf_Scn *scn)
{
	struct elfsym_table	*t = l->b.t;
	GElf_Shdr		 sh;
	Elf_Data		*d;
	const char		*sname;

	if (gelf_getshdr(scn, &sh) == NULL)
		return;
	if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
		elfsym_load_note_syms(l, scn, &sh);
	else if (sh.sh_type == SHT_NOTE && t->build_id_len == 0 &&
	    !l->debug_file) {
		if (elfsym_load_within(sh.sh_offset, sh.sh_size, l->file_size) &&
		    (d = elf_getdata(scn, NULL)) != NULL)
			elfsym_read_note(t, d);
	} else if (sh.sh_type == SHT_PROGBITS && l->shstrndx != 0 &&
	    !l->debug_file) {
		sname = elf_strptr(l->e, l->shstrndx, sh.sh_name);
		if (sname != NULL && strcmp(sname, ".gnu_debuglink") == 0 &&
		    elfsym_load_within(sh.sh_offset, sh.sh_size,
		    l->file_size) && (d = elf_getdata(scn, NULL)) != NULL)
			elfsym_read_debuglink(t, d);
		else if (sname != NULL && (sh.sh_flags & SHF_EXECINSTR) &&
		    ((strcmp(sname, ".plt") == 0 && !l->plt_sec) ||
		    strcmp(sname, ".plt.sec") == 0)) {
			l->plt_sec = sname[4] != '\0';
			l->plt_addr = sh.sh_addr;
			l->plt_ent = sh.sh_entsize != 0 ? sh.sh_entsize : 16;
			l->plt_skip = l->plt_sec ? 0 : 1;
		}
	} else if (sh.sh_type == SHT_RELA && l->shstrndx != 0 &&
	    !l->debug_file && sh.sh_entsize != 0 &&
	    elfsym_load_within(sh.sh_offset, sh.sh_size, l->file_size)) {
		sname = elf_strptr(l->e, l->shstrndx, sh.sh_name);
		if (sname != NULL && strcmp(sname, ".rela.plt") == 0)
			l->rela_plt = scn;
	}
}

/* Units for reading a section of size bytes, at most the budget left. */
static void
elfsym_load_charge(size_t *budget, uint64_t size)
{
	uint64_t	 u = size / ELFSYM_LOAD_UNIT_BYTES;

	*budget -= u < *budget ? (size_t)u : *budget;
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
 * readable.  From memory (no fd), libelf's copy at once.
 */
static int
elfsym_load_strings(struct elfsym_load *l, const GElf_Shdr *ssh,
    Elf_Scn *ss, size_t *budget)
{
	Elf_Data	*d;
	uint64_t	 want;
	ssize_t		 n;

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
		if (l->fd < 0) {
			if ((d = elf_getdata(ss, NULL)) == NULL ||
			    d->d_buf == NULL || d->d_size == 0 ||
			    ((char *)d->d_buf)[d->d_size - 1] != '\0')
				return (-1);
			l->str = d->d_buf;
			l->str_len = l->str_got = d->d_size - 1;
			return (0);
		}
		if ((l->str = malloc((size_t)ssh->sh_size + 1)) == NULL)
			return (-1);
		l->str_own = 1;
		l->str_off = ssh->sh_offset;
		l->str_len = ssh->sh_size;
		l->str_got = 0;
	}
	while (l->str_got < l->str_len && *budget > 0) {
		want = l->str_len - l->str_got;
		if (want / ELFSYM_LOAD_UNIT_BYTES >= *budget)
			want = (uint64_t)*budget * ELFSYM_LOAD_UNIT_BYTES;
		n = pread(l->fd, l->str + l->str_got, (size_t)want,
		    (off_t)(l->str_off + l->str_got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return (-1);	/* an error, or the file shrank */
		l->str_got += (uint64_t)n;
		elfsym_load_charge(budget, (uint64_t)n);
	}
	if (l->str_got < l->str_len)
		return (1);
	/* a name at any offset ends inside the copy */
	l->str[l->str_len] = '\0';
	return (0);
}

/*
 * Start the next symbol section: its strings read (1: call again, they
 * take several steps), then its symbols (0: read them; libelf reads the
 * section at once, a large library's 1 MB in well under a millisecond);
 * -1 to skip it.  Lazily, one of each kind, whose names are read at the
 * recorded offset much later.
 */
static int
elfsym_load_open_syms(struct elfsym_load *l, size_t *budget)
{
	struct elfsym_build	*b = &l->b;
	struct elfsym_table	*t = b->t;
	Elf_Scn			*scn = l->syms[l->cur], *ss;
	GElf_Shdr		 ssh;
	int			 r, src;

	if (gelf_getshdr(scn, &l->sh) == NULL ||
	    (ss = elf_getscn(l->e, l->sh.sh_link)) == NULL ||
	    gelf_getshdr(ss, &ssh) == NULL)
		return (-1);
	src = l->sh.sh_type == SHT_DYNSYM;
	if (b->lazy && t->str_size[src] != 0)
		return (-1);
	if (!l->str_read) {
		if ((r = elfsym_load_strings(l, &ssh, ss, budget)) != 0)
			return (r);
		l->str_read = 1;
		if (*budget == 0)
			return (1);
	}
	if ((l->d = elf_getdata(scn, NULL)) == NULL)
		return (-1);
	elfsym_load_charge(budget, l->sh.sh_size);
	if (b->lazy) {
		b->src = src;
		t->str_off[src] = ssh.sh_offset;
		t->str_size[src] = ssh.sh_size;
	}
	l->n = l->d->d_size / l->sh.sh_entsize;
	l->i = 1;
	l->before = t->nsyms;
	return (0);
}

/* The section is read: its strings kept for the sort if lazy. */
static void
elfsym_load_close_syms(struct elfsym_load *l)
{
	int	 src = l->sh.sh_type == SHT_DYNSYM;

	if (l->b.lazy && l->str != NULL && l->b.str[src] == NULL) {
		l->b.str[src] = l->str;
		if (l->str_own)
			l->lazy_str[src] = l->str;
		l->str = NULL;
		l->str_own = 0;
	}
	elfsym_load_str_free(l);
	l->d = NULL;
}

/* Function symbols of the current section, about budget of them. */
static int
elfsym_load_read_syms(struct elfsym_load *l, size_t *budget)
{
	struct elfsym_build	*b = &l->b;
	GElf_Sym		 s;
	const char		*name;
	int			 type, r;

	for (; l->i < l->n && *budget > 0; l->i++, (*budget)--) {
		if (gelf_getsym(l->d, (int)l->i, &s) == NULL) {
			l->i = l->n;
			break;
		}
		type = GELF_ST_TYPE(s.st_info);
		if (s.st_shndx == SHN_UNDEF || s.st_value == 0)
			continue;
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    !(type == STT_NOTYPE && elfsym_section_exec(l->e,
		    s.st_shndx)))
			continue;
		if (s.st_name >= l->str_len)
			continue;
		name = l->str + s.st_name;
		if (name[0] == '\0' || name[0] == '$' ||
		    strncmp(name, ".L", 2) == 0)
			continue;
		if ((r = elfsym_push(b, s.st_value, s.st_size, name,
		    s.st_name, elfsym_attr(&s, l->sh.sh_type))) != 0)
			return (r);
	}
	return (0);
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
	GElf_Rela	 rel;
	GElf_Sym	 s;
	const char	*name;
	char		 buf[512];
	size_t		 symi, st_name;
	int		 r;

	if (l->plt_d == NULL) {
		GElf_Shdr rsh;

		if (gelf_getshdr(l->rela_plt, &rsh) == NULL ||
		    elf_ndxscn(l->syms[l->cur]) != rsh.sh_link ||
		    (l->plt_d = elf_getdata(l->rela_plt, NULL)) == NULL) {
			l->plt_done = 1;
			return (0);
		}
		elfsym_load_charge(budget, rsh.sh_size);
		l->plt_n = l->plt_d->d_size / rsh.sh_entsize;
		l->plt_i = 0;
	}
	for (; l->plt_i < l->plt_n && *budget > 0; l->plt_i++, (*budget)--) {
		if (gelf_getrela(l->plt_d, (int)l->plt_i, &rel) == NULL)
			break;
		symi = GELF_R_SYM(rel.r_info);
		name = "";
		st_name = 0;
		if (symi != 0 && symi < l->n &&
		    gelf_getsym(l->d, (int)symi, &s) != NULL &&
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
		if ((r = elfsym_push(&l->b, l->plt_addr + (l->plt_i +
		    l->plt_skip) * l->plt_ent, l->plt_ent, name, st_name,
		    ELFSYM_A_PLT | ELFSYM_A_DYNSYM)) != 0)
			return (r);
	}
	if (l->plt_i >= l->plt_n)
		l->plt_done = 1;
	return (0);
}

int
elfsym_load_init(struct elfsym_load *l, Elf *e, int own_e, int fd,
    uint64_t size, int lazy, struct elfsym_table *t)
{
	memset(l, 0, sizeof(*l));
	l->e = e;
	l->own_e = own_e;
	l->fd = fd;
	l->file_size = size;
	l->debug_file = t != NULL;
	l->phase = LOAD_SCNS;
	l->go.e = e;
	elfsym_sort_begin(&l->sort);
	/* .gopclntab from the fd in slices (libelf would read it at once) */
	elfsym_go_begin(&l->gr, &l->go, fd);
	if (t != NULL) {
		lazy = 0;
		l->b.t = t;
		l->b.cap = t->nsyms;
		l->b.names_cap = t->names_len;
	}
	if (elf_kind(e) != ELF_K_ELF)
		return (l->error = -ENOEXEC);
	if (t == NULL) {
		elfsym_go_probe(e, &l->go);
		if (l->go.scn != NULL && !l->go.symtab)
			lazy = 0;	/* Go's names are copied */
		if ((t = calloc(1, sizeof(*t))) == NULL)
			return (l->error = -ENOMEM);
		t->fd = -1;
		elfsym_read_segments(t, e);
		l->b.t = t;
	}
	if (lazy && fd >= 0) {
		l->b.lazy = 1;
		l->b.file_size = size;
	}
	if (elf_getshdrstrndx(e, &l->shstrndx) != 0 ||
	    !elfsym_shstr_ok(e, l->shstrndx))
		l->shstrndx = 0;	/* sections unnamed */
	return (0);
}

/*
 * About budget units of the load: 1 while work remains, 0 done (the
 * table in l->b.t), -errno.  A budget of SIZE_MAX does it all.
 */
int
elfsym_load_run(struct elfsym_load *l, size_t budget)
{
	struct elfsym_table	*t = l->b.t;
	int			 r;

	if (l->error != 0)
		return (l->error);
	while (budget > 0) {
		switch (l->phase) {
		case LOAD_SCNS:
			/* a unit a section header */
			while (budget > 0 &&
			    (l->scn = elf_nextscn(l->e, l->scn)) != NULL) {
				elfsym_load_section(l, l->scn);
				budget--;
			}
			if (l->scn == NULL) {
				l->cur = 0;
				l->d = NULL;
				l->phase = LOAD_SYMS;
			}
			break;
		case LOAD_SYMS:
			if (l->cur == l->nsyms) {
				l->phase = LOAD_GO;
				break;
			}
			if (l->d == NULL) {
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
			if (l->sh.sh_type == SHT_DYNSYM && l->rela_plt != NULL &&
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
			if (l->debug_file || l->go.scn == NULL ||
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
				elfsym_go_buildinfo(l->e, t, &l->go);
			}
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
	size_t	 i;

	elfsym_load_str_free(l);
	for (i = 0; i < ELFSYM_NSTR; i++) {
		free(l->lazy_str[i]);
		l->lazy_str[i] = NULL;
		l->b.str[i] = NULL;
	}
	elfsym_go_free(&l->gr);
	elfsym_sort_free(&l->sort);
	if (!l->debug_file)
		elfsym_free(l->b.t);
	l->b.t = NULL;
	if (l->own_e && l->e != NULL)
		elf_end(l->e);
	l->e = NULL;
}

/* The public, heap-allocated load (symbin.c's, across loop turns). */
int
elfsym_load_begin(int fd, int lazy, struct elfsym_load **out)
{
	struct elfsym_load	*l;
	struct stat		 sb;
	Elf			*e;
	int			 r;

	*out = NULL;
	(void)elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		return (-ENOEXEC);
	if (elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		return (-ENOEXEC);
	}
	if (fstat(fd, &sb) != 0 || sb.st_size <= 0) {
		elf_end(e);
		return (-EIO);
	}
	if ((l = calloc(1, sizeof(*l))) == NULL) {
		elf_end(e);
		return (-ENOMEM);
	}
	if ((r = elfsym_load_init(l, e, 1, fd, (uint64_t)sb.st_size, lazy,
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
	struct elfsym_table	*t;
	int			 r;

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
