/*
 * The sampler without BPF: what `perf record` does.  One sampling perf
 * event per online CPU asks the kernel for each sample's thread, time,
 * call chain (kernel and frame-pointer user stack) and, in DWARF mode, the
 * user registers and a copy of the user stack; its mmap'd ring buffer is
 * read from the loop.  The same events carry COMM, FORK and EXIT records,
 * which give what the BPF program keeps in its maps: thread names and each
 * process's exec generation.
 *
 * A process's generation changes where the BPF program changes it, when
 * its exec has succeeded (the sched_process_exec tracepoint, sampled into
 * the same ring): the COMM record comes earlier, while the kernel still
 * maps the new image, and samples in between return to the old one's
 * execve.  Without tracefs (it is not always mounted) the COMM record
 * counts, and a sample whose kernel stack is still in the exec code
 * (found in /proc/kallsyms) keeps the generation before it.
 *
 * Each sample becomes the record sampler.h describes, so nothing past the
 * sampler knows which backend took it.  Records of all CPUs are handled
 * in time order, as perf does: an exec seen on one CPU stamps the samples
 * another CPU took after it with the new generation.
 *
 * What it cannot do as the BPF program does, said once at start
 * (sampler_pev_costs): filters (pids, cgroups, the rate cap) run in user
 * space, after the kernel has written the sample; kernel names come from
 * /proc/kallsyms; the loop wakes every few samples rather than at a new
 * process's first one.
 */
#include "config.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfevent.h"
#include "pev_int.h"

static void pev_close(struct sampler *);

/* --- the rings ----------------------------------------------------------- */

/* The record at pos, contiguous (copied when it wraps); NULL: corrupt. */
static const uint8_t *
pev_at(struct spev *s, struct pev_cpu *c, uint64_t pos, size_t *len)
{
	struct perf_event_header h;
	uint64_t off = pos & (c->size - 1), first;
	uint8_t *n;

	first = c->size - off < sizeof(h) ? c->size - off : sizeof(h);
	memcpy(&h, c->data + off, first);
	memcpy((uint8_t *)&h + first, c->data, sizeof(h) - first);
	if (h.size < sizeof(h) || h.size > c->head - pos)
		return (NULL);
	*len = h.size;
	if (off + h.size <= c->size)
		return (c->data + off);
	if (s->copycap < h.size) {
		if ((n = realloc(s->copy, h.size)) == NULL)
			return (NULL);
		s->copy = n;
		s->copycap = h.size;
	}
	memcpy(s->copy, c->data + off, c->size - off);
	memcpy(s->copy + (c->size - off), c->data, h.size - (c->size - off));
	return (s->copy);
}

/* A record's time: a sample's third field, else the sample_id trailer
 * (pid, tid, time, cpu, identifier: sample_id_all with IDENTIFIER | TID |
 * TIME | CPU). */
static uint64_t
pev_time(const uint8_t *r, size_t len)
{
	const struct perf_event_header *h = (const void *)r;
	uint64_t t = 0;

	if (h->type == PERF_RECORD_SAMPLE && len >= sizeof(*h) + 24)
		memcpy(&t, r + sizeof(*h) + 16, 8);
	else if (h->type != PERF_RECORD_SAMPLE && len >= sizeof(*h) + 32)
		memcpy(&t, r + len - 24, 8);
	return (t);
}

static int
pev_cmp_ref(const void *a, const void *b)
{
	const struct pev_ref *x = a, *y = b;

	if (x->time != y->time)
		return (x->time < y->time ? -1 : 1);
	if (x->cpu != y->cpu)
		return (x->cpu < y->cpu ? -1 : 1);
	return (x->seq < y->seq ? -1 : x->seq > y->seq);
}

static int
pev_ref_add(struct spev *s, const struct pev_ref *ref)
{
	struct pev_ref *n;
	size_t cap;

	if (s->nrefs == s->refcap) {
		cap = s->refcap == 0 ? 1024 : s->refcap * 2;
		if ((n = reallocarray(s->refs, cap, sizeof(*n))) == NULL)
			return (-ENOMEM);
		s->refs = n;
		s->refcap = cap;
	}
	s->refs[s->nrefs++] = *ref;
	return (0);
}

