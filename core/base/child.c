/*
 * The child-process helper: every process the daemon or a plugin runs goes
 * through here.  argv only (never a shell), fork+exec with signals blocked,
 * PR_SET_PDEATHSIG, stdin /dev/null, stdout/stderr read in the loop line by
 * line, reaping through SIGCHLD in the loop, stop escalating to SIGKILL.
 * Children get a minimal environment, never the daemon's whole one: it may
 * hold the API token (GPROFILER_TOKEN) and they include a binary
 * downloaded from the internet (PerfSpect).
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/queue.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/child.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "gprofiler.h"

extern char **environ;

#define CHILD_MAX_LINE_DEFAULT	(64 * 1024)
#define CHILD_STDERR_KEEP	50
#define CHILD_TAIL_LINE_MAX	4096	/* bytes kept per stderr tail line */
#define CHILD_READ_CHUNK	65536
/*
 * After the child is reaped, a grandchild may still hold the pipes open;
 * wait this long for EOF, then close them so on_exit is not held forever.
 */
#define CHILD_DRAIN_MS		2000

/* PATH when the daemon has none (systemd gives one; cron may not). */
#define CHILD_PATH_DEFAULT	"/usr/local/sbin:/usr/local/bin:/usr/sbin:" \
				"/usr/bin:/sbin:/bin"

/*
 * What every child may see of the daemon's environment: the search path,
 * the locale and time zone (messages we parse are in the C locale anyway),
 * HOME and TMPDIR.  "NAME*" is a prefix.  --child-env adds to this list;
 * nothing named GPROFILER_* ever passes (the daemon's own settings,
 * secrets among them).
 */
static const char *const child_env_base[] = {
	"PATH", "LANG", "LANGUAGE", "LC_*", "TZ", "HOME", "TMPDIR", NULL
};
static char **child_envp;		/* built by child_env_set */

struct child_stream {
	int fd;
	struct event *ev;
	char *buf;	/* partial line */
	size_t len;
	int is_err;
};

struct gp_child {
	unsigned magic;	/* CHILD_MAGIC */
	struct gp_child_spec spec;
	void *owner;
	pid_t pid;
	int reaped;
	int status;
	int abandoned;
	int notified;
	struct child_stream out;
	struct child_stream err;
	struct event *kill_ev;	/* grace timer before SIGKILL */
	struct event *drain_ev;	/* bound on EOF after reaping */
	char **tail;		/* stderr ring */
	unsigned tail_n;	/* capacity */
	unsigned tail_head;	/* next slot */
	unsigned tail_count;
	LIST_ENTRY(gp_child)	 entry;
};

static LIST_HEAD(, gp_child) child_list = LIST_HEAD_INITIALIZER(child_list);
static struct event *child_sigchld_ev;
static struct event_base *child_base;

static void child_check_done(struct gp_child *);

/* Whether `name` (len bytes) matches a list entry ("NAME" or "PREFIX*"). */
static int
child_env_match(const char *pat, size_t plen, const char *name, size_t len)
{
	if (plen > 0 && pat[plen - 1] == '*')
		return (len >= plen - 1 && memcmp(pat, name, plen - 1) == 0);
	return (len == plen && memcmp(pat, name, len) == 0);
}

/* Whether environment entry "NAME=value" passes the base list or extra, a
 * comma/space-separated list. */
static int
child_env_wanted(const char *entry, const char *extra)
{
	const char *eq, *p;
	size_t len, n;
	unsigned i;

	if ((eq = strchr(entry, '=')) == NULL || eq == entry)
		return (0);
	len = (size_t)(eq - entry);
	if (len >= 10 && memcmp(entry, "GPROFILER_", 10) == 0)
		return (0);
	for (i = 0; child_env_base[i] != NULL; i++)
		if (child_env_match(child_env_base[i],
		    strlen(child_env_base[i]), entry, len))
			return (1);
	for (p = extra; p != NULL && *p != '\0'; p += n) {
		p += strspn(p, ", \t");
		n = strcspn(p, ", \t");
		if (n > 0 && child_env_match(p, n, entry, len))
			return (1);
	}
	return (0);
}

/*
 * (Re)build the environment children get when their spec has no envp: the
 * base list, plus the names or NAME* prefixes in `extra` (--child-env),
 * taken from the daemon's environment now.  Never GPROFILER_*.
 */
