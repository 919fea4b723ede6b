/*
 * The iaprof process (docs/specs/iaprof.md §6.2-§6.5): the version gate, one
 * long-lived profiling child, the readiness wait, the snapshot deadline,
 * restarts with backoff and the SIGINT-then-SIGKILL stop.  Every wait is
 * a host timer; nothing here blocks the loop.  A child that is killed is
 * always reaped before its state is reset and the failure reported, so a
 * restarted iaprof never meets a previous one's bytes or string ids.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "iaprof.h"
#include "parse.h"
#include "version.h"

#define TAIL_MAX	16384
#define BACKOFF_MAX_MS	60000

static void run_launch(struct iaprof *);

/* An executable regular file? */
static int
run_is_exec(const char *path)
{
	struct stat st;

	return (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0);
}

/* argv[0] must be absolute: search PATH for a bare name (spec §6.1). */
int
iaprof_find_path(const char *name, char *out, size_t outsz)
{
	const char *p, *end, *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(name, '/') != NULL) {
		if (realpath(name, buf) == NULL || !run_is_exec(buf))
			return (-ENOENT);
		snprintf(out, outsz, "%s", buf);
		return (0);
	}
	if (path == NULL)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
		    "/sbin:/bin";
	for (p = path; *p != '\0'; p = *end != '\0' ? end + 1 : end) {
		if ((end = strchr(p, ':')) == NULL)
			end = p + strlen(p);
		if (end == p || *p != '/')
			continue;
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p), p, name);
		if (run_is_exec(buf)) {
			snprintf(out, outsz, "%s", buf);
			return (0);
		}
	}
	return (-ENOENT);
}

static void
run_timer_cancel(struct iaprof *ia)
{
	ia->api->timer_del(ia->timer);
	ia->timer = NULL;
}

static void
run_timer(struct iaprof *ia, uint32_t ms, void (*cb)(void *))
{
	run_timer_cancel(ia);
	ia->timer = ia->api->timer_add(ia->ctx, ms, 0, cb, ia);
}

/* "<msg>: <stderr tail>", or "<msg>" when the tail is empty (§6.3). */
static void
run_error(struct iaprof *ia, const char *msg, const char *dflt_tail)
{
	char *tail;
	size_t n = 0, b = 0;

	if ((tail = malloc(TAIL_MAX)) == NULL) {
		snprintf(ia->err, sizeof(ia->err), "%s", msg);
		return;
	}
	tail[0] = '\0';
	if (ia->child != NULL)
		n = ia->api->child_stderr_tail(ia->child, tail, TAIL_MAX);
	while (b < n && (tail[b] == '\n' || tail[b] == ' ' || tail[b] == '\t'))
		b++;
	while (n > b && (tail[n - 1] == '\n' || tail[n - 1] == ' ' ||
	    tail[n - 1] == '\t' || tail[n - 1] == '\r'))
		n--;
	if (n == b && dflt_tail != NULL)
		snprintf(ia->err, sizeof(ia->err), "%s: %s", msg, dflt_tail);
	else if (n == b)
		snprintf(ia->err, sizeof(ia->err), "%s", msg);
	else {
		/* The end of a long tail says most: keep whole last lines. */
		if (n - b > sizeof(ia->err) - 256) {
			b = n - (sizeof(ia->err) - 256);
			while (b < n && tail[b - 1] != '\n')
				b++;
		}
		snprintf(ia->err, sizeof(ia->err), "%s: %.*s", msg,
		    (int)(n - b), tail + b);
	}
	free(tail);
}

/* Forget everything one iaprof process left behind. */
static void
run_reset(struct iaprof *ia)
{
	iaprof_parser_reset(ia->parser);
}

/* Restart after a failure: at once the first time, then backing off. */
static void
run_restart_cb(void *arg)
{
	struct iaprof *ia = arg;

	ia->restart_timer = NULL;
	if (ia->state != IAP_DOWN)
		return;
	if (!ia->warned_restart) {
		ia->api->log(ia->ctx, GP_LOG_WARN, "iaprof not running "
		    "(unexpectedly), restarting... kernels loaded before the "
		    "restart may not be attributed");
		ia->warned_restart = 1;
	} else
		ia->api->log(ia->ctx, GP_LOG_INFO, "restarting iaprof "
		    "(failure %u in a row)", ia->failures);
	run_launch(ia);
}

