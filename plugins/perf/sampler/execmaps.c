/*
 * The kernel's records of executable mappings, execs and exits, parsed and
 * kept per process image (see execmaps.h).
 */
#include <linux/perf_event.h>
#include <sys/mman.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "execmaps.h"
#include "sorted.h"

#define EM_BUCKETS	1024

/* One image of one process: what it mapped since its exec (or fork). */
struct em_img {
	int32_t pid;
	uint32_t gen;
	int32_t parent;		/* forked from, for gen 0 */
	uint64_t touched_ns;	/* last mapping added */
	uint64_t exited_ns;	/* 0: live */
	uint64_t seeded_ns;	/* read from /proc then (0: not) */
	struct execmap *v;	/* sorted by start */
	size_t n;
	size_t cap;
	struct em_img *next;	/* bucket chain, newest first */
};

struct execmaps {
	struct em_img *b[EM_BUCKETS];
	uint64_t images;
	uint64_t maps;
	uint64_t dropped;
	uint64_t lost;
	uint64_t lost_ns;	/* the last record of lost records */
};

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return (v);
}

static uint64_t
rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return (v);
}

int
execrec_parse(const void *rec, size_t len, struct execrec *out)
{
	const uint8_t *p = rec;
	struct perf_event_header h;
	size_t n, off;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(h))
		return (-EINVAL);
	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(h) + 8 || h.size > len)
		return (-EINVAL);
	len = h.size;
	p += sizeof(h);
	/* sample_id: the time, last */
	out->time = rd64(p + len - sizeof(h) - 8);
	len -= sizeof(h) + 8;
	switch (h.type) {
	case PERF_RECORD_MMAP2:
		/* pid tid addr len pgoff maj min ino ino_gen prot flags */
		if (len < 8 + 3 * 8 + 8 + 2 * 8 + 8)
			return (-EINVAL);
		out->type = EXECREC_MMAP;
		out->pid = rd32(p);
		out->tid = rd32(p + 4);
		out->addr = rd64(p + 8);
		out->len = rd64(p + 16);
		out->pgoff = rd64(p + 24);
		if (!(h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
			out->maj = rd32(p + 32);
			out->min = rd32(p + 36);
			out->ino = rd64(p + 40);
		}
		out->prot = rd32(p + 56);
		off = 64;
		/* the name is NUL-terminated inside the record */
		n = strnlen((const char *)p + off, len - off);
		if (n == len - off || out->addr + out->len < out->addr ||
		    out->len == 0)
			return (-EINVAL);
		out->path = (const char *)p + off;
		out->path_len = n;
		return (0);
	case PERF_RECORD_COMM:
		if (len < 8 || !(h.misc & PERF_RECORD_MISC_COMM_EXEC)) {
			out->type = EXECREC_OTHER;
			return (len < 8 ? -EINVAL : 0);
		}
		out->type = EXECREC_EXEC;
		out->pid = rd32(p);
		out->tid = rd32(p + 4);
		return (0);
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		/* pid ppid tid ptid time */
		if (len < 16)
			return (-EINVAL);
		out->type = h.type == PERF_RECORD_EXIT ? EXECREC_EXIT :
		    EXECREC_FORK;
		out->pid = rd32(p);
		out->ppid = rd32(p + 4);
		out->tid = rd32(p + 8);
		/* a new thread: its process is not new */
		if (out->type == EXECREC_FORK && (out->pid != out->tid ||
		    out->pid == out->ppid))
			out->type = EXECREC_OTHER;
		return (0);
	case PERF_RECORD_LOST:
		if (len < 16)
			return (-EINVAL);
		out->type = EXECREC_LOST;
		out->lost = rd64(p + 8);
		return (0);
	default:
		out->type = EXECREC_OTHER;
		return (0);
	}
}

struct execmaps *
execmaps_new(void)
{
	return (calloc(1, sizeof(struct execmaps)));
}

static void
em_maps_clear(struct execmaps *m, struct em_img *im)
{
	size_t i;

	for (i = 0; i < im->n; i++)
		free((char *)im->v[i].path);
	m->maps -= im->n;
	free(im->v);
	im->v = NULL;
	im->n = im->cap = 0;
}

void
execmaps_free(struct execmaps *m)
{
	struct em_img *im, *nx;
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < EM_BUCKETS; i++)
		for (im = m->b[i]; im != NULL; im = nx) {
			nx = im->next;
			em_maps_clear(m, im);
			free(im);
		}
	free(m);
}

static struct em_img **
em_bucket(struct execmaps *m, int32_t pid)
{
	return (&m->b[(uint32_t)pid % EM_BUCKETS]);
}

