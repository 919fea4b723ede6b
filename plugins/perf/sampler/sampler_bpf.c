/*
 * The BPF backend of the sampler (sampler.c chooses it): load the BPF
 * program (sampler.bpf.c, through its libbpf skeleton), open
 * one sampling perf event per online CPU and attach the program to each,
 * and drain the ring buffer on demand.  Knows nothing about stacks beyond
 * handing each record to the caller.  Three programs: the full one, the
 * compat one (same object) and the legacy one (its own object, its
 * records in perf events' rings, its settings in a map).
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpflog.h"
#include "sampler_int.h"
#include "sampler.skel.h"
#include "sbpf_int.h"

/* libbpf's printer is process-global: route it to the sampler loading. */
static void sbpf_close(struct sampler *);

static const struct sampler_opts *sampler_log_opts;
static int sampler_log_level;
/* The helper the kernel refused while the sampler loaded, for the error. */
static char sampler_refused[64];
static int sampler_refused_id = -1;

static void
sampler_libbpf_line(void *arg, const char *line, size_t len)
{
	const struct sampler_opts *o = arg;
	char buf[BPFLOG_WIDTH + 1];

	memcpy(buf, line, len);
	buf[len] = '\0';
	o->log(o->arg, sampler_log_level, buf);
}

/*
 * Each line of libbpf's message becomes a log line.  A failed load's
 * message is the whole verifier log, whose reason is at its end: the
 * lines are not cut at a buffer's size, only the log's last lines are
 * kept, and the helper it refused is remembered for sampler_explain.
 */
static int
sampler_libbpf_print(enum libbpf_print_level level, const char *fmt,
    va_list ap)
{
	char *msg = NULL;
	int n, id;

	if (level == LIBBPF_DEBUG || sampler_log_opts == NULL ||
	    sampler_log_opts->log == NULL)
		return (0);
	n = vasprintf(&msg, fmt, ap);
	if (n < 0)
		return (0);
	id = bpflog_refused_helper(msg, (size_t)n, sampler_refused,
	    sizeof(sampler_refused));
	if (id >= 0)
		sampler_refused_id = id;
	sampler_log_level = level == LIBBPF_WARN ? SAMPLER_LOG_WARN :
	    SAMPLER_LOG_DEBUG;
	bpflog_lines(msg, (size_t)n, BPFLOG_WIDTH, BPFLOG_KEEP,
	    sampler_libbpf_line, (void *)sampler_log_opts);
	free(msg);
	return (0);
}

static void
sampler_cpu_close(struct sbpf *s, int cpu)
{
	bpf_link__destroy(s->links[cpu]);
	s->links[cpu] = NULL;
	if (s->fds[cpu] >= 0)
		close(s->fds[cpu]);
	s->fds[cpu] = -1;
}

/*
 * The sampling program: per event type, full (with the walks of ABI 1.7
 * where the kernel has bpf_loop: a kernel before 5.13 refuses the very
 * reference to its callback, before it could say which helper it lacks)
 * or compat (sample_take).
 */
static struct bpf_program *
sampler_prog(const struct sbpf *s)
{
	int compat = s->kind == SBPF_COMPAT;

	if (s->kind == SBPF_LEGACY)
		return (sbpf_legacy_prog(s));
	if (s->ev.type == PERF_TYPE_TRACEPOINT)
		return (compat ? s->skel->progs.on_tracepoint_compat :
		    s->have_loop ? s->skel->progs.on_tracepoint_loop :
		    s->skel->progs.on_tracepoint);
	return (compat ? s->skel->progs.on_sample_compat :
	    s->have_loop ? s->skel->progs.on_sample_loop :
	    s->skel->progs.on_sample);
}

