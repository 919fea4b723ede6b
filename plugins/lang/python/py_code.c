/*
 * Code objects of one target, decoded once and cached by address
 * (docs/specs/cpython.md §9, §12): name (qualified from 3.11), file, first line
 * and line table, read in three batched remote reads.  Addresses are reused
 * after a code object dies, so the owner clears the cache every cycle.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash64.h"
#include "pyreader.h"

#define PY_CODE_SLOTS	4096	/* at most; power of two */
/*
 * At most this many bytes of names, files, line tables and frame texts
 * per process: a process whose 4096 code objects each claim a 256 KiB line
 * table would otherwise hold 1 GiB of the agent's memory until the cycle
 * ends.  Over it the cache starts over, as when its slots are full.
 */
#define PY_CODE_BYTES	(8u << 20)
#define PY_CODE_FIRST	64	/* at first; doubled when 3/4 full */
#define PY_HDR_MAX	128	/* largest str/bytes header read */

/*
 * The table grows with the code objects seen: most processes found from
 * samples are idle ones sampled a few times (a few code objects), and a
 * full-size table (224 KiB, zeroed) for each was most of the plugin's
 * RSS (bench/plugin_cost.sh, case b).
 */
struct py_code_cache {
	struct py_code *slots;
	uint32_t nslots;	/* power of two */
	uint32_t used;
	size_t bytes;		/* held, against PY_CODE_BYTES */
	uint64_t code_type;	/* learned type pointer, when unknown */
	char *scratch;		/* a text over the budget, for a call */
	size_t scratchcap;
};

struct py_code_cache *
py_code_cache_new(void)
{
	struct py_code_cache *cc;

	if ((cc = calloc(1, sizeof(*cc))) == NULL)
		return (NULL);
	if ((cc->slots = calloc(PY_CODE_FIRST, sizeof(*cc->slots))) == NULL) {
		free(cc);
		return (NULL);
	}
	cc->nslots = PY_CODE_FIRST;
	return (cc);
}

static void
py_code_release(struct py_code *c)
{
	uint32_t i;

	free(c->name);
	free(c->file);
	free(c->linetable);
	for (i = 0; i < c->ntexts; i++)
		free(c->texts[i].text);
	free(c->texts);
	memset(c, 0, sizeof(*c));
}

void
py_code_cache_clear(struct py_code_cache *cc)
{
	uint32_t i;

	if (cc == NULL)
		return;
	for (i = 0; i < cc->nslots && cc->used > 0; i++)
		if (cc->slots[i].addr != 0) {
			py_code_release(&cc->slots[i]);
			cc->used--;
		}
	cc->used = 0;
	cc->bytes = 0;
}

/* What an entry holds; its frame texts count as they are made
 * (py_code_keep). */
static size_t
py_code_bytes(const struct py_code *c)
{
	return (strlen(c->name) + strlen(c->file) + c->linetable_len + 64);
}

size_t
py_code_cache_bytes(const struct py_code_cache *cc)
{
	return (cc != NULL ? cc->bytes : 0);
}

void
py_code_cache_free(struct py_code_cache *cc)
{
	if (cc == NULL)
		return;
	py_code_cache_clear(cc);
	free(cc->slots);
	free(cc->scratch);
	free(cc);
}

/* The empty slot for addr (the table is never full: grown at 3/4). */
static struct py_code *
py_code_free_slot(struct py_code *slots, uint32_t nslots, uint64_t addr)
{
	uint32_t h = (uint32_t)hash64_fmix(addr), i;

	for (i = 0; i < nslots; i++)
		if (slots[(h + i) & (nslots - 1)].addr == 0)
			return (&slots[(h + i) & (nslots - 1)]);
	return (NULL);
}

/* Double the table; -ENOMEM leaves it as it was. */
static int
py_code_grow(struct py_code_cache *cc)
{
	uint32_t n = cc->nslots * 2, i;
	struct py_code *ns;

	if ((ns = calloc(n, sizeof(*ns))) == NULL)
		return (-ENOMEM);
	for (i = 0; i < cc->nslots; i++)
		if (cc->slots[i].addr != 0)
			*py_code_free_slot(ns, n, cc->slots[i].addr) =
			    cc->slots[i];
	free(cc->slots);
	cc->slots = ns;
	cc->nslots = n;
	return (0);
}

