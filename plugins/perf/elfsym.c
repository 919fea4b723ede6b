/*
 * ELF symbol tables through libelf.  The ELF is untrusted (a binary may be
 * truncated, corrupt or hostile): libelf bounds-checks section data against
 * the file, and every index and string here is checked before use.
 * ELF_C_READ (not mmap) so a file truncated under us reads short instead
 * of raising SIGBUS.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "elfsym_int.h"

#define NAME_MAX_LEN	4096


/* A symbol's name while building (copied, or from libelf when lazy). */
static const char *
elfsym_build_name(const struct elfsym_build *b, const struct elfsym_sym *v)
{
	const char	*n;

	if (!b->lazy)
		return (b->t->names + v->name);
	if (b->strs[v->name >> 31] != NULL)
		return (b->strs[v->name >> 31] + (v->name & 0x7fffffffu));
	n = elf_strptr(b->e, b->link[v->name >> 31], v->name & 0x7fffffffu);
	return (n != NULL ? n : "");
}

/*
 * perf's choose_best_symbol (tools/perf/util/symbol.c), so a frame reads
 * as in perf script: sized over unsized, not weak over weak, global over
 * not global, fewer leading '_', the longer name; then the first in the
 * symbol table (perf keeps the first of equals: clock_nanosleep@GLIBC_2.2.5
 * before clock_nanosleep@@GLIBC_2.17 in glibc 2.36's table, the other way
 * round for clock_gettime), .symtab before .dynsym.
 */
static int
elfsym_prefer(const struct elfsym_build *bld, size_t ia, size_t ib)
{
	const struct elfsym_table *t = bld->t;
	const struct elfsym_sym	*a = &t->syms[ia], *b = &t->syms[ib];
	const char	*na = elfsym_build_name(bld, a);
	const char	*nb = elfsym_build_name(bld, b);
	uint8_t		 ta = t->attr[ia], tb = t->attr[ib];
	size_t		 ua = strspn(na, "_"), ub = strspn(nb, "_");

	if ((a->size == 0) != (b->size == 0))
		return (a->size == 0 ? 1 : -1);
	if ((ta & ELFSYM_A_WEAK) != (tb & ELFSYM_A_WEAK))
		return ((ta & ELFSYM_A_WEAK) ? 1 : -1);
	if ((ta & ELFSYM_A_NONGLOBAL) != (tb & ELFSYM_A_NONGLOBAL))
		return ((ta & ELFSYM_A_NONGLOBAL) ? 1 : -1);
	if (ua != ub)
		return (ua < ub ? -1 : 1);
	if (strlen(na) != strlen(nb))
		return (strlen(na) > strlen(nb) ? -1 : 1);
	if ((ta & ELFSYM_A_DYNSYM) != (tb & ELFSYM_A_DYNSYM))
		return ((ta & ELFSYM_A_DYNSYM) ? 1 : -1);
	return (ia < ib ? -1 : ia > ib);
}

/* Order of symbol indexes: by address, the preferred alias first. */
static int
elfsym_cmp(const void *va, const void *vb, void *arg)
{
	const struct elfsym_build *b = arg;
	uint32_t	 ia = *(const uint32_t *)va, ib = *(const uint32_t *)vb;
	uint64_t	 aa = b->t->syms[ia].addr, ab = b->t->syms[ib].addr;

	if (aa != ab)
		return (aa < ab ? -1 : 1);
	return (elfsym_prefer(b, ia, ib));
}

