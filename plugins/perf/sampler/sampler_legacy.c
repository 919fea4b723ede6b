/*
 * The legacy BPF program's side of the BPF backend (sampler_bpf.c opens
 * it for --perf-backend bpf-legacy, or auto on Linux 4.18 to 5.7): its
 * object (sampler.bpf.c built with SAMPLER_LEGACY), its settings written
 * into its "cfg" map, and its records read from perf events' rings, two
 * per CPU: "urgent" wakes user space at every record, as the BPF ring
 * buffer's forced wake-up does, "events" a quarter full.
 *
 * A drain that stops early (the caller's slice ran out, -EAGAIN) leaves
 * records behind, and a perf ring's fd is readable only after a wake-up,
 * not while it holds data as the BPF ring buffer's is: an eventfd in the
 * same epoll set stays readable until the next drain, so the loop comes
 * back for them.
 */
#include "config.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>

#include <linux/perf_event.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sbpf_int.h"
#include "sampler_legacy.skel.h"

/*
 * The largest record for o: the stacks, or with DWARF the registers and
 * stack bytes at their fixed place (a perf record's size is 16 bits: the
 * program copies at most SAMPLE_LEGACY_MAX_STACK); and the kernel's
 * padding of a raw sample to 8 bytes, which its size counts.
 */
static size_t
legacy_rec_max(const struct sampler_opts *o)
{
	size_t stack = o->dwarf_size;

	if (!o->want_dwarf)
		return (sizeof(struct sample_hdr) + 2 * SAMPLE_MAX_DEPTH * 8 +
		    8);
	if (stack > SAMPLE_LEGACY_MAX_STACK)
		stack = SAMPLE_LEGACY_MAX_STACK;
	return (offsetof(struct sample_buf, regs) + SAMPLE_NREGS * 8 + stack +
	    8);
}

/*
 * A ring's record: a raw sample (its size, then the program's bytes, 4
 * bytes past an 8-byte boundary: copied to s->rec, aligned) or the count
 * of records the ring had no room for.  libbpf moves past a record
 * whatever the answer, so each is handed on; when the caller asks to
 * stop, this ring's reading stops after it.
 */
static enum bpf_perf_event_ret
legacy_event(void *arg, int cpu, struct perf_event_header *e)
{
	struct sbpf *s = arg;
	uint32_t len;
	uint64_t lost;
	int rc;

	(void)cpu;
	if (e->type == PERF_RECORD_LOST && e->size >= sizeof(*e) + 16) {
		memcpy(&lost, (char *)(e + 1) + 8, sizeof(lost));
		s->lost += lost;
		return (LIBBPF_PERF_EVENT_CONT);
	}
	if (e->type != PERF_RECORD_SAMPLE || e->size < sizeof(*e) + 4)
		return (LIBBPF_PERF_EVENT_CONT);
	memcpy(&len, e + 1, sizeof(len));
	if (len > e->size - sizeof(*e) - 4 || len > s->rec_max) {
		s->lost++;	/* none the program writes */
		return (LIBBPF_PERF_EVENT_CONT);
	}
	memcpy(s->rec, (char *)(e + 1) + 4, len);
	s->nrec++;
	rc = s->opts.on_record(s->opts.arg, s->rec, len);
	if (rc == 0)
		return (LIBBPF_PERF_EVENT_CONT);
	s->stop_rc = rc < 0 ? rc : -EAGAIN;
	return (LIBBPF_PERF_EVENT_DONE);
}

static int
legacy_epoll_add(struct sbpf *s, int fd)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	return (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) != 0 ? -errno : 0);
}

