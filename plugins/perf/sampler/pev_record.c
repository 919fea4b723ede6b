/*
 * The perf-events sampler's records (sampler_pev.c): a PERF_RECORD_SAMPLE
 * into the record sampler.h describes, after the filters the BPF program
 * applies in the kernel (pids, cgroups, the rate cap), and the side-band
 * records (COMM, FORK, EXIT, LOST) into the thread table and counters.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pev_int.h"

/* --- filters ------------------------------------------------------------ */

int
pev_cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x < y ? -1 : x > y);
}

int
pev_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

static int
pev_has_pid(const int32_t *set, size_t n, int32_t pid)
{
	return (n > 0 && bsearch(&pid, set, n, sizeof(*set),
	    pev_cmp_i32) != NULL);
}

/* The BPF program's cap on samples a second per CPU (--perf-event-period). */
static int
pev_rate_ok(struct spev *s, struct pev_cpu *c, uint64_t time)
{
	if (s->opts.max_rate == 0)
		return (1);
	if (time - c->rate_start >= 1000000000ull) {
		c->rate_start = time;
		c->rate_n = 0;
	}
	if (++c->rate_n > s->opts.max_rate) {
		s->stats[STAT_RATE_CAPPED]++;
		return (0);
	}
	return (1);
}

/* --- exec ---------------------------------------------------------------- */

/* Whether a kernel stack is inside exec's code. */
static int
pev_in_exec(const struct spev *s, const uint64_t *ips, uint32_t n)
{
	uint32_t i;
	size_t k;

	for (i = 0; i < n; i++)
		for (k = 0; k < s->nexec_code; k++)
			if (ips[i] >= s->exec_code[k][0] &&
			    ips[i] < s->exec_code[k][1])
				return (1);
	return (0);
}

/*
 * Where exec's own code lies ([start, next symbol)), from /proc/kallsyms
 * (the kernel's, sorted by address; a module cannot hold these): the
 * functions that hold the task between its COMM record and the return to
 * the new image's user code.  None when addresses are hidden.
 */
void
pev_exec_code(struct spev *s)
{
	static const char *const fn[] = {
		"bprm_execve", "do_execveat_common", "__do_execve_file",
	};
	char *line = NULL, name[128];
	unsigned long long a;
	size_t cap = 0, i, nlen;
	int open_range = -1;
	char type;
	FILE *f;

	if ((f = fopen("/proc/kallsyms", "re")) == NULL)
		return;
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%llx %c %127s", &a, &type, name) != 3)
			continue;
		if (open_range >= 0) {
			s->exec_code[open_range][1] = a;
			open_range = -1;
		}
		if (a == 0 || s->nexec_code == PEV_EXEC_RANGES ||
		    (type != 't' && type != 'T'))
			continue;
		for (i = 0; i < sizeof(fn) / sizeof(fn[0]); i++) {
			nlen = strlen(fn[i]);
			/* "do_execveat_common.isra.0", not ".cold" parts */
			if (strncmp(name, fn[i], nlen) == 0 &&
			    (name[nlen] == '\0' || (name[nlen] == '.' &&
			    strstr(name, ".cold") == NULL))) {
				s->exec_code[s->nexec_code][0] = a;
				s->exec_code[s->nexec_code][1] = a;
				open_range = (int)s->nexec_code++;
				break;
			}
		}
	}
	free(line);
	fclose(f);
}

/* --- one sample into sampler.h's record ---------------------------------- */

/*
 * Fields in sample_type's order (linux/perf_event.h, PERF_RECORD_SAMPLE):
 * identifier; pid, tid; time; cpu, res; nr, ips[nr]; [abi, regs[]]; [size, data[size],
 * dyn_size]; [cgroup].  A record shorter than its fields say is dropped.
 */
