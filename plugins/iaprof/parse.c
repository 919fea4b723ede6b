/*
 * The iaprof stdout stream parser (docs/specs/iaprof.md §4, §5).  Lines are cut
 * out of arbitrary chunks (iaprof writes 4 KiB stdio buffers that split
 * lines anywhere), each record is checked exactly as the reference parser
 * checks it, and `eustall` samples are summed per (pid, folded stack).
 * Nothing here does I/O: the plugin feeds bytes and takes the counts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "stacks.h"
#include "strtab.h"

#define FIELDS_MAX	14	/* one more than the widest record */
#define NSTALLS		10

struct field {
	const char *s;
	size_t n;
};

struct iaprof_parser {
	struct iaprof_limits lim;
	iaprof_tick_cb on_tick;
	void *arg;
	struct strtab *strs;
	struct stacks *stacks;

	/* The line being reassembled across feeds. */
	char *line;
	size_t linelen, linecap;
	int overlong;	/* past max_line: discarding */

	/* The current kernel: its pid and frames joined by ';'. */
	int have_kernel;
	int32_t kpid;
	char *kframes;
	size_t kframeslen, kframescap;
	uint32_t kprefix;	/* interned lazily */

	char *scratch;	/* UTF-8 repair */
	size_t scratchcap;

	uint64_t malformed, dropped, ticks;
	unsigned nkept;
	char kept[IAPROF_MALFORMED_KEEP]
				     [IAPROF_MALFORMED_LEN * 3 + 1];
};

void
iaprof_limits_default(struct iaprof_limits *l)
{
	l->max_line = 1024 * 1024;
	l->max_strings = 1024 * 1024;
	l->max_string_bytes = 64 * 1024 * 1024;
	l->max_stacks = 128 * 1024;	/* keys of up to 10 stacks each */
	l->max_stack_bytes = 64 * 1024 * 1024;
}

struct iaprof_parser *
iaprof_parser_new(const struct iaprof_limits *lim, iaprof_tick_cb on_tick,
    void *arg)
{
	struct iaprof_parser *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (NULL);
	if (lim != NULL)
		p->lim = *lim;
	else
		iaprof_limits_default(&p->lim);
	p->on_tick = on_tick;
	p->arg = arg;
	p->kprefix = STACKS_NONE;
	p->strs = strtab_new(p->lim.max_strings, p->lim.max_string_bytes);
	p->stacks = stacks_new(p->lim.max_stacks, p->lim.max_stack_bytes);
	if (p->strs == NULL || p->stacks == NULL) {
		iaprof_parser_free(p);
		return (NULL);
	}
	return (p);
}

void
iaprof_parser_free(struct iaprof_parser *p)
{
	if (p == NULL)
		return;
	strtab_free(p->strs);
	stacks_free(p->stacks);
	free(p->line);
	free(p->kframes);
	free(p->scratch);
	free(p);
}

/* Grow *buf to hold need bytes; -ENOMEM leaves it as it was. */
static int
buf_reserve(char **buf, size_t *cap, size_t need)
{
	size_t nc = *cap == 0 ? 256 : *cap;
	char *nb;

	if (need <= *cap)
		return (0);
	while (nc < need)
		nc *= 2;
	if ((nb = realloc(*buf, nc)) == NULL)
		return (-ENOMEM);
	*buf = nb;
	*cap = nc;
	return (0);
}

/* Count a malformed line and keep the first few for the warning. */
static void
parse_malformed(struct iaprof_parser *p, const char *s, size_t n)
{
	p->malformed++;
	if (p->nkept >= IAPROF_MALFORMED_KEEP)
		return;
	if (n > IAPROF_MALFORMED_LEN)
		n = IAPROF_MALFORMED_LEN;
	iaprof_utf8_sanitize(p->kept[p->nkept++], s, n);
}

/* Split on TAB into at most max fields (the last keeps the rest). */
static unsigned
parse_split(const char *s, size_t n, struct field *f, unsigned max)
{
	const char *end = s + n, *c;
	unsigned nf = 0;

	/* Fields are short: a plain loop beats a memchr() call each. */
	for (;;) {
		f[nf].s = s;
		if (nf + 1 == max) {
			f[nf++].n = (size_t)(end - s);
			return (nf);
		}
		for (c = s; c < end && *c != '\t'; c++)
			;
		f[nf++].n = (size_t)(c - s);
		if (c == end)
			return (nf);
		s = c + 1;
	}
}

