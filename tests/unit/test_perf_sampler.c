/*
 * plugins/perf/sampler/sampler.c against the real kernel: load the BPF sampler,
 * profile the perf_busy workload (frame pointers) and check what the ring
 * buffer delivers: its pid and comm, user stacks inside its own text, the
 * --pids filter, the agent's own pid left out, DWARF registers and stack.
 */
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "testing.h"
#include "sampler/sampler.h"

#ifndef WORKLOAD_DIR
#define WORKLOAD_DIR "tests/workloads"
#endif

struct seen {
	int32_t want;	/* the workload's pid */
	int32_t other;
	uint64_t text_lo, text_hi;	/* its executable mapping */
	int records, bad, mine, others, self;
	int deep;	/* >= 4 user frames, leaf in text */
	int dwarf, dwarf_ok;
	int comm_ok;
	int stop_every;	/* stop the drain (-EAGAIN) after every n records */
};

static int
on_record(void *arg, const void *rec, size_t len)
{
	struct seen *s = arg;
	struct sample_view v;

	s->records++;
	if (s->stop_every > 0 && s->records % s->stop_every == 0)
		return (-EAGAIN);
	if (sample_record_parse(rec, len, &v) != 0) {
		s->bad++;
		return (0);
	}
	if ((pid_t)v.hdr.pid == getpid())
		s->self++;
	if ((int32_t)v.hdr.pid == s->other)
		s->others++;
	if ((int32_t)v.hdr.pid != s->want)
		return (0);
	s->mine++;
	if (strcmp(v.hdr.comm, "perf_busy") == 0)
		s->comm_ok++;
	if (v.hdr.nuser >= 4 && v.uips[0] >= s->text_lo &&
	    v.uips[0] < s->text_hi)
		s->deep++;
	if (v.hdr.flags & SAMPLE_F_DWARF) {
		s->dwarf++;
		if (v.hdr.stack_len >= 1024 && v.regs[SAMPLE_REG_SP] != 0 &&
		    v.regs[SAMPLE_REG_IP] >= s->text_lo &&
		    v.regs[SAMPLE_REG_IP] < s->text_hi)
			s->dwarf_ok++;
	}
	return (0);
}

static void
on_log(void *arg, int level, const char *msg)
{
	printf("# libbpf: %s\n", msg);
}

/*
 * The workloads spin until killed after the sampling window: loading the
 * BPF program can take seconds on a loaded host (under ASan, beside other
 * tests), and a workload of fixed length could be done before sampling
 * begins.
 */
#define BUSY_SECS	"60"

static pid_t
spawn_busy(const char *secs)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(WORKLOAD_DIR "/perf_busy", "perf_busy", "-t", secs,
		    (char *)NULL);
		_exit(127);
	}
	return (pid);
}

/* The r-xp mapping of the workload's own binary. */
static void
text_range(pid_t pid, struct seen *s)
{
	char path[64], line[512];
	unsigned long lo, hi;
	FILE *f;

	usleep(100000);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, "r-xp") && strstr(line, "perf_busy") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
			s->text_lo = lo;
			s->text_hi = hi;
		}
	}
	fclose(f);
}

static void
run(struct sampler *sm, double secs)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int i;

	for (i = 0; i < secs * 10; i++) {
		nanosleep(&ts, NULL);
		sampler_drain(sm);
	}
}

/*
 * Samples a child should have got at 99 Hz over the share `frac` of its
 * life we sampled: from its CPU time, so a loaded machine (where the
 * child gets less CPU) does not fail the test.
 */
/* The CPU pid has used so far, in s (utime + stime of /proc/PID/stat). */
static double
proc_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY)) < 0)
		return (0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return (0);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 2,
	    "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut,
	    &st) != 2)
		return (0);
	return ((double)(ut + st) / (double)sysconf(_SC_CLK_TCK));
}

/*
 * How many samples the child should have had: frac of 99 Hz of the CPU it
 * used after `before` s (what it ran while the sampler loaded is not
 * sampled: under a loaded ASan run the load alone took a third of it).
 */
