/*
 * What processes mapped, as the kernel records it (execmaps.h): the
 * symbolizer asks when /proc cannot tell, because the image exec'ed or
 * exited before its maps were read (a shell's short programs on a busy
 * host: the first sample wakes us, but the program may be gone by the
 * time the loop runs), or mapped code after they were.  perf record
 * names such samples from the same records; /proc alone cannot.
 */
#include "config.h"

#include <sys/mman.h>

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_int.h"
#include "pidtab.h"
#include "sampler/execmaps.h"
#include "sampler/mmapfollow.h"
#include "sym/procmaps.h"
#include "sym/symbolize.h"

/* A drain's records, put back in time order before they are applied. */
struct perf_maps_rec {
	uint64_t time;
	uint64_t seq;	/* ties keep the buffer's order */
	size_t off;
	size_t len;
};

/* The seed's bounds: a host's processes are read once, at start. */
#define PERF_MAPS_SEED_NS	(2000ull * 1000 * 1000)
#define PERF_MAPS_SEED_MAX	(EXECMAPS_MAX_ALL / 2)

struct perf_maps {
	struct mmapfollow *mf;
	struct execmaps *em;
	struct gp_watch *watch;
	uint64_t said;	/* lost records reported */
	uint8_t *buf;
	size_t buf_len;
	size_t buf_cap;
	struct perf_maps_rec *recs;
	size_t nrecs;
	size_t recs_cap;
	int nomem;		/* this drain lost some */
	uint64_t expired;	/* last execmaps_expire */
};

/*
 * Images are kept EXECMAPS_KEEP_NS (seconds): a walk of the table once a
 * second is as good as one per drain.  Per drain it was a fifth of the
 * agent's CPU with a Python process watched, whose every sample wakes the
 * loop (1024 buckets a wake-up).
 */
#define PERF_MAPS_EXPIRE_NS	(1000ull * 1000 * 1000)

/* mmapfollow's callback: keep a copy, applied once the drain is over. */
static void
perf_maps_record(void *arg, const void *rec, size_t len)
{
	struct perf_maps *m = ((struct perf *)arg)->maps;
	struct perf_maps_rec *r;
	struct execrec er;
	size_t cap;
	void *nb;

	if (execrec_parse(rec, len, &er) != 0) {
		perf_complain(arg, "malformed mapping record from the kernel "
		    "(%zu bytes) skipped", len);
		return;
	}
	if (er.type == EXECREC_OTHER)
		return;
	if (m->buf_len + len > m->buf_cap) {
		for (cap = m->buf_cap ? m->buf_cap : 65536;
		    cap < m->buf_len + len; cap *= 2)
			;
		if ((nb = realloc(m->buf, cap)) == NULL) {
			m->nomem = 1;
			return;
		}
		m->buf = nb;
		m->buf_cap = cap;
	}
	if (m->nrecs == m->recs_cap) {
		cap = m->recs_cap ? m->recs_cap * 2 : 1024;
		if ((nb = reallocarray(m->recs, cap, sizeof(*r))) == NULL) {
			m->nomem = 1;
			return;
		}
		m->recs = nb;
		m->recs_cap = cap;
	}
	r = &m->recs[m->nrecs];
	r->time = er.time;
	r->seq = m->nrecs++;
	r->off = m->buf_len;
	r->len = len;
	memcpy(m->buf + m->buf_len, rec, len);
	m->buf_len += len;
}

static int
perf_maps_cmp(const void *a, const void *b)
{
	const struct perf_maps_rec *x = a, *y = b;

	if (x->time != y->time)
		return (x->time < y->time ? -1 : 1);
	return (x->seq < y->seq ? -1 : x->seq > y->seq);
}

static int
perf_maps_lookup(void *arg, int32_t pid, uint32_t gen, uint64_t addr,
    struct procmaps_entry *e, const char **path, int32_t *parent)
{
	struct perf_maps *m = ((struct perf *)arg)->maps;
	struct execmap x;

	*parent = execmaps_parent(m->em, pid, gen);
	if (execmaps_find(m->em, pid, gen, addr, &x) != 0)
		return (-ENOENT);
	/* the whole entry: no path of the caller's left in it */
	*e = (struct procmaps_entry){ .start = x.start, .end = x.end,
	    .pgoff = x.pgoff, .inode = x.ino, .dev_major = x.maj,
	    .dev_minor = x.min };
	*path = x.path;
	return (0);
}

