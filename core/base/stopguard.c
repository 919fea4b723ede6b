/*
 * The stop guard: see stopguard.h.
 *
 * The thread sleeps in sigtimedwait.  While the agent runs it wakes every
 * STOPGUARD_WATCH_MS, on the tick grid, to look at the loop's thread in
 * /proc (the loop does nothing for it: no timer, no wake-up); once a stop
 * signal came, every STOPGUARD_BEAT_MS to look at the loop's beat.  It
 * shares with the loop only atomics, the pipe and the stall line the pipe
 * announces; its one line at a stop goes through log_last_words, which
 * waits for no lock the loop may hold.
 */
#include "config.h"

#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clockns.h"
#include "procstat.h"
#include "base/fusebreak.h"
#include "base/log.h"
#include "base/procfs.h"
#include "base/stopguard.h"
#include "base/tick.h"

static struct {
	pthread_t thread;
	int running;
	int rfd, wfd;
	pid_t loop_tid;
	sigset_t sigs;
	struct event *ev_pipe;
	struct event *ev_beat;
	void (*cb)(int, void *);
	void *arg;
	_Atomic uint64_t stop_ns;	/* the first stop signal */
	_Atomic uint64_t beat_ns;	/* the loop's last turn since */
	atomic_int quit;
	/* While running (sg_watch): the loop's thread asleep in the kernel
	 * since watch_ns with watch_sw context switches (none since), and
	 * whether that sleep was handled; the line for the loop to log when
	 * it turns again, announced by a 0 byte in the pipe. */
	uint64_t watch_ns, watch_sw;
	int watch_done;
	uint64_t stall_ns;	/* the sleep's start, for the line */
	char stall_line[1024];
	atomic_int stall_ready;
	int stop_broke;		/* at a stop: a FUSE wait was looked for */
} sg = { .rfd = -1, .wfd = -1 };

static uint64_t
sg_now_ns(void)
{
	return (clock_ns(CLOCK_MONOTONIC));
}

char
stopguard_task_state(const char *stat, size_t len)
{
	char state;

	return (procstat_state(stat, len, &state) == 0 ? state : 0);
}

int
stopguard_parse_syscall(const char *text, size_t len, long *nr,
    unsigned long long args[6])
{
	char buf[256], *p, *end;
	unsigned long long v;
	long n;
	int i;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	errno = 0;
	n = strtol(buf, &end, 10);
	if (end == buf || errno != 0 || n < 0)
		return (-1);
	for (i = 0, p = end; i < 6; i++, p = end) {
		if (*p != ' ')
			return (-1);
		v = strtoull(p + 1, &end, 16);
		if (end == p + 1 || errno != 0)
			return (-1);
		args[i] = v;
	}
	*nr = n;
	return (0);
}

/* Its file's path, for the line: a read names what it reads. */
static void
sg_fd_path(unsigned long long fd, char *out, size_t outlen)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%llu", fd);
	if ((n = readlink(path, out, outlen - 1)) < 0)
		n = 0;
	out[n] = '\0';
}

/* A file of the loop's thread's /proc/self/task/TID/ into buf: its
 * length, or -errno. */
static ssize_t
sg_task_read(const char *name, char *buf, size_t cap)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s",
	    (int)sg.loop_tid, name);
	return (procfs_read_buf(path, buf, cap));
}

/* What the loop's thread waits for, in words ("" if not known), and its
 * system call (nr -1: none known). */
