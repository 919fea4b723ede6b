/*
 * A mock of the daemon's host API for the iaprof plugin tests: a poll()
 * loop, timers on CLOCK_MONOTONIC, children through fork/exec with pipes,
 * reaped with waitpid(WNOHANG) once both pipes are at EOF.
 */
#define _GNU_SOURCE
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iaprof_host_mock.h"

#define MAXT	64
#define MAXC	8
#define TAILN	256

struct gp_timer {
	int used;
	uint64_t deadline;
	void (*cb)(void *);
	void *arg;
};

struct gp_child {
	int used;
	pid_t pid;
	int fd[2];	/* stdout, stderr; -1 at EOF */
	char line[2][65536];
	size_t linelen[2];
	struct gp_child_spec spec;
	int reaped, status;
	uint64_t kill_at;	/* SIGKILL deadline, 0 none */
	char *tail[TAILN];
	unsigned ntail;
};

static struct gp_timer timers[MAXT];
static struct gp_child children[MAXC];
static char *opt_name[32], *opt_value[32];
static int nopt;
struct gp_plugin_ctx *mock_ctx = (struct gp_plugin_ctx *)&nopt;
int mock_stop_done;
char mock_log[65536];

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
}

void
mock_options_clear(void)
{
	while (nopt > 0) {
		nopt--;
		free(opt_name[nopt]);
		free(opt_value[nopt]);
	}
}

void
mock_option(const char *name, const char *value)
{
	int i;

	for (i = 0; i < nopt; i++)
		if (strcmp(opt_name[i], name) == 0) {
			free(opt_value[i]);
			opt_value[i] = strdup(value);
			return;
		}
	opt_name[nopt] = strdup(name);
	opt_value[nopt++] = strdup(value);
}

static void
m_log(struct gp_plugin_ctx *ctx, int level, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	size_t n = strlen(mock_log);

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n + strlen(buf) + 2 < sizeof(mock_log)) {
		memcpy(mock_log + n, buf, strlen(buf));
		memcpy(mock_log + n + strlen(buf), "\n", 2);
	}
	if (level <= GP_LOG_INFO) {
		char *p, *save;

		printf("# [%d]", level);
		for (p = strtok_r(buf, "\n", &save); p != NULL;
		    p = strtok_r(NULL, "\n", &save))
			printf("%s%s\n", p == buf ? " " : "#   ", p);
	}
}

static const char *
m_option_get(struct gp_plugin_ctx *ctx, const char *name)
{
	int i;

	for (i = 0; i < nopt; i++)
		if (strcmp(opt_name[i], name) == 0)
			return (opt_value[i]);
	if (strcmp(name, "iaprof-eu-stall-subsample") == 0)
		return ("100");
	if (strcmp(name, "iaprof-path") == 0)
		return ("iaprof");
	return (NULL);
}

static int64_t
m_option_get_int(struct gp_plugin_ctx *ctx, const char *name, int64_t dflt)
{
	const char *v = m_option_get(ctx, name);

	return (v != NULL ? strtoll(v, NULL, 10) : dflt);
}

static int32_t
m_option_get_bool(struct gp_plugin_ctx *ctx, const char *name)
{
	const char *v = m_option_get(ctx, name);

	return (v != NULL && strcmp(v, "true") == 0);
}

static struct gp_timer *
m_timer_add(struct gp_plugin_ctx *ctx, uint64_t ms, int32_t persist,
    void (*cb)(void *), void *arg)
{
	int i;

	for (i = 0; i < MAXT; i++)
		if (!timers[i].used) {
			timers[i].used = 1;
			timers[i].deadline = now_ms() + ms;
			timers[i].cb = cb;
			timers[i].arg = arg;
			return (&timers[i]);
		}
	abort();
}

static void
m_timer_del(struct gp_timer *t)
{
	if (t != NULL)
		t->used = 0;
}

