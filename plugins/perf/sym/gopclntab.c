/*
 * Go's .gopclntab function table: see gopclntab.h.  Every read goes
 * through gopclntab_at, which refuses anything past the table, from the
 * caller's buffer or, read in place, from a window of the file.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gopclntab.h"

int
gopclntab_src_init(struct gopclntab_src *src,
    int (*read)(void *, uint64_t, void *, size_t), void *arg, size_t len)
{
	unsigned i;

	memset(src, 0, sizeof(*src));
	if ((src->mem = malloc(GOPCLNTAB_NWIN * GOPCLNTAB_WIN)) == NULL)
		return (-ENOMEM);
	for (i = 0; i < GOPCLNTAB_NWIN; i++)
		src->w[i].buf = src->mem + i * GOPCLNTAB_WIN;
	src->read = read;
	src->arg = arg;
	/* A real table's readers go through it twice, mostly in order:
	 * containerd's 12 MB read 1.7 windows' worth a window (a hostile
	 * one whose records jump around, one a function). */
	src->max_fills = 6 * ((uint64_t)len / GOPCLNTAB_WIN + 1) + 256;
	return (0);
}

void
gopclntab_src_free(struct gopclntab_src *src)
{
	free(src->mem);
	memset(src, 0, sizeof(*src));
}

/* The window holding [off, off + n), read into the least recently used
 * one when none does; NULL when it cannot be read. */
static const uint8_t *
gopclntab_src_at(struct gopclntab_src *src, size_t tlen, size_t off,
    size_t n)
{
	unsigned i, lru = 0;
	size_t len;

	src->tick++;
	for (i = 0; i < GOPCLNTAB_NWIN; i++) {
		if (src->w[i].len != 0 && off >= src->w[i].off &&
		    off - src->w[i].off <= src->w[i].len - n &&
		    n <= src->w[i].len) {
			src->w[i].used = src->tick;
			return (src->w[i].buf + (off - src->w[i].off));
		}
		if (src->w[i].used < src->w[lru].used)
			lru = i;
	}
	if (n > GOPCLNTAB_WIN || src->fills >= src->max_fills)
		return (NULL);
	src->fills++;
	len = tlen - off < GOPCLNTAB_WIN ? tlen - off : GOPCLNTAB_WIN;
	src->w[lru].len = 0;
	if (src->read(src->arg, off, src->w[lru].buf, len) != 0) {
		src->max_fills = 0;	/* the file changed: no more */
		return (NULL);
	}
	src->w[lru].off = off;
	src->w[lru].len = len;
	src->w[lru].used = src->tick;
	return (src->w[lru].buf);
}

const uint8_t *
gopclntab_at(const struct gopclntab *g, size_t off, size_t n)
{
	if (off > g->len || n > g->len - off)
		return (NULL);
	if (g->p != NULL)
		return (g->p + off);
	if (g->src == NULL)
		return (NULL);
	return (gopclntab_src_at(g->src, g->len, off, n == 0 ? 1 : n));
}

/* An unsigned little-endian field of n bytes at off; 0 or -1. */
static int
gopclntab_get(const struct gopclntab *g, size_t off, unsigned n,
    uint64_t *v)
{
	const uint8_t *p = gopclntab_at(g, off, n);
	unsigned i;

	if (p == NULL)
		return (-1);
	*v = 0;
	for (i = 0; i < n; i++)
		*v |= (uint64_t)p[i] << (8 * i);
	return (0);
}

/* Text up to its NUL at off, at most GOPCLNTAB_NAME_MAX bytes. */
static int
gopclntab_text(const struct gopclntab *g, size_t off, const char **text,
    size_t *tlen)
{
	const uint8_t *p, *z;
	size_t max;

	if (off >= g->len)
		return (-EINVAL);
	max = g->len - off;
	if (max > GOPCLNTAB_NAME_MAX + 1)
		max = GOPCLNTAB_NAME_MAX + 1;
	if ((p = gopclntab_at(g, off, max)) == NULL ||
	    (z = memchr(p, '\0', max)) == NULL)
		return (-EINVAL);
	*text = (const char *)p;
	*tlen = (size_t)(z - p);
	return (0);
}