void
child_env_set(const char *extra)
{
	size_t i, n = 0;
	int has_path = 0;

	child_env_free();
	for (i = 0; environ != NULL && environ[i] != NULL; i++)
		n++;
	child_envp = xcalloc(n + 2, sizeof(*child_envp));
	for (i = 0, n = 0; environ != NULL && environ[i] != NULL; i++) {
		if (!child_env_wanted(environ[i], extra))
			continue;
		if (strncmp(environ[i], "PATH=", 5) == 0)
			has_path = 1;
		child_envp[n++] = xstrdup(environ[i]);
	}
	if (!has_path)
		child_envp[n++] = xstrdup("PATH=" CHILD_PATH_DEFAULT);
	child_envp[n] = NULL;
}

void
child_env_free(void)
{
	size_t i;

	for (i = 0; child_envp != NULL && child_envp[i] != NULL; i++)
		free(child_envp[i]);
	free(child_envp);
	child_envp = NULL;
}

/* The environment a child without spec->envp gets (built on first use). */
char *const *
child_env(void)
{
	if (child_envp == NULL)
		child_env_set(NULL);
	return (child_envp);
}
static void child_free_unlisted(struct gp_child *);

/* Keep one stderr line in the ring (truncated: the tail is for messages). */
static void
child_tail_push(struct gp_child *c, const char *line, size_t len)
{
	if (len > CHILD_TAIL_LINE_MAX)
		len = CHILD_TAIL_LINE_MAX;
	free(c->tail[c->tail_head]);
	c->tail[c->tail_head] = xstrndup(line, len);
	c->tail_head = (c->tail_head + 1) % c->tail_n;
	if (c->tail_count < c->tail_n)
		c->tail_count++;
}

static void
child_deliver(struct gp_child *c, struct child_stream *s, const char *line,
    size_t len)
{
	if (s->is_err) {
		child_tail_push(c, line, len);
		if (c->spec.on_stderr_line != NULL && !c->abandoned)
			c->spec.on_stderr_line(c->spec.arg, line, len);
	} else if (c->spec.on_stdout_line != NULL && !c->abandoned)
		c->spec.on_stdout_line(c->spec.arg, line, len);
}

/*
 * Split data into lines; a partial line waits in s->buf for the next read,
 * and a line reaching max_line is delivered in max_line pieces so a child
 * that never writes '\n' cannot grow our memory.
 */
static void
child_split(struct gp_child *c, struct child_stream *s, const char *data,
    size_t n)
{
	size_t max = c->spec.max_line;
	const char *nl;
	size_t take;

	while (n > 0) {
		nl = memchr(data, '\n', n);
		take = nl != NULL ? (size_t)(nl - data) : n;
		if (s->len + take > max) {
			take = max - s->len;
			memcpy(s->buf + s->len, data, take);
			child_deliver(c, s, s->buf, max);
			s->len = 0;
			data += take;
			n -= take;
			continue;
		}
		memcpy(s->buf + s->len, data, take);
		s->len += take;
		if (nl == NULL)
			return;
		child_deliver(c, s, s->buf, s->len);
		s->len = 0;
		data += take + 1;
		n -= take + 1;
	}
}

static void
child_stream_close(struct gp_child *c, struct child_stream *s)
{
	if (s->fd == -1)
		return;
	if (s->len > 0 && (s->is_err || c->spec.on_stdout_data == NULL))
		child_deliver(c, s, s->buf, s->len);
	s->len = 0;
	event_free(s->ev);
	s->ev = NULL;
	close(s->fd);
	s->fd = -1;
}

/* One read per wake-up, so a chatty child cannot starve the loop. */
static void
child_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct gp_child *c = arg;
	struct child_stream *s;
	char buf[CHILD_READ_CHUNK];
	ssize_t n;

	CHECK_OBJ(c, CHILD_MAGIC);
	s = fd == c->out.fd ? &c->out : &c->err;
	n = read(fd, buf, sizeof(buf));
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		child_stream_close(c, s);
		child_check_done(c);
		return;
	}
	if (!s->is_err && c->spec.on_stdout_data != NULL) {
		if (!c->abandoned)
			c->spec.on_stdout_data(c->spec.arg, buf, n);
	} else
		child_split(c, s, buf, n);
}

