/*
 * libbpf's messages and the kernel verifier's log, made fit for the
 * agent's log when the BPF sampler cannot load (see bpflog.h).  libbpf
 * hands the whole verifier log over as one message; the kernel's reason
 * for a refusal is its last lines, so those are what is kept.
 */
#include "config.h"

#include <linux/bpf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpflog.h"

#define BPFLOG_BEGIN	"-- BEGIN PROG LOAD LOG --"
#define BPFLOG_END	"-- END PROG LOAD LOG --"

/* Helper names by number, from the build's own UAPI header: its mapper
 * lists them in order (Linux 6.1's header puts commas between entries;
 * later ones pass each entry's number and no comma). */
#ifdef ___BPF_FUNC_MAPPER
#define BPFLOG_FN1(x, ...)	"bpf_" #x,
#else
#define BPFLOG_FN1(x, ...)	"bpf_" #x
#endif
#define BPFLOG_FN(...)		BPFLOG_FN1(__VA_ARGS__, 0)
static const char *const bpflog_helpers[] = {
	__BPF_FUNC_MAPPER(BPFLOG_FN)
};
#undef BPFLOG_FN
#undef BPFLOG_FN1

/* The release that added each helper the sampler calls past Linux 4.14. */
static const struct {
	const char *name;
	const char *since;
} bpflog_since[] = {
	{ "bpf_get_stack",		"4.18" },
	{ "bpf_get_current_cgroup_id",	"4.18" },
	{ "bpf_probe_read_kernel",	"5.5" },
	{ "bpf_probe_read_user",	"5.5" },
	{ "bpf_ringbuf_output",		"5.8" },
	{ "bpf_ringbuf_reserve",	"5.8" },
	{ "bpf_ringbuf_submit",		"5.8" },
	{ "bpf_ringbuf_query",		"5.8" },
	{ "bpf_get_task_stack",		"5.9" },
	{ "bpf_copy_from_user",		"5.10" },
	{ "bpf_get_current_task_btf",	"5.11" },
	{ "bpf_snprintf",		"5.13" },
	{ "bpf_task_pt_regs",		"5.15" },
	{ "bpf_find_vma",		"5.17" },
	{ "bpf_loop",			"5.17" },
};

/* The next line at *off: its start and length, without the newline. */
static int
bpflog_next(const char *msg, size_t len, size_t *off, const char **line,
    size_t *n)
{
	const char *nl;

	if (*off >= len)
		return (0);
	*line = msg + *off;
	nl = memchr(*line, '\n', len - *off);
	*n = nl != NULL ? (size_t)(nl - *line) : len - *off;
	*off += *n + (nl != NULL);
	return (1);
}

static int
bpflog_has(const char *line, size_t n, const char *what)
{
	return (memmem(line, n, what, strlen(what)) != NULL);
}

static void
bpflog_emit(const char *line, size_t n, size_t width,
    void (*emit)(void *, const char *, size_t), void *arg)
{
	size_t k;

	while (n > 0 && line[n - 1] == '\r')
		n--;
	for (; n > 0; line += k, n -= k) {
		k = n > width ? width : n;
		emit(arg, line, k);
	}
}

void
bpflog_lines(const char *msg, size_t len, size_t width, int keep,
    void (*emit)(void *, const char *, size_t), void *arg)
{
	const char *line;
	size_t off = 0, scan, n, total, skip = 0;
	char note[96];
	int in = 0;

	if (width == 0)
		width = BPFLOG_WIDTH;
	while (bpflog_next(msg, len, &off, &line, &n)) {
		if (in && bpflog_has(line, n, BPFLOG_END))
			in = 0;
		else if (in) {
			if (skip > 0 && n > 0) {
				skip--;
				continue;
			}
		} else if (bpflog_has(line, n, BPFLOG_BEGIN)) {
			bpflog_emit(line, n, width, emit, arg);
			/* count the log's lines, to keep its last KEEP */
			total = 0;
			for (scan = off; bpflog_next(msg, len, &scan, &line,
			    &n) && !bpflog_has(line, n, BPFLOG_END);)
				total += n > 0;
			skip = keep > 0 && total > (size_t)keep ?
			    total - (size_t)keep : 0;
			if (skip > 0) {
				n = (size_t)snprintf(note, sizeof(note),
				    "  ... (%zu earlier lines of the verifier's "
				    "log left out)", skip);
				bpflog_emit(note, n < sizeof(note) ? n :
				    sizeof(note) - 1, width, emit, arg);
			}
			in = 1;
			continue;
		}
		bpflog_emit(line, n, width, emit, arg);
	}
}

static size_t
bpflog_word(const char *p, const char *end)
{
	size_t n = 0;

	while (p + n < end && (p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') ||
	    (p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= '0' && p[n] <= '9')))
		n++;
	return (n);
}

int
bpflog_refused_helper(const char *msg, size_t len, char *name,
    size_t namelen)
{
	static const char *const pats[] = { "invalid func ", "unknown func " };
	const char *p, *q, *end = msg + len, *tok, *best = NULL;
	size_t i, plen, toklen, bestlen = 0;
	long id = -1, v;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		plen = strlen(pats[i]);
		for (p = msg; p < end && (p = memmem(p, (size_t)(end - p),
		    pats[i], plen)) != NULL; p += plen) {
			tok = p + plen;
			toklen = bpflog_word(tok, end);
			if (tok + toklen >= end || tok[toklen] != '#')
				continue;
			v = 0;
			for (q = tok + toklen + 1; q < end && *q >= '0' &&
			    *q <= '9' && v < 1000000; q++)
				v = v * 10 + (*q - '0');
			if (q == tok + toklen + 1 || (best != NULL && tok <= best))
				continue;
			best = tok;
			bestlen = toklen;
			id = v;
		}
	}
	if (best == NULL || namelen == 0)
		return ((int)id);
	/* the kernel names helpers past its own table "unknown" */
	if (bestlen > 0 && !(bestlen == 7 && memcmp(best, "unknown", 7) == 0))
		snprintf(name, namelen, "%.*s", (int)bestlen, best);
	else if ((size_t)id < sizeof(bpflog_helpers) / sizeof(bpflog_helpers[0]))
		snprintf(name, namelen, "%s", bpflog_helpers[id]);
	else
		snprintf(name, namelen, "helper #%ld", id);
	return ((int)id);
}

const char *
bpflog_helper_since(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(bpflog_since) / sizeof(bpflog_since[0]); i++)
		if (strcmp(bpflog_since[i].name, name) == 0)
			return (bpflog_since[i].since);
	return (NULL);
}