/* One ring per CPU of at least bytes (pages a power of two), in epfd. */
static int
legacy_ring_open(struct sbpf *s, int i, struct bpf_map *map, size_t bytes,
    int urgent)
{
	struct perf_event_attr attr;
	size_t pages = 1, pg = (size_t)sysconf(_SC_PAGESIZE);

	while (pages * pg < bytes)
		pages <<= 1;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_BPF_OUTPUT;
	attr.sample_type = PERF_SAMPLE_RAW;
	attr.sample_period = 1;
	if (urgent)
		attr.wakeup_events = 1;
	else {
		attr.watermark = 1;
		attr.wakeup_watermark = (uint32_t)(pages * pg / 4);
	}
	s->pb[i] = perf_buffer__new_raw(bpf_map__fd(map), pages, &attr,
	    legacy_event, s, NULL);
	if (s->pb[i] == NULL)
		return (-errno);
	return (legacy_epoll_add(s, perf_buffer__epoll_fd(s->pb[i])));
}

int
sbpf_legacy_load(struct sbpf *s)
{
	struct sampler_legacy_bpf *skel;
	size_t per_cpu;
	uint32_t zero = 0;
	int rc;

	skel = sampler_legacy_bpf__open();
	if (skel == NULL)
		return (-errno);
	s->lskel = skel;
	s->m = (struct sbpf_maps)SBPF_MAPS(skel);
	bpf_program__set_autoload(s->ev.type == PERF_TYPE_TRACEPOINT ?
	    skel->progs.on_sample_compat :
	    skel->progs.on_tracepoint_compat, false);
	if ((rc = sbpf_sizes(s)) != 0 ||
	    (rc = sampler_legacy_bpf__load(skel)) != 0)
		return (rc);
	if (bpf_map__update_elem(skel->maps.cfg, &zero, sizeof(zero),
	    &s->cfg, sizeof(s->cfg), BPF_ANY) != 0)
		return (-errno);
	if ((rc = sbpf_pids_fill(s)) != 0)
		return (rc);
	s->rec_max = legacy_rec_max(&s->opts);
	s->rec = malloc(s->rec_max);
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->rec == NULL || s->epfd < 0)
		return (s->rec == NULL ? -ENOMEM : -errno);
	s->more_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->more_fd < 0 || (rc = legacy_epoll_add(s, s->more_fd)) != 0)
		return (s->more_fd < 0 ? -errno : rc);
	/* the BPF ring buffer's budget shared out among the CPUs, each ring
	 * above a few of the largest records */
	per_cpu = sbpf_ring_size(&s->opts, s->ncpus) / (size_t)s->ncpus;
	if (per_cpu < 4 * s->rec_max)
		per_cpu = 4 * s->rec_max;
	if ((rc = legacy_ring_open(s, 0, skel->maps.urgent, 2 * s->rec_max,
	    1)) != 0)
		return (rc);
	return (legacy_ring_open(s, 1, skel->maps.events, per_cpu, 0));
}

struct bpf_program *
sbpf_legacy_prog(const struct sbpf *s)
{
	return (s->ev.type == PERF_TYPE_TRACEPOINT ?
	    s->lskel->progs.on_tracepoint_compat :
	    s->lskel->progs.on_sample_compat);
}

/* The urgent rings first: their records announce what follows. */
int
sbpf_legacy_drain(struct sbpf *s)
{
	uint64_t v;
	int rc, i;

	if (read(s->more_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return (-errno);
	s->nrec = 0;
	s->stop_rc = 0;
	for (i = 0; i < 2 && s->stop_rc == 0; i++)
		if ((rc = perf_buffer__consume(s->pb[i])) < 0)
			return (rc);
	if (s->stop_rc == 0)
		return (s->nrec);
	v = 1;
	if (write(s->more_fd, &v, sizeof(v)) < 0)
		return (-errno);
	return (s->stop_rc);
}

void
sbpf_legacy_resume(struct sbpf *s)
{
	uint32_t zero = 0;

	s->cfg.paused = 0;
	(void)bpf_map__update_elem(s->lskel->maps.cfg, &zero, sizeof(zero),
	    &s->cfg, sizeof(s->cfg), BPF_ANY);
}

void
sbpf_legacy_free(struct sbpf *s)
{
	perf_buffer__free(s->pb[0]);
	perf_buffer__free(s->pb[1]);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->more_fd >= 0)
		close(s->more_fd);
	sampler_legacy_bpf__destroy(s->lskel);
	free(s->rec);
}