static int
sampler_cpu_open(struct sbpf *s, int cpu)
{
	struct perf_event_attr attr;
	int fd;

	/* the program reads what it needs: the event asks for nothing */
	memset(&attr, 0, sizeof(attr));
	fd = sampler_ev_open(&s->ev, &attr, &s->opts, cpu);
	if (fd < 0)
		return (fd);
	s->fds[cpu] = fd;
	s->links[cpu] = bpf_program__attach_perf_event(sampler_prog(s), fd);
	if (s->links[cpu] == NULL) {
		fd = -errno;
		sampler_cpu_close(s, cpu);
		return (fd);
	}
	return (0);
}

/*
 * A tracepoint's program is attached once, to the tracepoint, and runs on
 * every CPU: one event, on an online CPU, carries it (a second attach is
 * -EEXIST).  The count of online CPUs, or -errno.
 */
static int
sampler_sync_tp(struct sbpf *s, const uint8_t *on, int online)
{
	int cpu, rc = -ENODEV;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (s->fds[cpu] >= 0 && !on[cpu])
			sampler_cpu_close(s, cpu);
	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (s->fds[cpu] >= 0)
			return (online);
	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (on[cpu] && (rc = sampler_cpu_open(s, cpu)) == 0)
			return (online);
	return (rc);
}

static int
sbpf_sync_cpus(struct sampler *base)
{
	struct sbpf *s = (struct sbpf *)base;
	uint8_t *on;
	int cpu, n = 0, rc, first = 0;

	on = calloc((size_t)s->ncpus, 1);
	if (on == NULL)
		return (-ENOMEM);
	rc = sampler_ev_online(on, s->ncpus);
	if (rc < 0)
		goto out;
	if (s->ev.name != NULL && s->ev.type == PERF_TYPE_TRACEPOINT) {
		rc = sampler_sync_tp(s, on, rc);
		goto out;
	}
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		if (!on[cpu] && s->fds[cpu] >= 0)
			sampler_cpu_close(s, cpu);
		else if (on[cpu] && s->fds[cpu] < 0 &&
		    (rc = sampler_cpu_open(s, cpu)) < 0) {
			if (s->ev.name == NULL)
				goto out;
			if (first == 0)
				first = rc;
		}
		if (s->fds[cpu] >= 0)
			n++;
	}
	rc = n > 0 ? n : first < 0 ? first : -ENODEV;
out:
	free(on);
	return (rc);
}

static int
sampler_rb_cb(void *arg, void *data, size_t len)
{
	struct sbpf *s = arg;

	return (s->opts.on_record(s->opts.arg, data, len));
}

/*
 * A ring for ~2 s of samples from every CPU at their deepest (tens of
 * seconds at usual depths), woken a quarter full, so a late drain loses
 * nothing and user space wakes rarely; a power of two from 64 KiB to
 * 16 MiB (its pages are resident once written, and mapped twice).
 */
uint32_t
sbpf_ring_size(const struct sampler_opts *o, int ncpus)
{
	uint64_t rec = sizeof(struct sample_hdr) + 2 * SAMPLE_MAX_DEPTH * 8;
	uint64_t want, sz = 64 * 1024;

	if (o->want_dwarf)
		rec += SAMPLE_NREGS * 8 + o->dwarf_size;
	/* by period the rate is the workload's: size for 1 kHz */
	want = rec * (o->period > 0 ? 1000 : o->freq) * (uint64_t)ncpus * 2;
	while (sz < want && sz < 16ull * 1024 * 1024)
		sz <<= 1;
	return ((uint32_t)sz);
}