int
elfsym_push(struct elfsym_build *b, uint64_t addr, uint64_t size,
    const char *name, size_t st_name, uint8_t attr)
{
	struct elfsym_table	*t = b->t;
	struct elfsym_sym	*v;
	size_t			 len, ncap;
	uint8_t			*a;
	char			*p;

	if (t->nsyms >= ELFSYM_MAX_SYMS) {
		t->dropped++;
		return (0);
	}
	if (b->lazy && (st_name > 0x7fffffffu ||
	    st_name >= t->str_size[b->src]))
		return (0);		/* not addressable in the file */
	len = strnlen(name, NAME_MAX_LEN);
	if (t->nsyms == b->cap) {
		ncap = b->cap ? b->cap * 2 : 256;
		if ((v = reallocarray(t->syms, ncap, sizeof(*v))) == NULL)
			return (-ENOMEM);
		t->syms = v;
		if ((a = realloc(t->attr, ncap)) == NULL)
			return (-ENOMEM);
		t->attr = a;
		b->cap = ncap;
	}
	t->attr[t->nsyms] = attr;
	if (b->lazy) {
		v = &t->syms[t->nsyms++];
		v->addr = addr;
		v->size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
		v->name = (uint32_t)((size_t)b->src << 31 | st_name);
		return (0);
	}
	if (t->names_len + len + 1 > b->names_cap) {
		ncap = b->names_cap ? b->names_cap * 2 : 4096;
		while (ncap < t->names_len + len + 1)
			ncap *= 2;
		if (ncap > UINT32_MAX || (p = realloc(t->names, ncap)) == NULL)
			return (-ENOMEM);
		t->names = p;
		b->names_cap = ncap;
	}
	memcpy(t->names + t->names_len, name, len);
	t->names[t->names_len + len] = '\0';
	v = &t->syms[t->nsyms++];
	v->addr = addr;
	v->size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	v->name = (uint32_t)t->names_len;
	t->names_len += len + 1;
	return (0);
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

/* One symbol of a symbol table: pushed if it is a named function; its
 * name from str (the loader's copy of the strings) or libelf. */
static int
elfsym_consider(struct elfsym_build *b, Elf *e, const GElf_Sym *s,
    const GElf_Shdr *sh, const char *str)
{
	const char	*name;
	int		 type = GELF_ST_TYPE(s->st_info);

	if (s->st_shndx == SHN_UNDEF || s->st_value == 0)
		return (0);
	if (type != STT_FUNC && type != STT_GNU_IFUNC &&
	    !(type == STT_NOTYPE && elfsym_section_exec(e, s->st_shndx)))
		return (0);
	if (str != NULL)
		name = s->st_name < b->t->str_size[b->src] ?
		    str + s->st_name : NULL;
	else
		name = elf_strptr(e, sh->sh_link, s->st_name);
	if (name == NULL || name[0] == '\0' || name[0] == '$' ||
	    strncmp(name, ".L", 2) == 0)
		return (0);
	return (elfsym_push(b, s->st_value, s->st_size, name, s->st_name,
	    elfsym_attr(s, sh->sh_type)));
}

/*
 * Add the function symbols [*ip, n) of one SHT_SYMTAB/SHT_DYNSYM section
 * (data d), at most `budget` of them; *ip is where the next slice starts.
 */
static int
elfsym_read_symbols_slice(struct elfsym_build *b, Elf *e, Elf_Data *d,
    const GElf_Shdr *sh, size_t *ip, size_t n, size_t budget)
{
	GElf_Sym	 s;
	size_t		 i, end = n - *ip > budget ? *ip + budget : n;
	int		 r;

	for (i = *ip; i < end; i++) {
		if (gelf_getsym(d, (int)i, &s) == NULL) {
			i = n;
			break;
		}
		if ((r = elfsym_consider(b, e, &s, sh, NULL)) != 0)
			return (r);
	}
	*ip = i;
	return (0);
}

/* Add the function symbols of one SHT_SYMTAB/SHT_DYNSYM section. */
static int
elfsym_read_symbols(struct elfsym_build *b, Elf *e, Elf_Scn *scn,
    const GElf_Shdr *sh)
{
	Elf_Data	*d;
	size_t		 i = 1;

	if ((d = elf_getdata(scn, NULL)) == NULL || sh->sh_entsize == 0)
		return (0);
	return (elfsym_read_symbols_slice(b, e, d, sh, &i,
	    d->d_size / sh->sh_entsize, SIZE_MAX));
}

static void
elfsym_read_note(struct elfsym_table *t, Elf_Data *d)
{
	GElf_Nhdr	 nh;
	size_t		 off = 0, next, noff, doff;

	while (off < d->d_size &&
	    (next = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= ELFSYM_BUILD_ID_MAX) {
			memcpy(t->build_id, (char *)d->d_buf + doff,
			    nh.n_descsz);
			t->build_id_len = nh.n_descsz;
			return;
		}
		off = next;
	}
}

static void
elfsym_read_debuglink(struct elfsym_table *t, Elf_Data *d)
{
	size_t	 len;

	if (d->d_buf == NULL || d->d_size < 2 || t->debuglink != NULL)
		return;
	len = strnlen(d->d_buf, d->d_size);
	if (len == 0 || len == d->d_size || memchr(d->d_buf, '/', len))
		return;
	t->debuglink = strndup(d->d_buf, len);
}

/*
 * Whether the program interpreter is musl's loader: what "libc" says of
 * a dynamic Go binary (gProfiler looks for an ld-musl mapping, which a
 * distribution that links the loader to its libc.so does not show).
 */
static void
elfsym_read_interp(struct elfsym_table *t, Elf *e, const GElf_Phdr *ph)
{
	Elf_Data	*d;

	if (ph->p_filesz == 0 || ph->p_filesz > 4096 ||
	    (d = elf_getdata_rawchunk(e, (int64_t)ph->p_offset,
	    (size_t)ph->p_filesz, ELF_T_BYTE)) == NULL || d->d_buf == NULL)
		return;
	t->interp_musl = memmem(d->d_buf, d->d_size, "ld-musl", 7) != NULL;
}

static void
elfsym_read_segments(struct elfsym_table *t, Elf *e)
{
	GElf_Phdr	 ph;
	size_t		 i, n;

	if (elf_getphdrnum(e, &n) != 0)
		return;
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(e, (int)i, &ph) == NULL)
			break;
		if (ph.p_type == PT_DYNAMIC)
			t->dynamic = 1;	/* gProfiler's "link": dynamic */
		if (ph.p_type == PT_INTERP)
			elfsym_read_interp(t, e, &ph);
		if (ph.p_type != PT_LOAD || t->nsegs == ELFSYM_MAX_SEGS)
			continue;
		t->segs[t->nsegs].vaddr = ph.p_vaddr;
		t->segs[t->nsegs].off = ph.p_offset;
		t->segs[t->nsegs].filesz = ph.p_filesz;
		t->nsegs++;
	}
}

/*
 * One section: a build-id note and .gnu_debuglink are read now; 1 for a
 * symbol table whose symbols are to be read (a lazy one only if its
 * strings lie in the file: a name is read at the recorded offset much
 * later), else 0.
 */
static int
elfsym_section(struct elfsym_build *b, Elf *e, Elf_Scn *scn, size_t shstrndx,
    int debug_file, GElf_Shdr *sh)
{
	struct elfsym_table	*t = b->t;
	Elf_Scn			*ss;
	GElf_Shdr		 ssh;
	Elf_Data		*d;
	const char		*sname;

	if (gelf_getshdr(scn, sh) == NULL)
		return (0);
	if (sh->sh_type == SHT_SYMTAB || sh->sh_type == SHT_DYNSYM) {
		if (!b->lazy)
			return (1);
		/* A debug file's .symtab only: its names in its own file. */
		if (b->debug && sh->sh_type != SHT_SYMTAB)
			return (0);
		b->src = sh->sh_type == SHT_DYNSYM;
		/* One of each kind. */
		if (t->str_size[b->src] != 0 ||
		    (ss = elf_getscn(e, sh->sh_link)) == NULL ||
		    gelf_getshdr(ss, &ssh) == NULL ||
		    ssh.sh_type != SHT_STRTAB ||
		    ssh.sh_offset > b->file_size ||
		    ssh.sh_size > b->file_size - ssh.sh_offset)
			return (0);
		b->link[b->src] = sh->sh_link;
		t->str_off[b->src] = ssh.sh_offset;
		t->str_size[b->src] = ssh.sh_size;
		return (1);
	}
	if (sh->sh_type == SHT_NOTE && t->build_id_len == 0 && !debug_file) {
		if ((d = elf_getdata(scn, NULL)) != NULL)
			elfsym_read_note(t, d);
	} else if (sh->sh_type == SHT_PROGBITS && shstrndx != 0 &&
	    !debug_file) {
		sname = elf_strptr(e, shstrndx, sh->sh_name);
		if (sname != NULL && strcmp(sname, ".gnu_debuglink") == 0 &&
		    (d = elf_getdata(scn, NULL)) != NULL)
			elfsym_read_debuglink(t, d);
	}
	return (0);
}

