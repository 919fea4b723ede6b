/*
 * A fake of Intel's iaprof 2026.3 (docs/specs/iaprof.md §2-§4, §7) for tests on
 * machines without an Intel GPU.  Command line, exit statuses, stderr texts,
 * stdio buffering and signal handling follow the real tool; what the GPU
 * would have reported comes from a small fixed model.
 *
 * Behaviour (environment):
 *   FAKE_IAPROF_MODE       normal (default), chunked (4096-byte writes, no
 *                          flush per block), bytewise (1-byte writes),
 *                          midblock, nogpu, ignoreint, dies, nointerval,
 *                          malformed, stall, oldgrammar, flood, garbage,
 *                          notroot (act as if euid != 0)
 *   FAKE_IAPROF_MODE_RUNS  the mode applies to the first N runs, later runs
 *                          are normal (needs FAKE_IAPROF_STATE)
 *   FAKE_IAPROF_STATE      file counting runs (its number picks the texts:
 *                          run g > 1 shifts ids and suffixes texts "-r<g>")
 *   FAKE_IAPROF_BLOCKS     dies/stall: blocks written before (default 3)
 *   FAKE_IAPROF_VERSION    --version text on stderr (default 2026.3)
 *   FAKE_IAPROF_VERSION_STDOUT  also this text on stdout
 *   FAKE_IAPROF_VERSION_HANG    --version never returns
 *   FAKE_IAPROF_LOG        append "start <pid> <run> <args>", "signal <pid>
 *                          <name>" and "exit <pid> <status>" lines
 *   FAKE_IAPROF_FLOOD_LINES     flood: eustall lines per block (20000)
 */
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_iaprof.h"

static const char *argv0;
static struct fake f;

/* --- output with the real tool's buffering ------------------------- */

static void
out_write_all(const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(STDOUT_FILENO, p, n)) < 0) {
			if (errno == EINTR)
				continue;
			_exit(141);	/* EPIPE: as a stdio program dies */
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Everything goes through a 4096-byte buffer, as stdio on a pipe. */
void
out_bytes(const char *p, size_t n)
{
	size_t room;

	if (f.flush == FLUSH_BYTE) {
		for (; n > 0; p++, n--)
			out_write_all(p, 1);
		return;
	}
	while (n > 0) {
		room = sizeof(f.buf) - f.buflen;
		if (n < room)
			room = n;
		memcpy(f.buf + f.buflen, p, room);
		f.buflen += room;
		p += room;
		n -= room;
		if (f.buflen == sizeof(f.buf)) {
			out_write_all(f.buf, f.buflen);
			f.buflen = 0;
		}
	}
}

void
out_printf(const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 1)
		n = sizeof(line) - 1;
	out_bytes(line, (size_t)n);
}

void
out_flush(void)
{
	if (f.buflen > 0)
		out_write_all(f.buf, f.buflen);
	f.buflen = 0;
}

void
fake_log(const char *fmt, ...)
{
	const char *path = getenv("FAKE_IAPROF_LOG");
	char line[1024];
	va_list ap;
	int fd, n;

	if (path == NULL)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    0644)) == -1)
		return;
	(void)!write(fd, line, (size_t)n);
	close(fd);
}

/* --- command line, exactly as the real tool (§2) -------------------- */

static void
usage(void)
{
	fprintf(stderr, "USAGE: %s [OPTION...]\n"
	    "options:\n"
	    "    --help                        print this information\n"
	    "    --version                     version information\n"
	    "    --interval=INTEGER            profiling interval time in "
	    "milliseconds (default 10)\n"
	    "    --eu-stall-subsample=INTEGER  process one out of every N EU "
	    "stall samples (default 100)\n", argv0);
}

static void
die_usage(const char *msg)
{
	fprintf(stderr, "ERROR: %s\n", msg);
	usage();
	exit(1);
}

/* strtol-style: leading whitespace and sign, trailing junk ignored. */
static int
arg_int(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (end == s || errno == ERANGE || *v > INT_MAX || *v < INT_MIN)
		return (-1);
	return (0);
}

