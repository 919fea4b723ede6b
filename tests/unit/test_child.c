/* Unit tests of core/base/child.c with real child processes. */
#include "config.h"

#include <sys/prctl.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/child.h"
#include "base/log.h"
#include "testing.h"

static struct event_base *base;

struct rec {
	char lines[64][128];
	size_t lens[64];
	int nlines;
	int nerr;
	size_t rawbytes;
	int exited;
	int status;
	int lines_at_exit;
	pid_t pid;
};

static void
on_line(void *arg, const char *line, size_t len)
{
	struct rec *r = arg;

	if (r->nlines < 64) {
		snprintf(r->lines[r->nlines], 128, "%.*s", (int)len, line);
		r->lens[r->nlines] = len;
	}
	r->nlines++;
}

static void
on_err(void *arg, const char *line, size_t len)
{
	((struct rec *)arg)->nerr++;
}

static void
on_data(void *arg, const char *buf, size_t len)
{
	((struct rec *)arg)->rawbytes += len;
}

static void
on_exit_cb(void *arg, int status)
{
	struct rec *r = arg;

	r->exited = 1;
	r->status = status;
	r->lines_at_exit = r->nlines;
}

static void
wake(evutil_socket_t fd, short w, void *a)
{
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec * 1000LL + ts.tv_nsec / 1000000);
}

/* Run the loop until *flag or ms elapsed; returns *flag. */
static int
loop_until(int *flag, int ms)
{
	struct event *t = event_new(base, -1, EV_PERSIST, wake, NULL);
	struct timeval tv = { 0, 10000 };
	long long end = now_ms() + ms;

	event_add(t, &tv);
	while (!*flag && now_ms() < end)
		event_base_loop(base, EVLOOP_ONCE);
	event_free(t);
	return (*flag);
}

static struct gp_child *
spawn_sh(struct rec *r, const char *script, uint32_t max_line,
    uint32_t keep)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct gp_child_spec spec;
	struct gp_child *c;

	memset(&spec, 0, sizeof(spec));
	memset(r, 0, sizeof(*r));
	spec.size = sizeof(spec);
	spec.argv = argv;
	spec.on_stdout_line = on_line;
	spec.on_stderr_line = on_err;
	spec.on_exit = on_exit_cb;
	spec.arg = r;
	spec.max_line = max_line;
	spec.stderr_keep = keep;
	c = child_spawn(base, &spec, NULL);
	if (c != NULL)
		r->pid = child_pid(c);
	return (c);
}

static int
pid_gone(pid_t pid)
{
	return (kill(pid, 0) == -1 && errno == ESRCH);
}

static void
test_partial_lines(void)
{
	struct rec r;

	CHECK(spawn_sh(&r, "printf ab; sleep 0.1; printf 'c\\nde'; sleep 0.1;"
	    " printf 'f\\n'; printf tail", 0, 0) != NULL, "spawn sh");
	CHECK(loop_until(&r.exited, 5000), "child exited");
	CHECK_INTEQ(r.nlines, 3, "three lines across partial writes");
	CHECK_STREQ(r.lines[0], "abc", "line joined across reads");
	CHECK_STREQ(r.lines[1], "def", "second line joined");
	CHECK_STREQ(r.lines[2], "tail", "unterminated last line delivered");
	CHECK_INTEQ(r.lines_at_exit, 3, "on_exit after all output");
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status 0");
	CHECK(pid_gone(r.pid), "child reaped (no zombie)");
}

static void
test_long_lines(void)
{
	struct rec r;

	CHECK(spawn_sh(&r, "printf 'xxxxxxxxxxyyyyyyyyyyzzzzz\\nabcdefghij\\n"
	    "k\\n'; exit 3", 10, 0) != NULL, "spawn long-line writer");
	CHECK(loop_until(&r.exited, 5000), "exited");
	CHECK_INTEQ(r.nlines, 5, "25-byte line in 10-byte pieces + 2");
	CHECK_STREQ(r.lines[0], "xxxxxxxxxx", "piece 1");
	CHECK_STREQ(r.lines[1], "yyyyyyyyyy", "piece 2");
	CHECK_STREQ(r.lines[2], "zzzzz", "piece 3");
	CHECK_STREQ(r.lines[3], "abcdefghij", "exactly max_line is one line");
	CHECK_STREQ(r.lines[4], "k", "no empty line after a full one");
	CHECK(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3,
	    "exit status 3 reported");
}