/* The header of g (its bytes and length set), checked. */
static int
gopclntab_header(struct gopclntab *g, uint64_t text_addr)
{
	const uint8_t *p;
	uint64_t magic, nfunc, funcname, pcln, text = 0, esz, tail;
	uint64_t cutab, filetab, pctab;
	size_t ps, f, len = g->len;

	if (gopclntab_get(g, 0, 4, &magic) != 0)
		return (-ENOEXEC);
	switch (magic) {
	case GOPCLNTAB_MAGIC_116:
		g->version = 116;
		break;
	case GOPCLNTAB_MAGIC_118:
		g->version = 118;
		break;
	case GOPCLNTAB_MAGIC_120:
		g->version = 120;
		break;
	default:
		return (-ENOEXEC);	/* Go 1.2-1.15, big-endian, other */
	}
	if ((p = gopclntab_at(g, 0, 8)) == NULL || p[4] != 0 || p[5] != 0 ||
	    (p[6] != 1 && p[6] != 2 && p[6] != 4) ||
	    (p[7] != 4 && p[7] != 8))
		return (-EINVAL);
	ps = p[7];
	g->minlc = p[6];
	/* nfunc, nfiles, [textStart,] funcnameOffset, cu, file, pc, pcln */
	f = 8;
	if (gopclntab_get(g, f, ps, &nfunc) != 0)
		return (-EINVAL);
	f += 2 * ps;
	if (g->version >= 118) {
		if (gopclntab_get(g, f, ps, &text) != 0)
			return (-EINVAL);
		f += ps;
	}
	if (gopclntab_get(g, f, ps, &funcname) != 0 ||
	    gopclntab_get(g, f + ps, ps, &cutab) != 0 ||
	    gopclntab_get(g, f + 2 * ps, ps, &filetab) != 0 ||
	    gopclntab_get(g, f + 3 * ps, ps, &pctab) != 0 ||
	    gopclntab_get(g, f + 4 * ps, ps, &pcln) != 0)
		return (-EINVAL);
	if (funcname >= len || pcln >= len)
		return (-EINVAL);
	/* Only the line and inline reads use these: out of the table,
	 * they read nothing (gopclntab_at refuses). */
	g->cutab = cutab < len ? (size_t)cutab : len;
	g->filetab = filetab < len ? (size_t)filetab : len;
	g->pctab = pctab < len ? (size_t)pctab : len;
	/* nfunc (entry, funcoff) pairs and the end of the last function. */
	esz = g->version >= 118 ? 8 : 2 * ps;
	tail = g->version >= 118 ? 4 : ps;
	if (len - pcln < tail || nfunc > (len - pcln - tail) / esz)
		return (-EINVAL);
	if (g->version >= 118 && text == 0)
		text = text_addr;
	if (g->minlc == 0)
		g->minlc = 1;
	g->ptrsize = (unsigned)ps;
	g->nfunc = (size_t)nfunc;
	g->text_start = text;
	g->funcname = (size_t)funcname;
	g->pcln = (size_t)pcln;
	return (0);
}

int
gopclntab_open(struct gopclntab *g, const void *buf, size_t len,
    uint64_t text_addr)
{
	int r;

	memset(g, 0, sizeof(*g));
	g->p = buf;
	g->len = len;
	if (buf == NULL || (r = gopclntab_header(g, text_addr)) != 0) {
		memset(g, 0, sizeof(*g));
		return (buf == NULL ? -ENOEXEC : r);
	}
	return (0);
}

int
gopclntab_open_src(struct gopclntab *g, struct gopclntab_src *src,
    size_t len, uint64_t text_addr)
{
	int r;

	memset(g, 0, sizeof(*g));
	g->src = src;
	g->len = len;
	if ((r = gopclntab_header(g, text_addr)) != 0) {
		memset(g, 0, sizeof(*g));
		return (r);
	}
	return (0);
}

/* Entry address of functab slot i (i == nfunc: the end of the last). */
static int
gopclntab_entry(const struct gopclntab *g, size_t i, uint64_t *entry)
{
	uint64_t v;

	if (g->version >= 118) {
		if (gopclntab_get(g, g->pcln + i * 8, 4, &v) != 0)
			return (-1);
		*entry = g->text_start + v;
		return (0);
	}
	return (gopclntab_get(g, g->pcln + i * 2 * g->ptrsize,
	    g->ptrsize, entry));
}

