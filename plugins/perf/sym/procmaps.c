/*
 * /proc/PID/maps, /proc/PID/status and /proc/PID/stat parsers.  The input
 * is untrusted bytes without a terminating NUL: every read is bounded by the
 * line's end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "procmaps.h"
#include "procstat.h"
#include "sorted.h"

#define DELETED_TAG	" (deleted)"

struct cursor {
	const char *p;
	const char *end;
};

/* Parse hex digits; at least one, at most 16. */
static int
cursor_hex(struct cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0, d;

	while (c->p < c->end) {
		if (*c->p >= '0' && *c->p <= '9')
			d = *c->p - '0';
		else if (*c->p >= 'a' && *c->p <= 'f')
			d = *c->p - 'a' + 10;
		else if (*c->p >= 'A' && *c->p <= 'F')
			d = *c->p - 'A' + 10;
		else
			break;
		if (++n > 16)
			return (-1);
		v = v << 4 | (uint64_t)d;
		c->p++;
	}
	*out = v;
	return (n > 0 ? 0 : -1);
}

static int
cursor_dec(struct cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return (-1);
		v = v * 10 + (uint64_t)(*c->p - '0');
		c->p++;
		n++;
	}
	*out = v;
	return (n > 0 ? 0 : -1);
}

static int
cursor_char(struct cursor *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return (-1);
	c->p++;
	return (0);
}

/* Skip at least one blank. */
static int
cursor_blanks(struct cursor *c)
{
	const char *s = c->p;

	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
	return (c->p > s ? 0 : -1);
}

static int
procmaps_grow(struct procmaps *m, size_t *cap)
{
	struct procmaps_entry *v;
	size_t ncap;

	if (m->n < *cap)
		return (0);
	ncap = *cap ? *cap * 2 : 32;
	if ((v = reallocarray(m->v, ncap, sizeof(*v))) == NULL)
		return (-ENOMEM);
	m->v = v;
	*cap = ncap;
	return (0);
}

static int
procmaps_add_path(struct procmaps *m, size_t *cap, const char *s, size_t len,
    uint32_t *off)
{
	char *p;
	size_t ncap;

	if (m->paths_len + len + 1 > UINT32_MAX)
		return (-ENOMEM);
	if (m->paths_len + len + 1 > *cap) {
		ncap = *cap ? *cap : 1024;
		while (ncap < m->paths_len + len + 1)
			ncap *= 2;
		if ((p = realloc(m->paths, ncap)) == NULL)
			return (-ENOMEM);
		m->paths = p;
		*cap = ncap;
	}
	memcpy(m->paths + m->paths_len, s, len);
	m->paths[m->paths_len + len] = '\0';
	*off = (uint32_t)m->paths_len;
	m->paths_len += len + 1;
	return (0);
}

/*
 * Parse "start-end perms offset major:minor inode [path]".  Returns 1 for
 * an executable mapping, 0 for another valid one, -1 for a bad line.
 */
static int
procmaps_parse_line(struct cursor *c, struct procmaps_entry *e,
    const char **path, size_t *path_len)
{
	uint64_t maj, min;
	const char *perms;

	memset(e, 0, sizeof(*e));
	if (cursor_hex(c, &e->start) || cursor_char(c, '-') ||
	    cursor_hex(c, &e->end) || cursor_blanks(c))
		return (-1);
	if (c->end - c->p < 4)
		return (-1);
	perms = c->p;
	c->p += 4;
	if (cursor_blanks(c) || cursor_hex(c, &e->pgoff) || cursor_blanks(c) ||
	    cursor_hex(c, &maj) || cursor_char(c, ':') || cursor_hex(c, &min) ||
	    cursor_blanks(c) || cursor_dec(c, &e->inode))
		return (-1);
	if (e->end <= e->start || maj > UINT32_MAX || min > UINT32_MAX)
		return (-1);
	e->dev_major = (uint32_t)maj;
	e->dev_minor = (uint32_t)min;
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
	*path = c->p;
	*path_len = (size_t)(c->end - c->p);
	return (perms[2] == 'x');
}