static int
reap_expect(pid_t pid, double frac, double before)
{
	struct rusage ru;
	double cpu;

	if (wait4(pid, NULL, 0, &ru) < 0)
		return (1);
	cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	printf("# child %d: %.2f s CPU, %.2f s of it before sampling\n",
	    (int)pid, cpu, before);
	cpu -= before;
	return (cpu > 0 ? (int)(cpu * 99 * frac * 0.7) + 1 : 1);
}

/* Bytes of user stack copied for DWARF (open_backend). */
static uint32_t dwarf_size = 8192;

static struct sampler *
open_backend(struct seen *s, int backend, int dwarf, const int32_t *pids,
    uint32_t npids)
{
	struct sampler_opts o;
	char err[256] = "";
	struct sampler *sm;

	memset(&o, 0, sizeof(o));
	o.backend = backend;
	o.self_pid = getpid();
	o.freq = 99;
	o.want_fp = 1;
	o.want_dwarf = dwarf;
	o.dwarf_size = dwarf_size;
	o.pids = pids;
	o.npids = npids;
	o.on_record = on_record;
	o.log = on_log;
	o.arg = s;
	sm = sampler_open(&o, err, sizeof(err));
	if (sm == NULL)
		printf("# %s\n", err);
	return (sm);
}

static struct sampler *
open_sampler(struct seen *s, int dwarf, const int32_t *pids, uint32_t npids)
{
	return (open_backend(s, SAMPLER_AUTO, dwarf, pids, npids));
}

/*
 * One second of a busy workload's DWARF samples through backend, stacks
 * of size bytes copied, into *s: the samples its CPU time should give.
 */
static int
run_dwarf(struct seen *s, int backend, uint32_t size, const char *what)
{
	struct sampler *sm;
	double before;
	pid_t a;

	memset(s, 0, sizeof(*s));
	s->want = a = spawn_busy(BUSY_SECS);
	text_range(a, s);
	dwarf_size = size;
	sm = open_backend(s, backend, 1, NULL, 0);
	dwarf_size = 8192;
	before = proc_cpu(a);
	CHECK(sm != NULL, what);
	if (sm != NULL) {
		run(sm, 1);
		sampler_close(sm);
	}
	kill(a, SIGKILL);
	return (reap_expect(a, 0.5, before));
}

/*
 * A drain the caller stops (-EAGAIN: its slice ran out) leaves the rest
 * readable: the wakeup fd polls ready at once, and later drains deliver
 * every sample taken.  Each backend: the legacy program's perf rings are
 * readable after a wake-up, not while they hold data.
 */
static void
check_stopped_drain(const char *name)
{
	struct pollfd pfd;
	struct seen s;
	struct sampler *sm;
	uint64_t st[STAT_NSTATS];
	int32_t filt[1];
	int rc, i, stops = 0, missed = 0, ready = 1, had, expect;
	double before;
	char what[128];
	pid_t a;

	memset(&s, 0, sizeof(s));
	s.want = a = spawn_busy(BUSY_SECS);
	s.stop_every = 7;
	filt[0] = a;
	sm = open_backend(&s, sampler_backend_parse(name), 0, filt, 1);
	snprintf(what, sizeof(what), "%s: opens", name);
	CHECK(sm != NULL, what);
	if (sm == NULL) {
		kill(a, SIGKILL);
		waitpid(a, NULL, 0);
		return;
	}
	before = proc_cpu(a);
	usleep(700000);
	kill(a, SIGKILL);
	expect = reap_expect(a, 0.5, before);
	usleep(100000);
	/* a stop on the ring's last record leaves nothing to wake for:
	 * only a stop the fd did not tell of, with records left, is missed */
	for (i = 0; i < 100000; i++) {
		had = s.records;
		rc = sampler_drain(sm);
		if (!ready && s.records > had)
			missed++;
		if (rc != -EAGAIN)
			break;
		stops++;
		pfd.fd = sampler_wakeup_fd(sm);
		pfd.events = POLLIN;
		ready = poll(&pfd, 1, 0) == 1;
	}
	sampler_stats(sm, st);
	sampler_close(sm);
	printf("# %s: %d records, %d stops, %d missed, samples %llu, full "
	    "%llu\n", name, s.records, stops, missed,
	    (unsigned long long)st[STAT_SAMPLES],
	    (unsigned long long)st[STAT_RB_FULL]);
	snprintf(what, sizeof(what), "%s: the drain was stopped (%d times)",
	    name, stops);
	CHECK(stops > 0, what);
	snprintf(what, sizeof(what), "%s: after each stop with records left "
	    "the wakeup fd is readable (%d of %d stops not)", name, missed,
	    stops);
	CHECK(missed == 0, what);
	snprintf(what, sizeof(what), "%s: ~99 Hz of the workload's CPU time "
	    "delivered (%d, want %d)", name, s.mine, expect);
	CHECK(s.mine >= expect, what);
	/* the BPF programs filter in the kernel: each sample taken is one
	 * record (perf events count the host's, filtered in user space) */
	if (strncmp(name, "bpf", 3) == 0) {
		snprintf(what, sizeof(what), "%s: every sample taken was "
		    "delivered (%d of %llu)", name, s.records,
		    (unsigned long long)(st[STAT_SAMPLES] - st[STAT_RB_FULL]));
		CHECK((uint64_t)s.records == st[STAT_SAMPLES] -
		    st[STAT_RB_FULL], what);
	}
}