static void
child_free(struct gp_child *c)
{
	LIST_REMOVE(c, entry);
	child_stream_close(c, &c->out);
	child_stream_close(c, &c->err);
	if (c->kill_ev != NULL)
		event_free(c->kill_ev);
	if (c->drain_ev != NULL)
		event_free(c->drain_ev);
	child_free_unlisted(c);
}

/* on_exit only once every byte was delivered and the child reaped. */
static void
child_check_done(struct gp_child *c)
{
	if (!c->reaped || c->out.fd != -1 || c->err.fd != -1 || c->notified)
		return;
	c->notified = 1;
	if (c->spec.on_exit != NULL && !c->abandoned)
		c->spec.on_exit(c->spec.arg, c->status);
	child_free(c);
}

static void
child_drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct gp_child *c = arg;

	CHECK_OBJ(c, CHILD_MAGIC);
	log_debug("child %d: output still open %d ms after exit, closing",
	    (int)c->pid, CHILD_DRAIN_MS);
	child_stream_close(c, &c->out);
	child_stream_close(c, &c->err);
	child_check_done(c);
}

static void
child_reaped(struct gp_child *c, int status)
{
	struct timeval tv = { CHILD_DRAIN_MS / 1000,
	    (CHILD_DRAIN_MS % 1000) * 1000 };

	c->reaped = 1;
	c->status = status;
	if (c->kill_ev != NULL)
		event_del(c->kill_ev);
	/*
	 * No kill(-pid) here: once the leader is reaped its process group
	 * id may be reused.  Leftover writers are cut off by the drain timer.
	 */
	if (c->out.fd != -1 || c->err.fd != -1) {
		c->drain_ev = evtimer_new(child_base, child_drain_cb, c);
		evtimer_add(c->drain_ev, &tv);
	}
	child_check_done(c);
}

/* Reap our children only (waitpid per PID: others may spawn too). */
void
child_reap(void)
{
	struct gp_child *c, *next;
	int status;
	pid_t r;

	for (c = LIST_FIRST(&child_list); c != NULL; c = next) {
		next = LIST_NEXT(c, entry);
		if (c->reaped)
			continue;
		r = waitpid(c->pid, &status, WNOHANG);
		if (r == c->pid)
			child_reaped(c, status);
		else if (r == -1 && errno == ECHILD)
			child_reaped(c, 0);
	}
}

static void
child_sigchld_cb(evutil_socket_t sig, short what, void *arg)
{
	child_reap();
}

static int
child_init(struct event_base *base)
{
	if (child_sigchld_ev != NULL) {
		if (base != child_base)
			return (-EINVAL);
		return (0);
	}
	child_sigchld_ev = evsignal_new(base, SIGCHLD, child_sigchld_cb, NULL);
	if (child_sigchld_ev == NULL || evsignal_add(child_sigchld_ev,
	    NULL) == -1)
		return (-ENOMEM);
	child_base = base;
	return (0);
}

static void
child_close_from(int lowfd)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, lowfd, ~0U, 0) == 0)
		return;
#endif
	for (int fd = lowfd; fd < 1024; fd++)
		close(fd);
}

/* In the forked child: async-signal-safe calls only. */
static void __attribute__((noreturn))
child_exec(const struct gp_child_spec *spec, char *const *envp, pid_t parent,
    int outfd, int errfd, int nullfd, int reportfd)
{
	struct sigaction sa;
	sigset_t set;
	int sig, e;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)	/* died before prctl took effect */
		_exit(127);
	setpgid(0, 0);
	if (dup2(nullfd, 0) == -1 || dup2(outfd, 1) == -1 ||
	    dup2(errfd, 2) == -1)
		goto fail;
	if (reportfd <= 2 || fcntl(reportfd, F_SETFD, FD_CLOEXEC) == -1)
		goto fail;
	/* Everything else is close-on-exec already; this is the backstop. */
	if (dup2(reportfd, 3) == -1 || fcntl(3, F_SETFD, FD_CLOEXEC) == -1)
		goto fail;
	reportfd = 3;
	child_close_from(4);
	if (chdir(spec->cwd != NULL ? spec->cwd : "/") == -1)
		goto fail;
	execve(spec->argv[0], (char *const *)spec->argv,
	    spec->envp != NULL ? (char *const *)spec->envp : envp);