/* Why loading failed, in words an operator can act on. */
static void
sampler_explain(int rc, char *err, size_t errlen)
{
	const char *hint = "";
	char buf[16] = "", helper[320];
	const char *since;
	int fd;

	if (sampler_refused_id >= 0) {
		/* The verifier named what this kernel lacks: say it in
		 * words, with the release that has it. */
		since = bpflog_helper_since(sampler_refused);
		snprintf(helper, sizeof(helper), "; this kernel lacks the "
		    "BPF helper %s (#%d), which the sampler calls%s%s%s; the "
		    "BPF sampler needs Linux 5.15 or later (the verifier's "
		    "last lines are above)", sampler_refused,
		    sampler_refused_id, since != NULL ? " and Linux " : "",
		    since != NULL ? since : "", since != NULL ? " added" : "");
		hint = helper;
	} else if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		hint = "; the kernel has no BTF (/sys/kernel/btf/vmlinux, "
		    "CONFIG_DEBUG_INFO_BTF)";
	else if (rc == -EPERM || rc == -EACCES) {
		fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY);
		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf) - 1) < 0)
				buf[0] = '\0';
			close(fd);
		}
		buf[strcspn(buf, "\n")] = '\0';
		if (geteuid() != 0)
			hint = "; run as root or grant CAP_BPF and CAP_PERFMON";
		else if (rc == -EACCES)
			hint = "; the kernel's verifier rejected the program "
			    "(its log is above)";
		else
			hint = "; BPF is restricted (lockdown, or a "
			    "seccomp/LSM policy)";
	} else if (rc == -ENOSYS)
		hint = "; the kernel lacks BPF or perf_event support";
	snprintf(err, errlen, "cannot load the BPF sampler: %s%s%s%s",
	    strerror(-rc), hint, buf[0] ? ", perf_event_paranoid=" : "", buf);
}

/* The settings the program reads (struct sampler_cfg). */
static void
sbpf_cfg_fill(struct sbpf *s)
{
	struct sampler_cfg *c = &s->cfg;

	memset(c, 0, sizeof(*c));
	c->self_tgid = (uint32_t)s->opts.self_pid;
	c->filter_pids = s->opts.pids != NULL;
	c->filter_cgroups = s->opts.filter_cgroups != 0;
	c->want_fp = s->opts.want_fp != 0;
	c->want_dwarf = s->opts.want_dwarf != 0;
	c->dwarf_size = s->opts.dwarf_size;
	c->tp_period = s->opts.period > 0 ? s->opts.period : 1;
	c->max_rate = s->opts.max_rate;
	c->paused = s->opts.start_paused != 0;
}

/* The maps sized by the host and the options, before loading. */
int
sbpf_sizes(struct sbpf *s)
{
	int rc;

	if ((rc = bpf_map__set_max_entries(s->m.scratch,
	    (uint32_t)s->ncpus)) != 0)
		return (rc);
	if (s->opts.npids > 4096)
		return (bpf_map__set_max_entries(s->m.pids, s->opts.npids));
	return (0);
}

/* -p's PIDs, once loaded. */
int
sbpf_pids_fill(struct sbpf *s)
{
	uint32_t key, i;
	uint8_t one = 1;

	for (i = 0; s->opts.pids != NULL && i < s->opts.npids; i++) {
		key = (uint32_t)s->opts.pids[i];
		if (bpf_map__update_elem(s->m.pids, &key, sizeof(key), &one,
		    sizeof(one), BPF_ANY) != 0)
			return (-errno);
	}
	return (0);
}