static int
pev_drain(struct sampler *base)
{
	struct spev *s = (struct spev *)base;
	struct epoll_event evs[64];
	struct pev_cpu *c;
	struct pev_ref ref;
	const uint8_t *r;
	uint64_t pos, junk;
	uint32_t pid;
	size_t len, i;
	int cpu, rc = 0;

	/* level-triggered members: their readiness is taken here */
	while (epoll_wait(s->epfd, evs, 64, 0) == 64)
		;
	if (read(s->more, &junk, sizeof(junk)) < 0)
		junk = 0;	/* nothing was signalled */
	s->nrefs = 0;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		c = &s->cpus[cpu];
		if (c->fd < 0)
			continue;
		c->head = __atomic_load_n(&c->meta->data_head,
		    __ATOMIC_ACQUIRE);
		c->done = c->meta->data_tail;
		for (pos = c->done, ref.seq = 0; pos < c->head;
		    pos += len, ref.seq++) {
			if ((r = pev_at(s, c, pos, &len)) == NULL) {
				/* cannot be walked: skip what it holds */
				c->done = c->head;
				break;
			}
			ref.time = pev_time(r, len);
			ref.pos = pos;
			ref.cpu = (uint32_t)cpu;
			if (pev_ref_add(s, &ref) != 0) {
				c->head = pos;	/* the rest next time */
				break;
			}
		}
	}
	qsort(s->refs, s->nrefs, sizeof(*s->refs), pev_cmp_ref);
	for (i = 0; i < s->nrefs && rc == 0; i++) {
		c = &s->cpus[s->refs[i].cpu];
		if (s->refs[i].pos < c->done ||
		    (r = pev_at(s, c, s->refs[i].pos, &len)) == NULL)
			continue;
		if (((const struct perf_event_header *)r)->type ==
		    PERF_RECORD_SAMPLE && len >= 16 + 8 &&
		    memcmp(r + 8, &c->exec_id, 8) == 0 && c->exec_fd >= 0) {
			memcpy(&pid, r + 16, 4);
			pev_exec(s, pid, 0);
		} else if (((const struct perf_event_header *)r)->type ==
		    PERF_RECORD_SAMPLE) {
			rc = pev_sample(s, c, r, len);
			if (rc == -EINVAL) {
				s->stats[STAT_TOO_LARGE]++;
				rc = 0;
			}
		} else
			pev_sideband(s, (const void *)r, r, len);
		/* handled, even by a callback that stops the drain */
		c->done = s->refs[i].pos + len;
	}
	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (s->cpus[cpu].fd >= 0)
			__atomic_store_n(&s->cpus[cpu].meta->data_tail,
			    s->cpus[cpu].done, __ATOMIC_RELEASE);
	/* stopped early: the loop must come back though no ring wakes it */
	if (rc != 0) {
		junk = 1;
		if (write(s->more, &junk, sizeof(junk)) < 0)
			junk = 0;	/* already signalled */
	}
	return (rc != 0 ? rc : (int)i);
}

/* --- CPUs ---------------------------------------------------------------- */

static void
pev_cpu_close(struct spev *s, int cpu)
{
	struct pev_cpu *c = &s->cpus[cpu];

	if (c->exec_fd >= 0)
		close(c->exec_fd);
	if (c->meta != NULL)
		munmap(c->meta, (s->ring_pages + 1) * (size_t)getpagesize());
	if (c->fd >= 0)
		close(c->fd);
	memset(c, 0, sizeof(*c));
	c->fd = c->exec_fd = -1;
}

/*
 * sched_process_exec on cpu, written into that CPU's ring.  Without it
 * (no tracefs, a kernel that refuses) the COMM record counts generations.
 */
static void
pev_exec_open(struct spev *s, struct pev_cpu *c, int cpu)
{
	struct perf_event_attr attr;
	int fd;

	if (s->exec_tp == 0)
		return;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = s->exec_tp;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
	    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	attr.sample_id_all = 1;
	fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, c->fd) != 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ID, &c->exec_id) != 0) {
		close(fd);
		return;
	}
	c->exec_fd = fd;
}