/* A string id field: 0 (none) or a defined id.  -1 if neither. */
static int
parse_ref(struct iaprof_parser *p, const struct field *f,
    const struct strtab_entry **ep)
{
	uint64_t id;
	int neg;

	*ep = NULL;
	if (iaprof_parse_int(f->s, f->n, 0, &neg, &id) != 0)
		return (-1);
	if (id == 0)
		return (0);
	if (neg || (*ep = strtab_get(p->strs, id)) == NULL)
		return (-1);
	return (0);
}

/* Append one frame to the current kernel's joined frames. */
static int
kernel_frame(struct iaprof_parser *p, const char *s, size_t n,
    const char *suffix)
{
	size_t sl = strlen(suffix);

	if (buf_reserve(&p->kframes, &p->kframescap,
	    p->kframeslen + n + sl + 2) != 0)
		return (-ENOMEM);
	if (p->kframeslen > 0)
		p->kframes[p->kframeslen++] = ';';
	memcpy(p->kframes + p->kframeslen, s, n);
	memcpy(p->kframes + p->kframeslen + n, suffix, sl);
	p->kframeslen += n + sl;
	return (0);
}

/* clean(x) or "[unknown]", plus a suffix. */
static int
kernel_named(struct iaprof_parser *p, const struct strtab_entry *e,
    const char *suffix)
{
	if (e == NULL || e->cleanlen == 0)
		return (kernel_frame(p, "[unknown]", 9, suffix));
	return (kernel_frame(p, e->clean, e->cleanlen, suffix));
}

/* The CPU stack: split the raw text on ';', drop empty pieces. */
static int
kernel_cpu_stack(struct iaprof_parser *p, const struct strtab_entry *e)
{
	const char *s, *end, *semi;
	size_t start, n;

	if (e == NULL)
		return (0);
	for (s = e->raw, end = e->raw + e->rawlen; s < end; s = semi + 1) {
		if ((semi = memchr(s, ';', (size_t)(end - s))) == NULL)
			semi = end;
		if (semi == s)
			continue;
		n = iaprof_text_strip(s, (size_t)(semi - s), &start);
		if (n == 0 && kernel_frame(p, "[unknown]", 9, "") != 0)
			return (-ENOMEM);
		if (n > 0 && kernel_frame(p, s + start, n, "") != 0)
			return (-ENOMEM);
	}
	return (0);
}

/*
 * Each record type's reader: 0, or -1 for a malformed line, which
 * parse_line reports (one place says what a malformed line costs).
 */
static int
parse_kernel(struct iaprof_parser *p, const char *s, size_t n)
{
	struct field f[FIELDS_MAX];
	const struct strtab_entry *comm, *stack, *file, *sym;
	uint64_t v;
	int neg;

	p->have_kernel = 0;
	p->kprefix = STACKS_NONE;
	if (parse_split(s, n, f, 8) != 7 ||
	    iaprof_parse_int(f[1].s, f[1].n, 1, &neg, &v) != 0 ||
	    iaprof_parse_int(f[3].s, f[3].n, 0, &neg, &v) != 0 ||
	    neg || v == 0 || v > INT32_MAX ||
	    parse_ref(p, &f[2], &comm) != 0 ||
	    parse_ref(p, &f[4], &stack) != 0 ||
	    parse_ref(p, &f[5], &file) != 0 ||
	    parse_ref(p, &f[6], &sym) != 0)
		return (-1);
	p->kframeslen = 0;
	if (kernel_named(p, comm, "") != 0 ||
	    kernel_cpu_stack(p, stack) != 0 ||
	    kernel_frame(p, "-", 1, "") != 0 ||
	    kernel_named(p, file, "_[G]") != 0 ||
	    kernel_named(p, sym, "_[G]") != 0)
		return (-1);
	p->kpid = (int32_t)v;
	p->have_kernel = 1;
	return (0);
}