static void
sg_loop_call(char *out, size_t outlen, long *nrp, unsigned long long a[6])
{
	char buf[256], file[160];
	ssize_t n;
	long nr;

	out[0] = '\0';
	*nrp = -1;
	n = sg_task_read("syscall", buf, sizeof(buf));
	if (n <= 0 || stopguard_parse_syscall(buf, (size_t)n, &nr, a) != 0)
		return;
	*nrp = nr;
	if (nr == SYS_process_vm_readv)
		snprintf(out, outlen, ", reading the memory of pid %llu", a[0]);
	else if (nr == SYS_read || nr == SYS_pread64 || nr == SYS_readv ||
	    nr == SYS_preadv) {
		sg_fd_path(a[0], file, sizeof(file));
		snprintf(out, outlen, ", reading %s", file[0] != '\0' ? file :
		    "a file");
	} else if (nr == SYS_getdents64) {
		sg_fd_path(a[0], file, sizeof(file));
		snprintf(out, outlen, ", listing %s", file[0] != '\0' ? file :
		    "a directory");
	} else if (fusebreak_lookup_path(nr, a, file, sizeof(file)) == 0)
		snprintf(out, outlen, ", looking up %s", file);
	else
		snprintf(out, outlen, ", in system call %ld", nr);
}

/* The loop's thread: its state letter, and where in the kernel it waits. */
static char
sg_loop_state(char *wchan, size_t wlen)
{
	char buf[512];
	ssize_t n;

	if (sg_task_read("wchan", wchan, wlen) < 0)
		wchan[0] = '\0';
	n = sg_task_read("stat", buf, sizeof(buf));
	return (n > 0 ? stopguard_task_state(buf, (size_t)n) : 0);
}

/* The loop's thread's state letter and its context switches, voluntary
 * and not (UINT64_MAX if unknown), from one read of its status:
 * unchanged between two looks, it has not run in between. */
static char
sg_loop_sleep(uint64_t *switches)
{
	char buf[2048], *p, st = 0;
	int found = 0;

	*switches = UINT64_MAX;
	if (sg_task_read("status", buf, sizeof(buf)) <= 0)
		return (0);
	if ((p = strstr(buf, "\nState:")) != NULL)
		st = p[strspn(p + 7, " \t") + 7];
	for (*switches = 0, p = buf; (p = strstr(p, "ctxt_switches:")) !=
	    NULL; found++) {
		p += strlen("ctxt_switches:");
		*switches += strtoull(p, &p, 10);
	}
	if (found != 2)
		*switches = UINT64_MAX;
	return (st);
}

/* The line for the loop to log when it turns again, announced by a 0
 * byte in the pipe; the sleep began since_ms ago. */
static void
sg_stall_line(uint64_t since_ms, const char *call, const char *what)
{
	uint8_t zero = 0;

	if (atomic_load(&sg.stall_ready))
		return;
	snprintf(sg.stall_line, sizeof(sg.stall_line), "the event loop "
	    "waited at least %llu ms in the kernel%s: %s",
	    (unsigned long long)since_ms, call, what);
	sg.stall_ns = sg_now_ns() - since_ms * 1000000ull;
	atomic_store(&sg.stall_ready, 1);
	(void)write(sg.wfd, &zero, 1);
}

/*
 * Running: a loop asleep in the kernel at two looks in a row (in D or S
 * state, no context switch between, about STOPGUARD_WATCH_MS apart: a look that a
 * signal brought early does not count) may be held by a FUSE server
 * (fusebreak.h): its connection aborted if it can be, and the loop told,
 * once a sleep.  A sleep that is no FUSE wait (a slow disk) is left to end
 * by itself, unsaid.
 */
static void
sg_watch(void)
{
	uint64_t now = sg_now_ns(), sw, since;
	char call[256], what[384], st;
	int rc;
	unsigned long long a[6];
	long nr;

	/* S too: a FUSE look-up waits interruptibly (the loop's signals are
	 * blocked, so it is never interrupted); its own sleep, in epoll,
	 * is no call fusebreak_run acts on. */
	st = sg_loop_sleep(&sw);
	if ((st != 'D' && st != 'S') || sw == UINT64_MAX ||
	    sw != sg.watch_sw) {
		sg.watch_sw = sw;
		sg.watch_ns = now;
		sg.watch_done = 0;
		return;
	}
	since = (now - sg.watch_ns) / 1000000;
	if (since + STOPGUARD_WATCH_MS / 10 < STOPGUARD_WATCH_MS ||
	    sg.watch_done || atomic_load(&sg.stall_ready))
		return;
	sg.watch_done = 1;
	sg_loop_call(call, sizeof(call), &nr, a);
	if (nr < 0)
		return;
	rc = fusebreak_run(nr, a, what, sizeof(what));
	if (rc == 0 || what[0] == '\0')
		return;
	sg_stall_line(since, call, what);
}