/* The tracepoint's number, from tracefs; 0 when it cannot be read. */
static uint64_t
pev_exec_tp(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/events/sched/sched_process_exec/id",
		"/sys/kernel/debug/tracing/events/sched/sched_process_exec/id",
	};
	char buf[32];
	uint64_t id;
	ssize_t n;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if ((fd = open(paths[i], O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		close(fd);
		if (n > 0 && perfevent_tp_id(buf, (size_t)n, &id) == 0)
			return (id);
	}
	return (0);
}

static int
pev_cpu_open(struct spev *s, int cpu)
{
	struct pev_cpu *c = &s->cpus[cpu];
	struct epoll_event ev;
	size_t page = (size_t)getpagesize();
	void *m;
	int fd, rc;

	if ((fd = sampler_ev_open(&s->ev, &s->attr, &s->opts, cpu)) < 0)
		return (fd);
	m = mmap(NULL, (s->ring_pages + 1) * page, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		rc = -errno;
		close(fd);
		return (rc);
	}
	c->fd = fd;
	c->meta = m;
	c->data = (uint8_t *)m + page;
	c->size = s->ring_pages * page;
	pev_exec_open(s, c, cpu);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u32 = (uint32_t)cpu;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		fd = -errno;
		pev_cpu_close(s, cpu);
		return (fd);
	}
	return (0);
}

static int
pev_sync_cpus(struct sampler *base)
{
	struct spev *s = (struct spev *)base;
	uint8_t *on;
	int cpu, n = 0, rc, first = 0;

	if ((on = calloc((size_t)s->ncpus, 1)) == NULL)
		return (-ENOMEM);
	if ((rc = sampler_ev_online(on, s->ncpus)) < 0)
		goto out;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		if (!on[cpu] && s->cpus[cpu].fd >= 0)
			pev_cpu_close(s, cpu);
		else if (on[cpu] && s->cpus[cpu].fd < 0 &&
		    (rc = pev_cpu_open(s, cpu)) < 0) {
			if (s->ev.name == NULL)
				goto out;
			if (first == 0)
				first = rc;
		}
		if (s->cpus[cpu].fd >= 0)
			n++;
	}
	rc = n > 0 ? n : first < 0 ? first : -ENODEV;
out:
	free(on);
	return (rc);
}

/*
 * Data pages a CPU: ~2 s of samples at their deepest, a power of two from
 * 16 to 1024 pages (64 KiB to 4 MiB with 4 KiB pages).
 */
static uint64_t
pev_ring_pages(const struct sampler_opts *o)
{
	uint64_t rec = 64 + 2 * SAMPLE_MAX_DEPTH * 8, want, pages = 16;

	if (o->want_dwarf)
		rec += (SAMPLE_NREGS + 4) * 8 + o->dwarf_size;
	want = rec * (o->period > 0 ? 1000 : o->freq) * 2 /
	    (uint64_t)getpagesize();
	while (pages < want && pages < 1024)
		pages <<= 1;
	return (pages);
}