int
gopclntab_func_off(const struct gopclntab *g, size_t i, uint64_t *entry,
    uint64_t *end, uint32_t *nameoffp)
{
	uint64_t funcoff, nameoff, fo;
	size_t fw;

	if (i >= g->nfunc || gopclntab_entry(g, i, entry) != 0 ||
	    gopclntab_entry(g, i + 1, end) != 0)
		return (-EINVAL);
	/* funcoff: after the entry in the pair, from the start of pclntab. */
	fw = g->version >= 118 ? 4 : g->ptrsize;
	if (gopclntab_get(g, g->pcln + i * 2 * fw + fw, fw,
	    &funcoff) != 0 || funcoff >= g->len - g->pcln)
		return (-EINVAL);
	/* _func: entry (uintptr; 1.18+ uint32 entryOff), then int32
	 * nameOff into funcnametab. */
	fo = g->pcln + funcoff + fw;
	if (gopclntab_get(g, (size_t)fo, 4, &nameoff) != 0 ||
	    (nameoff & 0x80000000u) != 0 || nameoff >= g->len - g->funcname)
		return (-EINVAL);
	*nameoffp = (uint32_t)nameoff;
	return (0);
}

int
gopclntab_func(const struct gopclntab *g, size_t i, uint64_t *entry,
    uint64_t *end, const char **name, size_t *namelen)
{
	uint32_t nameoff;

	if (gopclntab_func_off(g, i, entry, end, &nameoff) != 0)
		return (-EINVAL);
	return (gopclntab_name(g, nameoff, name, namelen));
}