/* A stop signal came: is the loop still turning?  If not, the end. */
static void
sg_check(void)
{
	uint64_t stop = atomic_load(&sg.stop_ns), beat, since;
	char wchan[64], call[256], line[1024], what[384], st;
	unsigned long long a[6];
	long nr;

	if (stop == 0) {
		sg_watch();
		return;
	}
	beat = atomic_load(&sg.beat_ns);
	since = (sg_now_ns() - (beat > stop ? beat : stop)) / 1000000;
	if (since < STOPGUARD_WAIT_MS)
		return;
	st = sg_loop_state(wchan, sizeof(wchan));
	if (st == 'R' && since < STOPGUARD_BUSY_MS)
		return;
	if (strcmp(wchan, "0") == 0)
		wchan[0] = '\0';	/* not waiting */
	sg_loop_call(call, sizeof(call), &nr, a);
	/* Held by a user's FUSE server?  Let go, the loop may still end
	 * its run itself (the wait would outlive even the exit). */
	what[0] = '\0';
	if (st != 'R' && nr >= 0 && !sg.stop_broke) {
		sg.stop_broke = 1;
		if (fusebreak_run(nr, a, what, sizeof(what)) == 1) {
			sg_stall_line(since, call, what);
			return;
		}
	}
	snprintf(line, sizeof(line), "stopping: the event loop has not run "
	    "for %llu ms (%s%s%s%s): exiting without finishing the cycle%s%s",
	    (unsigned long long)since, st == 'R' ? "on CPU" :
	    "waiting in the kernel", wchan[0] != '\0' ? " in " : "", wchan,
	    call, what[0] != '\0' ? "; " : "", what);
	log_last_words(line);
	_exit(STOPGUARD_EXIT);
}

/*
 * A stop signal within STOPGUARD_REPEAT_MS of the first is the same
 * request, not an operator's second: timeout(1) signals its child and then
 * its own process group, the agent in it, and a loaded host runs the loop
 * between the two.  Taken as "exit now", it left the children's files
 * behind (PerfSpect's private directory).
 */
static int
sg_repeat(int sig)
{
	uint64_t first = atomic_load(&sg.stop_ns);

	return (sig != SIGHUP && first != 0 &&
	    sg_now_ns() - first < STOPGUARD_REPEAT_MS * 1000000ULL);
}

static void *
sg_thread(void *unused)
{
	struct timespec beat = { 0, STOPGUARD_BEAT_MS * 1000000L }, watch;
	struct timeval tv;
	siginfo_t info;
	uint8_t b;
	int sig;

	(void)unused;
	while (!atomic_load(&sg.quit)) {
		/* Asleep until a signal, or the next look: while running on
		 * the agent's tick grid, so that it wakes when the loop's slow
		 * timers wake the process anyway. */
		tick_next(STOPGUARD_WATCH_MS, &tv);
		watch.tv_sec = tv.tv_sec;
		watch.tv_nsec = tv.tv_usec * 1000L;
		sig = sigtimedwait(&sg.sigs, &info,
		    atomic_load(&sg.stop_ns) == 0 ? &watch : &beat);
		if (atomic_load(&sg.quit))
			break;
		if (sig > 0 && !sg_repeat(sig)) {
			if (sig != SIGHUP && atomic_load(&sg.stop_ns) == 0)
				atomic_store(&sg.stop_ns, sg_now_ns());
			b = (uint8_t)sig;
			/* A full pipe holds 64 KiB of signals: one more
			 * changes nothing. */
			(void)write(sg.wfd, &b, 1);
		}
		sg_check();
	}
	return (NULL);
}

static void
sg_beat(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	(void)arg;
	atomic_store(&sg.beat_ns, sg_now_ns());
}