fail:
	e = errno;
	(void)!write(reportfd, &e, sizeof(e));
	_exit(127);
}

static int
child_check_spec(const struct gp_child_spec *spec)
{
	if (spec == NULL || spec->size < offsetof(struct gp_child_spec,
	    max_line) || spec->flags != 0 || spec->argv == NULL ||
	    spec->argv[0] == NULL || spec->argv[0][0] != '/')
		return (-EINVAL);
	return (0);
}

static struct gp_child *
child_alloc(const struct gp_child_spec *spec, void *owner)
{
	struct gp_child *c;
	size_t sz;

	c = xcalloc(1, sizeof(*c));
	c->magic = CHILD_MAGIC;
	sz = spec->size < sizeof(c->spec) ? spec->size : sizeof(c->spec);
	memcpy(&c->spec, spec, sz);
	c->spec.argv = NULL;	/* borrowed: not kept past spawn */
	c->spec.envp = NULL;
	c->spec.cwd = NULL;
	if (c->spec.max_line == 0)
		c->spec.max_line = CHILD_MAX_LINE_DEFAULT;
	c->tail_n = c->spec.stderr_keep ? c->spec.stderr_keep :
	    CHILD_STDERR_KEEP;
	c->tail = xcalloc(c->tail_n, sizeof(*c->tail));
	c->owner = owner;
	c->out.fd = c->err.fd = -1;
	c->out.buf = xmalloc(c->spec.max_line);
	c->err.buf = xmalloc(c->spec.max_line);
	c->err.is_err = 1;
	return (c);
}

