/*
 * Side-band mapping records from the kernel (see mmapfollow.h).
 */
#include "config.h"

#include <linux/perf_event.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mmapfollow.h"

/* Per-CPU buffer: 2 MiB over all CPUs, 32 KiB to 256 KiB each.  A build
 * host starting a few hundred programs a second writes about 100 KiB/s,
 * and the buffer wakes us half full. */
#define MF_TOTAL_BYTES	(2u << 20)
#define MF_MIN_PAGES	8
#define MF_MAX_PAGES	64

struct mmapfollow {
	struct perf_buffer *pb;
	int map_fd;
	void (*cb)(void *, const void *, size_t);
	void *arg;
};

static enum bpf_perf_event_ret
mf_event(void *ctx, int cpu, struct perf_event_header *h)
{
	struct mmapfollow *mf = ctx;

	(void)cpu;
	mf->cb(mf->arg, h, h->size);
	return (LIBBPF_PERF_EVENT_CONT);
}

struct mmapfollow *
mmapfollow_open(void (*cb)(void *, const void *, size_t), void *arg,
    char *err, size_t errlen)
{
	struct perf_event_attr attr;
	struct mmapfollow *mf;
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = MF_MAX_PAGES;
	int ncpu = libbpf_num_possible_cpus();

	if (ncpu <= 0 || page <= 0) {
		snprintf(err, errlen, "cannot count the CPUs");
		return (NULL);
	}
	while (pages > MF_MIN_PAGES &&
	    pages * (size_t)page * (size_t)ncpu > MF_TOTAL_BYTES)
		pages /= 2;
	if ((mf = calloc(1, sizeof(*mf))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return (NULL);
	}
	mf->cb = cb;
	mf->arg = arg;
	mf->map_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, NULL,
	    sizeof(int), sizeof(int), (uint32_t)ncpu, NULL);
	if (mf->map_fd < 0) {
		snprintf(err, errlen, "perf event array: %s",
		    strerror(-mf->map_fd));
		free(mf);
		return (NULL);
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_period = 1;
	attr.mmap = 1;		/* executable mappings only (no mmap_data) */
	attr.mmap2 = 1;		/* with device and inode */
	attr.comm = 1;
	attr.comm_exec = 1;	/* tells an exec from a rename */
	attr.task = 1;		/* forks and exits */
	/* Each CPU has its buffer: records are put back in order by their
	 * time, on one clock for all CPUs. */
	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_TIME;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	attr.watermark = 1;
	attr.wakeup_watermark = (uint32_t)(pages * (size_t)page / 2);
	mf->pb = perf_buffer__new_raw(mf->map_fd, pages, &attr, mf_event, mf,
	    NULL);
	if (mf->pb == NULL) {
		snprintf(err, errlen, "side-band events: %s",
		    strerror(errno));
		close(mf->map_fd);
		free(mf);
		return (NULL);
	}
	return (mf);
}

int
mmapfollow_fd(const struct mmapfollow *mf)
{
	return (perf_buffer__epoll_fd(mf->pb));
}

int
mmapfollow_drain(struct mmapfollow *mf)
{
	return (perf_buffer__consume(mf->pb));
}

void
mmapfollow_close(struct mmapfollow *mf)
{
	if (mf == NULL)
		return;
	perf_buffer__free(mf->pb);
	close(mf->map_fd);
	free(mf);
}
