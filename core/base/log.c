/*
 * The daemon's log: "LEVEL component: message" lines on stderr (level set by
 * -v) and, at DEBUG, in --log-file.  Never give it a token.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/textesc.h"
#include "base/utctime.h"

static int log_verbose = LOG_LEVEL_INFO;
static FILE *log_file;
static char *log_path;
static long long log_max_size;		/* 0: no rotation */
static int log_backups;
static const char *log_procname = "gprofiler";
static void (*log_sink)(int, const char *, const char *, void *);
static void *log_sink_arg;
static int log_in_sink;

static const char *const log_levels[] = { "ERROR", "WARN", "INFO", "DEBUG" };

/* Start logging to stderr; verbose raises the stderr level to DEBUG. */
void
log_init(int verbose, const char *procname)
{
	log_verbose = verbose ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO;
	if (procname != NULL)
		log_procname = procname;
}

void
log_setverbose(int v)
{
	log_verbose = v ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO;
}

int
log_getverbose(void)
{
	return (log_verbose == LOG_LEVEL_DEBUG);
}

/*
 * Also log everything, at DEBUG, to path (appended, 0600), rotated to
 * path.1 .. path.<backups> when it grows past max_size (gProfiler's
 * --log-rotate-max-size / --log-rotate-backup-count).  -EMLINK when path
 * is a symlink, a hard link, not a regular file or not the daemon's own:
 * log_file_refusal() says so in words.
 */
int
log_open_file(const char *path, long long max_size, int backups)
{
	struct stat sb;
	int fd;
	FILE *f;
	char *dup;

	/*
	 * Not through a planted symlink or hard link (root would append to
	 * its target), not a FIFO or device (O_NONBLOCK: never wait on one).
	 */
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK | O_NOCTTY, 0600);
	if (fd == -1)
		return (errno == ELOOP ? -EMLINK : -errno);
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_nlink != 1 || sb.st_uid != geteuid()) {
		close(fd);
		return (-EMLINK);
	}
	if ((f = fdopen(fd, "a")) == NULL) {
		close(fd);
		return (-errno);
	}
	setvbuf(f, NULL, _IOLBF, 0);
	dup = strdup(path);
	log_close_file();
	log_file = f;
	log_path = dup;
	log_max_size = max_size;
	log_backups = backups;
	return (0);
}

/* Why log_open_file() refused a path, for the caller's message. */
const char *
log_file_refusal(int rc)
{
	if (rc == -EMLINK)
		return ("a symlink, a hard link, not a regular file or owned "
		    "by another user: refusing to write a log through it "
		    "(remove it, or choose another --log-file)");
	return (strerror(-rc));
}

/* Shift path.N-1 to path.N ... path to path.1, and reopen. */
static void
log_rotate(void)
{
	char from[4096], to[4096];
	char *path;
	int i;

	if (log_path == NULL || log_max_size <= 0 ||
	    ftell(log_file) < log_max_size)
		return;
	for (i = log_backups; i > 0; i--) {
		if (i == 1)
			snprintf(from, sizeof(from), "%s", log_path);
		else
			snprintf(from, sizeof(from), "%s.%d", log_path, i - 1);
		snprintf(to, sizeof(to), "%s.%d", log_path, i);
		rename(from, to);
	}
	if (log_backups <= 0)
		truncate(log_path, 0);
	path = log_path;
	log_path = NULL;
	fclose(log_file);
	log_file = NULL;
	if (log_open_file(path, log_max_size, log_backups) != 0)
		fprintf(stderr, "WARN log: cannot reopen %s after rotation\n",
		    path);
	free(path);
}

void
log_close_file(void)
{
	if (log_file != NULL)
		fclose(log_file);
	log_file = NULL;
	free(log_path);
	log_path = NULL;
}

/*
 * Put one message's text: a message of several lines (a verifier's
 * listing) has its later lines indented, so no text a message quotes (a
 * path a user chose, with a newline in it) can begin a line of its own
 * that passes for one of the agent's.
 */
static void
log_put(FILE *f, const char *msg)
{
	const char *nl;

	while ((nl = strchr(msg, '\n')) != NULL) {
		fwrite(msg, 1, (size_t)(nl - msg), f);
		fputs("\n\t", f);
		msg = nl + 1;
	}
	fputs(msg, f);
	fputc('\n', f);
}