/* Add one `eustall` line's counts to the current kernel. */
static void
eustall_add(struct iaprof_parser *p, const uint64_t *cnt, const char *insn,
    size_t insnlen, const struct field *off)
{
	uint64_t any = 0;
	unsigned i;

	for (i = 0; i < NSTALLS; i++)
		any |= cnt[i];
	if (any == 0)
		return;		/* nothing to count: no key either */
	if (p->kprefix == STACKS_NONE)
		p->kprefix = stacks_prefix(p->stacks, p->kpid, p->kframes,
		    p->kframeslen);
	if (p->kprefix != STACKS_NONE &&
	    stacks_add(p->stacks, p->kprefix, insn, insnlen, off->s, off->n,
	    cnt) == 0)
		return;
	for (i = 0; i < NSTALLS; i++)
		p->dropped += cnt[i];
}

static int
parse_eustall(struct iaprof_parser *p, const char *s, size_t n)
{
	struct field f[FIELDS_MAX];
	const struct strtab_entry *insn;
	uint64_t v, cnt[NSTALLS];
	unsigned i;
	int neg;

	if (!p->have_kernel || parse_split(s, n, f, 14) != 13 ||
	    iaprof_parse_int(f[1].s, f[1].n, 1, &neg, &v) != 0 ||
	    parse_ref(p, &f[2], &insn) != 0)
		return (-1);
	for (i = 0; i < NSTALLS; i++)
		if (iaprof_parse_int(f[3 + i].s, f[3 + i].n, 0, &neg,
		    &cnt[i]) != 0 || (neg && cnt[i] != 0))
			return (-1);
	if (insn == NULL)
		eustall_add(p, cnt, "[unknown]", 9, &f[1]);
	else
		eustall_add(p, cnt, insn->clean, insn->cleanlen, &f[1]);
	return (0);
}

static int
parse_interval(struct iaprof_parser *p, const char *s, size_t n)
{
	struct field f[FIELDS_MAX];
	uint64_t v;
	int neg;

	/* Even a bad `interval` ends the block's current kernel. */
	p->have_kernel = 0;
	p->kprefix = STACKS_NONE;
	if (parse_split(s, n, f, 4) != 3 ||
	    iaprof_parse_int(f[1].s, f[1].n, 0, &neg, &v) != 0 ||
	    iaprof_parse_float(f[2].s, f[2].n) != 0)
		return (-1);
	p->ticks++;
	if (p->on_tick != NULL)
		p->on_tick(p->arg, v);
	return (0);
}

static int
parse_string(struct iaprof_parser *p, const char *s, size_t n)
{
	struct field f[FIELDS_MAX];
	const char *text;
	uint64_t id;
	size_t len;
	int neg;

	if (parse_split(s, n, f, 3) != 3 ||
	    iaprof_parse_int(f[1].s, f[1].n, 0, &neg, &id) != 0 ||
	    neg || id == 0)
		return (-1);
	text = f[2].s;
	len = f[2].n;
	if (!iaprof_utf8_valid(text, len)) {
		if (buf_reserve(&p->scratch, &p->scratchcap, 3 * len + 1) != 0)
			return (-1);
		len = iaprof_utf8_sanitize(p->scratch, text, len);
		text = p->scratch;
	}
	return (strtab_set(p->strs, id, text, len) != 0 ? -1 : 0);
}

static int
parse_metric(struct iaprof_parser *p, const char *s, size_t n)
{
	struct field f[FIELDS_MAX];

	(void)p;
	return (parse_split(s, n, f, 4) != 3 ||
	    iaprof_parse_float(f[2].s, f[2].n) != 0 ? -1 : 0);
}

/* The record types, by the text before a line's first TAB. */
static const struct parse_record {
	const char *type;
	size_t len;
	int (*parse)(struct iaprof_parser *, const char *, size_t);
} parse_records[] = {
	{ "eustall", 7, parse_eustall },
	{ "string", 6, parse_string },
	{ "kernel", 6, parse_kernel },
	{ "interval", 8, parse_interval },
	{ "metric", 6, parse_metric },
};

/* Whether the record type (the text before the first TAB) is word. */
static int
parse_type_is(const char *s, size_t n, const char *word, size_t wl)
{
	return ((n == wl || (n > wl && s[wl] == '\t')) &&
	    memcmp(s, word, wl) == 0);
}