/* The object opened, set up and loaded, with the resolver or not. */
static int
sampler_load(struct sbpf *s, int with_ksym)
{
	struct bpf_program *progs[6];
	size_t k;
	struct sampler_bpf *skel;
	int rc;

	skel = sampler_bpf__open();
	if (skel == NULL)
		return (-errno);
	s->skel = skel;
	s->ksym_ok = with_ksym;
	if (!with_ksym)
		bpf_program__set_autoload(skel->progs.ksym_resolve, false);
	/* one program type per event type, full or compat: load only the
	 * one attached */
	progs[0] = skel->progs.on_sample;
	progs[1] = skel->progs.on_sample_compat;
	progs[2] = skel->progs.on_tracepoint;
	progs[3] = skel->progs.on_tracepoint_compat;
	progs[4] = skel->progs.on_sample_loop;
	progs[5] = skel->progs.on_tracepoint_loop;
	for (k = 0; k < 6; k++)
		if (progs[k] != sampler_prog(s))
			bpf_program__set_autoload(progs[k], false);
	skel->rodata->cfg = s->cfg;
	s->m = (struct sbpf_maps)SBPF_MAPS(skel);
	s->m.walk_cfgs = skel->maps.walk_cfgs;
	s->m.walk_roots = skel->maps.walk_roots;
	if ((rc = sbpf_sizes(s)) != 0 ||
	    (rc = bpf_map__set_max_entries(skel->maps.events,
	    sbpf_ring_size(&s->opts, s->ncpus))) != 0)
		return (rc);
	if ((rc = sampler_bpf__load(skel)) != 0 ||
	    (rc = sbpf_pids_fill(s)) != 0)
		return (rc);
	s->rb = ring_buffer__new(bpf_map__fd(skel->maps.events),
	    sampler_rb_cb, s, NULL);
	return (s->rb == NULL ? -errno : 0);
}

/*
 * Follow exec and exit (exec generations, sampler.bpf.c).  Without them
 * every sample is generation 0: symbolized against the latest image of
 * its PID, as before; say so once.
 */
static void
sampler_attach_exec(struct sbpf *s)
{
	char msg[256];

	s->exec_link = bpf_program__attach(s->m.on_exec);
	if (s->exec_link != NULL)
		s->exit_link = bpf_program__attach(s->m.on_exit);
	if (s->exec_link != NULL && s->exit_link != NULL)
		return;
	snprintf(msg, sizeof(msg), "cannot follow exec and exit "
	    "(raw tracepoints sched_process_exec/exit: %s): samples of "
	    "processes that exec are symbolized against their last image",
	    strerror(errno));
	bpf_link__destroy(s->exec_link);
	bpf_link__destroy(s->exit_link);
	s->exec_link = s->exit_link = NULL;
	if (s->opts.log != NULL)
		s->opts.log(s->opts.arg, SAMPLER_LOG_WARN, msg);
}

static int
sbpf_watch(struct sampler *base, int32_t pid, int on)
{
	struct sbpf *s = (struct sbpf *)base;
	uint32_t key = (uint32_t)pid;
	uint8_t one = 1;
	int rc;

	if (on)
		rc = bpf_map__update_elem(s->m.watch, &key,
		    sizeof(key), &one, sizeof(one), BPF_ANY);
	else {
		rc = bpf_map__delete_elem(s->m.watch, &key,
		    sizeof(key), 0);
		if (s->m.walk_cfgs != NULL)
			(void)bpf_map__delete_elem(s->m.walk_cfgs, &key,
			    sizeof(key), 0);
	}
	return (rc != 0 && !(rc == -ENOENT && !on) ? rc : 0);
}

/* Is id among ids[0..n)?  n is at most a few thousand, once a cycle. */
static int
sampler_cg_member(const uint64_t *ids, size_t n, uint64_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return (1);
	return (0);
}

static int
sbpf_cgroups_set(struct sampler *base, const uint64_t *ids, size_t n)
{
	struct sbpf *s = (struct sbpf *)base;
	uint64_t key, next, stale[64];
	size_t i, nstale;
	uint8_t one = 1;
	int more, rc;

	if (n > SAMPLER_MAX_CGROUPS)
		return (-E2BIG);
	/* add the new ones first, so a cgroup kept is never left out */
	for (i = 0; i < n; i++)
		if (bpf_map__update_elem(s->m.cgroups, &ids[i],
		    sizeof(ids[i]), &one, sizeof(one), BPF_ANY) != 0)
			return (-errno);
	/* then the stale ones, found in batches (deleting while iterating
	 * would restart the iteration) */
	do {
		nstale = 0;
		more = bpf_map__get_next_key(s->m.cgroups, NULL,
		    &next, sizeof(next)) == 0;
		while (more && nstale < sizeof(stale) / sizeof(stale[0])) {
			key = next;
			if (!sampler_cg_member(ids, n, key))
				stale[nstale++] = key;
			more = bpf_map__get_next_key(s->m.cgroups,
			    &key, &next, sizeof(next)) == 0;
		}
		for (i = 0; i < nstale; i++) {
			rc = bpf_map__delete_elem(s->m.cgroups,
			    &stale[i], sizeof(stale[i]), 0);
			if (rc != 0 && rc != -ENOENT)
				return (rc);
		}
	} while (nstale == sizeof(stale) / sizeof(stale[0]));
	return (0);
}