/* The address of a text symbol in /proc/kallsyms, or 0. */
static uint64_t
kallsyms_addr(const char *want)
{
	char line[512], name[256], type;
	unsigned long long a;
	uint64_t r = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (f == NULL)
		return (0);
	while (r == 0 && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    (type == 't' || type == 'T') && strcmp(name, want) == 0)
			r = a;
	fclose(f);
	return (r);
}

/* The kernel's own lookup through BPF names what /proc/kallsyms names. */
static void
check_ksym(struct sampler *sm)
{
	char names[4][128];
	uint64_t addrs[4];
	int rc;

	addrs[0] = kallsyms_addr("vfs_read");
	addrs[1] = addrs[0] + 1;
	addrs[2] = kallsyms_addr("do_syscall_64");
	addrs[3] = 0x10;
	if (addrs[0] == 0 || addrs[2] == 0) {
		printf("# kallsyms hidden: no resolver check\n");
		return;
	}
	rc = sampler_ksym_resolve(sm, addrs, 4, names[0], sizeof(names[0]));
	if (rc == -ENOTSUP) {
		printf("# kernel without the BPF symbol resolver\n");
		return;
	}
	CHECK_INTEQ(rc, 0, "kernel symbol resolver runs");
	printf("# %s | %s | %s | %s\n", names[0], names[1], names[2],
	    names[3]);
	CHECK(strncmp(names[0], "vfs_read+0x0/", 13) == 0,
	    "resolver: symbol start");
	CHECK(strncmp(names[1], "vfs_read+0x1/", 13) == 0,
	    "resolver: inside the symbol");
	CHECK(strncmp(names[2], "do_syscall_64+0x0/", 18) == 0,
	    "resolver: another symbol");
	CHECK(strncmp(names[3], "0x", 2) == 0, "resolver: not a kernel address");
}

