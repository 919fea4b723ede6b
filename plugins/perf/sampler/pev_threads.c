/*
 * The perf-events sampler's threads (sampler_pev.c): each thread's name
 * and, for a process's leader, its exec generation, in one open-addressed
 * table the COMM, FORK and EXIT records keep; a thread that ran before we
 * started is named from /proc once.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pev_int.h"

static size_t
pev_slot(const struct spev *s, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (s->cap - 1);

	while (s->threads[i].tid != 0 && s->threads[i].tid != tid)
		i = (i + 1) & (s->cap - 1);
	return (i);
}

struct pev_thread *
pev_find(const struct spev *s, uint32_t tid)
{
	size_t i;

	if (tid == 0 || s->cap == 0)
		return (NULL);
	i = pev_slot(s, tid);
	return (s->threads[i].tid == tid ? &s->threads[i] : NULL);
}

static int
pev_grow(struct spev *s)
{
	struct pev_thread *old = s->threads;
	size_t i, ocap = s->cap, ncap = ocap == 0 ? 1024 : ocap * 2;

	if (ncap > PEV_MAP_MAX)
		return (-ENOSPC);
	if ((s->threads = calloc(ncap, sizeof(*s->threads))) == NULL) {
		s->threads = old;
		return (-ENOMEM);
	}
	s->cap = ncap;
	for (i = 0; i < ocap; i++)
		if (old[i].tid != 0)
			s->threads[pev_slot(s, old[i].tid)] = old[i];
	free(old);
	return (0);
}

/* tid's entry, new ones with no name and generation 0; NULL when full. */
struct pev_thread *
pev_get(struct spev *s, uint32_t tid)
{
	struct pev_thread *t;
	size_t i;

	if (tid == 0)
		return (NULL);
	if ((t = pev_find(s, tid)) != NULL)
		return (t);
	if ((s->nthreads + 1) * 4 > s->cap * 3 && pev_grow(s) != 0)
		return (NULL);
	i = pev_slot(s, tid);
	memset(&s->threads[i], 0, sizeof(s->threads[i]));
	s->threads[i].tid = tid;
	s->nthreads++;
	return (&s->threads[i]);
}

/* Removal without tombstones: later entries of the run move back. */
void
pev_forget(struct spev *s, uint32_t tid)
{
	size_t i, j, k;

	if (pev_find(s, tid) == NULL)
		return;
	i = pev_slot(s, tid);
	s->threads[i].tid = 0;
	s->nthreads--;
	for (j = (i + 1) & (s->cap - 1); s->threads[j].tid != 0;
	    j = (j + 1) & (s->cap - 1)) {
		k = (s->threads[j].tid * 2654435761u) & (s->cap - 1);
		/* stays if its home lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		s->threads[i] = s->threads[j];
		s->threads[j].tid = 0;
		i = j;
	}
}

/* A thread that ran before we started has no COMM record: ask /proc. */
void
pev_comm(struct spev *s, uint32_t pid, uint32_t tid, char *comm)
{
	struct pev_thread *t = pev_find(s, tid);
	char path[64];
	ssize_t n;
	int fd;

	if (t != NULL && t->comm[0] != '\0') {
		memcpy(comm, t->comm, SAMPLE_COMM_LEN);
		return;
	}
	memset(comm, 0, SAMPLE_COMM_LEN);
	if (pid == 0) {
		snprintf(comm, SAMPLE_COMM_LEN, "swapper/%u", tid);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return;
	n = read(fd, comm, SAMPLE_COMM_LEN - 1);
	close(fd);
	if (n > 0 && comm[n - 1] == '\n')
		comm[n - 1] = '\0';
	if (n > 0 && (t = pev_get(s, tid)) != NULL)
		memcpy(t->comm, comm, SAMPLE_COMM_LEN);
}

