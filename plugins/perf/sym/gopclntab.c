/*
 * Go's .gopclntab function table: see gopclntab.h.  Every read goes
 * through gopclntab_get, which refuses anything past the buffer.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "gopclntab.h"

/* An unsigned little-endian field of n bytes at off; 0 or -1. */
static int
gopclntab_get(const uint8_t *p, size_t len, size_t off, unsigned n,
    uint64_t *v)
{
	unsigned	 i;

	if (off > len || n > len - off)
		return (-1);
	*v = 0;
	for (i = 0; i < n; i++)
		*v |= (uint64_t)p[off + i] << (8 * i);
	return (0);
}

int
gopclntab_open(struct gopclntab *g, const void *buf, size_t len,
    uint64_t text_addr)
{
	const uint8_t	*p = buf;
	uint64_t	 magic, nfunc, funcname, pcln, text = 0, esz, tail;
	uint64_t	 cutab, filetab, pctab;
	size_t		 ps, f;

	memset(g, 0, sizeof(*g));
	if (gopclntab_get(p, len, 0, 4, &magic) != 0)
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
	if (len < 8 || p[4] != 0 || p[5] != 0 ||
	    (p[6] != 1 && p[6] != 2 && p[6] != 4) ||
	    (p[7] != 4 && p[7] != 8))
		return (-EINVAL);
	ps = p[7];
	/* nfunc, nfiles, [textStart,] funcnameOffset, cu, file, pc, pcln */
	f = 8;
	if (gopclntab_get(p, len, f, ps, &nfunc) != 0)
		return (-EINVAL);
	f += 2 * ps;
	if (g->version >= 118) {
		if (gopclntab_get(p, len, f, ps, &text) != 0)
			return (-EINVAL);
		f += ps;
	}
	if (gopclntab_get(p, len, f, ps, &funcname) != 0 ||
	    gopclntab_get(p, len, f + ps, ps, &cutab) != 0 ||
	    gopclntab_get(p, len, f + 2 * ps, ps, &filetab) != 0 ||
	    gopclntab_get(p, len, f + 3 * ps, ps, &pctab) != 0 ||
	    gopclntab_get(p, len, f + 4 * ps, ps, &pcln) != 0)
		return (-EINVAL);
	if (funcname >= len || pcln >= len)
		return (-EINVAL);
	/* Only the line and inline reads use these: out of the buffer,
	 * they read nothing (gopclntab_get refuses). */
	g->cutab = cutab < len ? (size_t)cutab : len;
	g->filetab = filetab < len ? (size_t)filetab : len;
	g->pctab = pctab < len ? (size_t)pctab : len;
	g->minlc = p[6];
	/* nfunc (entry, funcoff) pairs and the end of the last function. */
	esz = g->version >= 118 ? 8 : 2 * ps;
	tail = g->version >= 118 ? 4 : ps;
	if (len - pcln < tail || nfunc > (len - pcln - tail) / esz)
		return (-EINVAL);
	if (g->version >= 118 && text == 0)
		text = text_addr;
	g->p = p;
	g->len = len;
	if (g->minlc == 0)
		g->minlc = 1;
	g->ptrsize = (unsigned)ps;
	g->nfunc = (size_t)nfunc;
	g->text_start = text;
	g->funcname = (size_t)funcname;
	g->pcln = (size_t)pcln;
	return (0);
}

/* Entry address of functab slot i (i == nfunc: the end of the last). */
static int
gopclntab_entry(const struct gopclntab *g, size_t i, uint64_t *entry)
{
	uint64_t	 v;

	if (g->version >= 118) {
		if (gopclntab_get(g->p, g->len, g->pcln + i * 8, 4, &v) != 0)
			return (-1);
		*entry = g->text_start + v;
		return (0);
	}
	return (gopclntab_get(g->p, g->len, g->pcln + i * 2 * g->ptrsize,
	    g->ptrsize, entry));
}