/* In the loop: the thread's line about a wait it ended, if one is due. */
static void
sg_stall_say(void)
{
	if (atomic_load(&sg.stall_ready))
		log_warnx("%s; it turned again after %.1f s", sg.stall_line,
		    (double)(sg_now_ns() - sg.stall_ns) / 1e9);
	atomic_store(&sg.stall_ready, 0);
}

static void
sg_read(evutil_socket_t fd, short ev, void *arg)
{
	struct timeval tv = { 0, STOPGUARD_BEAT_MS * 1000 };
	uint8_t buf[16];
	ssize_t n, i;

	(void)ev;
	(void)arg;
	atomic_store(&sg.beat_ns, sg_now_ns());
	if ((n = read(fd, buf, sizeof(buf))) <= 0)
		return;
	for (i = 0; i < n; i++) {
		if (buf[i] == 0) {	/* sg_watch's line */
			sg_stall_say();
			continue;
		}
		/* Stopping: the loop beats so that the thread sees it
		 * turn (and nothing wakes it otherwise). */
		if (buf[i] != SIGHUP && !evtimer_pending(sg.ev_beat, NULL))
			evtimer_add(sg.ev_beat, &tv);
		sg.cb(buf[i], sg.arg);
	}
}

int
stopguard_start(struct event_base *base, void (*cb)(int, void *), void *arg)
{
	sigset_t all, old;
	int fds[2], rc;

	if (sg.running)
		return (-EALREADY);
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
		return (-errno);
	sg.rfd = fds[0];
	sg.wfd = fds[1];
	sg.cb = cb;
	sg.arg = arg;
	sg.loop_tid = (pid_t)syscall(SYS_gettid);
	atomic_store(&sg.stop_ns, 0);
	atomic_store(&sg.beat_ns, sg_now_ns());
	atomic_store(&sg.quit, 0);
	atomic_store(&sg.stall_ready, 0);
	sg.watch_sw = UINT64_MAX;
	sg.watch_done = 0;
	sg.ev_pipe = event_new(base, sg.rfd, EV_READ | EV_PERSIST, sg_read,
	    NULL);
	sg.ev_beat = event_new(base, -1, EV_PERSIST, sg_beat, NULL);
	if (sg.ev_pipe == NULL || sg.ev_beat == NULL ||
	    event_add(sg.ev_pipe, NULL) != 0) {
		rc = -ENOMEM;
		goto fail;
	}
	sigemptyset(&sg.sigs);
	sigaddset(&sg.sigs, SIGTERM);
	sigaddset(&sg.sigs, SIGINT);
	sigaddset(&sg.sigs, SIGHUP);
	/* The thread takes its signals by waiting for them only: every
	 * one blocked in it (it inherits the mask), so that SIGCHLD and the
	 * rest reach the loop; the loop blocks the three. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = -pthread_create(&sg.thread, NULL, sg_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		goto fail;
	pthread_sigmask(SIG_BLOCK, &sg.sigs, NULL);
	sg.running = 1;
	return (0);
fail:
	if (sg.ev_pipe != NULL)
		event_free(sg.ev_pipe);
	if (sg.ev_beat != NULL)
		event_free(sg.ev_beat);
	sg.ev_pipe = sg.ev_beat = NULL;
	close(sg.rfd);
	close(sg.wfd);
	sg.rfd = sg.wfd = -1;
	return (rc);
}

void
stopguard_stop(void)
{
	if (!sg.running)
		return;
	atomic_store(&sg.quit, 1);
	/* Wakes its sigtimedwait at once (taken there, never delivered). */
	pthread_kill(sg.thread, SIGHUP);
	pthread_join(sg.thread, NULL);
	sg.running = 0;
	/* A wait ended at a stop: the loop may have turned, taken the stop
	 * and come here before the thread, which had yet to write its
	 * line, could announce it. */
	sg_stall_say();
	event_free(sg.ev_pipe);
	event_free(sg.ev_beat);
	sg.ev_pipe = sg.ev_beat = NULL;
	close(sg.rfd);
	close(sg.wfd);
	sg.rfd = sg.wfd = -1;
	/* The three stay blocked: the agent is on its way out, and one that
	 * comes now must not end it by the default action. */
}