int
procmaps_parse(const char *buf, size_t len, struct procmaps *m)
{
	struct cursor c;
	struct procmaps_entry e;
	const char *line, *nl, *path;
	size_t vcap = 0, pcap = 0, path_len, tag;
	int r;

	memset(m, 0, sizeof(*m));
	line = buf;
	while (line < buf + len) {
		nl = memchr(line, '\n', (size_t)(buf + len - line));
		c.p = line;
		c.end = nl != NULL ? nl : buf + len;
		line = c.end + 1;
		if (c.p == c.end)
			continue;
		if ((r = procmaps_parse_line(&c, &e, &path, &path_len)) < 0) {
			m->bad_lines++;
			continue;
		}
		if (r == 0)
			continue;
		tag = sizeof(DELETED_TAG) - 1;
		if (path_len > tag &&
		    memcmp(path + path_len - tag, DELETED_TAG, tag) == 0)
			e.deleted = 1;
		if (procmaps_grow(m, &vcap) != 0)
			goto fail;
		if (path_len > 0) {
			if (procmaps_add_path(m, &pcap, path, path_len,
			    &e.path_off) != 0)
				goto fail;
			e.path_len = (uint32_t)path_len;
		}
		m->v[m->n++] = e;
	}
	return (0);
fail:
	procmaps_free(m);
	return (-ENOMEM);
}

void
procmaps_free(struct procmaps *m)
{
	if (m == NULL)
		return;
	free(m->v);
	free(m->paths);
	memset(m, 0, sizeof(*m));
}

const char *
procmaps_path(const struct procmaps *m, const struct procmaps_entry *e)
{
	if (e->path_len == 0)
		return (NULL);
	return (m->paths + e->path_off);
}

/* The kernel lists mappings sorted and disjoint; a bad file may not be. */
long
procmaps_find(const struct procmaps *m, uint64_t addr)
{
	size_t lo;
	long i;

	lo = sorted_upper(m->v, m->n, sizeof(*m->v),
	    offsetof(struct procmaps_entry, start), addr);
	if (lo > 0 && addr < m->v[lo - 1].end)
		return ((long)lo - 1);
	for (i = 0; i < (long)m->n; i++)
		if (addr >= m->v[i].start && addr < m->v[i].end)
			return (i);
	return (-1);
}

int
procmaps_same(const struct procmaps *a, const struct procmaps *b)
{
	const struct procmaps_entry *x, *y;
	size_t i;

	if (a->n != b->n)
		return (0);
	for (i = 0; i < a->n; i++) {
		x = &a->v[i];
		y = &b->v[i];
		if (x->start != y->start || x->end != y->end ||
		    x->pgoff != y->pgoff || x->inode != y->inode ||
		    x->dev_major != y->dev_major ||
		    x->dev_minor != y->dev_minor ||
		    x->deleted != y->deleted || x->path_len != y->path_len ||
		    (x->path_len > 0 && memcmp(a->paths + x->path_off,
		    b->paths + y->path_off, x->path_len) != 0))
			return (0);
	}
	return (1);
}

/*
 * from (NULL: none) with one more mapping, e and its path (NULL: none),
 * into out; entries of from that overlap e are left out (e is newer).
 * src[i] (from->n + 1 of them) tells where out->v[i] came from: its
 * index in from, or SIZE_MAX for e.  0 or -ENOMEM.
 */