static void
run_schedule_restart(struct iaprof *ia)
{
	uint32_t ms = 0;

	if (ia->restart_timer != NULL)
		return;
	if (ia->failures > 0)
		ms = ia->failures >= 7 ? BACKOFF_MAX_MS :
		    1000u << (ia->failures - 1);
	if (ms > BACKOFF_MAX_MS)
		ms = BACKOFF_MAX_MS;
	ia->failures++;
	ia->restart_timer = ia->api->timer_add(ia->ctx, ms, 0,
	    run_restart_cb, ia);
}

/* Report the failure in err to the waiting snapshot, then restart. */
static void
run_report(struct iaprof *ia)
{
	char msg[sizeof(ia->err)];

	if (ia->snap == NULL || ia->err[0] == '\0')
		return;
	memcpy(msg, ia->err, sizeof(msg));
	ia->err[0] = '\0';
	run_schedule_restart(ia);
	iaprof_snapshot_fail(ia, -EIO, msg);
}

/* The process is gone and reaped; err says why. */
static void
run_down(struct iaprof *ia)
{
	run_reset(ia);
	ia->state = IAP_DOWN;
	if (ia->err[0] == '\0')
		run_schedule_restart(ia);	/* already reported */
	else
		run_report(ia);
}

/* --- the profiling child ------------------------------------------- */

static void
run_on_tick(void *arg, uint64_t n)
{
	struct iaprof *ia = arg;

	if (ia->state == IAP_STARTING) {
		run_timer_cancel(ia);
		ia->state = IAP_RUNNING;
		ia->api->log(ia->ctx, GP_LOG_INFO, "iaprof %s is ready (pid "
		    "%d, interval %lld ms)", ia->version,
		    ia->api->child_pid(ia->child), (long long)ia->interval_ms);
	} else if (ia->state != IAP_RUNNING)
		return;
	if (ia->snap != NULL) {
		run_timer_cancel(ia);
		iaprof_snapshot_fulfil(ia);
	}
}

static void
run_on_data(void *arg, const char *buf, size_t len)
{
	struct iaprof *ia = arg;

	iaprof_parser_feed(ia->parser, buf, len);
}

static void
run_on_stderr(void *arg, const char *line, size_t len)
{
	struct iaprof *ia = arg;

	ia->api->log(ia->ctx, GP_LOG_DEBUG, "iaprof: %.*s", (int)len, line);
}