/* Walk the sections once: symbols, build-id note, .gnu_debuglink. */
static int
elfsym_read_elf(struct elfsym_build *b, Elf *e, int debug_file)
{
	struct elfsym_table	*t = b->t;
	Elf_Scn			*scn = NULL;
	GElf_Shdr		 sh;
	size_t			 shstrndx, before;
	int			 r;

	if (elf_kind(e) != ELF_K_ELF)
		return (-ENOEXEC);
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		shstrndx = 0;
	if (!debug_file)
		elfsym_read_segments(t, e);
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (elfsym_section(b, e, scn, shstrndx, debug_file, &sh) != 1)
			continue;
		before = t->nsyms;
		if ((r = elfsym_read_symbols(b, e, scn, &sh)) != 0)
			return (r);
		if (sh.sh_type == SHT_SYMTAB && t->nsyms > before)
			t->has_symtab = 1;
	}
	return (0);
}

/*
 * Sort, keep the preferred symbol per address, give unsized symbols
 * (assembly) the room up to the next symbol, and trim the arrays.
 */
static void
elfsym_finish_sorted(struct elfsym_build *, uint32_t *);

static void
elfsym_finish(struct elfsym_build *b)
{
	struct elfsym_table	*t = b->t;
	uint32_t		*ix;
	size_t			 i;

	if (t->nsyms == 0)
		return;
	/* Sort indexes (the tie-break is the position in the table), then
	 * keep the first, preferred, symbol of each address. */
	if ((ix = reallocarray(NULL, t->nsyms, sizeof(*ix))) == NULL) {
		t->dropped += t->nsyms;	/* unusable unsorted */
		t->nsyms = 0;
		return;
	}
	for (i = 0; i < t->nsyms; i++)
		ix[i] = (uint32_t)i;
	qsort_r(ix, t->nsyms, sizeof(*ix), elfsym_cmp, b);
	elfsym_finish_sorted(b, ix);
}

/* The rest of elfsym_finish over the sorted indexes ix (freed here). */
static void
elfsym_finish_sorted(struct elfsym_build *b, uint32_t *ix)
{
	struct elfsym_table	*t = b->t;
	struct elfsym_sym	*v, *ns;
	uint8_t			*na;
	size_t			 i, o;
	uint64_t		 gap;
	char			*p;

	if (t->nsyms == 0) {
		free(ix);
		return;
	}
	ns = reallocarray(NULL, t->nsyms, sizeof(*ns));
	na = malloc(t->nsyms);
	if (ns == NULL || na == NULL) {
		free(ix);
		free(ns);
		free(na);
		t->dropped += t->nsyms;	/* unusable unsorted */
		t->nsyms = 0;
		return;
	}
	for (i = 0, o = 0; i < t->nsyms; i++) {
		if (o > 0 && t->syms[ix[i]].addr == ns[o - 1].addr)
			continue;
		ns[o] = t->syms[ix[i]];
		na[o++] = t->attr[ix[i]];
	}
	free(ix);
	free(t->syms);
	free(t->attr);
	t->syms = ns;
	t->attr = na;
	t->nsyms = o;
	for (i = 0; i + 1 < t->nsyms; i++) {
		if (t->syms[i].size != 0)
			continue;
		gap = t->syms[i + 1].addr - t->syms[i].addr;
		t->syms[i].size = gap > UINT32_MAX ? UINT32_MAX : (uint32_t)gap;
	}
	if ((v = reallocarray(t->syms, t->nsyms, sizeof(*v))) != NULL)
		t->syms = v;
	if ((na = realloc(t->attr, t->nsyms)) != NULL)
		t->attr = na;
	if (t->names != NULL && (p = realloc(t->names, t->names_len)) != NULL)
		t->names = p;
}