int
pev_sample(struct spev *s, struct pev_cpu *c, const uint8_t *r, size_t len)
{
	struct sample_buf *o = s->out;
	const uint8_t *p = r + sizeof(struct perf_event_header) + 8;
	const uint8_t *end = r + len;
	uint64_t nr, v, abi, sz, dyn, cg = 0, time, regs[SAMPLE_NREGS];
	uint32_t pid, tid, cpu, kn = 0, un = 0, ctx = 0;
	struct pev_thread *t;
	size_t i, size;
	int have_regs = 0;

	if (len < sizeof(struct perf_event_header) + 8)
		return (-EINVAL);
#define TAKE(dst, n) do {						\
	if ((size_t)(end - p) < (n))					\
		return (-EINVAL);					\
	memcpy((dst), p, (n));						\
	p += (n);							\
} while (0)
	TAKE(&pid, 4);
	TAKE(&tid, 4);
	TAKE(&time, 8);
	TAKE(&cpu, 4);
	p += 4;
	TAKE(&nr, 8);
	if (nr > (uint64_t)(end - p) / 8)
		return (-EINVAL);
	o->hdr.flags = 0;
	for (i = 0; i < nr; i++) {
		memcpy(&v, p + i * 8, 8);
		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = v == (uint64_t)PERF_CONTEXT_KERNEL ? 1 :
			    v == (uint64_t)PERF_CONTEXT_USER ? 2 : 0;
			if (ctx == 2 && s->opts.want_fp)
				o->hdr.flags |= SAMPLE_F_FP;
			continue;
		}
		if (ctx == 1 && kn < SAMPLE_MAX_DEPTH)
			o->ips[kn++] = v;
		else if (ctx == 2 && s->opts.want_fp && un < SAMPLE_MAX_DEPTH)
			o->ips[SAMPLE_MAX_DEPTH + un++] = v;
	}
	p += nr * 8;
	if (s->attr.sample_type & PERF_SAMPLE_REGS_USER) {
		TAKE(&abi, 8);
		if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
			TAKE(regs, sizeof(regs));
			have_regs = abi == PERF_SAMPLE_REGS_ABI_64;
		}
	}
	sz = dyn = 0;
	if (s->attr.sample_type & PERF_SAMPLE_STACK_USER) {
		TAKE(&sz, 8);
		if (sz > (uint64_t)(end - p) || sz > SAMPLE_MAX_STACK)
			return (-EINVAL);
		memcpy(o->stack, p, sz);
		p += sz;
		if (sz > 0)
			TAKE(&dyn, 8);
		if (dyn > sz)
			dyn = sz;
	}
	if (s->attr.sample_type & PERF_SAMPLE_CGROUP)
		TAKE(&cg, 8);
