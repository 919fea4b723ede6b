/*
 * ELF symbol tables.  The ELF is untrusted (a binary may be truncated,
 * corrupt or hostile): it is read through plugins/common/elf's bounded
 * reader (pread within the file, never mmap, so a file truncated under
 * us reads short instead of raising SIGBUS; a budget per file), and
 * every index and string here is checked before use.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfread.h"
#include "elfsym.h"
#include "elfsym_int.h"
#include "sorted.h"

#define NAME_MAX_LEN	4096

/*
 * A symbol whose name is already placed: name is its offset in names, or
 * for a lazy table (string section << 31 | offset in the file).
 */
int
elfsym_push_at(struct elfsym_build *b, uint64_t addr, uint64_t size,
    uint32_t name, uint8_t attr)
{
	struct elfsym_table *t = b->t;
	struct elfsym_sym *v;
	size_t ncap;
	uint8_t *a;

	if (t->nsyms >= ELFSYM_MAX_SYMS) {
		t->dropped++;
		return (0);
	}
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
	v = &t->syms[t->nsyms++];
	v->addr = addr;
	v->size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	v->name = name;
	return (0);
}

/* A symbol and its name: copied, or when lazy st_name in the file. */
int
elfsym_push(struct elfsym_build *b, uint64_t addr, uint64_t size,
    const char *name, size_t st_name, uint8_t attr)
{
	struct elfsym_table *t = b->t;
	size_t len, ncap, off;
	char *p;

	if (t->nsyms >= ELFSYM_MAX_SYMS) {
		t->dropped++;
		return (0);
	}
	if (b->lazy) {
		if (st_name > 0x7fffffffu || st_name >= t->str_size[b->src])
			return (0);	/* not addressable in the file */
		return (elfsym_push_at(b, addr, size,
		    (uint32_t)((size_t)b->src << 31 | st_name), attr));
	}
	len = strnlen(name, NAME_MAX_LEN);
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
	off = t->names_len;
	t->names_len += len + 1;
	return (elfsym_push_at(b, addr, size, (uint32_t)off, attr));
}

void
elfsym_read_note(struct elfsym_table *t, const uint8_t *p, size_t len)
{
	size_t n;

	/* the plugins' one note parser (plugins/common/elf) */
	if ((n = elfread_note_build_id(p, len, t->build_id,
	    ELFSYM_BUILD_ID_MAX)) > 0)
		t->build_id_len = n;
}

void
elfsym_read_debuglink(struct elfsym_table *t, const char *p, size_t size)
{
	size_t len;

	if (size < 2 || t->debuglink != NULL)
		return;
	len = strnlen(p, size);
	if (len == 0 || len == size || memchr(p, '/', len))
		return;
	t->debuglink = strndup(p, len);
}

/*
 * Whether the program interpreter is musl's loader: what "libc" says of
 * a dynamic Go binary (gProfiler looks for an ld-musl mapping, which a
 * distribution that links the loader to its libc.so does not show).
 */
static void
elfsym_read_interp(struct elfsym_table *t, struct elfread *le,
    const Elf64_Phdr *ph)
{
	char buf[4096];

	if (ph->p_filesz == 0 || ph->p_filesz > sizeof(buf) ||
	    elfread_read_at(le, ph->p_offset, buf, (size_t)ph->p_filesz) != 0)
		return;
	t->interp_musl = memmem(buf, (size_t)ph->p_filesz, "ld-musl", 7) !=
	    NULL;
}

void
elfsym_read_segments(struct elfsym_table *t, struct elfread *le)
{
	const Elf64_Phdr *ph;
	size_t i;

	for (i = 0; i < le->nph; i++) {
		ph = &le->ph[i];
		if (ph->p_type == PT_DYNAMIC)
			t->dynamic = 1;	/* gProfiler's "link": dynamic */
		if (ph->p_type == PT_INTERP)
			elfsym_read_interp(t, le, ph);
		if (ph->p_type != PT_LOAD || t->nsegs == ELFSYM_MAX_SEGS)
			continue;
		t->segs[t->nsegs].vaddr = ph->p_vaddr;
		t->segs[t->nsegs].off = ph->p_offset;
		t->segs[t->nsegs].filesz = ph->p_filesz;
		t->nsegs++;
	}
}

/* A load in one step. */
static int
elfsym_load_all(struct elfread *le, int fd, uint64_t size, int lazy,
    struct elfsym_table **out)
{
	struct elfsym_load l;
	int r;