static struct sampler *
pev_open(const struct sampler_opts *o, char *err, size_t errlen)
{
	struct spev *s;
	struct epoll_event ev;
	uint64_t rate;
	long n;
	int rc, i;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return (NULL);
	}
	s->base.ops = &sampler_pev_ops;
	s->opts = *o;
	s->opts.pids = NULL;
	s->epfd = s->more = -1;
	s->paused = o->start_paused != 0;
	if (o->ev_name != NULL) {
		s->ev.name = o->ev_name;
		s->ev.type = o->ev_type;
		s->ev.config = o->ev_config;
	}
	if ((n = sysconf(_SC_NPROCESSORS_CONF)) <= 0) {
		snprintf(err, errlen, "cannot count the CPUs");
		goto fail;
	}
	s->ncpus = (int)n;
	s->cpus = calloc((size_t)s->ncpus, sizeof(*s->cpus));
	s->out = malloc(sizeof(*s->out));
	if (s->cpus == NULL || s->out == NULL)
		goto nomem;
	for (i = 0; i < s->ncpus; i++)
		s->cpus[i].fd = s->cpus[i].exec_fd = -1;
	if (o->pids != NULL && o->npids > 0) {
		if ((s->pids = calloc(o->npids, sizeof(*s->pids))) == NULL)
			goto nomem;
		memcpy(s->pids, o->pids, o->npids * sizeof(*s->pids));
		qsort(s->pids, o->npids, sizeof(*s->pids), pev_cmp_i32);
	}
	if ((s->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (s->more = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		snprintf(err, errlen, "epoll/eventfd: %s", strerror(errno));
		goto fail;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u32 = UINT32_MAX;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->more, &ev) != 0) {
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		goto fail;
	}

	s->attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
	    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN;
	s->attr.sample_max_stack = SAMPLE_MAX_DEPTH;
	s->attr.exclude_callchain_user = !o->want_fp;
#if defined(__x86_64__) || defined(__aarch64__)
	if (o->want_dwarf) {
		s->attr.sample_type |= PERF_SAMPLE_REGS_USER |
		    PERF_SAMPLE_STACK_USER;
		s->attr.sample_regs_user = PEV_REGS_MASK;
		s->attr.sample_stack_user = o->dwarf_size;
	}
#endif
	if (o->filter_cgroups)
		s->attr.sample_type |= PERF_SAMPLE_CGROUP;
	s->attr.sample_id_all = 1;
	s->attr.comm = 1;
	s->attr.comm_exec = 1;
	s->attr.task = 1;
	/* at most PEV_WAKE_HZ wake-ups a second per CPU: at the default
	 * rate each sample wakes the loop, for the runtime profilers, and a
	 * short-lived process's maps are read while it still runs */
	rate = o->period > 0 ? 1000 : o->freq;
	s->attr.wakeup_events = (uint32_t)(rate / PEV_WAKE_HZ > 1 ?
	    rate / PEV_WAKE_HZ : 1);
	s->ring_pages = pev_ring_pages(o);
	s->exec_tp = pev_exec_tp();
	if (s->exec_tp == 0)
		pev_exec_code(s);

	rc = pev_sync_cpus(&s->base);
	if (rc < 0 && o->ev_name != NULL) {
		sampler_ev_explain(&s->ev, rc, err, errlen);
		goto fail;
	}
	if (rc == -EINVAL && o->filter_cgroups) {
		snprintf(err, errlen, "--perf-use-cgroups through perf events "
		    "needs each sample's cgroup (PERF_SAMPLE_CGROUP, Linux "
		    "5.7): this kernel refuses it");
		goto fail;
	}
	if (rc < 0) {
		sampler_ev_explain_any(rc, err, errlen);
		goto fail;
	}
	return (&s->base);
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	pev_close(&s->base);
	return (NULL);
}

static void
pev_close(struct sampler *base)
{
	struct spev *s = (struct spev *)base;
	int i;

	if (s == NULL)
		return;
	for (i = 0; s->cpus != NULL && i < s->ncpus; i++)
		if (s->cpus[i].fd >= 0)
			pev_cpu_close(s, i);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->more >= 0)
		close(s->more);
	free(s->cpus);
	free(s->out);
	free(s->copy);
	free(s->refs);
	free(s->threads);
	free(s->pids);
	free(s->watch);
	free(s->cgroups);
	free(s);
}

/* --- the rest of sampler.h ------------------------------------------------ */

static void
pev_resume(struct sampler *base)
{
	((struct spev *)base)->paused = 0;
}

static int
pev_wakeup_fd(const struct sampler *base)
{
	return (((const struct spev *)base)->epfd);
}

static int
pev_set_period(struct sampler *base, uint64_t period)
{
	struct spev *s = (struct spev *)base;
	int cpu, rc = 0;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (s->cpus[cpu].fd >= 0 && ioctl(s->cpus[cpu].fd,
		    PERF_EVENT_IOC_PERIOD, &period) != 0)
			rc = -errno;
	if (rc == 0)
		s->opts.period = period;
	return (rc);
}

static void
pev_stats(struct sampler *base, uint64_t *out)
{
	memcpy(out, ((struct spev *)base)->stats,
	    sizeof(uint64_t) * STAT_NSTATS);
}

/* No kernel lookup without BPF: the symbolizer reads /proc/kallsyms. */
static int
pev_ksym_resolve(struct sampler *base, const uint64_t *addrs, size_t n,
    char *names, size_t name_len)
{
	return (-ENOTSUP);
}

/*
 * The generation pid is in now, as the BPF program's map would say: what
 * the records handled say, plus the completed execs of pid still in the
 * rings: its maps are read now, so they are labelled with the image they
 * show (counted by COMM records, the kernel has replaced the image by
 * then, though the exec is not over).
 */