static struct gp_child *
m_child_spawn(struct gp_plugin_ctx *ctx, const struct gp_child_spec *spec)
{
	struct gp_child *c = NULL;
	int out[2], err[2], i, nul;
	pid_t pid;

	for (i = 0; i < MAXC; i++)
		if (!children[i].used) {
			c = &children[i];
			break;
		}
	if (c == NULL || spec->argv[0][0] != '/' ||
	    access(spec->argv[0], X_OK) != 0) {
		errno = c == NULL ? EAGAIN : ENOENT;
		return (NULL);
	}
	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
		return (NULL);
	if ((pid = fork()) == 0) {
		setpgid(0, 0);
		nul = open("/dev/null", O_RDONLY);
		dup2(nul, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(spec->argv[0], (char *const *)spec->argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	memset(c, 0, sizeof(*c));
	c->used = 1;
	c->pid = pid;
	c->fd[0] = out[0];
	c->fd[1] = err[0];
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	c->spec = *spec;
	return (c);
}

static int
m_child_stop(struct gp_child *c, int32_t sig, uint32_t grace_ms)
{
	kill(-c->pid, sig);
	kill(c->pid, sig);
	if (sig != SIGKILL)
		c->kill_at = now_ms() + grace_ms;
	return (0);
}

static int32_t
m_child_pid(struct gp_child *c)
{
	return (c->pid);
}

static size_t
m_child_stderr_tail(struct gp_child *c, char *buf, size_t sz)
{
	size_t off = 0;
	unsigned i, first = c->ntail > TAILN ? c->ntail - TAILN : 0;

	buf[0] = '\0';
	for (i = first; i < c->ntail; i++)
		off += (size_t)snprintf(buf + off, sz - off, "%s%s",
		    i > first ? "\n" : "", c->tail[i % TAILN]) ;
	return (off < sz ? off : sz - 1);
}

static void
child_line(struct gp_child *c, int which, const char *s, size_t n)
{
	if (which == 0) {
		c->spec.on_stdout_line(c->spec.arg, s, n);
		return;
	}
	free(c->tail[c->ntail % TAILN]);
	c->tail[c->ntail % TAILN] = strndup(s, n);
	c->ntail++;
	if (c->spec.on_stderr_line != NULL)
		c->spec.on_stderr_line(c->spec.arg, s, n);
}

/* Read what is there; line mode splits on LF (rest at EOF). */
static void
child_read(struct gp_child *c, int which)
{
	char buf[65536], *nl, *p;
	ssize_t r;
	size_t n;

	while ((r = read(c->fd[which], buf, sizeof(buf))) > 0) {
		if (which == 0 && c->spec.on_stdout_data != NULL) {
			c->spec.on_stdout_data(c->spec.arg, buf, (size_t)r);
			continue;
		}
		for (p = buf, n = (size_t)r; n > 0;) {
			nl = memchr(p, '\n', n);
			size_t k = nl != NULL ? (size_t)(nl - p) : n;
			memcpy(c->line[which] + c->linelen[which], p, k);
			c->linelen[which] += k;
			if (nl == NULL)
				break;
			child_line(c, which, c->line[which],
			    c->linelen[which]);
			c->linelen[which] = 0;
			p = nl + 1;
			n -= k + 1;
		}
	}
	if (r == 0) {
		if (c->linelen[which] > 0)
			child_line(c, which, c->line[which],
			    c->linelen[which]);
		close(c->fd[which]);
		c->fd[which] = -1;
	}
}

static void
child_finish(struct gp_child *c)
{
	unsigned i;

	if (c->fd[0] != -1 || c->fd[1] != -1 ||
	    waitpid(c->pid, &c->status, WNOHANG) != c->pid)
		return;
	if (c->spec.on_exit != NULL)
		c->spec.on_exit(c->spec.arg, c->status);
	for (i = 0; i < TAILN; i++)
		free(c->tail[i]);
	memset(c, 0, sizeof(*c));
}

/* One loop turn: poll the pipes (10 ms at most), run due timers. */
static void
mock_turn(void)
{
	struct pollfd pfd[2 * MAXC];
	struct gp_child *owner[2 * MAXC];
	int which[2 * MAXC], n = 0, i;
	uint64_t t;

	for (i = 0; i < MAXC; i++) {
		if (!children[i].used)
			continue;
		for (int w = 0; w < 2; w++)
			if (children[i].fd[w] != -1) {
				pfd[n].fd = children[i].fd[w];
				pfd[n].events = POLLIN;
				owner[n] = &children[i];
				which[n++] = w;
			}
	}
	poll(pfd, (nfds_t)n, 10);
	for (i = 0; i < n; i++)
		if (pfd[i].revents != 0 && owner[i]->used &&
		    owner[i]->fd[which[i]] == pfd[i].fd)
			child_read(owner[i], which[i]);
	t = now_ms();
	for (i = 0; i < MAXC; i++) {
		if (!children[i].used)
			continue;
		if (children[i].kill_at != 0 && t >= children[i].kill_at) {
			kill(-children[i].pid, SIGKILL);
			kill(children[i].pid, SIGKILL);
			children[i].kill_at = 0;
		}
		child_finish(&children[i]);
	}
	for (i = 0; i < MAXT; i++)
		if (timers[i].used && t >= timers[i].deadline) {
			timers[i].used = 0;
			timers[i].cb(timers[i].arg);
		}
}

int
mock_run(const int *flag, unsigned ms)
{
	uint64_t end = now_ms() + ms;

	while (now_ms() < end) {
		if (flag != NULL && *flag)
			return (0);
		mock_turn();
	}
	return (flag != NULL && *flag ? 0 : -1);
}

unsigned
mock_children(void)
{
	unsigned i, n = 0;

	for (i = 0; i < MAXC; i++)
		n += children[i].used;
	return (n);
}

unsigned
mock_zombies(void)
{
	char path[300], buf[512], *p;
	struct dirent *de;
	unsigned n = 0;
	DIR *d;
	FILE *f;
	int ppid;
	char state;

	if ((d = opendir("/proc")) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(buf, sizeof(buf), f) != NULL &&
		    (p = strrchr(buf, ')')) != NULL &&
		    sscanf(p + 1, " %c %d", &state, &ppid) == 2 &&
		    ppid == getpid() && state == 'Z')
			n++;
		fclose(f);
	}
	closedir(d);
	return (n);
}

static int
m_add_stack(struct gp_snapshot *s, int32_t pid, const char *comm,
    const char *const *frames, uint32_t n, uint64_t count)
{
	size_t need = strlen(comm) + 64;
	uint32_t i;

	for (i = 0; i < n; i++)
		need += strlen(frames[i]) + 1;
	if (s->len + need >= s->cap) {
		s->cap = (s->len + need) * 2;
		s->stacks = realloc(s->stacks, s->cap);
	}
	s->len += (size_t)sprintf(s->stacks + s->len, "%d %s", pid, comm);
	for (i = 0; i < n; i++)
		s->len += (size_t)sprintf(s->stacks + s->len, ";%s",
		    frames[i]);
	s->len += (size_t)sprintf(s->stacks + s->len, " %llu\n",
	    (unsigned long long)count);
	return (0);
}

static void
m_snapshot_done(struct gp_snapshot *s, int32_t status, const char *err)
{
	s->done = 1;
	s->status = status;
	snprintf(s->err, sizeof(s->err), "%s", err != NULL ? err : "");
}

struct gp_snapshot *
mock_snapshot_new(void)
{
	struct gp_snapshot *s = calloc(1, sizeof(*s));

	s->cap = 1;
	s->stacks = calloc(1, 1);
	return (s);
}

void
mock_snapshot_free(struct gp_snapshot *s)
{
	if (s != NULL)
		free(s->stacks);
	free(s);
}

static void
m_stop_done(struct gp_plugin_ctx *ctx)
{
	mock_stop_done = 1;
}

static int
json_add(struct gp_json *j, const char *key, const char *fmt, ...)
{
	size_t n = strlen(j->text);
	va_list ap;

	n += (size_t)snprintf(j->text + n, sizeof(j->text) - n, "%s=", key);
	va_start(ap, fmt);
	n += (size_t)vsnprintf(j->text + n, sizeof(j->text) - n, fmt, ap);
	va_end(ap);
	snprintf(j->text + n, sizeof(j->text) - n, "\n");
	return (0);
}

static int
m_json_set_string(struct gp_json *j, const char *k, const char *v)
{
	return (json_add(j, k, "\"%s\"", v));
}

static int
m_json_set_int(struct gp_json *j, const char *k, int64_t v)
{
	return (json_add(j, k, "%lld", (long long)v));
}

static int
m_json_set_null(struct gp_json *j, const char *k)
{
	return (json_add(j, k, "null"));
}

static int32_t
m_pid_wanted(struct gp_plugin_ctx *ctx, int32_t pid)
{
	return (pid != getpid());
}

const struct gp_host_api mock_api = {
	.size = sizeof(struct gp_host_api),
	.abi_major = GP_ABI_MAJOR,
	.abi_minor = GP_ABI_MINOR,
	.log = m_log,
	.option_get = m_option_get,
	.option_get_int = m_option_get_int,
	.option_get_bool = m_option_get_bool,
	.timer_add = m_timer_add,
	.timer_del = m_timer_del,
	.child_spawn = m_child_spawn,
	.child_stop = m_child_stop,
	.child_pid = m_child_pid,
	.child_stderr_tail = m_child_stderr_tail,
	.snapshot_add_stack = m_add_stack,
	.snapshot_done = m_snapshot_done,
	.stop_done = m_stop_done,
	.json_set_string = m_json_set_string,
	.json_set_int = m_json_set_int,
	.json_set_null = m_json_set_null,
	.pid_wanted = m_pid_wanted,
};