static void
test_stderr_tail(void)
{
	struct rec r;
	struct gp_child *c;
	char buf[256];
	int started = 0;

	c = spawn_sh(&r, "for i in 1 2 3 4 5; do echo l$i >&2; done; "
	    "echo go; sleep 5", 0, 3);
	CHECK(c != NULL, "spawn stderr writer");
	while (r.nlines == 0 && !r.exited)
		loop_until(&started, 20);
	loop_until(&started, 200);	/* stderr is another pipe */
	child_stderr_tail(c, buf, sizeof(buf));
	CHECK_STREQ(buf, "l3\nl4\nl5", "tail keeps the last 3 lines");
	CHECK_INTEQ(r.nerr, 5, "every stderr line delivered");
	child_stderr_tail(c, buf, 5);
	CHECK(strlen(buf) <= 4, "tail truncated to the buffer");
	CHECK_INTEQ(child_stop(c, SIGTERM, 1000), 0, "stop");
	CHECK(loop_until(&r.exited, 5000), "stopped child exits");
	CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM,
	    "killed by SIGTERM");
}

static void
test_escalation(void)
{
	struct rec r;
	struct gp_child *c;
	long long t0;
	int never = 0;

	c = spawn_sh(&r, "trap '' TERM; echo ready; while :; do sleep 1; "
	    "done", 0, 0);
	CHECK(c != NULL, "spawn TERM-ignoring child");
	while (r.nlines == 0 && !r.exited)
		loop_until(&never, 20);
	t0 = now_ms();
	CHECK_INTEQ(child_stop(c, SIGTERM, 300), 0, "stop(SIGTERM, 300ms)");
	CHECK(loop_until(&r.exited, 5000), "exited after escalation");
	CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL,
	    "escalated to SIGKILL");
	CHECK(now_ms() - t0 >= 250 && now_ms() - t0 < 3000,
	    "after the grace period, promptly");
	CHECK(pid_gone(r.pid), "no zombie after escalation");
}

static int
count_fds(pid_t pid, int *only_std)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	int n = 0;

	*only_std = 1;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	if ((d = opendir(path)) == NULL)
		return (-1);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		n++;
		if (atoi(e->d_name) > 2)
			*only_std = 0;
	}
	closedir(d);
	return (n);
}

static void
test_fds_and_restart(void)
{
	struct rec r;
	struct gp_child *c;
	int leak, only_std, i;
	char path[64], target[64];
	ssize_t n;

	/* An fd opened without O_CLOEXEC must not reach the child either. */
	leak = open("/dev/null", O_RDONLY);
	for (i = 0; i < 2; i++) {
		c = spawn_sh(&r, "exec /bin/sleep 5", 0, 0);
		CHECK(c != NULL, i == 0 ? "spawn sleep" : "restart sleep");
		usleep(100000);
		CHECK_INTEQ(count_fds(r.pid, &only_std), 3,
		    "child has exactly 3 fds");
		CHECK(only_std, "only 0, 1, 2");
		snprintf(path, sizeof(path), "/proc/%d/fd/0", (int)r.pid);
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		CHECK_STREQ(target, "/dev/null", "stdin is /dev/null");
		child_stop(c, SIGTERM, 1000);
		CHECK(loop_until(&r.exited, 5000), "stopped");
		CHECK(pid_gone(r.pid), "reaped");
	}
	close(leak);
	CHECK_INTEQ(child_count(), 0, "no child left in the table");
}

static void
test_raw_and_errors(void)
{
	const char *argv[] = { "/bin/sh", "-c",
	    "head -c 200000 /dev/zero", NULL };
	const char *bad[] = { "/nonexistent/prog", NULL };
	const char *rel[] = { "sh", NULL };
	struct gp_child_spec spec;
	struct rec r;

	memset(&spec, 0, sizeof(spec));
	memset(&r, 0, sizeof(r));
	spec.size = sizeof(spec);
	spec.argv = argv;
	spec.on_stdout_data = on_data;
	spec.on_exit = on_exit_cb;
	spec.arg = &r;
	CHECK(child_spawn(base, &spec, NULL) != NULL, "spawn raw writer");
	CHECK(loop_until(&r.exited, 5000), "raw writer exited");
	CHECK_INTEQ(r.rawbytes, 200000, "every raw byte delivered");

	spec.argv = bad;
	errno = 0;
	CHECK(child_spawn(base, &spec, NULL) == NULL, "missing binary fails");
	CHECK_INTEQ(errno, ENOENT, "with ENOENT from execve");
	spec.argv = rel;
	CHECK(child_spawn(base, &spec, NULL) == NULL && errno == EINVAL,
	    "relative argv[0] refused");
	r.exited = 0;
	loop_until(&r.exited, 300);
	CHECK(!r.exited, "failed spawn never calls on_exit");
	CHECK_INTEQ(child_count(), 0, "failed spawn reaped");
}