#undef TAKE

	s->stats[STAT_SAMPLES]++;
	if (s->paused || (pid != 0 && (int32_t)pid == s->opts.self_pid) ||
	    (s->pids != NULL && !pev_has_pid(s->pids, s->opts.npids,
	    (int32_t)pid)))
		return (0);
	if (s->opts.filter_cgroups && (s->ncgroups == 0 ||
	    bsearch(&cg, s->cgroups, s->ncgroups, sizeof(cg),
	    pev_cmp_u64) == NULL) &&
	    !pev_has_pid(s->watch, s->nwatch, (int32_t)pid))
		return (0);
	if (!pev_rate_ok(s, c, time))
		return (0);

	o->hdr.pid = pid;
	o->hdr.tid = tid;
	o->hdr.cpu = cpu;
	t = pev_find(s, pid);
	o->hdr.gen = t != NULL ? t->gen : 0;
	if (t != NULL && t->in_exec) {
		if (pev_in_exec(s, o->ips, kn))
			o->hdr.gen = t->gen_old;
		else
			t->in_exec = 0;
	}
	pev_comm(s, pid, tid, o->hdr.comm);
	if (pid == 0)
		un = 0;
	/* user ips follow the kernel's, as the BPF program writes them */
	memmove(&o->ips[kn], &o->ips[SAMPLE_MAX_DEPTH], un * 8);
	o->hdr.nkern = (uint16_t)kn;
	o->hdr.nuser = (uint16_t)un;
	o->hdr.stack_off = o->hdr.stack_len = 0;
	o->hdr.nwalk = o->hdr.walk_stat = 0;	/* nothing walks here */
	size = sizeof(o->hdr) + (kn + un) * 8;
	if (have_regs && pid != 0 && s->opts.want_dwarf) {
		/* perf's order into DWARF's (sampler.h); arm64's is it */
#if defined(__aarch64__)
		memcpy(o->regs, regs, sizeof(o->regs));
#else
		o->regs[0] = regs[0];	o->regs[1] = regs[3];
		o->regs[2] = regs[2];	o->regs[3] = regs[1];
		for (i = 4; i < 8; i++)
			o->regs[i] = regs[i];
		for (i = 8; i < 16; i++)
			o->regs[i] = regs[i + 1];
		o->regs[16] = regs[8];
#endif
		o->hdr.flags |= SAMPLE_F_DWARF;
		o->hdr.stack_off = offsetof(struct sample_buf, regs);
		o->hdr.stack_len = (uint32_t)dyn;
		if (dyn == 0)
			s->stats[STAT_DWARF_ERR]++;
		size = o->hdr.stack_off + sizeof(o->regs) + dyn;
	}
	if (pid != 0 && pev_has_pid(s->watch, s->nwatch, (int32_t)pid))
		o->hdr.flags |= SAMPLE_F_WATCHED;
	return (s->opts.on_record(s->opts.arg, o, size));
}

/* --- side-band records ----------------------------------------------------- */

/* A new image: the generation, as the BPF program counts it. */
void
pev_exec(struct spev *s, uint32_t pid, int from_comm)
{
	struct pev_thread *t;

	if ((t = pev_get(s, pid)) == NULL)
		return;
	t->gen_old = t->gen;
	t->in_exec = from_comm && s->nexec_code > 0;
	if (++t->gen == 0)
		t->gen = 1;
}

void
pev_sideband(struct spev *s, const struct perf_event_header *h,
    const uint8_t *r, size_t len)
{
	struct pev_thread *t, *parent;
	uint32_t f[4];
	uint64_t lost;

	switch (h->type) {
	case PERF_RECORD_COMM:		/* pid, tid, comm[] */
		if (len < sizeof(*h) + 8 + 1)
			return;
		memcpy(f, r + sizeof(*h), 8);
		if ((t = pev_get(s, f[1])) == NULL)
			return;
		memset(t->comm, 0, sizeof(t->comm));
		memcpy(t->comm, r + sizeof(*h) + 8, len - sizeof(*h) - 8 <
		    sizeof(t->comm) - 1 ? len - sizeof(*h) - 8 :
		    sizeof(t->comm) - 1);
		if ((h->misc & PERF_RECORD_MISC_COMM_EXEC) && s->exec_tp == 0)
			pev_exec(s, f[0], 1);
		break;
	case PERF_RECORD_FORK:		/* pid, ppid, tid, ptid */
		if (len < sizeof(*h) + 16)
			return;
		memcpy(f, r + sizeof(*h), 16);
		if ((parent = pev_find(s, f[3])) != NULL &&
		    parent->comm[0] != '\0' &&
		    (t = pev_get(s, f[2])) != NULL)
			memcpy(t->comm, pev_find(s, f[3])->comm,
			    sizeof(t->comm));
		break;
	case PERF_RECORD_EXIT:		/* pid, ppid, tid, ptid */
		if (len < sizeof(*h) + 16)
			return;
		memcpy(f, r + sizeof(*h), 16);
		/* a leader's entry holds the process's generation: gone
		 * with it, as its PID may be reused */
		pev_forget(s, f[2]);
		break;
	case PERF_RECORD_LOST:		/* id, lost */
		if (len < sizeof(*h) + 16)
			return;
		memcpy(&lost, r + sizeof(*h) + 8, 8);
		s->stats[STAT_RB_FULL] += lost;
		break;
	}
}