void
log_vmsg(int level, const char *component, const char *fmt, va_list ap)
{
	char buf[4096], ts[32], *esc = NULL;
	const char *msg = buf;
	struct timespec now;
	int n;

	if (level < LOG_LEVEL_ERR)
		level = LOG_LEVEL_ERR;
	if (level > LOG_LEVEL_DEBUG)
		level = LOG_LEVEL_DEBUG;
	if (level > log_verbose && log_file == NULL)
		return;
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n < 0)
		n = 0;
	else if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	/* Messages quote what users control (paths, names, option values):
	 * escaped as profile text is, so no log line carries a terminal
	 * escape or a byte the Studio's log intake would refuse. */
	if (!textesc_clean(buf, (size_t)n, TEXTESC_LINES))
		msg = esc = textesc_dup(buf, (size_t)n, TEXTESC_LINES, NULL);
	if (log_sink != NULL && !log_in_sink) {
		log_in_sink = 1;
		log_sink(level, component, msg, log_sink_arg);
		log_in_sink = 0;
	}
	if (level <= log_verbose) {
		flockfile(stderr);
		if (component != NULL)
			fprintf(stderr, "%s %s: ", log_levels[level],
			    component);
		else
			fprintf(stderr, "%s ", log_levels[level]);
		log_put(stderr, msg);
		funlockfile(stderr);
	}
	if (log_file != NULL) {
		clock_gettime(CLOCK_REALTIME, &now);
		utc_iso_time(ts, sizeof(ts), now.tv_sec);
		fprintf(log_file, "%s.%03ldZ %s %s: ", ts,
		    now.tv_nsec / 1000000, log_levels[level],
		    component != NULL ? component : log_procname);
		log_put(log_file, msg);
		log_rotate();
	}
	free(esc);
}

/*
 * From another thread, the process about to _exit: stderr and the file
 * only, each if its lock is free (the loop may be stuck holding it), not
 * the sink, no rotation; flushed.  Nothing allocated: the loop may be
 * stuck inside the allocator.
 */
void
log_last_words(const char *text)
{
	char ts[32], esc[4096];
	const char *msg = text;
	struct timespec now;
	size_t n = strlen(text);

	/* It may quote a path a user chose, as log_vmsg's lines do. */
	if (!textesc_clean(text, n, TEXTESC_LINES)) {
		msg = "(a line too long to show)";
		if (textesc_len(text, n, TEXTESC_LINES) < sizeof(esc)) {
			textesc_write(esc, text, n, TEXTESC_LINES);
			msg = esc;
		}
	}

	if (ftrylockfile(stderr) == 0) {
		fprintf(stderr, "%s ", log_levels[LOG_LEVEL_ERR]);
		log_put(stderr, msg);
		funlockfile(stderr);
	}
	if (log_file != NULL && ftrylockfile(log_file) == 0) {
		clock_gettime(CLOCK_REALTIME, &now);
		utc_iso_time(ts, sizeof(ts), now.tv_sec);
		fprintf(log_file, "%s.%03ldZ %s %s: ", ts,
		    now.tv_nsec / 1000000, log_levels[LOG_LEVEL_ERR],
		    log_procname);
		log_put(log_file, msg);
		fflush(log_file);
		funlockfile(log_file);
	}
}

void
log_set_sink(void (*sink)(int, const char *, const char *, void *),
    void *arg)
{
	log_sink = sink;
	log_sink_arg = arg;
}

void
log_msg(int level, const char *component, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, component, fmt, ap);
	va_end(ap);
}

/* A line at level with ": strerror(errno)" appended; errno kept. */
static void
log_verr(int level, const char *fmt, va_list ap)
{
	char buf[2048];
	int saved = errno;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	log_msg(level, NULL, "%s: %s", buf, strerror(saved));
	errno = saved;
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_verr(LOG_LEVEL_WARN, fmt, ap);
	va_end(ap);
}

/* Broken invariant or start-up failure: log with strerror and exit 1. */
void
fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_verr(LOG_LEVEL_ERR, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_LEVEL_ERR, NULL, fmt, ap);
	va_end(ap);
	exit(1);
}

static long long
log_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec);
}

void
log_complain(struct complain *c, int level, const char *component,
    const char *fmt, ...)
{
	char buf[2048];
	long long now = log_now();
	unsigned iv = c->c_interval ? c->c_interval : 60;
	va_list ap;

	if (c->c_last != 0 && now - c->c_last < (long long)iv) {
		c->c_suppressed++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (c->c_suppressed > 0)
		log_msg(level, component, "%s (%u similar messages suppressed)",
		    buf, c->c_suppressed);
	else
		log_msg(level, component, "%s", buf);
	c->c_last = now;
	c->c_suppressed = 0;
}

/* The condition behind a complain is over: say so once if it was logged. */
void
log_release(struct complain *c, const char *component, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	if (c->c_last == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_msg(LOG_LEVEL_INFO, component, "%s", buf);
	c->c_last = 0;
	c->c_suppressed = 0;
}