/* One line without its LF: an unknown type is malformed too. */
static void
parse_line(struct iaprof_parser *p, const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return;
	for (i = 0; i < sizeof(parse_records) / sizeof(parse_records[0]);
	    i++) {
		if (parse_type_is(s, n, parse_records[i].type,
		    parse_records[i].len)) {
			if (parse_records[i].parse(p, s, n) != 0)
				parse_malformed(p, s, n);
			return;
		}
	}
	parse_malformed(p, s, n);
}

/* A line longer than max_line: malformed, but its type still counts. */
static void
parse_overlong(struct iaprof_parser *p, const char *s, size_t n)
{
	if (parse_type_is(s, n, "interval", 8) ||
	    parse_type_is(s, n, "kernel", 6)) {
		p->have_kernel = 0;
		p->kprefix = STACKS_NONE;
	}
	parse_malformed(p, s, n);
}

/* Keep the start of an unfinished line (at most max_line bytes). */
static void
parse_keep(struct iaprof_parser *p, const char *s, size_t n)
{
	size_t room;

	if (p->overlong)
		return;
	room = p->lim.max_line - p->linelen;
	if (n > room) {
		p->overlong = 1;
		n = room;
	}
	if (buf_reserve(&p->line, &p->linecap, p->linelen + n) != 0) {
		p->overlong = 1;
		return;
	}
	memcpy(p->line + p->linelen, s, n);
	p->linelen += n;
}

/* The kept line is complete. */
static void
parse_flush(struct iaprof_parser *p)
{
	if (p->overlong)
		parse_overlong(p, p->line, p->linelen);
	else
		parse_line(p, p->line, p->linelen);
	p->linelen = 0;
	p->overlong = 0;
}

void
iaprof_parser_feed(struct iaprof_parser *p, const char *buf, size_t len)
{
	const char *nl;
	size_t n;

	while (len > 0) {
		if ((nl = memchr(buf, '\n', len)) == NULL) {
			parse_keep(p, buf, len);
			return;
		}
		n = (size_t)(nl - buf);
		if (p->linelen == 0 && !p->overlong) {
			if (n > p->lim.max_line)
				parse_overlong(p, buf, n);
			else
				parse_line(p, buf, n);
		} else {
			parse_keep(p, buf, n);
			parse_flush(p);
		}
		buf = nl + 1;
		len -= n + 1;
	}
}

void
iaprof_parser_finish(struct iaprof_parser *p)
{
	if (p->linelen > 0 || p->overlong)
		parse_flush(p);
}

void
iaprof_parser_reset(struct iaprof_parser *p)
{
	strtab_clear(p->strs);
	stacks_clear(p->stacks);
	p->linelen = 0;
	p->overlong = 0;
	p->have_kernel = 0;
	p->kprefix = STACKS_NONE;
	p->malformed = p->dropped = p->ticks = 0;
	p->nkept = 0;
}

int
iaprof_parser_take(struct iaprof_parser *p, iaprof_stack_cb cb, void *arg)
{
	int rc = 0;

	if (cb != NULL)
		rc = stacks_foreach(p->stacks, cb, arg);
	stacks_clear(p->stacks);
	/* Prefix indexes died with the counts; the kernel stays current. */
	p->kprefix = STACKS_NONE;
	p->malformed = p->dropped = 0;
	p->nkept = 0;
	return (rc);
}

uint64_t
iaprof_parser_malformed(const struct iaprof_parser *p)
{
	return (p->malformed);
}

const char *
iaprof_parser_malformed_line(const struct iaprof_parser *p, unsigned i)
{
	return (i < p->nkept ? p->kept[i] : NULL);
}

uint64_t
iaprof_parser_dropped(const struct iaprof_parser *p)
{
	return (p->dropped);
}

uint64_t
iaprof_parser_ticks(const struct iaprof_parser *p)
{
	return (p->ticks);
}

uint32_t
iaprof_parser_nstacks(const struct iaprof_parser *p)
{
	return (stacks_count(p->stacks));
}

size_t
iaprof_parser_memory(const struct iaprof_parser *p)
{
	return (sizeof(*p) + p->linecap + p->kframescap + p->scratchcap +
	    strtab_memory(p->strs) + stacks_memory(p->stacks));
}