/*
 * Whether the records prove pid's image gen mapped no code since since_ns
 * (the symbolizer's test before reading its maps again).  An image they
 * do not follow (running before the log began, left out of the seed) is
 * followed from now: the maps read next are its own as of a time the
 * records cover.
 */
static int
perf_maps_quiet(void *arg, int32_t pid, uint32_t gen, uint64_t since_ns)
{
	struct execmaps *em = ((struct perf *)arg)->maps->em;
	int r;

	if ((r = execmaps_quiet_since(em, pid, gen, since_ns)) == -ENOENT)
		(void)execmaps_follow(em, pid, gen, perf_now_ns());
	return (r == 1);
}

static void
perf_maps_wakeup(int32_t fd, uint32_t events, void *arg)
{
	(void)fd;
	(void)events;
	perf_maps_drain(arg);
}

static void
perf_maps_free(struct perf_maps *m)
{
	if (m == NULL)
		return;
	mmapfollow_close(m->mf);
	execmaps_free(m->em);
	free(m->buf);
	free(m->recs);
	free(m);
}

static int
perf_maps_wanted(const struct perf *p, int32_t pid)
{
	uint32_t i;

	if (p->pids == NULL)
		return (1);
	for (i = 0; i < p->npids; i++)
		if (p->pids[i] == pid)
			return (1);
	return (0);
}

/* One process into the log as /proc shows it: the number of mappings. */
static size_t
perf_maps_seed_one(struct perf *p, int32_t pid)
{
	struct perf_maps *m = p->maps;
	struct procmaps pm;
	struct execmap *v;
	uint64_t t = perf_now_ns();
	uint32_t gen = 0;
	size_t i, n = 0;

	(void)sampler_exec_gen(p->sampler, pid, &gen);
	if (symbolizer_read_maps(p->sym, pid, &pm) != 0)
		return (0);
	if (pm.n > 0 && (v = calloc(pm.n, sizeof(*v))) != NULL) {
		for (i = 0; i < pm.n; i++) {
			v[i].start = pm.v[i].start;
			v[i].end = pm.v[i].end;
			v[i].pgoff = pm.v[i].pgoff;
			v[i].ino = pm.v[i].inode;
			v[i].maj = pm.v[i].dev_major;
			v[i].min = pm.v[i].dev_minor;
			v[i].path = procmaps_path(&pm, &pm.v[i]);
		}
		if (execmaps_seed(m->em, pid, gen, v, pm.n, t) == 0)
			n = pm.n;
		free(v);
	}
	procmaps_free(&pm);
	return (n);
}

/*
 * The records tell what happens from now on; what runs already, /proc
 * tells, once, before the first sample (the sampler waits).  Without it
 * a program running when the agent starts and gone before its first
 * sample is read (a busy host's shell programs) keeps unnamed frames,
 * where perf record, which reads every process's maps at its start,
 * names them.  Bounded in time and in mappings.
 */
static void
perf_maps_seed(struct perf *p)
{
	struct execmaps_stats st;
	struct dirent *d;
	uint64_t t0 = perf_now_ns();
	size_t procs = 0, maps = 0;
	const char *why = NULL;
	int32_t self = (int32_t)getpid();
	char *end;
	long pid;
	DIR *dir;

	if ((dir = opendir("/proc")) == NULL) {
		p->api->log(p->ctx, GP_LOG_WARN, "not reading the running "
		    "processes' mappings (/proc: %s): those that exit before "
		    "their first sample is read keep unnamed frames",
		    strerror(errno));
		return;
	}
	while ((d = readdir(dir)) != NULL) {
		pid = strtol(d->d_name, &end, 10);
		if (*end != '\0' || pid <= 0 || pid > INT32_MAX ||
		    pid == self || !perf_maps_wanted(p, (int32_t)pid))
			continue;
		if (perf_now_ns() - t0 > PERF_MAPS_SEED_NS) {
			why = "2 s";
			break;
		}
		execmaps_stats(p->maps->em, &st);
		if (st.maps > PERF_MAPS_SEED_MAX) {
			why = "its mapping bound";
			break;
		}
		maps += perf_maps_seed_one(p, (int32_t)pid);
		procs++;
	}
	closedir(dir);
	if (why != NULL)
		p->api->log(p->ctx, GP_LOG_WARN, "reading the running "
		    "processes' mappings stopped at %s, after %zu processes: "
		    "the others are named once their first sample is read "
		    "(those that exit first keep unnamed frames)", why, procs);
	p->api->log(p->ctx, GP_LOG_DEBUG, "the running processes' mappings: "
	    "%zu processes, %zu executable mappings read in %.1f ms", procs,
	    maps, (double)(perf_now_ns() - t0) / 1e6);
}