static char *
py_code_utf8(const uint8_t *data, size_t nbytes, int kind)
{
	size_t cap = nbytes / (size_t)kind * 4 + 1;
	char *s;

	if ((s = malloc(cap)) == NULL)
		return (NULL);
	py_str_to_utf8(data, nbytes, kind, s, cap);
	return (s);
}

/*
 * Decode the code object at addr into c (owned strings).  code_type: the
 * PyCode_Type address, or 0 when unknown (then the object must at least
 * have a plausible type pointer).
 */
static int
py_code_decode(struct py_mem *m, const struct py_offsets *o, uint64_t addr,
    uint64_t code_type, struct py_code *c)
{
	uint8_t co[4096], hname[PY_HDR_MAX], hfile[PY_HDR_MAX], hlt[40];
	uint8_t *name = NULL, *file = NULL, *lt = NULL;
	uint64_t pname, pfile, plt, dname, dfile, type;
	size_t nname, nfile, nlt, hsz = o->str_compact_size;
	struct py_iov iov[3];
	int rc, kname, kfile;
	uint32_t n;

	if (o->co_size > sizeof(co) || hsz > PY_HDR_MAX)
		return (-EINVAL);
	if ((rc = py_mem_read(m, addr, co, o->co_size)) != 0)
		return (rc);
	type = py_u64(co, o->ob_type);
	if (code_type != 0 ? type != code_type : !py_ptr_ok(type))
		return (-EINVAL);
	pname = py_u64(co, o->co_qualname >= 0 ? (uint32_t)o->co_qualname :
	    o->co_name);
	pfile = py_u64(co, o->co_filename);
	plt = py_u64(co, o->co_linetable);
	if (!py_ptr_ok(pname) || !py_ptr_ok(pfile) || !py_ptr_ok(plt))
		return (-EINVAL);
	iov[0] = (struct py_iov){ pname, hname, hsz };
	iov[1] = (struct py_iov){ pfile, hfile, hsz };
	iov[2] = (struct py_iov){ plt, hlt, sizeof(hlt) };
	if ((rc = py_mem_readv(m, iov, 3)) != 0)
		return (rc);
	if (py_str_decode(o, hname, hsz, pname, &dname, &nname, &kname) != 0 ||
	    py_str_decode(o, hfile, hsz, pfile, &dfile, &nfile, &kfile) != 0)
		return (-EINVAL);
	nlt = py_u64(hlt, o->bytes_size);
	if (nlt > PY_MAX_LINETABLE)
		nlt = 0;
	name = malloc(nname + 1);
	file = malloc(nfile + 1);
	lt = malloc(nlt + 1);
	rc = -ENOMEM;
	if (name == NULL || file == NULL || lt == NULL)
		goto out_free;
	n = 0;
	if (nname > 0)
		iov[n++] = (struct py_iov){ dname, name, nname };
	if (nfile > 0)
		iov[n++] = (struct py_iov){ dfile, file, nfile };
	if (nlt > 0)
		iov[n++] = (struct py_iov){ plt + o->bytes_sval, lt, nlt };
	if ((rc = py_mem_readv(m, iov, n)) != 0)
		goto out_free;
	rc = -ENOMEM;
	memset(c, 0, sizeof(*c));
	c->addr = addr;
	c->firstlineno = (int)py_u32(co, o->co_firstlineno);
	c->name = py_code_utf8(name, nname, kname);
	c->file = py_code_utf8(file, nfile, kfile);
	c->linetable = lt;
	c->linetable_len = (uint32_t)nlt;
	lt = NULL;
	if (c->name == NULL || c->file == NULL) {
		py_code_release(c);
		goto out_free;
	}
	rc = 0;
out_free:
	free(name);
	free(file);
	free(lt);
	return (rc);
}

/*
 * The decoded code object at addr, from the cache or the target.  *out
 * stays valid until the cache is cleared.  A full cache is cleared first:
 * callers hold *out only while formatting one sample.
 */
int
py_code_get(struct py_code_cache *cc, struct py_mem *m,
    const struct py_offsets *o, uint64_t code_type, uint64_t addr,
    struct py_code **out)
{
	struct py_code c, *s;
	uint32_t h, i;
	int rc;