static int
sbpf_follows_exec(const struct sampler *base)
{
	const struct sbpf *s = (const struct sbpf *)base;
	return (s->exec_link != NULL);
}

static int
sbpf_exec_gen(struct sampler *base, int32_t pid, uint32_t *gen)
{
	struct sbpf *s = (struct sbpf *)base;
	uint32_t key = (uint32_t)pid;

	*gen = 0;
	if (s == NULL || s->exec_link == NULL)
		return (-ENOENT);
	if (bpf_map__lookup_elem(s->m.exec_gen, &key, sizeof(key),
	    gen, sizeof(*gen), 0) != 0) {
		*gen = 0;
		return (-ENOENT);
	}
	return (0);
}

static struct sampler *
sbpf_open_as(const struct sampler_opts *opts, enum sbpf_kind kind, char *err,
    size_t errlen)
{
	struct sbpf *s;
	libbpf_print_fn_t old;
	int rc, i;

	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return (NULL);
	}
	s->base.ops = kind == SBPF_LEGACY ? &sampler_bpf_legacy_ops :
	    kind == SBPF_COMPAT ? &sampler_bpf_compat_ops : &sampler_bpf_ops;
	s->kind = kind;
	s->epfd = s->more_fd = -1;
	/* 1.7's walks (walk_frames_loop) need bpf_loop (5.17): the program
	 * that has them is loaded only then (sampler_prog) */
	s->have_loop = kind == SBPF_FULL && libbpf_probe_bpf_helper(
	    BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop, NULL) == 1;
	s->opts = *opts;
	if (opts->ev_name != NULL) {
		s->ev.name = opts->ev_name;
		s->ev.type = opts->ev_type;
		s->ev.config = opts->ev_config;
	}
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		snprintf(err, errlen, "cannot count the CPUs: %s",
		    strerror(-s->ncpus));
		free(s);
		return (NULL);
	}
	s->fds = calloc((size_t)s->ncpus, sizeof(*s->fds));
	s->links = calloc((size_t)s->ncpus, sizeof(*s->links));
	if (s->fds == NULL || s->links == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out_free;
	}
	for (i = 0; i < s->ncpus; i++)
		s->fds[i] = -1;
	sbpf_cfg_fill(s);

	sampler_log_opts = &s->opts;
	old = libbpf_set_print(sampler_libbpf_print);
	/* The kernel symbol resolver needs BPF_PROG_TYPE_SYSCALL and
	 * bpf_snprintf (Linux 5.14): without them, load the sampler alone
	 * (the symbolizer then reads /proc/kallsyms).  The legacy object
	 * has no resolver. */
	sampler_log_opts = NULL;
	rc = kind != SBPF_LEGACY ? sampler_load(s, 1) : 0;
	/* auto's later attempts after the full program's: libbpf's lines
	 * said it all the first time (sampler_open) */
	sampler_log_opts = kind != SBPF_FULL && opts->quiet_load ? NULL :
	    &s->opts;
	sampler_refused[0] = '\0';
	sampler_refused_id = -1;
	if (kind == SBPF_LEGACY)
		rc = sbpf_legacy_load(s);
	else if (rc != 0) {
		sampler_bpf__destroy(s->skel);
		s->skel = NULL;
		rc = sampler_load(s, 0);
	}
	libbpf_set_print(old);
	sampler_log_opts = NULL;
	if (rc != 0) {
		sampler_explain(rc, err, errlen);
		goto out_free;
	}
	/* Paused from the first event on, if asked (without a mapped .bss,
	 * a kernel before 5.5, it cannot be and samples from the start). */
	if (opts->start_paused && s->skel != NULL && s->skel->bss != NULL)
		s->skel->bss->paused = 1;
	/* Before the first sample: a sample's generation must never be
	 * older than one user space could ask about. */
	sampler_attach_exec(s);
	rc = sbpf_sync_cpus(&s->base);
	if (rc < 0 && opts->ev_name != NULL) {
		sampler_ev_explain(&s->ev, rc, err, errlen);
		goto out_free;
	}
	if (rc < 0) {
		sampler_ev_explain_any(rc, err, errlen);
		goto out_free;
	}
	return (&s->base);