static struct em_img *
em_live(struct execmaps *m, int32_t pid)
{
	struct em_img *im;

	for (im = *em_bucket(m, pid); im != NULL; im = im->next)
		if (im->pid == pid)
			return (im->exited_ns == 0 ? im : NULL);
	return (NULL);
}

static struct em_img *
em_img_new(struct execmaps *m, int32_t pid, uint32_t gen, uint64_t now)
{
	struct em_img *im, **b = em_bucket(m, pid);

	if ((im = calloc(1, sizeof(*im))) == NULL)
		return (NULL);
	im->pid = pid;
	im->gen = gen;
	im->touched_ns = now;
	im->next = *b;
	*b = im;
	m->images++;
	return (im);
}

static int
em_reserve(struct em_img *im, size_t more)
{
	struct execmap *v;
	size_t cap;

	if (im->n + more <= im->cap)
		return (0);
	cap = im->cap ? im->cap * 2 : 16;
	while (cap < im->n + more)
		cap *= 2;
	if ((v = reallocarray(im->v, cap, sizeof(*v))) == NULL)
		return (-ENOMEM);
	im->v = v;
	im->cap = cap;
	return (0);
}

/*
 * A new mapping replaces whatever it overlaps (the kernel reports no
 * munmap; a MAP_FIXED map over an old range is the common case): older
 * entries are cut to what lies outside it, split when it lies inside.
 */
static int
em_cut(struct execmaps *m, struct em_img *im, uint64_t a, uint64_t b)
{
	struct execmap *e, r;
	size_t i;

	for (i = 0; i < im->n; ) {
		e = &im->v[i];
		if (e->end <= a || e->start >= b) {
			i++;
			continue;
		}
		if (e->start >= a && e->end <= b) {
			free((char *)e->path);
			memmove(e, e + 1, (im->n - i - 1) * sizeof(*e));
			im->n--;
			m->maps--;
			continue;
		}
		if (e->start < a && e->end > b) {
			if (em_reserve(im, 1) != 0)
				return (-ENOMEM);
			e = &im->v[i];
			r = *e;
			if ((r.path = strdup(e->path)) == NULL)
				return (-ENOMEM);
			r.pgoff += b - e->start;
			r.start = b;
			e->end = a;
			memmove(e + 2, e + 1, (im->n - i - 1) * sizeof(*e));
			e[1] = r;
			im->n++;
			m->maps++;
			i += 2;
			continue;
		}
		if (e->start < a)
			e->end = a;
		else {
			e->pgoff += b - e->start;
			e->start = b;
		}
		i++;
	}
	return (0);
}

/* Insert x (its path path_len bytes long), in start order. */
static int
em_insert(struct execmaps *m, struct em_img *im, const struct execmap *x,
    const char *path, size_t path_len)
{
	struct execmap *e;
	char *dup;
	size_t i;

	if (im->n >= EXECMAPS_MAX_PER || m->maps >= EXECMAPS_MAX_ALL) {
		m->dropped++;
		return (0);
	}
	if (em_reserve(im, 1) != 0 || (dup = strndup(path, path_len)) == NULL)
		return (-ENOMEM);
	for (i = im->n; i > 0 && im->v[i - 1].start > x->start; i--)
		;
	e = &im->v[i];
	memmove(e + 1, e, (im->n - i) * sizeof(*e));
	*e = *x;
	e->path = dup;		/* owned: freed when the entry goes */
	im->n++;
	m->maps++;
	return (0);
}

static int
em_add_map(struct execmaps *m, const struct execrec *r, uint64_t now)
{
	struct em_img *im;
	struct execmap x;

	if (!(r->prot & PROT_EXEC))
		return (0);
	if ((im = em_live(m, (int32_t)r->pid)) == NULL &&
	    (im = em_img_new(m, (int32_t)r->pid, 0, now)) == NULL)
		return (-ENOMEM);
	im->touched_ns = now;
	if (em_cut(m, im, r->addr, r->addr + r->len) != 0)
		return (-ENOMEM);
	x.start = r->addr;
	x.end = r->addr + r->len;
	x.pgoff = r->pgoff;
	x.ino = r->ino;
	x.maj = r->maj;
	x.min = r->min;
	return (em_insert(m, im, &x, r->path, r->path_len));
}