int
procmaps_add(const struct procmaps *from, const struct procmaps_entry *e,
    const char *path, struct procmaps *out, size_t *src)
{
	size_t n = from != NULL ? from->n : 0, i, o = 0, plen;
	size_t blob = from != NULL ? from->paths_len : 0;
	int placed = 0;

	memset(out, 0, sizeof(*out));
	plen = path != NULL ? strlen(path) : 0;
	if ((out->v = calloc(n + 1, sizeof(*out->v))) == NULL ||
	    (out->paths = malloc(blob + plen + 1)) == NULL) {
		procmaps_free(out);
		return (-ENOMEM);
	}
	if (blob > 0)
		memcpy(out->paths, from->paths, blob);
	memcpy(out->paths + blob, path != NULL ? path : "", plen + 1);
	out->paths_len = blob + plen + 1;
	for (i = 0; i <= n; i++) {
		if (!placed && (i == n || from->v[i].start >= e->start)) {
			out->v[o] = *e;
			out->v[o].path_off = (uint32_t)blob;
			out->v[o].path_len = (uint32_t)plen;
			src[o++] = SIZE_MAX;
			placed = 1;
		}
		if (i == n)
			break;
		if (from->v[i].end > e->start && from->v[i].start < e->end)
			continue;
		out->v[o] = from->v[i];
		src[o++] = i;
	}
	out->n = o;
	return (0);
}

/* The value of "Key:" on one status line, blanks trimmed. */
static int
status_field(const char *line, const char *end, const char *key,
    const char **val, size_t *vlen)
{
	size_t klen = strlen(key);

	if ((size_t)(end - line) < klen || memcmp(line, key, klen) != 0)
		return (-1);
	line += klen;
	while (line < end && (*line == ' ' || *line == '\t'))
		line++;
	while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*val = line;
	*vlen = (size_t)(end - line);
	return (0);
}

static int32_t
status_last_int(const char *v, size_t len)
{
	struct cursor c = { v, v + len };
	uint64_t x, last = 0;

	while (c.p < c.end) {
		while (c.p < c.end && (*c.p == ' ' || *c.p == '\t'))
			c.p++;
		if (c.p == c.end || cursor_dec(&c, &x) != 0 || x > INT32_MAX)
			return (0);
		last = x;
	}
	return ((int32_t)last);
}

/* The second of "Uid:\treal\teffective\tsaved\tfs"; -1 if malformed. */
static int64_t
status_uid(const char *v, size_t len)
{
	int64_t uid = -1;
	size_t i = 0;
	int field;

	for (field = 0; field < 2; field++) {
		while (i < len && (v[i] == ' ' || v[i] == '\t'))
			i++;
		if (i == len || v[i] < '0' || v[i] > '9')
			return (-1);
		for (uid = 0; i < len && v[i] >= '0' && v[i] <= '9'; i++) {
			uid = uid * 10 + (v[i] - '0');
			if (uid > UINT32_MAX)
				return (-1);
		}
	}
	return (uid);
}

int
procstatus_parse(const char *buf, size_t len, struct procstatus *st)
{
	const char *line = buf, *nl, *end, *v;
	size_t vlen;

	memset(st, 0, sizeof(*st));
	st->euid = -1;
	while (line < buf + len) {
		nl = memchr(line, '\n', (size_t)(buf + len - line));
		end = nl != NULL ? nl : buf + len;
		if (status_field(line, end, "Name:", &v, &vlen) == 0) {
			if (vlen >= sizeof(st->name))
				vlen = sizeof(st->name) - 1;
			memcpy(st->name, v, vlen);
			st->name[vlen] = '\0';
		} else if (status_field(line, end, "NSpid:", &v, &vlen) == 0)
			st->nspid = status_last_int(v, vlen);
		else if (status_field(line, end, "Tgid:", &v, &vlen) == 0)
			st->tgid = status_last_int(v, vlen);
		else if (status_field(line, end, "Uid:", &v, &vlen) == 0)
			st->euid = status_uid(v, vlen);
		line = end + 1;
	}
	return (st->name[0] != '\0' ? 0 : -EINVAL);
}

int
procstat_starttime(const char *buf, size_t len, uint64_t *out)
{
	return (procstat_u64(buf, len, 22, out));
}

int
procstat_ppid(const char *buf, size_t len, int32_t *out)
{
	uint64_t v;
	int r;

	if ((r = procstat_u64(buf, len, 4, &v)) != 0)
		return (r);
	if (v > INT32_MAX)
		return (-EINVAL);
	*out = (int32_t)v;
	return (0);
}