out_free:
	sbpf_close(&s->base);
	return (NULL);
}

static struct sampler *
sbpf_open(const struct sampler_opts *opts, char *err, size_t errlen)
{
	return (sbpf_open_as(opts, SBPF_FULL, err, errlen));
}

static struct sampler *
sbpf_open_compat(const struct sampler_opts *opts, char *err, size_t errlen)
{
	return (sbpf_open_as(opts, SBPF_COMPAT, err, errlen));
}

static struct sampler *
sbpf_open_legacy(const struct sampler_opts *opts, char *err, size_t errlen)
{
	return (sbpf_open_as(opts, SBPF_LEGACY, err, errlen));
}

static void
sbpf_resume(struct sampler *base)
{
	struct sbpf *s = (struct sbpf *)base;

	if (s->kind == SBPF_LEGACY)
		sbpf_legacy_resume(s);
	else if (s->skel->bss != NULL)
		s->skel->bss->paused = 0;
}

static void
sbpf_close(struct sampler *base)
{
	struct sbpf *s = (struct sbpf *)base;
	int i;

	if (s == NULL)
		return;
	for (i = 0; s->fds != NULL && i < s->ncpus; i++)
		sampler_cpu_close(s, i);
	bpf_link__destroy(s->exec_link);
	bpf_link__destroy(s->exit_link);
	ring_buffer__free(s->rb);
	sbpf_legacy_free(s);
	sampler_bpf__destroy(s->skel);
	free(s->fds);
	free(s->links);
	free(s);
}

static int
sbpf_drain(struct sampler *base)
{
	struct sbpf *s = (struct sbpf *)base;

	return (s->kind == SBPF_LEGACY ? sbpf_legacy_drain(s) :
	    ring_buffer__consume(s->rb));
}

/* The ring's own fd (legacy: an epoll fd over both rings' epoll fds):
 * level-triggered, readable while it holds data, and woken only by the
 * program's forced wake-ups (legacy: every urgent record, or a ring a
 * quarter full). */
static int
sbpf_wakeup_fd(const struct sampler *base)
{
	const struct sbpf *s = (const struct sbpf *)base;
	return (s->kind == SBPF_LEGACY ? s->epfd : bpf_map__fd(s->m.events));
}

static int
sbpf_set_period(struct sampler *base, uint64_t period)
{
	struct sbpf *s = (struct sbpf *)base;
	int cpu, rc = 0;

	if (s->ev.type == PERF_TYPE_TRACEPOINT)
		return (-ENOTSUP);
	for (cpu = 0; cpu < s->ncpus; cpu++)
		if (s->fds[cpu] >= 0 && ioctl(s->fds[cpu],
		    PERF_EVENT_IOC_PERIOD, &period) != 0)
			rc = -errno;
	if (rc == 0)
		s->opts.period = period;	/* CPUs that come online */
	return (rc);
}