static int
pev_exec_gen(struct sampler *base, int32_t pid, uint32_t *gen)
{
	struct spev *s = (struct spev *)base;
	struct pev_thread *t = pev_find(s, (uint32_t)pid);
	const struct perf_event_header *h;
	struct pev_cpu *c;
	const uint8_t *r;
	uint64_t pos, head;
	uint32_t who;
	size_t len;
	int cpu;

	*gen = t != NULL ? t->gen : 0;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		c = &s->cpus[cpu];
		if (c->fd < 0)
			continue;
		head = __atomic_load_n(&c->meta->data_head, __ATOMIC_ACQUIRE);
		c->head = head;
		for (pos = c->done; pos < head; pos += len) {
			if ((r = pev_at(s, c, pos, &len)) == NULL)
				break;
			h = (const void *)r;
			if (h->type == PERF_RECORD_SAMPLE && c->exec_fd >= 0 &&
			    len >= 24 && memcmp(r + 8, &c->exec_id, 8) == 0)
				memcpy(&who, r + 16, 4);
			else if (h->type == PERF_RECORD_COMM &&
			    (h->misc & PERF_RECORD_MISC_COMM_EXEC) &&
			    s->exec_tp == 0 && len >= 16)
				memcpy(&who, r + 8, 4);
			else
				continue;
			if (who == (uint32_t)pid && ++*gen == 0)
				*gen = 1;
		}
	}
	return (*gen != 0 ? 0 : -ENOENT);
}

/* A sorted set of pids, one in or out. */
static int
pev_watch(struct sampler *base, int32_t pid, int on)
{
	struct spev *s = (struct spev *)base;
	int32_t *n;
	size_t i;

	for (i = 0; i < s->nwatch && s->watch[i] < pid; i++)
		;
	if (on && (i == s->nwatch || s->watch[i] != pid)) {
		if ((n = reallocarray(s->watch, s->nwatch + 1,
		    sizeof(*n))) == NULL)
			return (-ENOMEM);
		s->watch = n;
		memmove(&n[i + 1], &n[i], (s->nwatch - i) * sizeof(*n));
		n[i] = pid;
		s->nwatch++;
	} else if (!on && i < s->nwatch && s->watch[i] == pid) {
		memmove(&s->watch[i], &s->watch[i + 1],
		    (s->nwatch - i - 1) * sizeof(*s->watch));
		s->nwatch--;
	}
	return (0);
}

static int
pev_cgroups_set(struct sampler *base, const uint64_t *ids, size_t n)
{
	struct spev *s = (struct spev *)base;
	uint64_t *set = NULL;

	if (n > 0 && (set = calloc(n, sizeof(*set))) == NULL)
		return (-ENOMEM);
	if (n > 0)
		memcpy(set, ids, n * sizeof(*set));
	qsort(set, n, sizeof(*set), pev_cmp_u64);
	free(s->cgroups);
	s->cgroups = set;
	s->ncgroups = n;
	return (0);
}

static int
pev_follows_exec(const struct sampler *base)
{
	return (1);
}

static const char *
pev_event_name(const struct sampler *base)
{
	const struct spev *s = (const struct spev *)base;

	return (s->ev.name != NULL ? s->ev.name : "none");
}

const char *
sampler_pev_costs(const struct sampler_opts *o)
{
	return ("every sample crosses into user space before the pid, "
	    "cgroup and rate filters apply, kernel names come from "
	    "/proc/kallsyms, and runtime profilers hear of a sampled "
	    "thread up to 10 ms later");
}

const struct sampler_ops sampler_pev_ops = {
	.name = "perf-events",
	.desc = "perf events",
	.costs = sampler_pev_costs,
	.open = pev_open,
	.close = pev_close,
	.resume = pev_resume,
	.drain = pev_drain,
	.wakeup_fd = pev_wakeup_fd,
	.sync_cpus = pev_sync_cpus,
	.set_period = pev_set_period,
	.stats = pev_stats,
	.ksym_resolve = pev_ksym_resolve,
	.exec_gen = pev_exec_gen,
	.watch = pev_watch,
	.cgroups_set = pev_cgroups_set,
	.follows_exec = pev_follows_exec,
	.event_name = pev_event_name,
};