static int
elfsym_load_elf(Elf *e, int lazy_fd, struct elfsym_table **out)
{
	struct elfsym_build	 b;
	struct elfsym_go	 go;
	struct stat		 sb;
	int			 r;

	*out = NULL;
	memset(&b, 0, sizeof(b));
	elfsym_go_probe(e, &go);
	if (go.scn != NULL && !go.symtab)
		lazy_fd = -1;		/* Go's names are copied */
	if (lazy_fd >= 0 && (fstat(lazy_fd, &sb) != 0 || sb.st_size <= 0))
		return (-EIO);
	if ((b.t = calloc(1, sizeof(*b.t))) == NULL)
		return (-ENOMEM);
	b.t->fd = -1;
	b.t->dbg_fd = -1;
	if (lazy_fd >= 0) {
		b.lazy = 1;
		b.e = e;
		b.file_size = (uint64_t)sb.st_size;
	}
	if ((r = elfsym_read_elf(&b, e, 0)) != 0 || (go.scn != NULL &&
	    !b.t->has_symtab && !b.lazy && (r = elfsym_go_read(&b, &go)) != 0)) {
		elfsym_free(b.t);
		return (r);
	}
	b.t->symtab_sect = go.symtab;
	elfsym_go_buildinfo(e, b.t, &go);
	elfsym_finish(&b);
	if (b.lazy && (b.t->fd = fcntl(lazy_fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		r = -errno;
		elfsym_free(b.t);
		return (r);
	}
	*out = b.t;
	return (0);
}

/*
 * Loading in slices: the sections walked one symbol table slice at a
 * time, then the index sort as sorted chunks merged pass by pass, each
 * step resumable; the dedup pass at the end is linear.
 */
enum { LD_SECTIONS, LD_SYMBOLS, LD_STRINGS, LD_RAWSYMS, LD_CHUNKS,
    LD_PASSES, LD_FINISH, LD_DONE, LD_MAINSTR };
#define ELFSYM_SORT_CHUNK	256
#define ELFSYM_READ_SLICE	(64 * 1024)	/* bytes read per step */
#define ELFSYM_RAW_SYMS		2048		/* symbols per read */
/* What a unit of the budget buys (a unit is about 250 ns: measured on
 * libLLVM-14, a symbol considered takes 1 to 1.3 us, 16 string bytes read
 * from a cold file 0.35 us). */
#define ELFSYM_SYM_UNITS	4		/* per symbol considered */
#define ELFSYM_STR_PER_UNIT	8		/* string bytes read */

struct elfsym_loader {
	struct elfsym_build	 b;
	Elf			*e;
	int			 fd;		/* ours: the table's when lazy */
	int			 phase;
	size_t			 shstrndx;
	Elf_Scn			*scn;
	GElf_Shdr		 sh;
	Elf_Data		*d;
	size_t			 i, n, before;	/* symbols of scn */
	uint32_t		*ix, *tmp;	/* the index sort */
	size_t			 width, lo, ia, ib;
	uint64_t		 got;		/* string bytes read */
	void			*raw, *cooked;	/* a read of symbols */
	struct elfsym_sym	*ns;		/* the deduplicated table */
	uint8_t			*na;
	size_t			 no;
	/* A debug file merged into a table that is not ours: what to put
	 * back if the merge does not finish. */
	int			 borrowed;
	size_t			 nsyms0, dropped0;
	uint64_t		 str_off0, str_size0;
	int			 has_symtab0;
	struct elfsym_go	 go;		/* a stripped Go binary's table */
};

/*
 * elfsym_finish_sorted in slices: the preferred symbol of each address
 * kept, an unsized one given the room up to the next; *used counts the
 * symbols looked at.
 */
static void
elfsym_load_dedup(struct elfsym_loader *ld, size_t budget, size_t *used)
{
	struct elfsym_table	*t = ld->b.t;
	const struct elfsym_sym	*s;
	struct elfsym_sym	*v;
	size_t			 i, end, o = ld->no;
	uint64_t		 gap;
	uint8_t			*a;
	char			*p;

	if (ld->ns == NULL) {
		ld->ns = reallocarray(NULL, t->nsyms, sizeof(*ld->ns));
		ld->na = malloc(t->nsyms);
		if (ld->ns == NULL || ld->na == NULL) {
			t->dropped += t->nsyms;	/* unusable unsorted */
			t->nsyms = 0;
			ld->phase = LD_DONE;
			return;
		}
		ld->lo = 0;
		o = 0;
	}
	end = t->nsyms - ld->lo > budget - *used ? ld->lo + budget - *used :
	    t->nsyms;
	for (i = ld->lo; i < end; i++) {
		s = &t->syms[ld->ix[i]];
		if (o > 0 && s->addr == ld->ns[o - 1].addr)
			continue;
		if (o > 0 && ld->ns[o - 1].size == 0) {
			gap = s->addr - ld->ns[o - 1].addr;
			ld->ns[o - 1].size = gap > UINT32_MAX ? UINT32_MAX :
			    (uint32_t)gap;
		}
		ld->ns[o] = *s;
		ld->na[o++] = t->attr[ld->ix[i]];
	}
	*used += end - ld->lo + 1;
	ld->lo = end;
	ld->no = o;
	if (ld->lo < t->nsyms)
		return;
	free(t->syms);
	free(t->attr);
	t->syms = ld->ns;
	t->attr = ld->na;
	ld->ns = NULL;
	ld->na = NULL;
	t->nsyms = o;
	if ((v = reallocarray(t->syms, t->nsyms, sizeof(*v))) != NULL)
		t->syms = v;
	if ((a = realloc(t->attr, t->nsyms)) != NULL)
		t->attr = a;
	if (t->names != NULL && (p = realloc(t->names, t->names_len)) != NULL)
		t->names = p;
	ld->phase = LD_DONE;
}

int
elfsym_load_begin(int fd, int lazy, struct elfsym_loader **out)
{
	struct elfsym_loader	*ld;
	struct stat		 sb;
	int			 r;

	*out = NULL;
	(void)elf_version(EV_CURRENT);
	if (lazy && (fstat(fd, &sb) != 0 || sb.st_size <= 0))
		return (-EIO);
	if ((ld = calloc(1, sizeof(*ld))) == NULL)
		return (-ENOMEM);
	ld->fd = -1;
	if ((ld->b.t = calloc(1, sizeof(*ld->b.t))) == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	ld->b.t->fd = -1;
	ld->b.t->dbg_fd = -1;
	/* The slices read the file later: our own descriptor. */
	if ((ld->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		r = -errno;
		goto fail;
	}
	if ((ld->e = elf_begin(ld->fd, ELF_C_READ, NULL)) == NULL ||
	    elf_kind(ld->e) != ELF_K_ELF) {
		r = -ENOEXEC;
		goto fail;
	}
	elfsym_go_probe(ld->e, &ld->go);
	if (ld->go.scn != NULL && !ld->go.symtab)
		lazy = 0;		/* Go's names are copied */
	if (lazy) {
		ld->b.lazy = 1;
		ld->b.e = ld->e;
		ld->b.file_size = (uint64_t)sb.st_size;
	}
	if (elf_getshdrstrndx(ld->e, &ld->shstrndx) != 0)
		ld->shstrndx = 0;
	elfsym_read_segments(ld->b.t, ld->e);
	*out = ld;
	return (0);
fail:
	elfsym_load_free(ld);
	return (r);
}

/* Merge index runs a[0..na) and c[0..nc) into o from the cursors, at most
 * budget moves; 1 when both are used up. */
static int
elfsym_merge(struct elfsym_build *b, const uint32_t *a, size_t na,
    const uint32_t *c, size_t nc, uint32_t *o, size_t *ia, size_t *ic,
    size_t budget, size_t *used)
{
	size_t	 i = *ia, j = *ic, k = 0;

	while (k < budget && (i < na || j < nc)) {
		if (j == nc || (i < na && elfsym_cmp(&a[i], &c[j], b) <= 0))
			o[i + j] = a[i], i++;
		else
			o[i + j] = c[j], j++;
		k++;
	}
	*ia = i;
	*ic = j;
	*used += k;
	return (i == na && j == nc);
}

/* One merge pass of the index sort, resumed at ld->lo. */
static void
elfsym_load_pass(struct elfsym_loader *ld, size_t budget, size_t *used)
{
	size_t		 n = ld->b.t->nsyms, lo, mid, hi;
	uint32_t	*x;

	while (*used < budget && ld->lo < n) {
		lo = ld->lo;
		mid = lo + ld->width < n ? lo + ld->width : n;
		hi = mid + ld->width < n ? mid + ld->width : n;
		if (!elfsym_merge(&ld->b, ld->ix + lo, mid - lo, ld->ix + mid,
		    hi - mid, ld->tmp + lo, &ld->ia, &ld->ib, budget - *used,
		    used))
			return;
		ld->lo = hi;
		ld->ia = ld->ib = 0;
	}
	if (ld->lo < n)
		return;
	x = ld->ix;
	ld->ix = ld->tmp;
	ld->tmp = x;
	ld->width *= 2;
	ld->lo = 0;
	if (ld->width >= n)
		ld->phase = LD_FINISH;
}

/*
 * Lazy tables read their sections themselves, in slices: the strings
 * (checked to lie in the file when the section was taken), then the
 * symbols, converted by libelf from the file's class and byte order.
 */
static int
elfsym_load_raw(struct elfsym_loader *ld, size_t budget, size_t *used)
{
	struct elfsym_build	*b = &ld->b;
	struct elfsym_table	*t = b->t;
	Elf_Data		 src, dst;
	GElf_Sym		 s;
	size_t			 k, j, esz;
	ssize_t			 n;
	int			 cls = gelf_getclass(ld->e), r;
	char			*str = b->strs[b->src];

	if (ld->phase == LD_STRINGS) {
		k = t->str_size[b->src] - ld->got;
		if (k > ELFSYM_READ_SLICE)
			k = ELFSYM_READ_SLICE;
		if (k > (budget - *used) * ELFSYM_STR_PER_UNIT + 4096)
			k = (budget - *used) * ELFSYM_STR_PER_UNIT + 4096;
		n = pread(ld->fd, str + ld->got, k, (off_t)(t->str_off[b->src] +
		    ld->got));
		if (n <= 0)
			return (-EIO);
		ld->got += (uint64_t)n;
		*used += (size_t)n / ELFSYM_STR_PER_UNIT + 1;
		if (ld->got == t->str_size[b->src]) {
			str[ld->got] = '\0';
			ld->phase = LD_RAWSYMS;
		}
		return (0);
	}
	esz = cls == ELFCLASS32 ? sizeof(Elf32_Sym) : sizeof(Elf64_Sym);
	k = ld->n - ld->i;
	if (k > ELFSYM_RAW_SYMS)
		k = ELFSYM_RAW_SYMS;
	if (k > (budget - *used) / ELFSYM_SYM_UNITS)
		k = (budget - *used) / ELFSYM_SYM_UNITS;
	if (k == 0)
		k = 1;
	n = pread(ld->fd, ld->raw, k * esz, (off_t)(ld->sh.sh_offset +
	    ld->i * esz));
	if (n != (ssize_t)(k * esz))
		return (-EIO);
	memset(&src, 0, sizeof(src));
	memset(&dst, 0, sizeof(dst));
	src.d_buf = ld->raw;
	src.d_size = k * esz;
	src.d_type = ELF_T_SYM;
	src.d_version = EV_CURRENT;
	dst.d_buf = ld->cooked;
	dst.d_size = k * esz;
	dst.d_version = EV_CURRENT;
	if (gelf_xlatetom(ld->e, &dst, &src, elf_getident(ld->e, NULL)[EI_DATA])
	    == NULL)
		return (-ENOEXEC);
	for (j = 0; j < k; j++) {
		if (cls == ELFCLASS32) {
			const Elf32_Sym	*x = (const Elf32_Sym *)ld->cooked + j;

			s.st_name = x->st_name;
			s.st_info = x->st_info;
			s.st_other = x->st_other;
			s.st_shndx = x->st_shndx;
			s.st_value = x->st_value;
			s.st_size = x->st_size;
		} else
			s = ((const Elf64_Sym *)ld->cooked)[j];
		if (ld->i + j == 0)
			continue;
		if ((r = elfsym_consider(b, ld->e, &s, &ld->sh, str)) != 0)
			return (r);
	}
	ld->i += k;
	*used += ELFSYM_SYM_UNITS * k + 1;
	if (ld->i < ld->n)
		return (0);
	if (ld->sh.sh_type == SHT_SYMTAB && t->nsyms > ld->before)
		t->has_symtab = 1;
	ld->phase = LD_SECTIONS;
	return (0);
}

/* Take a symbol table section for reading by elfsym_load_raw; 0 to read
 * it through libelf instead. */
static int
elfsym_load_take(struct elfsym_loader *ld)
{
	struct elfsym_build	*b = &ld->b;
	struct elfsym_table	*t = b->t;
	size_t			 esz;

	esz = gelf_getclass(ld->e) == ELFCLASS32 ? sizeof(Elf32_Sym) :
	    sizeof(Elf64_Sym);
	if (!b->lazy || ld->sh.sh_entsize != esz || b->strs[b->src] != NULL ||
	    ld->sh.sh_offset > b->file_size ||
	    ld->sh.sh_size > b->file_size - ld->sh.sh_offset ||
	    t->str_size[b->src] > SIZE_MAX - 1)
		return (0);
	if (ld->raw == NULL &&
	    ((ld->raw = malloc(ELFSYM_RAW_SYMS * sizeof(Elf64_Sym))) == NULL ||
	    (ld->cooked = malloc(ELFSYM_RAW_SYMS * sizeof(Elf64_Sym))) == NULL))
		return (0);
	if ((b->strs[b->src] = malloc((size_t)t->str_size[b->src] + 1)) ==
	    NULL)
		return (0);
	ld->got = 0;
	ld->i = 0;
	ld->n = ld->sh.sh_size / esz;
	ld->before = t->nsyms;
	ld->phase = LD_STRINGS;
	return (1);
}

/* The section walk; at most budget symbols read. */
static int
elfsym_load_sections(struct elfsym_loader *ld, size_t budget, size_t *used)
{
	struct elfsym_table	*t = ld->b.t;
	size_t			 i;
	int			 r;

	if (ld->phase == LD_STRINGS || ld->phase == LD_RAWSYMS)
		return (elfsym_load_raw(ld, budget, used));
	if (ld->phase == LD_SYMBOLS) {
		i = ld->i;
		if ((r = elfsym_read_symbols_slice(&ld->b, ld->e, ld->d,
		    &ld->sh, &ld->i, ld->n, (budget - *used) /
		    ELFSYM_SYM_UNITS + 1)) != 0)
			return (r);
		*used += ELFSYM_SYM_UNITS * (ld->i - i) + 1;
		if (ld->i < ld->n)
			return (0);
		if (ld->sh.sh_type == SHT_SYMTAB && t->nsyms > ld->before)
			t->has_symtab = 1;
		ld->phase = LD_SECTIONS;
		return (0);
	}
	*used += 16;
	if ((ld->scn = elf_nextscn(ld->e, ld->scn)) == NULL) {
		ld->phase = LD_CHUNKS;
		/* (.gopclntab in one go, as elfsym_load_elf reads it) */
		if (ld->go.scn != NULL && !t->has_symtab && !ld->b.lazy &&
		    !ld->b.debug && (r = elfsym_go_read(&ld->b, &ld->go)) != 0)
			return (r);
		if (!ld->b.debug) {
			t->symtab_sect = ld->go.symtab;
			elfsym_go_buildinfo(ld->e, t, &ld->go);
		}
		return (0);
	}
	if (elfsym_section(&ld->b, ld->e, ld->scn, ld->shstrndx, ld->b.debug,
	    &ld->sh) != 1 || elfsym_load_take(ld) ||
	    (ld->d = elf_getdata(ld->scn, NULL)) == NULL ||
	    ld->sh.sh_entsize == 0)
		return (0);
	ld->n = ld->d->d_size / ld->sh.sh_entsize;
	ld->i = 1;
	ld->before = t->nsyms;
	ld->phase = LD_SYMBOLS;
	*used += ld->d->d_size / 4096;	/* read and converted */
	return (0);
}

/* Debug merge: the table's own .dynsym strings, for comparing names
 * while sorting, read in slices from its file. */
static int
elfsym_load_mainstr(struct elfsym_loader *ld, size_t budget, size_t *used)
{
	struct elfsym_table	*t = ld->b.t;
	uint64_t		 k = t->str_size[1] - ld->got;
	ssize_t			 n;

	if (k > ELFSYM_READ_SLICE)
		k = ELFSYM_READ_SLICE;
	if (k > (budget - *used) * ELFSYM_STR_PER_UNIT + 4096)
		k = (budget - *used) * ELFSYM_STR_PER_UNIT + 4096;
	if (k > 0) {
		n = pread(t->fd, ld->b.strs[1] + ld->got, (size_t)k,
		    (off_t)(t->str_off[1] + ld->got));
		if (n <= 0)
			return (-EIO);
		ld->got += (uint64_t)n;
		*used += (size_t)n / ELFSYM_STR_PER_UNIT + 1;
	}
	if (ld->got < t->str_size[1])
		return (0);
	ld->b.strs[1][ld->got] = '\0';
	ld->got = 0;
	ld->phase = LD_SECTIONS;
	return (0);
}

int
elfsym_debug_begin(struct elfsym_table *t, int fd, struct elfsym_loader **out)
{
	struct elfsym_loader	*ld;
	struct elfsym_table	 probe;
	Elf_Scn			*scn = NULL;
	GElf_Shdr		 sh;
	Elf_Data		*d;
	struct stat		 sb;
	int			 r;

	*out = NULL;
	if (t->names != NULL || t->fd < 0 || t->dbg_fd >= 0)
		return (-ENOTSUP);
	(void)elf_version(EV_CURRENT);
	if (fstat(fd, &sb) != 0 || sb.st_size <= 0)
		return (-EIO);
	if ((ld = calloc(1, sizeof(*ld))) == NULL)
		return (-ENOMEM);
	ld->fd = -1;
	if ((ld->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		r = -errno;
		goto fail;
	}
	if ((ld->e = elf_begin(ld->fd, ELF_C_READ, NULL)) == NULL ||
	    elf_kind(ld->e) != ELF_K_ELF) {
		r = -ENOEXEC;
		goto fail;
	}
	/* Check the build-id before merging anything. */
	memset(&probe, 0, sizeof(probe));
	while ((scn = elf_nextscn(ld->e, scn)) != NULL &&
	    probe.build_id_len == 0)
		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_NOTE &&
		    (d = elf_getdata(scn, NULL)) != NULL)
			elfsym_read_note(&probe, d);
	if (t->build_id_len != 0 && probe.build_id_len != 0 &&
	    (t->build_id_len != probe.build_id_len ||
	    memcmp(t->build_id, probe.build_id, t->build_id_len) != 0)) {
		r = -ESTALE;
		goto fail;
	}
	if (t->str_size[1] > SIZE_MAX - 1 ||
	    (ld->b.strs[1] = malloc((size_t)t->str_size[1] + 1)) == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	if (elf_getshdrstrndx(ld->e, &ld->shstrndx) != 0)
		ld->shstrndx = 0;
	ld->b.t = t;
	ld->b.cap = t->nsyms;
	ld->b.lazy = 1;
	ld->b.debug = 1;
	ld->b.e = ld->e;
	ld->b.file_size = (uint64_t)sb.st_size;
	ld->borrowed = 1;
	ld->nsyms0 = t->nsyms;
	ld->dropped0 = t->dropped;
	ld->str_off0 = t->str_off[0];
	ld->str_size0 = t->str_size[0];
	ld->has_symtab0 = t->has_symtab;
	/* The debug file's .symtab takes the .symtab slot: the table had
	 * no function there (no .symtab, or an empty one). */
	t->str_off[0] = t->str_size[0] = 0;
	ld->phase = LD_MAINSTR;
	*out = ld;
	return (0);
fail:
	elfsym_load_free(ld);
	return (r);
}

int
elfsym_load_step(struct elfsym_loader *ld, size_t budget, size_t *usedp)
{
	struct elfsym_table	*t = ld->b.t;
	size_t			 used = 0, k, i;
	int			 r = 0;

	while (used < budget && ld->phase != LD_DONE) {
		switch (ld->phase) {
		case LD_MAINSTR:
			r = elfsym_load_mainstr(ld, budget, &used);
			break;
		case LD_SECTIONS:
		case LD_SYMBOLS:
		case LD_STRINGS:
		case LD_RAWSYMS:
			r = elfsym_load_sections(ld, budget, &used);
			break;
		case LD_CHUNKS:
			if (t->nsyms == 0) {
				ld->phase = LD_FINISH;
				break;
			}
			if (ld->ix == NULL) {
				ld->ix = reallocarray(NULL, t->nsyms,
				    sizeof(*ld->ix));
				ld->tmp = reallocarray(NULL, t->nsyms,
				    sizeof(*ld->tmp));
				if (ld->ix == NULL || ld->tmp == NULL)
					return (-ENOMEM);
				for (i = 0; i < t->nsyms; i++)
					ld->ix[i] = (uint32_t)i;
				used += t->nsyms / 8;
				ld->lo = 0;
			}
			k = t->nsyms - ld->lo < ELFSYM_SORT_CHUNK ?
			    t->nsyms - ld->lo : ELFSYM_SORT_CHUNK;
			qsort_r(ld->ix + ld->lo, k, sizeof(*ld->ix),
			    elfsym_cmp, &ld->b);
			ld->lo += k;
			used += 10 * k;		/* ~ k log k compares */
			if (ld->lo >= t->nsyms) {
				ld->lo = ld->ia = ld->ib = 0;
				ld->width = ELFSYM_SORT_CHUNK;
				ld->phase = ld->width >= t->nsyms ?
				    LD_FINISH : LD_PASSES;
			}
			break;
		case LD_PASSES:
			elfsym_load_pass(ld, budget, &used);
			break;
		case LD_FINISH:
			if (t->nsyms == 0) {
				elfsym_finish_sorted(&ld->b, ld->ix);
				ld->ix = NULL;
				used += t->nsyms;
				ld->phase = LD_DONE;
				break;
			}
			elfsym_load_dedup(ld, budget, &used);
			break;
		}
		if (r != 0)
			break;
	}
	if (usedp != NULL)
		*usedp = used;
	if (r != 0)
		return (r);
	return (ld->phase != LD_DONE);
}

int
elfsym_load_end(struct elfsym_loader *ld, struct elfsym_table **out)
{
	*out = NULL;
	if (ld->phase != LD_DONE)
		return (-EAGAIN);
	if (ld->borrowed) {
		ld->b.t->dbg_fd = ld->fd;
		ld->fd = -1;
	} else if (ld->b.lazy) {
		ld->b.t->fd = ld->fd;
		ld->fd = -1;
	}
	*out = ld->b.t;
	ld->b.t = NULL;
	return (0);
}

void
elfsym_load_free(struct elfsym_loader *ld)
{
	size_t	 i;

	if (ld == NULL)
		return;
	if (ld->e != NULL)
		elf_end(ld->e);
	if (ld->fd >= 0)
		close(ld->fd);
	free(ld->ix);
	free(ld->tmp);
	free(ld->raw);
	free(ld->cooked);
	free(ld->ns);
	free(ld->na);
	for (i = 0; i < ELFSYM_NSTR; i++)
		free(ld->b.strs[i]);
	if (ld->borrowed && ld->b.t != NULL) {
		/* Not finished: the table as it was (its sorted prefix is
		 * untouched until the last slice). */
		if (ld->phase != LD_DONE) {
			ld->b.t->nsyms = ld->nsyms0;
			ld->b.t->dropped = ld->dropped0;
			ld->b.t->str_off[0] = ld->str_off0;
			ld->b.t->str_size[0] = ld->str_size0;
			ld->b.t->has_symtab = ld->has_symtab0;
		}
	} else
		elfsym_free(ld->b.t);
	free(ld);
}

static int
elfsym_load_fd_mode(int fd, int lazy, struct elfsym_table **out)
{
	struct elfsym_loader	*ld;
	int			 r;

	*out = NULL;
	if ((r = elfsym_load_begin(fd, lazy, &ld)) != 0)
		return (r);
	while ((r = elfsym_load_step(ld, SIZE_MAX / 2, NULL)) == 1)
		;
	if (r == 0)
		r = elfsym_load_end(ld, out);
	elfsym_load_free(ld);
	return (r);
}

int
elfsym_load_fd(int fd, struct elfsym_table **out)
{
	return (elfsym_load_fd_mode(fd, 0, out));
}

int
elfsym_load_fd_lazy(int fd, struct elfsym_table **out)
{
	return (elfsym_load_fd_mode(fd, 1, out));
}

/* A lazy table's names copied in (before merging another file's). */
static int
elfsym_materialize(struct elfsym_table *t)
{
	char	*str[ELFSYM_NSTR] = { NULL, NULL }, *names = NULL, *p;
	size_t	 i, len, cap = 0, nlen = 0, src, off;
	int	 r = -ENOMEM;

	if (t->names != NULL || t->fd < 0)
		return (0);
	for (i = 0; i < ELFSYM_NSTR; i++) {
		if (t->str_size[i] == 0)
			continue;
		if ((str[i] = malloc(t->str_size[i] + 1)) == NULL)
			goto out;
		if (pread(i == 0 && t->dbg_fd >= 0 ? t->dbg_fd : t->fd, str[i],
		    t->str_size[i], (off_t)t->str_off[i])
		    != (ssize_t)t->str_size[i]) {
			r = -EIO;
			goto out;
		}
		str[i][t->str_size[i]] = '\0';
	}
	for (i = 0; i < t->nsyms; i++) {
		src = t->syms[i].name >> 31;
		off = t->syms[i].name & 0x7fffffffu;
		len = str[src] != NULL && off < t->str_size[src] ?
		    strnlen(str[src] + off, NAME_MAX_LEN) : 0;
		if (nlen + len + 1 > cap) {
			cap = cap ? cap * 2 : 4096;
			while (cap < nlen + len + 1)
				cap *= 2;
			if (cap > UINT32_MAX || (p = realloc(names, cap)) == NULL)
				goto out;
			names = p;
		}
		if (len > 0)
			memcpy(names + nlen, str[src] + off, len);
		names[nlen + len] = '\0';
		t->syms[i].name = (uint32_t)nlen;
		nlen += len + 1;
	}
	if (names == NULL && (names = calloc(1, 1)) == NULL)
		goto out;
	t->names = names;
	t->names_len = nlen;
	names = NULL;
	close(t->fd);
	t->fd = -1;
	if (t->dbg_fd >= 0)
		close(t->dbg_fd);
	t->dbg_fd = -1;
	r = 0;
out:
	free(names);
	for (i = 0; i < ELFSYM_NSTR; i++)
		free(str[i]);
	return (r);
}

int
elfsym_load_mem(const void *buf, size_t len, struct elfsym_table **out)
{
	Elf	*e;
	int	 r;

	*out = NULL;
	(void)elf_version(EV_CURRENT);
	/* libelf does not write to a read-only image. */
	if ((e = elf_memory((char *)(uintptr_t)buf, len)) == NULL)
		return (-ENOEXEC);
	r = elfsym_load_elf(e, -1, out);
	elf_end(e);
	return (r);
}

int
elfsym_add_debug_fd(struct elfsym_table *t, int fd)
{
	struct elfsym_table	 probe;
	struct elfsym_build	 b;
	Elf			*e;
	int			 r;

	(void)elf_version(EV_CURRENT);
	if ((r = elfsym_materialize(t)) != 0)
		return (r);
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		return (-ENOEXEC);
	/* Check the build-id before merging anything. */
	memset(&probe, 0, sizeof(probe));
	if (elf_kind(e) == ELF_K_ELF) {
		Elf_Scn		*scn = NULL;
		GElf_Shdr	 sh;
		Elf_Data	*d;

		while ((scn = elf_nextscn(e, scn)) != NULL &&
		    probe.build_id_len == 0)
			if (gelf_getshdr(scn, &sh) != NULL &&
			    sh.sh_type == SHT_NOTE &&
			    (d = elf_getdata(scn, NULL)) != NULL)
				elfsym_read_note(&probe, d);
	}
	if (t->build_id_len != 0 && probe.build_id_len != 0 &&
	    (t->build_id_len != probe.build_id_len ||
	    memcmp(t->build_id, probe.build_id, t->build_id_len) != 0)) {
		elf_end(e);
		return (-ESTALE);
	}
	memset(&b, 0, sizeof(b));
	b.t = t;
	b.cap = t->nsyms;
	b.names_cap = t->names_len;
	r = elfsym_read_elf(&b, e, 1);
	elf_end(e);
	elfsym_finish(&b);
	return (r);
}

void
elfsym_free(struct elfsym_table *t)
{
	if (t == NULL)
		return;
	free(t->syms);
	free(t->attr);
	free(t->names);
	free(t->debuglink);
	if (t->fd >= 0)
		close(t->fd);
	if (t->dbg_fd >= 0)
		close(t->dbg_fd);
	free(t);
}

int
elfsym_file_to_vaddr(const struct elfsym_table *t, uint64_t off,
    uint64_t *vaddr)
{
	size_t	 i;

	for (i = 0; i < t->nsegs; i++) {
		if (off >= t->segs[i].off &&
		    off - t->segs[i].off < t->segs[i].filesz) {
			*vaddr = off - t->segs[i].off + t->segs[i].vaddr;
			return (0);
		}
	}
	return (-ENOENT);
}

/* Nested symbols: look a few entries back for one that still covers. */
#define ELFSYM_LOOKBACK	8

const char *
elfsym_lookup(const struct elfsym_table *t, uint64_t vaddr, size_t *idx)
{
	long	 i = elfsym_find(t, vaddr);

	if (i < 0 || t->names == NULL)
		return (NULL);
	if (idx != NULL)
		*idx = (size_t)i;
	return (t->names + t->syms[i].name);
}

const char *
elfsym_name(const struct elfsym_table *t, size_t idx, char *buf, size_t len)
{
	uint64_t	 src, off;
	ssize_t		 n;

	if (idx >= t->nsyms || len == 0)
		return (NULL);
	if (t->names != NULL) {
		snprintf(buf, len, "%s", t->names + t->syms[idx].name);
		return (buf);
	}
	src = t->syms[idx].name >> 31;
	off = t->syms[idx].name & 0x7fffffffu;
	if (t->fd < 0 || off >= t->str_size[src])
		return (NULL);
	if (len - 1 > t->str_size[src] - off)
		len = (size_t)(t->str_size[src] - off) + 1;
	n = pread(src == 0 && t->dbg_fd >= 0 ? t->dbg_fd : t->fd, buf,
	    len - 1, (off_t)(t->str_off[src] + off));
	if (n <= 0)
		return (NULL);
	buf[n] = '\0';
	return (buf[0] != '\0' ? buf : NULL);
}

long
elfsym_find(const struct elfsym_table *t, uint64_t vaddr)
{
	size_t	 lo = 0, hi = t->nsyms, mid, i, k;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo, k = 0; i > 0 && k < ELFSYM_LOOKBACK; i--, k++) {
		if (vaddr - t->syms[i - 1].addr < t->syms[i - 1].size ||
		    vaddr == t->syms[i - 1].addr)
			return ((long)(i - 1));
	}
	return (-1);
}

void
elfsym_build_id_hex(const struct elfsym_table *t, char *buf, size_t len)
{
	static const char	 hex[] = "0123456789abcdef";
	size_t			 i;

	if (len == 0)
		return;
	for (i = 0; i < t->build_id_len && 2 * i + 2 < len; i++) {
		buf[2 * i] = hex[t->build_id[i] >> 4];
		buf[2 * i + 1] = hex[t->build_id[i] & 0xf];
	}
	buf[2 * i] = '\0';
}

size_t
elfsym_bytes(const struct elfsym_table *t)
{
	return (sizeof(*t) + t->nsyms * (sizeof(*t->syms) + 1) +
	    (t->names != NULL ? t->names_len : 0));
}