	*out = NULL;
	if ((r = elfsym_load_init(&l, le, 0, fd, size, lazy, NULL)) == 0)
		while ((r = elfsym_load_run(&l, SIZE_MAX)) == 1)
			;
	if (r == 0 && l.b.lazy &&
	    (l.b.t->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
		r = -errno;
	if (r == 0) {
		*out = l.b.t;
		l.b.t = NULL;
	}
	elfsym_load_fini(&l);
	return (r);
}

/* A file's table in one go: the stepped load without a budget. */
static int
elfsym_load_fd_mode(int fd, int lazy, struct elfsym_table **out)
{
	struct elfsym_load *l;
	int r;

	*out = NULL;
	if ((r = elfsym_load_begin(fd, lazy, &l)) != 0)
		return (r);
	while ((r = elfsym_load_step(l, SIZE_MAX, out)) == 1)
		;
	elfsym_load_free(l);
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
	char *str[ELFSYM_NSTR] = { NULL, NULL }, *names = NULL, *p;
	size_t i, len, cap = 0, nlen = 0, src, off;
	int plt, r = -ENOMEM;

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
		/* a PLT stub's "@plt", added when read (elfsym_name); off 0,
		 * the empty name, is an IRELATIVE stub: "@plt" alone */
		plt = t->attr != NULL && (t->attr[i] & ELFSYM_A_PLT);
		if (plt && off == 0)
			len = 0;
		if (nlen + len + sizeof("@plt") > cap) {
			cap = cap ? cap * 2 : 4096;
			while (cap < nlen + len + sizeof("@plt"))
				cap *= 2;
			if (cap > UINT32_MAX || (p = realloc(names, cap)) == NULL)
				goto out;
			names = p;
		}
		if (len > 0)
			memcpy(names + nlen, str[src] + off, len);
		if (plt) {
			memcpy(names + nlen + len, "@plt", sizeof("@plt") - 1);
			len += sizeof("@plt") - 1;
		}
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
	struct elfread *le;
	int r;

	*out = NULL;
	if ((r = elfread_open_mem(buf, len, ELFSYM_READ_BYTES,
	    ELFSYM_READ_CALLS, &le)) != 0)
		return (r == -EBADMSG ? -ENOEXEC : r);
	r = elfsym_load_all(le, -1, len, 0, out);
	(void)elfread_free(le);
	return (r);
}

/* The build-id of a file about to be merged (its notes). */
static void
elfsym_probe_build_id(struct elfread *le, struct elfsym_table *probe)
{
	size_t n;

	if ((n = elfread_build_id(le, probe->build_id,
	    ELFSYM_BUILD_ID_MAX)) > 0)
		probe->build_id_len = n;
}

int
elfsym_add_debug_fd(struct elfsym_table *t, int fd)
{
	struct elfsym_table probe;
	struct elfsym_load l;
	struct elfread *le;
	int r;

	if ((r = elfsym_materialize(t)) != 0)
		return (r);
	if ((r = elfread_open_fd(fd, ELFSYM_READ_BYTES, ELFSYM_READ_CALLS,
	    &le)) != 0)
		return (r == -EBADMSG ? -ENOEXEC : r);
	/* Check the build-id before merging anything. */
	memset(&probe, 0, sizeof(probe));
	elfsym_probe_build_id(le, &probe);
	if (t->build_id_len != 0 && probe.build_id_len != 0 &&
	    (t->build_id_len != probe.build_id_len ||
	    memcmp(t->build_id, probe.build_id, t->build_id_len) != 0)) {
		(void)elfread_free(le);
		return (-ESTALE);
	}
	/* Its symbols merged, and the whole table sorted again; after a
	 * failure, what was merged (the table stays usable). */
	if ((r = elfsym_load_init(&l, le, 0, fd, le->size, 0, t)) == 0)
		while ((r = elfsym_load_run(&l, SIZE_MAX)) == 1)
			;
	if (r != 0) {
		elfsym_sort_free(&l.sort);
		elfsym_sort_begin(&l.sort);
		(void)elfsym_sort_step(&l.sort, &l.b, SIZE_MAX);
	}
	elfsym_load_fini(&l);
	(void)elfread_free(le);
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
	size_t i;

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
	long i = elfsym_find(t, vaddr);

	if (i < 0 || t->names == NULL)
		return (NULL);
	if (idx != NULL)
		*idx = (size_t)i;
	return (t->names + t->syms[i].name);
}

const char *
elfsym_name(const struct elfsym_table *t, size_t idx, char *buf, size_t len)
{
	uint64_t src, off;
	size_t want;
	ssize_t n;

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
	/* no further than the table's end (the last name of .dynstr; its
	 * stub's "@plt" still has buf's room) */
	want = len - 1;
	if (want > t->str_size[src] - off)
		want = (size_t)(t->str_size[src] - off);
	n = pread(t->fd, buf, want, (off_t)(t->str_off[src] + off));
	if (n <= 0)
		return (NULL);
	buf[n] = '\0';
	if (t->attr != NULL && (t->attr[idx] & ELFSYM_A_PLT)) {
		/* off 0 is the empty name: an IRELATIVE stub */
		n = (ssize_t)strnlen(buf, len - 1);
		if (off == 0)
			n = 0;
		if ((size_t)n + sizeof("@plt") > len)
			return (NULL);
		memcpy(buf + n, "@plt", sizeof("@plt"));
		return (buf);
	}
	return (buf[0] != '\0' ? buf : NULL);
}

long
elfsym_find(const struct elfsym_table *t, uint64_t vaddr)
{
	size_t lo, i, k;

	lo = sorted_upper(t->syms, t->nsyms, sizeof(*t->syms),
	    offsetof(struct elfsym_sym, addr), vaddr);
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
	static const char hex[] = "0123456789abcdef";
	size_t i;

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