static void
run_exit_desc(int status, char *buf, size_t sz)
{
	if (WIFEXITED(status))
		snprintf(buf, sz, "exit code %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, sz, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, sz, "status %d", status);
}

static void
run_on_exit(void *arg, int status)
{
	struct iaprof *ia = arg;
	char desc[64];

	iaprof_parser_finish(ia->parser);	/* a last unterminated line */
	run_exit_desc(status, desc, sizeof(desc));
	switch (ia->state) {
	case IAP_STOPPING:
		run_error(ia, "Stopped iaprof", NULL);
		ia->api->log(ia->ctx, GP_LOG_INFO, "%s (%s)", ia->err, desc);
		ia->err[0] = '\0';
		break;
	case IAP_STARTING:
		run_error(ia, "iaprof failed to start", desc);
		break;
	case IAP_RUNNING:
		run_error(ia, "iaprof snapshot failed", "iaprof output closed");
		break;
	default:	/* IAP_KILLING: err was set when the deadline passed */
		break;
	}
	ia->child = NULL;
	run_timer_cancel(ia);
	if (ia->state == IAP_STOPPING) {
		run_reset(ia);
		ia->state = IAP_IDLE;
		ia->api->stop_done(ia->ctx);
		return;
	}
	ia->api->log(ia->ctx, GP_LOG_DEBUG, "iaprof exited (%s)", desc);
	run_down(ia);
}

/* No `interval` in time: stop it as stop() would, then fail (§6.3). */
static void
run_start_timeout(void *arg)
{
	struct iaprof *ia = arg;

	ia->timer = NULL;
	run_error(ia, "iaprof failed to start", "no interval record within "
	    "the start timeout");
	ia->state = IAP_KILLING;
	ia->api->child_stop(ia->child, SIGINT, ia->stop_ms);
}

/* Even SIGKILL did not end it: say so; the reap may still come. */
static void
run_kill_guard(void *arg)
{
	struct iaprof *ia = arg;
	char msg[sizeof(ia->err) + 64];

	ia->timer = NULL;
	snprintf(msg, sizeof(msg), "%s (iaprof failed to stop after SIGKILL)",
	    ia->err);
	ia->err[0] = '\0';
	iaprof_snapshot_fail(ia, -ETIMEDOUT, msg);
}

/* No tick within the snapshot deadline (§6.4.4): SIGKILL, reap, reset. */
static void
run_snapshot_timeout(void *arg)
{
	struct iaprof *ia = arg;

	ia->timer = NULL;
	run_error(ia, "iaprof snapshot timed out", NULL);
	ia->state = IAP_KILLING;
	ia->api->child_stop(ia->child, SIGKILL, 0);
	run_timer(ia, ia->stop_ms, run_kill_guard);
}

static void
run_launch(struct iaprof *ia)
{
	char interval[64], subsample[64];
	const char *argv[4];
	struct gp_child_spec spec;

	run_reset(ia);
	snprintf(interval, sizeof(interval), "--interval=%lld",
	    (long long)ia->interval_ms);
	snprintf(subsample, sizeof(subsample), "--eu-stall-subsample=%lld",
	    (long long)ia->subsample);
	argv[0] = ia->path;
	argv[1] = interval;
	argv[2] = subsample;
	argv[3] = NULL;
	spec = (struct gp_child_spec){
		.size = sizeof(spec),
		.argv = argv,
		.on_stdout_data = run_on_data,
		.on_stderr_line = run_on_stderr,
		.on_exit = run_on_exit,
		.arg = ia,
		.stderr_keep = IAPROF_STDERR_KEEP,
		.max_line = 4096,
	};
	ia->err[0] = '\0';
	if ((ia->child = ia->api->child_spawn(ia->ctx, &spec)) == NULL) {
		snprintf(ia->err, sizeof(ia->err), "iaprof failed to start: "
		    "cannot run %.1024s: %s", ia->path, strerror(errno));
		run_down(ia);
		return;
	}
	ia->launches++;
	ia->state = IAP_STARTING;
	run_timer(ia, ia->start_ms, run_start_timeout);
}

/* --- the version gate (§6.2) ---------------------------------------- */

static void
run_append(char *buf, size_t sz, const char *line, size_t len)
{
	size_t n = strlen(buf);

	if (n + 1 >= sz)
		return;
	snprintf(buf + n, sz - n, "%.*s\n", (int)len, line);
}

static void
run_ver_out(void *arg, const char *line, size_t len)
{
	struct iaprof *ia = arg;

	run_append(ia->vout, sizeof(ia->vout), line, len);
}

static void
run_ver_err(void *arg, const char *line, size_t len)
{
	struct iaprof *ia = arg;

	run_append(ia->verr, sizeof(ia->verr), line, len);
}

static void
run_ver_timeout(void *arg)
{
	struct iaprof *ia = arg;

	ia->timer = NULL;
	ia->vtimedout = 1;
	ia->api->child_stop(ia->child, SIGKILL, 0);
}

/* Why the version gate failed, in err; 0 if it passed. */
static int
run_ver_verdict(struct iaprof *ia, int status)
{
	char desc[64], msg[sizeof(ia->err)];

	if (ia->vtimedout) {
		snprintf(ia->err, sizeof(ia->err), "iaprof failed to start: "
		    "'%.1024s --version' did not answer within %u ms", ia->path,
		    ia->version_ms);
		return (-ETIMEDOUT);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		run_exit_desc(status, desc, sizeof(desc));
		snprintf(ia->err, sizeof(ia->err), "iaprof failed to start: "
		    "'%.1024s --version' failed (%s): %s", ia->path, desc,
		    ia->verr);
		return (-EIO);
	}
	if (iaprof_version_check(ia->vout, ia->verr, ia->version,
	    sizeof(ia->version), msg, sizeof(msg)) != 0) {
		ia->version[0] = '\0';
		snprintf(ia->err, sizeof(ia->err), "%s", msg);
		return (-ENOTSUP);
	}
	return (0);
}

static void
run_ver_exit(void *arg, int status)
{
	struct iaprof *ia = arg;

	ia->child = NULL;
	run_timer_cancel(ia);
	if (ia->state == IAP_STOPPING) {
		ia->state = IAP_IDLE;
		ia->api->stop_done(ia->ctx);
		return;
	}
	if (run_ver_verdict(ia, status) != 0) {
		/* The reference checks once per run: fail every cycle. */
		ia->state = IAP_FAILED;
		ia->api->log(ia->ctx, GP_LOG_ERR, "%s", ia->err);
		iaprof_snapshot_fail(ia, -ENOTSUP, ia->err);
		return;
	}
	ia->api->log(ia->ctx, GP_LOG_INFO, "iaprof %s (%s)", ia->version,
	    ia->path);
	run_launch(ia);
}

static int
run_version(struct iaprof *ia)
{
	const char *argv[3] = { ia->path, "--version", NULL };
	struct gp_child_spec spec;
	int rc;

	spec = (struct gp_child_spec){
		.size = sizeof(spec),
		.argv = argv,
		.on_stdout_line = run_ver_out,
		.on_stderr_line = run_ver_err,
		.on_exit = run_ver_exit,
		.arg = ia,
		.max_line = 256,
	};
	ia->vout[0] = ia->verr[0] = '\0';
	ia->vtimedout = 0;
	if ((ia->child = ia->api->child_spawn(ia->ctx, &spec)) == NULL) {
		rc = -errno;
		ia->api->log(ia->ctx, GP_LOG_ERR, "cannot run '%s --version': "
		    "%s", ia->path, strerror(errno));
		return (rc != 0 ? rc : -EIO);
	}
	ia->state = IAP_VERSION;
	run_timer(ia, ia->version_ms, run_ver_timeout);
	return (0);
}

/* --- entry points from iaprof.c --------------------------------------- */

int
iaprof_run_start(struct iaprof *ia)
{
	char path[PATH_MAX];

	if (geteuid() != 0) {
		ia->api->log(ia->ctx, GP_LOG_ERR, "iaprof needs root (it loads "
		    "BPF programs and opens the GPU's EU stall stream): run "
		    "gprofiler as root");
		return (-EPERM);
	}
	if (iaprof_find_path(ia->path, path, sizeof(path)) != 0) {
		ia->api->log(ia->ctx, GP_LOG_ERR, "iaprof not found: '%s' is "
		    "not an executable file (install intel/iaprof %s or later, "
		    "or set --iaprof-path)", ia->path, IAPROF_MIN_VERSION);
		return (-ENOENT);
	}
	snprintf(ia->path, sizeof(ia->path), "%s", path);
	if (ia->parser == NULL &&
	    (ia->parser = iaprof_parser_new(NULL, run_on_tick, ia)) == NULL)
		return (-ENOMEM);
	ia->version[0] = ia->err[0] = '\0';
	ia->failures = 0;
	ia->warned_restart = 0;
	ia->last_malformed = 0;
	ia->launches = 0;
	return (run_version(ia));
}

/* A snapshot was requested (ia->snap is set). */
void
iaprof_run_snapshot(struct iaprof *ia)
{
	switch (ia->state) {
	case IAP_VERSION:
	case IAP_STARTING:
	case IAP_KILLING:
		break;		/* resolved by the state's own deadline */
	case IAP_RUNNING:
		run_timer(ia, ia->snapshot_ms, run_snapshot_timeout);
		break;
	case IAP_DOWN:
		if (ia->err[0] != '\0')
			run_report(ia);
		else
			iaprof_snapshot_fail(ia, -EAGAIN, "iaprof is not "
			    "running: restarting after repeated failures");
		break;
	case IAP_FAILED:
		iaprof_snapshot_fail(ia, -ENOTSUP, ia->err);
		break;
	default:
		iaprof_snapshot_fail(ia, -ESRCH, "iaprof is not running");
		break;
	}
}

static void
run_stop_guard(void *arg)
{
	struct iaprof *ia = arg;

	ia->timer = NULL;
	ia->api->log(ia->ctx, GP_LOG_ERR, "iaprof failed to stop after "
	    "SIGKILL");
	ia->state = IAP_IDLE;
	ia->api->stop_done(ia->ctx);
}

/* SIGINT (never SIGTERM: iaprof loses its buffers), SIGKILL after 5 s. */
void
iaprof_run_stop(struct iaprof *ia)
{
	run_timer_cancel(ia);
	ia->api->timer_del(ia->restart_timer);
	ia->restart_timer = NULL;
	iaprof_snapshot_fail(ia, -ECANCELED, "iaprof is stopping");
	if (ia->child == NULL) {
		ia->state = IAP_IDLE;
		ia->api->stop_done(ia->ctx);
		return;
	}
	ia->api->child_stop(ia->child, ia->state == IAP_VERSION ? SIGKILL :
	    SIGINT, ia->stop_ms);
	ia->state = IAP_STOPPING;
	run_timer(ia, 2 * ia->stop_ms, run_stop_guard);
}

void
iaprof_run_destroy(struct iaprof *ia)
{
	run_timer_cancel(ia);
	ia->api->timer_del(ia->restart_timer);
	ia->restart_timer = NULL;
	if (ia->child != NULL)
		ia->api->child_stop(ia->child, SIGKILL, 0);
	ia->child = NULL;
}