static void
test_pdeathsig(void)
{
	int p[2], st;
	pid_t mid, grand = 0, w;
	long long end;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (pipe(p) == -1)
		return;
	mid = fork();
	if (mid == 0) {
		const char *argv[] = { "/bin/sleep", "30", NULL };
		struct gp_child_spec spec = { .size = sizeof(spec),
		    .argv = argv };
		struct event_base *b2;
		struct gp_child *c;
		pid_t cp;

		child_fini();	/* the forked copy gets its own base */
		b2 = event_base_new();
		c = child_spawn(b2, &spec, NULL);
		cp = c != NULL ? child_pid(c) : 0;
		(void)!write(p[1], &cp, sizeof(cp));
		_exit(0);
	}
	close(p[1]);
	(void)!read(p[0], &grand, sizeof(grand));
	close(p[0]);
	waitpid(mid, &st, 0);
	CHECK(grand > 0, "grandchild spawned");
	end = now_ms() + 3000;
	st = 0;
	while ((w = waitpid(grand, &st, WNOHANG)) == 0 && now_ms() < end)
		usleep(10000);
	CHECK(w == grand && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	    "child killed when its parent dies (PR_SET_PDEATHSIG)");
}

/* Whether a line starting with "NAME=" was printed. */
static int
rec_has_var(const struct rec *r, const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = 0; i < r->nlines && i < 64; i++)
		if (strncmp(r->lines[i], name, n) == 0 &&
		    r->lines[i][n] == '=')
			return (1);
	return (0);
}

/* Issue 12, defect 7: children never inherit the token (or anything
 * else of the daemon's environment beyond the minimal set). */
static void
test_minimal_env(void)
{
	struct rec r;

	setenv("GPROFILER_TOKEN", "secret-token", 1);
	setenv("GP_TEST_PRIVATE", "x", 1);
	setenv("FAKE_TOOL_MODE", "y", 1);
	setenv("LANG", "C.UTF-8", 1);
	child_env_set(NULL);
	CHECK(spawn_sh(&r, "exec /usr/bin/env", 0, 0) != NULL, "spawn env");
	loop_until(&r.exited, 5000);
	CHECK(r.exited && r.nlines > 0, "env printed the environment");
	CHECK(!rec_has_var(&r, "GPROFILER_TOKEN"), "the token is not "
	    "inherited");
	CHECK(!rec_has_var(&r, "GP_TEST_PRIVATE") &&
	    !rec_has_var(&r, "FAKE_TOOL_MODE"), "nor other variables");
	CHECK(rec_has_var(&r, "PATH") && rec_has_var(&r, "LANG"),
	    "PATH and LANG are");

	child_env_set("FAKE_TOOL_*, GPROFILER_*");
	CHECK(spawn_sh(&r, "exec /usr/bin/env", 0, 0) != NULL, "spawn env");
	loop_until(&r.exited, 5000);
	CHECK(rec_has_var(&r, "FAKE_TOOL_MODE"), "--child-env passes a "
	    "prefix");
	CHECK(!rec_has_var(&r, "GPROFILER_TOKEN"), "but never GPROFILER_*");

	unsetenv("PATH");
	child_env_set(NULL);
	CHECK(spawn_sh(&r, "exec /usr/bin/env", 0, 0) != NULL, "spawn env");
	loop_until(&r.exited, 5000);
	CHECK(rec_has_var(&r, "PATH"), "a default PATH without the "
	    "daemon's");
	unsetenv("GPROFILER_TOKEN");
	child_env_free();
}

int
main(void)
{
	log_init(0, "test_child");
	base = event_base_new();
	test_partial_lines();
	test_long_lines();
	test_stderr_tail();
	test_escalation();
	test_fds_and_restart();
	test_raw_and_errors();
	test_pdeathsig();
	test_minimal_env();
	child_fini();
	event_base_free(base);
	return (testing_done());
}