/* Fork with every signal blocked so no handler runs in the child. */
static pid_t
child_fork(const struct gp_child_spec *spec, int outfd, int errfd,
    int nullfd, int reportfd)
{
	sigset_t all, old;
	pid_t parent = getpid(), pid;
	char *const	*envp = child_env();	/* built before fork */

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		child_exec(spec, envp, parent, outfd, errfd, nullfd,
		    reportfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return (pid);
}

static int
child_watch(struct gp_child *c, struct child_stream *s, int fd)
{
	s->fd = fd;
	s->ev = event_new(child_base, fd, EV_READ | EV_PERSIST,
	    child_read_cb, c);
	if (s->ev == NULL || event_add(s->ev, NULL) == -1)
		return (-ENOMEM);
	return (0);
}

/*
 * Spawn spec->argv.  NULL with errno set on failure (ENOENT, EACCES... from
 * execve are reported, not just fork's).  Owner is an opaque tag for
 * child_abandon_owner().  The child is freed after on_exit returns.
 */
struct gp_child *
child_spawn(struct event_base *base, const struct gp_child_spec *spec,
    void *owner)
{
	struct gp_child *c;
	int out[2] = { -1, -1 }, err[2] = { -1, -1 };
	int rep[2] = { -1, -1 }, nullfd = -1, e = 0, rc;
	ssize_t n;

	if ((rc = child_check_spec(spec)) != 0 || (rc = child_init(base))) {
		errno = -rc;
		return (NULL);
	}
	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(err, O_CLOEXEC) == -1 ||
	    pipe2(rep, O_CLOEXEC) == -1 ||
	    (nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1) {
		e = errno;
		goto out_close;
	}
	c = child_alloc(spec, owner);
	c->pid = child_fork(spec, out[1], err[1], nullfd, rep[1]);
	if (c->pid == -1) {
		e = errno;
		child_free_unlisted(c);
		goto out_close;
	}
	LIST_INSERT_HEAD(&child_list, c, entry);
	close(rep[1]);
	rep[1] = -1;
	/* Returns at once: EOF on exec, or the errno of a failed exec. */
	while ((n = read(rep[0], &e, sizeof(e))) == -1 && errno == EINTR)
		;
	if (n != sizeof(e))
		e = 0;
	if (child_watch(c, &c->out, out[0]) != 0 ||
	    child_watch(c, &c->err, err[0]) != 0)
		fatalx("child: cannot watch the pipes of %d", (int)c->pid);
	out[0] = err[0] = -1;
	if (e != 0) {
		/* Let the loop reap it; the caller only sees the failure. */
		c->abandoned = 1;
		child_reap();
	}
	close(out[1]);
	close(err[1]);
	close(rep[0]);
	close(nullfd);
	errno = e;
	return (e != 0 ? NULL : c);
out_close:
	close(out[0]);
	close(out[1]);
	close(err[0]);
	close(err[1]);
	close(rep[0]);
	close(rep[1]);
	if (nullfd != -1)
		close(nullfd);
	errno = e;
	return (NULL);
}

static void
child_free_unlisted(struct gp_child *c)
{
	unsigned i;

	free(c->out.buf);
	free(c->err.buf);
	for (i = 0; i < c->tail_n; i++)
		free(c->tail[i]);
	free(c->tail);
	c->magic = 0;
	free(c);
}

static void
child_kill_cb(evutil_socket_t fd, short what, void *arg)
{
	struct gp_child *c = arg;

	CHECK_OBJ(c, CHILD_MAGIC);
	if (c->reaped)
		return;
	log_debug("child %d: still running after the grace period, SIGKILL",
	    (int)c->pid);
	kill(-c->pid, SIGKILL);
	kill(c->pid, SIGKILL);
}

/*
 * Send sig to the child's process group, SIGKILL after grace_ms.  The exit
 * is reported through on_exit as usual.  0 / -errno.
 */
int
child_stop(struct gp_child *c, int sig, unsigned grace_ms)
{
	struct timeval tv;

	CHECK_OBJ(c, CHILD_MAGIC);
	if (c->reaped)
		return (0);
	if (sig != 0 && kill(-c->pid, sig) == -1 && kill(c->pid, sig) == -1)
		return (-errno);
	if (sig == SIGKILL)
		return (0);
	if (c->kill_ev == NULL)
		c->kill_ev = evtimer_new(child_base, child_kill_cb, c);
	tv.tv_sec = grace_ms / 1000;
	tv.tv_usec = (grace_ms % 1000) * 1000;
	evtimer_add(c->kill_ev, &tv);
	return (0);
}

pid_t
child_pid(const struct gp_child *c)
{
	CHECK_OBJ(c, CHILD_MAGIC);
	return (c->pid);
}

/* The last kept stderr lines, '\n'-joined, NUL-terminated in buf. */
size_t
child_stderr_tail(const struct gp_child *c, char *buf, size_t bufsz)
{
	size_t off = 0, l;
	unsigned i, idx;

	CHECK_OBJ(c, CHILD_MAGIC);
	if (bufsz == 0)
		return (0);
	buf[0] = '\0';
	for (i = 0; i < c->tail_count; i++) {
		idx = (c->tail_head + c->tail_n - c->tail_count + i) %
		    c->tail_n;
		l = strlen(c->tail[idx]);
		if (off + l + 2 > bufsz)
			l = bufsz - off - (i > 0) - 1;
		if (i > 0 && off + 1 < bufsz)
			buf[off++] = '\n';
		memcpy(buf + off, c->tail[idx], l);
		off += l;
		buf[off] = '\0';
		if (off + 1 >= bufsz)
			break;
	}
	return (off);
}

/* Kill the child and forget its callbacks; it is reaped silently. */
void
child_abandon(struct gp_child *c)
{
	CHECK_OBJ(c, CHILD_MAGIC);
	c->abandoned = 1;
	if (!c->reaped) {
		kill(-c->pid, SIGKILL);
		kill(c->pid, SIGKILL);
	}
	child_check_done(c);
}

/* Abandon every child spawned for owner (a plugin being destroyed). */
void
child_abandon_owner(void *owner)
{
	struct gp_child *c, *next;

	for (c = LIST_FIRST(&child_list); c != NULL; c = next) {
		next = LIST_NEXT(c, entry);
		if (c->owner == owner && !c->abandoned)
			child_abandon(c);
	}
}

/* Children not yet reaped (for tests and the shutdown path). */
unsigned
child_count(void)
{
	struct gp_child *c;
	unsigned n = 0;

	LIST_FOREACH(c, &child_list, entry)
		n++;
	return (n);
}

/* Drop the SIGCHLD event (tests, daemon exit); children must be gone. */
void
child_fini(void)
{
	if (child_sigchld_ev != NULL)
		event_free(child_sigchld_ev);
	child_sigchld_ev = NULL;
	child_base = NULL;
}