void
perf_maps_start(struct perf *p)
{
	struct perf_maps *m;
	char err[256];

	if ((m = calloc(1, sizeof(*m))) == NULL ||
	    (m->em = execmaps_new()) == NULL) {
		perf_maps_free(m);
		return;
	}
	p->maps = m;
	m->mf = mmapfollow_open(perf_maps_record, p, err, sizeof(err));
	if (m->mf == NULL) {
		p->api->log(p->ctx, GP_LOG_WARN, "not following the kernel's "
		    "mapping records (%s): programs that exit before their "
		    "/proc maps are read keep unnamed frames", err);
		perf_maps_free(m);
		p->maps = NULL;
		return;
	}
	if (p->api->fd_watch != NULL)
		m->watch = p->api->fd_watch(p->ctx, mmapfollow_fd(m->mf),
		    GP_EV_READ, perf_maps_wakeup, p);
	symbolizer_set_map_log(p->sym, perf_maps_lookup, perf_maps_quiet, p);
	perf_maps_seed(p);
}

/*
 * A process already reported this cycle that maps a file's code later (a
 * native program dlopening libpython, uWSGI loading its Python plugin, an
 * application starting its embedded JVM) is reported again, so a process
 * profiler that found no runtime in it looks again now rather than at
 * the next cycle, a minute later on defaults (or never, in one-shot
 * mode).  Not within a second of the last report: a new program's own
 * start-up mappings, drained with its first sample, cost nothing; the
 * waits double, so one that maps code in a loop costs a few reports a
 * cycle.  Anonymous code (a JIT's) is not a runtime arriving.
 */
static void
perf_maps_mapped(struct perf *p, const struct execrec *er, uint64_t now)
{
	struct pidinfo *pi;

	/* the newest image sampled: the records count exec generations on
	 * their own, from another start than the sampler's */
	if (er->type != EXECREC_MMAP || !(er->prot & PROT_EXEC) ||
	    er->ino == 0 || er->pid == 0 || !p->proc_reports ||
	    (pi = pidtab_find_newest(p->seen, (int32_t)er->pid)) == NULL ||
	    pi->report_ns == 0 ||
	    now - pi->report_ns < pi->report_wait_s * 1000000000ull)
		return;
	perf_report_process(p, pi, now);
}

void
perf_maps_drain(struct perf *p)
{
	struct perf_maps *m = p->maps;
	struct execmaps_stats st;
	struct execrec er;
	uint64_t now = perf_now_ns();
	size_t i;
	int rc;

	if (m == NULL)
		return;
	m->nrecs = m->buf_len = 0;
	m->nomem = 0;
	if ((rc = mmapfollow_drain(m->mf)) < 0)
		perf_complain(p, "reading the kernel's mapping records: %s",
		    strerror(-rc));
	if (m->nrecs > 1)
		qsort(m->recs, m->nrecs, sizeof(*m->recs), perf_maps_cmp);
	for (i = 0; i < m->nrecs; i++) {
		if (execrec_parse(m->buf + m->recs[i].off, m->recs[i].len,
		    &er) != 0)
			continue;
		if (execmaps_feed(m->em, &er, now) != 0)
			m->nomem = 1;
		perf_maps_mapped(p, &er, now);
	}
	if (now - m->expired >= PERF_MAPS_EXPIRE_NS) {
		execmaps_expire(m->em, now);
		m->expired = now;
	}
	execmaps_stats(m->em, &st);
	if (m->nomem)
		perf_complain(p, "out of memory keeping the kernel's mapping "
		    "records: short-lived programs may go unnamed");
	if (st.lost + st.dropped > m->said) {
		perf_complain(p, "%llu mapping records lost or over the "
		    "bound so far: some short-lived programs keep unnamed "
		    "frames", (unsigned long long)(st.lost + st.dropped));
		m->said = st.lost + st.dropped;
	}
	/* a burst's buffer is not kept for the quiet that follows */
	if (m->buf_cap > (1u << 20)) {
		free(m->buf);
		m->buf = NULL;
		m->buf_cap = 0;
	}
}

void
perf_maps_stop(struct perf *p)
{
	struct perf_maps *m = p->maps;

	if (m == NULL)
		return;
	if (p->sym != NULL)
		symbolizer_set_map_log(p->sym, NULL, NULL, NULL);
	if (m->watch != NULL)
		p->api->fd_unwatch(m->watch);
	perf_maps_free(m);
	p->maps = NULL;
}