int
gopclntab_func(const struct gopclntab *g, size_t i, uint64_t *entry,
    uint64_t *end, const char **name, size_t *namelen)
{
	uint64_t	 funcoff, nameoff, fo, no;
	size_t		 fw, max;
	const uint8_t	*z;

	if (i >= g->nfunc || gopclntab_entry(g, i, entry) != 0 ||
	    gopclntab_entry(g, i + 1, end) != 0)
		return (-EINVAL);
	/* funcoff: after the entry in the pair, from the start of pclntab. */
	fw = g->version >= 118 ? 4 : g->ptrsize;
	if (gopclntab_get(g->p, g->len, g->pcln + i * 2 * fw + fw, fw,
	    &funcoff) != 0 || funcoff >= g->len - g->pcln)
		return (-EINVAL);
	/* _func: entry (uintptr; 1.18+ uint32 entryOff), then int32
	 * nameOff into funcnametab. */
	fo = g->pcln + funcoff + fw;
	if (gopclntab_get(g->p, g->len, (size_t)fo, 4, &nameoff) != 0 ||
	    (nameoff & 0x80000000u) != 0 || nameoff >= g->len - g->funcname)
		return (-EINVAL);
	no = g->funcname + nameoff;
	max = g->len - (size_t)no;
	if (max > GOPCLNTAB_NAME_MAX + 1)
		max = GOPCLNTAB_NAME_MAX + 1;
	if ((z = memchr(g->p + no, '\0', max)) == NULL)
		return (-EINVAL);
	*name = (const char *)g->p + no;
	*namelen = (size_t)(z - (g->p + no));
	return (0);
}

long
gopclntab_find(const struct gopclntab *g, uint64_t pc)
{
	size_t		 lo = 0, hi = g->nfunc, mid;
	uint64_t	 e, end;

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
	const uint8_t	*z;
	size_t		 no, max;

	if ((nameoff & 0x80000000u) != 0 || nameoff >= g->len - g->funcname)
		return (-EINVAL);
	no = g->funcname + nameoff;
	max = g->len - no;
	if (max > GOPCLNTAB_NAME_MAX + 1)
		max = GOPCLNTAB_NAME_MAX + 1;
	if ((z = memchr(g->p + no, '\0', max)) == NULL)
		return (-EINVAL);
	*name = (const char *)g->p + no;
	*namelen = (size_t)(z - (g->p + no));
	return (0);
}

/* PCDATA and FUNCDATA indexes (runtime/symtab.go, Go 1.16+). */
#define GOPCLNTAB_PCDATA_INLTREEINDEX	2
#define GOPCLNTAB_FUNCDATA_INLTREE	3

