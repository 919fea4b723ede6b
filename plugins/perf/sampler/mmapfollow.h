/*
 * The kernel's mapping records (execmaps.h) as perf record gets them: one
 * dummy software event per online CPU with mmap2, comm_exec and task set,
 * read through libbpf's perf buffer.  Samples are not taken here (the BPF
 * sampler takes them); these events only carry the side-band records.
 */
#ifndef PERF_MMAPFOLLOW_H
#define PERF_MMAPFOLLOW_H

#include <stddef.h>

struct mmapfollow;
/* cb gets each record whole (a struct perf_event_header first).  NULL with
 * the reason in err. */
struct mmapfollow *mmapfollow_open(void (*cb)(void *, const void *, size_t),
		    void *arg, char *err, size_t errlen);
/* Readable when a CPU's buffer is half full: drain then. */
int mmapfollow_fd(const struct mmapfollow *);
/* Hand every pending record to cb: the count, or -errno. */
int mmapfollow_drain(struct mmapfollow *);
void mmapfollow_close(struct mmapfollow *);

#endif
