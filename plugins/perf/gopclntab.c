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
	    gopclntab_get(p, len, f + 4 * ps, ps, &pcln) != 0)
		return (-EINVAL);
	if (funcname >= len || pcln >= len)
		return (-EINVAL);
	/* nfunc (entry, funcoff) pairs and the end of the last function. */
	esz = g->version >= 118 ? 8 : 2 * ps;
	tail = g->version >= 118 ? 4 : ps;
	if (len - pcln < tail || nfunc > (len - pcln - tail) / esz)
		return (-EINVAL);
	if (g->version >= 118 && text == 0)
		text = text_addr;
	g->p = p;
	g->len = len;
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