static void
arg_value(const char *arg, const char *name, long *v)
{
	size_t n = strlen(name);
	char msg[128];

	if (strncmp(arg + 2 + n, "=", 1) != 0 || arg_int(arg + 3 + n, v) != 0) {
		snprintf(msg, sizeof(msg), "expected integer for %s", name);
		die_usage(msg);
	}
	if (*v <= 0) {
		snprintf(msg, sizeof(msg), "%s must be greater than 0", name);
		die_usage(msg);
	}
}

static void version(void);

static void
parse_args(int argc, char **argv)
{
	char msg[PATH_MAX + 64];
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			usage();
			exit(0);
		} else if (strcmp(argv[i], "--version") == 0) {
			version();
			exit(0);
		} else if (strncmp(argv[i], "--interval", 10) == 0 &&
		    (argv[i][10] == '=' || argv[i][10] == '\0'))
			arg_value(argv[i], "interval", &f.interval_ms);
		else if (strncmp(argv[i], "--eu-stall-subsample", 20) == 0 &&
		    (argv[i][20] == '=' || argv[i][20] == '\0'))
			arg_value(argv[i], "eu-stall-subsample", &f.subsample);
		else {
			snprintf(msg, sizeof(msg), "unrecognized option '%s'",
			    argv[i]);
			die_usage(msg);
		}
	}
}

static void
version(void)
{
	const char *v = getenv("FAKE_IAPROF_VERSION");
	const char *o = getenv("FAKE_IAPROF_VERSION_STDOUT");

	fake_log("version %d", (int)getpid());
	if (getenv("FAKE_IAPROF_VERSION_HANG") != NULL)
		for (;;)
			pause();
	if (o != NULL)
		printf("%s\n", o);
	fprintf(stderr, "%s\n", v != NULL ? v : "2026.3");
}

/* --- runs and modes -------------------------------------------------- */

static int
run_number(void)
{
	const char *path = getenv("FAKE_IAPROF_STATE");
	char buf[32] = "";
	int fd, n = 0;
	ssize_t r;

	if (path == NULL)
		return (1);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) == -1)
		return (1);
	if ((r = read(fd, buf, sizeof(buf) - 1)) > 0)
		n = atoi(buf);
	n++;
	snprintf(buf, sizeof(buf), "%d\n", n);
	if (ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0)
		(void)!write(fd, buf, strlen(buf));
	close(fd);
	return (n);
}

static const struct {
	const char *name;
	int mode;
} modes[] = {
	{ "normal", MODE_NORMAL }, { "chunked", MODE_CHUNKED },
	{ "bytewise", MODE_BYTEWISE }, { "midblock", MODE_MIDBLOCK },
	{ "nogpu", MODE_NOGPU }, { "ignoreint", MODE_IGNOREINT },
	{ "dies", MODE_DIES }, { "nointerval", MODE_NOINTERVAL },
	{ "malformed", MODE_MALFORMED }, { "stall", MODE_STALL },
	{ "oldgrammar", MODE_OLDGRAMMAR }, { "flood", MODE_FLOOD },
	{ "garbage", MODE_GARBAGE }, { "notroot", MODE_NOTROOT },
};

static int
pick_mode(void)
{
	const char *m = getenv("FAKE_IAPROF_MODE");
	const char *runs = getenv("FAKE_IAPROF_MODE_RUNS");
	size_t i;

	if (m == NULL || (runs != NULL && f.run > atoi(runs)))
		return (MODE_NORMAL);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(m, modes[i].name) == 0)
			return (modes[i].mode);
	fprintf(stderr, "fake_iaprof: unknown FAKE_IAPROF_MODE %s\n", m);
	exit(99);
}

/* §3.2: no xe card among /dev/dri/card0..15. */
static void
no_gpu(void)
{
	int n;

	for (n = 0; n < 16; n++)
		fprintf(stderr, "WARNING: Failed to open device: "
		    "/dev/dri/card%d\n", n);
	fprintf(stderr, "WARNING: Failed to find any devices.\n");
	fprintf(stderr, "ERROR: Failed to open any drivers.\n");
	fake_log("exit %d 2", (int)getpid());
	exit(2);
}

/* --- the main loop (§3.1, §3.3) -------------------------------------- */