long
gopclntab_find(const struct gopclntab *g, uint64_t pc)
{
	size_t lo = 0, hi = g->nfunc, mid;
	uint64_t e, end;

	/* The last slot whose entry is <= pc; unsorted bytes only make the
	 * answer wrong, and it is checked below. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (gopclntab_entry(g, mid, &e) != 0)
			return (-1);
		if (e <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || gopclntab_entry(g, lo - 1, &e) != 0 ||
	    gopclntab_entry(g, lo, &end) != 0 || pc < e || pc >= end)
		return (-1);
	return ((long)(lo - 1));
}

int
gopclntab_name(const struct gopclntab *g, uint32_t nameoff, const char **name,
    size_t *namelen)
{
	if ((nameoff & 0x80000000u) != 0 || nameoff >= g->len - g->funcname)
		return (-EINVAL);
	return (gopclntab_text(g, g->funcname + nameoff, name, namelen));
}

/* PCDATA and FUNCDATA indexes (runtime/symtab.go, Go 1.16+). */
#define GOPCLNTAB_PCDATA_INLTREEINDEX	2
#define GOPCLNTAB_FUNCDATA_INLTREE	3

int
gopclntab_fn(const struct gopclntab *g, size_t i, struct gopclntab_fn *fn)
{
	uint64_t funcoff, v, npcdata, nfuncdata;
	size_t fw, fo, base, fixed, pcd, fd;

	memset(fn, 0, sizeof(*fn));
	if (i >= g->nfunc || gopclntab_entry(g, i, &fn->entry) != 0 ||
	    gopclntab_entry(g, i + 1, &fn->end) != 0)
		return (-EINVAL);
	fw = g->version >= 118 ? 4 : g->ptrsize;
	if (gopclntab_get(g, g->pcln + i * 2 * fw + fw, fw,
	    &funcoff) != 0 || funcoff >= g->len - g->pcln)
		return (-EINVAL);
	/*
	 * _func: entry (1.18+ uint32 entryOff, before a uintptr), nameOff,
	 * args, deferreturn, pcsp, pcfile, pcln, npcdata, cuOffset, (1.20+
	 * startLine,) funcID, flag, pad, nfuncdata; then pcdata[npcdata]
	 * uint32 and funcdata[nfuncdata] (1.18+ uint32 gofunc offsets,
	 * before pointer-aligned addresses).
	 */
	base = g->pcln + (size_t)funcoff;
	fo = base + fw;
	fixed = fw + 32 + (g->version >= 120 ? 4 : 0) + 4;
	if (gopclntab_get(g, fo, 4, &v) != 0)
		return (-EINVAL);
	fn->nameoff = (uint32_t)v;
	if (gopclntab_get(g, fo + 16, 4, &v) != 0)
		return (-EINVAL);
	fn->pcfile = (uint32_t)v;
	if (gopclntab_get(g, fo + 20, 4, &v) != 0)
		return (-EINVAL);
	fn->pcln = (uint32_t)v;
	if (gopclntab_get(g, fo + 24, 4, &npcdata) != 0 ||
	    gopclntab_get(g, fo + 28, 4, &v) != 0 ||
	    gopclntab_get(g, base + fixed - 1, 1, &nfuncdata) != 0)
		return (-EINVAL);
	fn->cuoff = (uint32_t)v;
	if (npcdata > (g->len - base) / 4)
		return (-EINVAL);
	pcd = base + fixed;
	if (npcdata > GOPCLNTAB_PCDATA_INLTREEINDEX) {
		if (gopclntab_get(g, pcd +
		    4 * GOPCLNTAB_PCDATA_INLTREEINDEX, 4, &v) != 0)
			return (-EINVAL);
		fn->pcinl = (uint32_t)v;
	}
	fd = pcd + 4 * (size_t)npcdata;
	if (nfuncdata <= GOPCLNTAB_FUNCDATA_INLTREE || fn->pcinl == 0)
		return (0);
	if (g->version >= 118) {
		if (gopclntab_get(g, fd +
		    4 * GOPCLNTAB_FUNCDATA_INLTREE, 4, &v) != 0)
			return (-EINVAL);
		fn->has_inltree = v != 0xffffffffu;
	} else {
		if (g->ptrsize == 8 && (fd & 4) != 0)
			fd += 4;
		if (gopclntab_get(g, fd + (size_t)g->ptrsize *
		    GOPCLNTAB_FUNCDATA_INLTREE, g->ptrsize, &v) != 0)
			return (-EINVAL);
		fn->has_inltree = v != 0;
	}
	fn->inltree = v;
	return (0);
}

void
gopclntab_pcstart(struct gopclntab_pciter *it, const struct gopclntab *g,
    uint32_t off, uint64_t entry)
{
	memset(it, 0, sizeof(*it));
	it->g = g;
	it->entry = it->pc = entry;
	it->val = -1;
	/* Offset 0 is no table (the linker starts pctab with a 0 byte). */
	if (off == 0 || off >= g->len - g->pctab)
		it->done = 1;
	else
		it->p = g->pctab + off;
}

/* runtime.readvarint: at most 5 bytes (32 bits); 0 past the buffer. */
static size_t
gopclntab_varint(const struct gopclntab *g, size_t p, uint32_t *v)
{
	size_t n;
	unsigned shift = 0;

	const uint8_t *b;

	*v = 0;
	for (n = 0; n < 5 && (b = gopclntab_at(g, p + n, 1)) != NULL; n++,
	    shift += 7) {
		*v |= (uint32_t)(*b & 0x7f) << shift;
		if ((*b & 0x80) == 0)
			return (n + 1);
	}
	return (0);
}

int
gopclntab_pcnext(struct gopclntab_pciter *it, uint64_t *lo, uint64_t *hi,
    int32_t *val)
{
	const struct gopclntab *g = it->g;
	const uint8_t *b;
	uint32_t uv, pcd;
	size_t n;

	if (it->done)
		return (0);
	if ((b = gopclntab_at(g, it->p, 1)) == NULL) {
		it->done = 1;
		return (-EINVAL);
	}
	/* A 0 value delta ends the table, except as the first step. */
	if (*b == 0 && it->pc != it->entry) {
		it->done = 1;
		return (0);
	}
	if ((n = gopclntab_varint(g, it->p, &uv)) == 0)
		goto bad;
	it->p += n;
	if ((n = gopclntab_varint(g, it->p, &pcd)) == 0)
		goto bad;
	it->p += n;
	/* zigzag; wraps as Go's int32 does (hostile tables overflow) */
	it->val = (int32_t)((uint32_t)it->val + (-(uv & 1) ^ (uv >> 1)));
	*lo = it->pc;
	it->pc += (uint64_t)pcd * g->minlc;
	*hi = it->pc;
	*val = it->val;
	/* A 0 pc delta would not advance: each range is non-empty. */
	if (pcd == 0)
		goto bad;
	return (1);
bad:
	it->done = 1;
	return (-EINVAL);
}

int
gopclntab_pcvalue(const struct gopclntab *g, uint32_t off, uint64_t entry,
    uint64_t pc, int32_t *val)
{
	struct gopclntab_pciter it;
	uint64_t lo, hi;
	int32_t v;
	int r;

	gopclntab_pcstart(&it, g, off, entry);
	while ((r = gopclntab_pcnext(&it, &lo, &hi, &v)) == 1) {
		if (pc >= lo && pc < hi) {
			*val = v;
			return (0);
		}
	}
	return (r < 0 ? r : -ENOENT);
}

static uint32_t
gopclntab_u32(const uint8_t *p)
{
	return ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24);
}