int
main(void)
{
	struct seen s;
	struct sampler *sm;
	uint64_t st[STAT_NSTATS];
	int32_t filt[1];
	pid_t a, b;
	int expect;
	double before;
	volatile uint64_t x = 0;
	time_t end;

	if (geteuid() != 0)
		SKIP_ALL("needs root for BPF");
	if (access(WORKLOAD_DIR "/perf_busy", X_OK) != 0)
		SKIP_ALL("perf_busy workload not built");

	/* 1: whole host, frame pointers */
	memset(&s, 0, sizeof(s));
	s.want = a = spawn_busy(BUSY_SECS);
	text_range(a, &s);
	sm = open_sampler(&s, 0, NULL, 0);
	before = proc_cpu(a);
	if (sm == NULL) {
		kill(a, SIGKILL);
		SKIP_ALL("BPF sampler cannot load here");
	}
	CHECK(strcmp(sampler_event_name(sm), "none") != 0, "an event was chosen");
	printf("# event %s\n", sampler_event_name(sm));
	end = time(NULL) + 1;
	while (time(NULL) <= end)	/* the agent's own CPU: never sampled */
		x++;
	run(sm, 1.2);
	kill(a, SIGKILL);
	expect = reap_expect(a, 0.9, before);
	sampler_drain(sm);
	sampler_stats(sm, st);
	printf("# records %d mine %d deep %d self %d samples %llu full %llu\n",
	    s.records, s.mine, s.deep, s.self, (unsigned long long)st[STAT_SAMPLES],
	    (unsigned long long)st[STAT_RB_FULL]);
	CHECK(s.text_lo != 0, "found the workload's text mapping");
	CHECK_INTEQ(s.bad, 0, "every record parses");
	CHECK(s.mine >= expect, "~99 Hz of the workload's CPU time");
	CHECK(s.comm_ok == s.mine, "comm is the workload's");
	CHECK(s.deep >= s.mine * 9 / 10, "user stacks deep and in its text");
	CHECK_INTEQ(s.self, 0, "the agent's own pid is not sampled");
	CHECK(st[STAT_SAMPLES] >= (uint64_t)s.records, "stats count samples");
	CHECK_INTEQ(st[STAT_RB_FULL], 0, "nothing lost to a full ring");
	CHECK(sampler_sync_cpus(sm) >= 1, "cpu re-scan keeps events");
	check_ksym(sm);
	sampler_close(sm);

	/* 2: --pids: only b */
	memset(&s, 0, sizeof(s));
	a = spawn_busy(BUSY_SECS);
	s.want = b = spawn_busy(BUSY_SECS);
	s.other = a;
	text_range(b, &s);
	filt[0] = b;
	sm = open_sampler(&s, 0, filt, 1);
	before = proc_cpu(b);
	CHECK(sm != NULL, "sampler with a pid filter");
	if (sm != NULL) {
		run(sm, 1);
		sampler_close(sm);
	}
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	waitpid(a, NULL, 0);
	expect = reap_expect(b, 0.5, before);
	printf("# filtered: mine %d others %d records %d\n", s.mine, s.others,
	    s.records);
	CHECK(s.mine >= expect, "the wanted pid is sampled");
	CHECK_INTEQ(s.others, 0, "other pids are filtered out");
	CHECK_INTEQ(s.records, s.mine, "nothing but the wanted pid");

	/* 3: DWARF: registers and stack bytes */
	expect = run_dwarf(&s, SAMPLER_AUTO, 8192, "sampler with dwarf");
	printf("# dwarf: mine %d dwarf %d ok %d\n", s.mine, s.dwarf, s.dwarf_ok);
	CHECK(s.mine >= expect && s.dwarf == s.mine, "every sample carries regs");
	CHECK(s.dwarf_ok >= s.dwarf * 9 / 10, "ip in text, stack copied");

	/* 4: the legacy program's largest records (a whole 1 KiB stack
	 * copy, padded by the kernel) reach user space too */
	expect = run_dwarf(&s, sampler_backend_parse("bpf-legacy"), 1024,
	    "the legacy program with dwarf");
	printf("# legacy dwarf: mine %d dwarf %d ok %d\n", s.mine, s.dwarf,
	    s.dwarf_ok);
	/* registers come from the event's context: a sample taken while
	 * the kernel ran for the workload (its exit, a page fault) has none */
	CHECK(s.mine >= expect && s.dwarf >= s.mine * 9 / 10,
	    "legacy: its samples taken in user mode carry regs and their "
	    "whole stack copy");
	CHECK(s.dwarf_ok >= s.dwarf * 9 / 10, "legacy: ip in text, stack copied");

	/* 5: stopped drains, through each backend */
	check_stopped_drain("bpf");
	check_stopped_drain("bpf-compat");
	check_stopped_drain("bpf-legacy");
	check_stopped_drain("perf-events");
	return (testing_done());
}