static void
sbpf_stats(struct sampler *base, uint64_t out[STAT_NSTATS])
{
	struct sbpf *s = (struct sbpf *)base;
	uint64_t *vals;
	uint32_t k;
	int c;

	memset(out, 0, sizeof(uint64_t) * STAT_NSTATS);
	vals = calloc((size_t)s->ncpus, sizeof(*vals));
	if (vals == NULL)
		return;
	for (k = 0; k < STAT_NSTATS; k++) {
		if (bpf_map__lookup_elem(s->m.stats, &k, sizeof(k),
		    vals, sizeof(*vals) * (size_t)s->ncpus, 0) != 0)
			continue;
		for (c = 0; c < s->ncpus; c++)
			out[k] += vals[c];
	}
	out[STAT_RB_FULL] += s->lost;
	free(vals);
}

static int
sbpf_ksym_resolve(struct sampler *base, const uint64_t *addrs, size_t n,
    char *names, size_t name_len)
{
	struct sbpf *s = (struct sbpf *)base;
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	size_t i, j, k, len;
	int rc;

	if (s == NULL || !s->ksym_ok || s->skel == NULL ||
	    s->skel->bss == NULL)
		return (-ENOTSUP);
	for (i = 0; i < n; i += k) {
		k = n - i < KSYM_BATCH ? n - i : KSYM_BATCH;
		memcpy(s->skel->bss->ksym_addr, addrs + i, k * sizeof(*addrs));
		s->skel->bss->ksym_n = (uint32_t)k;
		rc = bpf_prog_test_run_opts(bpf_program__fd(
		    s->skel->progs.ksym_resolve), &opts);
		if (rc != 0)
			return (-errno);
		len = name_len < KSYM_NAME_LEN ? name_len : KSYM_NAME_LEN;
		for (j = 0; j < k; j++) {
			memcpy(names + (i + j) * name_len,
			    s->skel->bss->ksym_name[j], len);
			names[(i + j) * name_len + len - 1] = '\0';
		}
	}
	return (0);
}

static const char *
sbpf_event_name(const struct sampler *base)
{
	const struct sbpf *s = (const struct sbpf *)base;
	return (s->ev.name != NULL ? s->ev.name : "none");
}

/* The programs differ in their name, their open and whether they walk. */
#define SBPF_OPS(n, d, c, o, ws, wr) {					\
	.name = n,							\
	.desc = d,							\
	.costs = c,							\
	.open = o,							\
	.close = sbpf_close,						\
	.resume = sbpf_resume,						\
	.drain = sbpf_drain,						\
	.wakeup_fd = sbpf_wakeup_fd,					\
	.sync_cpus = sbpf_sync_cpus,					\
	.set_period = sbpf_set_period,					\
	.stats = sbpf_stats,						\
	.ksym_resolve = sbpf_ksym_resolve,				\
	.exec_gen = sbpf_exec_gen,					\
	.watch = sbpf_watch,						\
	.walk_set = ws,							\
	.walk_root = wr,						\
	.cgroups_set = sbpf_cgroups_set,				\
	.follows_exec = sbpf_follows_exec,				\
	.event_name = sbpf_event_name,					\
}

const struct sampler_ops sampler_bpf_ops =
    SBPF_OPS("bpf", "a BPF program", NULL, sbpf_open, sbpf_walk_set, sbpf_walk_root);
/* The same program for kernels without the task's BTF helpers
 * (sampler.bpf.c's sample_take). */
const struct sampler_ops sampler_bpf_compat_ops =
    SBPF_OPS("bpf-compat", "a BPF program for older kernels",
    sampler_compat_costs, sbpf_open_compat, sbpf_walk_set, sbpf_walk_root);
/* Its legacy build, for kernels without the BPF ring buffer or global
 * data (sampler.bpf.c's head). */
const struct sampler_ops sampler_bpf_legacy_ops =
    SBPF_OPS("bpf-legacy", "a BPF program for kernels before 5.8",
    sampler_legacy_costs, sbpf_open_legacy, NULL, NULL);