int
execmaps_feed(struct execmaps *m, const struct execrec *r, uint64_t now_ns)
{
	struct em_img *im;
	uint32_t gen = 1;

	/* Already in what /proc showed when the log began. */
	if (r->type != EXECREC_LOST && (im = em_live(m, (int32_t)r->pid)) !=
	    NULL && r->time < im->seeded_ns)
		return (0);
	switch (r->type) {
	case EXECREC_MMAP:
		return (em_add_map(m, r, now_ns));
	case EXECREC_EXEC:
		/* The old image stays, for its samples not yet drained. */
		if ((im = em_live(m, (int32_t)r->pid)) != NULL) {
			im->exited_ns = now_ns;
			gen = im->gen + 1 != 0 ? im->gen + 1 : 1;
		}
		return (em_img_new(m, (int32_t)r->pid, gen, now_ns) != NULL ?
		    0 : -ENOMEM);
	case EXECREC_FORK:
		/* Its first image is a copy of the parent's: no record
		 * tells those mappings, the parent does. */
		if ((im = em_live(m, (int32_t)r->pid)) != NULL)
			im->exited_ns = now_ns;
		if ((im = em_img_new(m, (int32_t)r->pid, 0, now_ns)) == NULL)
			return (-ENOMEM);
		im->parent = (int32_t)r->ppid;
		return (0);
	case EXECREC_EXIT:
		if (r->pid == r->tid &&
		    (im = em_live(m, (int32_t)r->pid)) != NULL)
			im->exited_ns = now_ns;
		return (0);
	case EXECREC_LOST:
		m->lost += r->lost;
		m->lost_ns = now_ns;
		return (0);
	default:
		return (0);
	}
}

int
execmaps_find(const struct execmaps *m, int32_t pid, uint32_t gen,
    uint64_t addr, struct execmap *out)
{
	const struct em_img *im;
	size_t lo;

	for (im = m->b[(uint32_t)pid % EM_BUCKETS]; im != NULL; im = im->next)
		if (im->pid == pid && im->gen == gen)
			break;
	if (im == NULL)
		return (-ENOENT);
	/* the first mapping ending above addr */
	lo = sorted_upper(im->v, im->n, sizeof(*im->v),
	    offsetof(struct execmap, end), addr);
	if (lo == im->n || im->v[lo].start > addr)
		return (-ENOENT);
	*out = im->v[lo];
	return (0);
}

int
execmaps_seed(struct execmaps *m, int32_t pid, uint32_t gen,
    const struct execmap *v, size_t n, uint64_t now_ns)
{
	struct em_img *im;
	size_t i;

	if (em_live(m, pid) != NULL)
		return (-EEXIST);
	if ((im = em_img_new(m, pid, gen, now_ns)) == NULL)
		return (-ENOMEM);
	im->seeded_ns = now_ns;
	for (i = 0; i < n; i++) {
		if (v[i].end <= v[i].start)
			continue;
		if (em_cut(m, im, v[i].start, v[i].end) != 0 ||
		    em_insert(m, im, &v[i], v[i].path != NULL ? v[i].path : "",
		    v[i].path != NULL ? strlen(v[i].path) : 0) != 0)
			return (-ENOMEM);
	}
	return (0);
}

int32_t
execmaps_parent(const struct execmaps *m, int32_t pid, uint32_t gen)
{
	const struct em_img *im;

	for (im = m->b[(uint32_t)pid % EM_BUCKETS]; im != NULL; im = im->next)
		if (im->pid == pid && im->gen == gen)
			return (im->parent);
	return (0);
}

int
execmaps_quiet_since(const struct execmaps *m, int32_t pid, uint32_t gen,
    uint64_t since_ns)
{
	const struct em_img *im;

	for (im = m->b[(uint32_t)pid % EM_BUCKETS]; im != NULL; im = im->next)
		if (im->pid == pid && im->gen == gen)
			return (im->exited_ns == 0 && im->touched_ns < since_ns &&
			    m->lost_ns < since_ns);
	return (-ENOENT);
}

int
execmaps_follow(struct execmaps *m, int32_t pid, uint32_t gen,
    uint64_t now_ns)
{
	if (em_live(m, pid) != NULL)
		return (-EEXIST);
	return (em_img_new(m, pid, gen, now_ns) != NULL ? 0 : -ENOMEM);
}

void
execmaps_expire(struct execmaps *m, uint64_t now_ns)
{
	struct em_img **pp, *im;
	size_t i;

	for (i = 0; i < EM_BUCKETS; i++)
		for (pp = &m->b[i]; (im = *pp) != NULL; ) {
			if (im->exited_ns != 0 &&
			    now_ns - im->exited_ns > EXECMAPS_KEEP_NS) {
				*pp = im->next;
				em_maps_clear(m, im);
				free(im);
				m->images--;
				continue;
			}
			/* Live and settled: /proc tells its mappings; the
			 * image stays (empty) so its generation counts on. */
			if (im->exited_ns == 0 && im->n > 0 &&
			    now_ns - im->touched_ns > EXECMAPS_KEEP_NS)
				em_maps_clear(m, im);
			pp = &im->next;
		}
}

void
execmaps_stats(const struct execmaps *m, struct execmaps_stats *st)
{
	st->images = m->images;
	st->maps = m->maps;
	st->dropped = m->dropped;
	st->lost = m->lost;
}