	if (!py_ptr_ok(addr))
		return (-EINVAL);
	h = (uint32_t)hash64_fmix(addr);
	for (i = 0; i < cc->nslots; i++) {
		s = &cc->slots[(h + i) & (cc->nslots - 1)];
		if (s->addr == addr) {
			*out = s;
			return (0);
		}
		if (s->addr == 0)
			break;
	}
	if ((rc = py_code_decode(m, o, addr, code_type, &c)) != 0)
		return (rc);
	/* 3/4 full: grow while it may, else start over; over its bytes,
	 * start over too */
	if ((cc->used + 1 > cc->nslots / 4 * 3 && (cc->nslots >=
	    PY_CODE_SLOTS || py_code_grow(cc) != 0)) ||
	    cc->bytes + py_code_bytes(&c) > PY_CODE_BYTES)
		py_code_cache_clear(cc);
	if ((s = py_code_free_slot(cc->slots, cc->nslots, addr)) == NULL) {
		py_code_release(&c);
		return (-ENOSPC);
	}
	*s = c;
	cc->used++;
	cc->bytes += py_code_bytes(&c);
	*out = s;
	return (0);
}

/* The line being executed at position pos (f_lasti or instruction ptr). */
int
py_code_line(const struct py_offsets *o, const struct py_code *c, int64_t pos)
{
	int64_t base;

	switch (o->line_kind) {
	case PY_LINE_LNOTAB:
		return (py_line_lnotab(c->linetable, c->linetable_len,
		    c->firstlineno, (int)pos));
	case PY_LINE_310:
		return (py_line_310(c->linetable, c->linetable_len,
		    c->firstlineno, (int)pos));
	default:
		base = (int64_t)(c->addr + (uint64_t)o->co_code_adaptive);
		if (pos < base)
			return (c->firstlineno);
		return (py_line_pep657(c->linetable, c->linetable_len,
		    c->firstlineno, (pos - base) / 2));
	}
}

/* A text kept with c, -ENOMEM when there is no room for another. */
static int
py_code_keep(struct py_code_cache *cc, struct py_code *c, int64_t pos,
    const char *text, size_t len)
{
	struct py_code_text *nt, *e;
	char *dup;
	uint8_t cap;

	if (cc->bytes + len + 1 + sizeof(*e) > PY_CODE_BYTES)
		return (-ENOMEM);
	if (c->ntexts == c->textcap && c->textcap < PY_CODE_TEXTS) {
		cap = c->textcap ? 2 * c->textcap : 2;
		if ((nt = realloc(c->texts, cap * sizeof(*nt))) == NULL)
			return (-ENOMEM);
		c->texts = nt;
		c->textcap = cap;
		cc->bytes += (cap - c->ntexts) * sizeof(*nt);
	}
	if ((dup = malloc(len + 1)) == NULL)
		return (-ENOMEM);
	memcpy(dup, text, len + 1);
	if (c->ntexts < c->textcap)
		e = &c->texts[c->ntexts++];
	else {	/* full: the oldest goes (a hot loop's many positions) */
		e = &c->texts[c->textnext];
		c->textnext = (uint8_t)((c->textnext + 1) % c->textcap);
		free(e->text);
	}
	e->pos = pos;
	e->text = dup;
	cc->bytes += len + 1;
	return (0);
}

/*
 * c's frame text at pos ("name (file:line)_[p]"), or at its first line
 * for PY_TEXT_FIRST: made once per position and kept with c, so a sample
 * of frames seen before formats nothing (the callers' positions are their
 * call sites, the same at every sample; a leaf in a loop has a few).  The
 * text stays valid until the next call or the cache is cleared; NULL
 * without memory.
 */
const char *
py_code_text(struct py_code_cache *cc, const struct py_offsets *o,
    struct py_code *c, int64_t pos)
{
	size_t need;
	uint32_t i;
	char *ns;
	int len;

	for (i = 0; i < c->ntexts; i++)
		if (c->texts[i].pos == pos)
			return (c->texts[i].text);
	need = strlen(c->name) + strlen(c->file) + 32;
	if (need > cc->scratchcap) {
		if ((ns = realloc(cc->scratch, need)) == NULL)
			return (NULL);
		cc->scratch = ns;
		cc->scratchcap = need;
	}
	len = snprintf(cc->scratch, need, "%s (%s:%d)_[p]", c->name, c->file,
	    pos == PY_TEXT_FIRST ? c->firstlineno : py_code_line(o, c, pos));
	if (len < 0)
		return (NULL);
	/* over the budget: the text is made again next time */
	(void)py_code_keep(cc, c, pos, cc->scratch, (size_t)len);
	return (cc->scratch);
}
