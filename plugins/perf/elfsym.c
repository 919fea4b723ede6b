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

/* Add the function symbols of one SHT_SYMTAB/SHT_DYNSYM section. */
static int
elfsym_read_symbols(struct elfsym_build *b, Elf *e, Elf_Scn *scn,
    const GElf_Shdr *sh)
{
	Elf_Data	*d;
	GElf_Sym	 s;
	const char	*name;
	size_t		 i, n;
	int		 type, r;

	if ((d = elf_getdata(scn, NULL)) == NULL || sh->sh_entsize == 0)
		return (0);
	n = d->d_size / sh->sh_entsize;
	for (i = 1; i < n; i++) {
		if (gelf_getsym(d, (int)i, &s) == NULL)
			break;
		type = GELF_ST_TYPE(s.st_info);
		if (s.st_shndx == SHN_UNDEF || s.st_value == 0)
			continue;
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    !(type == STT_NOTYPE && elfsym_section_exec(e, s.st_shndx)))
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (name == NULL || name[0] == '\0' || name[0] == '$' ||
		    strncmp(name, ".L", 2) == 0)
			continue;
		if ((r = elfsym_push(b, s.st_value, s.st_size, name,
		    s.st_name, elfsym_attr(&s, sh->sh_type))) != 0)
			return (r);
	}
	return (0);
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

/* Walk the sections once: symbols, build-id note, .gnu_debuglink. */
static int
elfsym_read_elf(struct elfsym_build *b, Elf *e, int debug_file)
{
	struct elfsym_table	*t = b->t;
	Elf_Scn			*scn = NULL;
	GElf_Shdr		 sh;
	Elf_Data		*d;
	const char		*sname;
	size_t			 shstrndx, before;
	int			 r;

	if (elf_kind(e) != ELF_K_ELF)
		return (-ENOEXEC);
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		shstrndx = 0;
	if (!debug_file)
		elfsym_read_segments(t, e);
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
			before = t->nsyms;
			if (b->lazy) {
				Elf_Scn		*ss;
				GElf_Shdr	 ssh;

				b->src = sh.sh_type == SHT_DYNSYM;
				/* One of each kind, and names that lie in
				 * the file: a lazy name is read at the
				 * recorded offset much later. */
				if (t->str_size[b->src] != 0 ||
				    (ss = elf_getscn(e, sh.sh_link)) == NULL ||
				    gelf_getshdr(ss, &ssh) == NULL ||
				    ssh.sh_type != SHT_STRTAB ||
				    ssh.sh_offset > b->file_size ||
				    ssh.sh_size > b->file_size - ssh.sh_offset)
					continue;
				b->link[b->src] = sh.sh_link;
				t->str_off[b->src] = ssh.sh_offset;
				t->str_size[b->src] = ssh.sh_size;
			}
			if ((r = elfsym_read_symbols(b, e, scn, &sh)) != 0)
				return (r);
			if (sh.sh_type == SHT_SYMTAB && t->nsyms > before)
				t->has_symtab = 1;
		} else if (sh.sh_type == SHT_NOTE && t->build_id_len == 0 &&
		    !debug_file) {
			if ((d = elf_getdata(scn, NULL)) != NULL)
				elfsym_read_note(t, d);
		} else if (sh.sh_type == SHT_PROGBITS && shstrndx != 0 &&
		    !debug_file) {
			sname = elf_strptr(e, shstrndx, sh.sh_name);
			if (sname != NULL && strcmp(sname, ".gnu_debuglink") ==
			    0 && (d = elf_getdata(scn, NULL)) != NULL)
				elfsym_read_debuglink(t, d);
		}
	}
	return (0);
}

/*
 * Sort, keep the preferred symbol per address, give unsized symbols
 * (assembly) the room up to the next symbol, and trim the arrays.
 */
static void
elfsym_finish(struct elfsym_build *b)
{
	struct elfsym_table	*t = b->t;
	struct elfsym_sym	*v, *ns;
	uint32_t		*ix;
	uint8_t			*na;
	size_t			 i, o;
	uint64_t		 gap;
	char			*p;

	if (t->nsyms == 0)
		return;
	/* Sort indexes (the tie-break is the position in the table), then
	 * keep the first, preferred, symbol of each address. */
	ix = reallocarray(NULL, t->nsyms, sizeof(*ix));
	ns = reallocarray(NULL, t->nsyms, sizeof(*ns));
	na = malloc(t->nsyms);
	if (ix == NULL || ns == NULL || na == NULL) {
		free(ix);
		free(ns);
		free(na);
		t->dropped += t->nsyms;	/* unusable unsorted */
		t->nsyms = 0;
		return;
	}
	for (i = 0; i < t->nsyms; i++)
		ix[i] = (uint32_t)i;
	qsort_r(ix, t->nsyms, sizeof(*ix), elfsym_cmp, b);
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

static int
elfsym_load_fd_mode(int fd, int lazy, struct elfsym_table **out)
{
	Elf	*e;
	int	 r;

	*out = NULL;
	(void)elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		return (-ENOEXEC);
	r = elfsym_load_elf(e, lazy ? fd : -1, out);
	elf_end(e);
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
		if (pread(t->fd, str[i], t->str_size[i], (off_t)t->str_off[i])
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
	free(t->go_inl);
	free(t->go_chain);
	free(t->go_names);
	if (t->fd >= 0)
		close(t->fd);
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
	n = pread(t->fd, buf, len - 1, (off_t)(t->str_off[src] + off));
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
	    (t->names != NULL ? t->names_len : 0) +
	    t->go_ninl * sizeof(*t->go_inl) +
	    t->go_nchain * sizeof(*t->go_chain) + t->go_names_len);
}