int
gopclntab_inl_entry(const struct gopclntab *g, const uint8_t *tree,
    size_t len, int32_t ix, uint32_t *nameoff, int32_t *parent,
    uint32_t *parentpc)
{
	size_t es = GOPCLNTAB_INL_SIZE(g), e;

	if (ix < 0 || (size_t)ix >= GOPCLNTAB_INL_IDX_MAX ||
	    (size_t)ix >= len / es)
		return (-EINVAL);
	e = (size_t)ix * es;
	if (g->version >= 120) {
		/* funcID, pad[3], nameOff, parentPc, startLine */
		*nameoff = gopclntab_u32(tree + e + 4);
		*parentpc = gopclntab_u32(tree + e + 8);
		*parent = INT32_MIN;
	} else {
		/* parent int16, funcID, pad, file, line, func_, parentPc */
		*nameoff = gopclntab_u32(tree + e + 12);
		*parentpc = gopclntab_u32(tree + e + 16);
		*parent = (int16_t)((uint16_t)tree[e] |
		    (uint16_t)tree[e + 1] << 8);
		if (*parent < 0)
			*parent = -1;
	}
	return (0);
}

int
gopclntab_inline(const struct gopclntab *g, const struct gopclntab_fn *fn,
    const uint8_t *tree, size_t len, uint64_t pc, uint32_t *nameoffs,
    size_t max)
{
	size_t n = 0;
	uint32_t no, ppc;
	int32_t ix, parent;
	int r;

	if (fn->pcinl == 0 || !fn->has_inltree)
		return (0);
	if ((r = gopclntab_pcvalue(g, fn->pcinl, fn->entry, pc, &ix)) != 0)
		return (r == -ENOENT ? 0 : r);
	while (ix >= 0 && n < max && n < GOPCLNTAB_INL_DEPTH) {
		if (gopclntab_inl_entry(g, tree, len, ix, &no, &parent,
		    &ppc) != 0)
			return (-EINVAL);
		nameoffs[n++] = no;
		if (parent != INT32_MIN) {
			ix = parent;
			continue;
		}
		/* 1.20+: the parent is the inline index at the call site. */
		if ((r = gopclntab_pcvalue(g, fn->pcinl, fn->entry,
		    fn->entry + ppc, &ix)) != 0)
			return (r == -ENOENT ? (int)n : r);
	}
	return ((int)n);
}

int
gopclntab_line(const struct gopclntab *g, const struct gopclntab_fn *fn,
    uint64_t pc, const char **file, size_t *flen, int32_t *line)
{
	uint64_t fo;
	int32_t fileno;
	int r;

	if ((r = gopclntab_pcvalue(g, fn->pcfile, fn->entry, pc,
	    &fileno)) != 0 ||
	    (r = gopclntab_pcvalue(g, fn->pcln, fn->entry, pc, line)) != 0)
		return (r);
	/* cutab[cuOffset + fileno]: the file's offset in filetab. */
	if (fileno < 0 || (uint64_t)fn->cuoff + (uint64_t)fileno >
	    (g->len - g->cutab) / 4 ||
	    gopclntab_get(g, g->cutab + 4 * ((size_t)fn->cuoff +
	    (size_t)fileno), 4, &fo) != 0 || fo == 0xffffffffu ||
	    fo >= g->len - g->filetab)
		return (-EINVAL);
	return (gopclntab_text(g, g->filetab + (size_t)fo, file, flen));
}

const char *
gopclntab_version(const struct gopclntab *g)
{
	switch (g->version) {
	case 116:
		return ("1.16-1.17");
	case 118:
		return ("1.18-1.19");
	case 120:
		return ("1.20+");
	}
	return ("?");
}