int
gopclntab_fn(const struct gopclntab *g, size_t i, struct gopclntab_fn *fn)
{
	uint64_t	 funcoff, v, npcdata, nfuncdata;
	size_t		 fw, fo, base, fixed, pcd, fd;

	memset(fn, 0, sizeof(*fn));
	if (i >= g->nfunc || gopclntab_entry(g, i, &fn->entry) != 0 ||
	    gopclntab_entry(g, i + 1, &fn->end) != 0)
		return (-EINVAL);
	fw = g->version >= 118 ? 4 : g->ptrsize;
	if (gopclntab_get(g->p, g->len, g->pcln + i * 2 * fw + fw, fw,
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
	if (gopclntab_get(g->p, g->len, fo, 4, &v) != 0)
		return (-EINVAL);
	fn->nameoff = (uint32_t)v;
	if (gopclntab_get(g->p, g->len, fo + 16, 4, &v) != 0)
		return (-EINVAL);
	fn->pcfile = (uint32_t)v;
	if (gopclntab_get(g->p, g->len, fo + 20, 4, &v) != 0)
		return (-EINVAL);
	fn->pcln = (uint32_t)v;
	if (gopclntab_get(g->p, g->len, fo + 24, 4, &npcdata) != 0 ||
	    gopclntab_get(g->p, g->len, fo + 28, 4, &v) != 0 ||
	    gopclntab_get(g->p, g->len, base + fixed - 1, 1, &nfuncdata) != 0)
		return (-EINVAL);
	fn->cuoff = (uint32_t)v;
	if (npcdata > (g->len - base) / 4)
		return (-EINVAL);
	pcd = base + fixed;
	if (npcdata > GOPCLNTAB_PCDATA_INLTREEINDEX) {
		if (gopclntab_get(g->p, g->len, pcd +
		    4 * GOPCLNTAB_PCDATA_INLTREEINDEX, 4, &v) != 0)
			return (-EINVAL);
		fn->pcinl = (uint32_t)v;
	}
	fd = pcd + 4 * (size_t)npcdata;
	if (nfuncdata <= GOPCLNTAB_FUNCDATA_INLTREE || fn->pcinl == 0)
		return (0);
	if (g->version >= 118) {
		if (gopclntab_get(g->p, g->len, fd +
		    4 * GOPCLNTAB_FUNCDATA_INLTREE, 4, &v) != 0)
			return (-EINVAL);
		fn->has_inltree = v != 0xffffffffu;
	} else {
		if (g->ptrsize == 8 && (fd & 4) != 0)
			fd += 4;
		if (gopclntab_get(g->p, g->len, fd + (size_t)g->ptrsize *
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
	size_t	 n;
	unsigned shift = 0;

	*v = 0;
	for (n = 0; n < 5 && p + n < g->len; n++, shift += 7) {
		*v |= (uint32_t)(g->p[p + n] & 0x7f) << shift;
		if ((g->p[p + n] & 0x80) == 0)
			return (n + 1);
	}
	return (0);
}

int
gopclntab_pcnext(struct gopclntab_pciter *it, uint64_t *lo, uint64_t *hi,
    int32_t *val)
{
	const struct gopclntab	*g = it->g;
	uint32_t		 uv, pcd;
	size_t			 n;

	if (it->done)
		return (0);
	if (it->p >= g->len) {
		it->done = 1;
		return (-EINVAL);
	}
	/* A 0 value delta ends the table, except as the first step. */
	if (g->p[it->p] == 0 && it->pc != it->entry) {
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
	struct gopclntab_pciter	 it;
	uint64_t		 lo, hi;
	int32_t			 v;
	int			 r;

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
	size_t	 es = GOPCLNTAB_INL_SIZE(g), e;

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
	size_t		 n = 0;
	uint32_t	 no, ppc;
	int32_t		 ix, parent;
	int		 r;

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
	const uint8_t	*z;
	uint64_t	 fo;
	int32_t		 fileno;
	size_t		 at, max;
	int		 r;

	if ((r = gopclntab_pcvalue(g, fn->pcfile, fn->entry, pc,
	    &fileno)) != 0 ||
	    (r = gopclntab_pcvalue(g, fn->pcln, fn->entry, pc, line)) != 0)
		return (r);
	/* cutab[cuOffset + fileno]: the file's offset in filetab. */
	if (fileno < 0 || (uint64_t)fn->cuoff + (uint64_t)fileno >
	    (g->len - g->cutab) / 4 ||
	    gopclntab_get(g->p, g->len, g->cutab + 4 * ((size_t)fn->cuoff +
	    (size_t)fileno), 4, &fo) != 0 || fo == 0xffffffffu ||
	    fo >= g->len - g->filetab)
		return (-EINVAL);
	at = g->filetab + (size_t)fo;
	max = g->len - at;
	if (max > GOPCLNTAB_NAME_MAX + 1)
		max = GOPCLNTAB_NAME_MAX + 1;
	if ((z = memchr(g->p + at, '\0', max)) == NULL)
		return (-EINVAL);
	*file = (const char *)g->p + at;
	*flen = (size_t)(z - (g->p + at));
	return (0);
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
