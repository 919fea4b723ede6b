/*
 * ELF symbol tables loaded in slices (elfsym_load_begin/step/end): the
 * sections walked a symbol table slice at a time, lazy tables' strings and
 * symbols read by us in slices, the index sort as sorted chunks merged
 * pass by pass, a separate debug file merged the same way.  The one-shot
 * loads (elfsym_load_fd, elfsym_load_fd_lazy) are its steps run to the end.
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