static const char *
signame(int sig)
{
	switch (sig) {
	case SIGINT:
		return ("INT");
	case SIGTERM:
		return ("TERM");
	case SIGHUP:
		return ("HUP");
	case SIGQUIT:
		return ("QUIT");
	default:
		return ("OTHER");
	}
}

/* Signals other than SIGINT keep their default action: record, re-raise. */
static void
audit_handler(int sig)
{
	fake_log("signal %d %s", (int)getpid(), signame(sig));
	signal(sig, SIG_DFL);
	raise(sig);
}

static int
setup_signals(void)
{
	sigset_t set;
	int fd;

	if (getenv("FAKE_IAPROF_LOG") != NULL) {
		signal(SIGTERM, audit_handler);
		signal(SIGHUP, audit_handler);
		signal(SIGQUIT, audit_handler);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	if ((fd = signalfd(-1, &set, SFD_CLOEXEC)) == -1) {
		perror("signalfd");
		exit(1);
	}
	return (fd);
}

static int
setup_timer(long ms)
{
	struct itimerspec its;
	int fd;

	if ((fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC)) == -1) {
		perror("timerfd_create");
		exit(1);
	}
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = ms / 1000;
	its.it_value.tv_nsec = (ms % 1000) * 1000000L;
	its.it_interval = its.it_value;
	timerfd_settime(fd, 0, &its, NULL);
	return (fd);
}

/* SIGINT: "\n", the match summary, exit 0; no final block (§3.3). */
static void
on_sigint(int sfd)
{
	struct signalfd_siginfo si;

	(void)!read(sfd, &si, sizeof(si));
	fake_log("signal %d INT", (int)getpid());
	if (f.mode == MODE_IGNOREINT)
		return;
	fputs("\n", stderr);
	fputs("INFO: matched: 0 unmatched: 0\n", stderr);
	out_flush();	/* stdio's exit flush: whole lines already written */
	fake_log("exit %d 0", (int)getpid());
	exit(0);
}

static void
loop(void)
{
	struct pollfd pfd[2];
	uint64_t ticks;

	pfd[0].fd = setup_signals();
	pfd[0].events = POLLIN;
	/* Setup: device, probes.  SIGINT stays pending until the loop. */
	fprintf(stderr, "INFO: Selected device: /dev/dri/card1\n");
	fprintf(stderr, "INFO: Device ID and revision: 0xe20b 0x0\n");
	fprintf(stderr, "INFO: attached probes for "
	    "/usr/lib/x86_64-linux-gnu/libze_intel_gpu.so.1\n");
	pfd[1].fd = setup_timer(f.interval_ms);
	pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "ERROR: poll failed with errno %d\n",
			    errno);
			exit(1);
		}
		if (pfd[0].revents & POLLIN)
			on_sigint(pfd[0].fd);
		if (pfd[1].revents & POLLIN &&
		    read(pfd[1].fd, &ticks, sizeof(ticks)) == sizeof(ticks))
			model_tick(&f);
	}
}

int
main(int argc, char **argv)
{
	int i;
	char args[512] = "";

	argv0 = argv[0];
	f.interval_ms = 10;
	f.subsample = 100;
	parse_args(argc, argv);
	f.run = run_number();
	f.mode = pick_mode();
	for (i = 1; i < argc; i++)
		snprintf(args + strlen(args), sizeof(args) - strlen(args),
		    "%s%s", i > 1 ? " " : "", argv[i]);
	fake_log("start %d %d %s", (int)getpid(), f.run, args);
	if (geteuid() != 0 || f.mode == MODE_NOTROOT) {
		fprintf(stderr, "ERROR: Tool currently needs superuser (root) "
		    "permission. Please consider running with sudo. "
		    "Exiting.\n");
		exit(1);
	}
	if (f.mode == MODE_NOGPU)
		no_gpu();
	f.flush = f.mode == MODE_CHUNKED ? FLUSH_NEVER :
	    f.mode == MODE_BYTEWISE ? FLUSH_BYTE : FLUSH_BLOCK;
	f.blocks_max = getenv("FAKE_IAPROF_BLOCKS") != NULL ?
	    atoi(getenv("FAKE_IAPROF_BLOCKS")) : 3;
	srand((unsigned)getpid());
	loop();
	return (0);
}
