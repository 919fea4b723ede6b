/*
 * One bounded jattach run.  We run Debian's jattach through the host's
 * child helper rather than speaking the attach protocol on the loop: for a
 * JVM in a container, the protocol has to be spoken from inside the
 * target's mount and PID namespaces with its credentials (setns, setuid),
 * which must not happen in the daemon's process; jattach is that child.
 * The child's stdout is collected (capped), a timer bounds the run and
 * child_stop (SIGTERM, then SIGKILL) ends a hung one; the JVM itself is
 * never signalled by us.
 */
#include "config.h"

#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_proc.h"

#define JV_OUT_MAX	(256 * 1024)
#define JV_KILL_GRACE	500	/* ms between SIGTERM and SIGKILL */
#define JV_ARGV_MAX	8

struct jv_job {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	struct gp_child *child;
	struct gp_timer *timer;
	jv_job_done_fn done;
	void *arg;
	char *out;
	size_t outlen;
	int truncated;
	uint32_t timeout_ms;
	char cancel[128];	/* set: report this */
};

static void
jv_job_free(struct jv_job *j)
{
	j->api->timer_del(j->timer);
	free(j->out);
	free(j);
}

static void
jv_job_stdout(void *arg, const char *buf, size_t len)
{
	struct jv_job *j = arg;
	size_t room = JV_OUT_MAX - j->outlen;
	char *nb;

	if (len > room) {
		len = room;
		j->truncated = 1;
	}
	if (len == 0)
		return;
	if ((nb = realloc(j->out, j->outlen + len + 1)) == NULL) {
		j->truncated = 1;
		return;
	}
	j->out = nb;
	memcpy(j->out + j->outlen, buf, len);
	j->outlen += len;
	j->out[j->outlen] = '\0';
}

static void
jv_job_result(struct jv_job *j, int status, struct jv_result *r)
{
	char tail[512];
	size_t n;
	int code;

	memset(r, 0, sizeof(*r));
	if (j->cancel[0] != '\0') {
		snprintf(r->reason, sizeof(r->reason), "%s", j->cancel);
		return;
	}
	if (j->out != NULL && jv_parse_response(j->out, j->outlen, &code,
	    &r->body, &r->bodylen) == 0) {
		if (code == 0) {
			r->ok = 1;
			return;
		}
		/* The JVM answered with an error, e.g. an unknown command. */
		n = strcspn(r->body, "\n");
		snprintf(r->reason, sizeof(r->reason), "JVM error %d: %.*s",
		    code, (int)(n > 160 ? 160 : n), r->body);
		r->body = NULL;
		r->bodylen = 0;
		return;
	}
	tail[0] = '\0';
	if (j->child != NULL)
		j->api->child_stderr_tail(j->child, tail, sizeof(tail));
	r->permanent = jv_failure_reason(tail, WIFEXITED(status),
	    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
	    r->reason, sizeof(r->reason));
}

static void
jv_job_exit(void *arg, int status)
{
	struct jv_job *j = arg;
	struct jv_result r;

	jv_job_result(j, status, &r);
	j->child = NULL;
	j->done(j->arg, &r);
	jv_job_free(j);
}

static void
jv_job_timeout(void *arg)
{
	struct jv_job *j = arg;

	j->api->timer_del(j->timer);
	j->timer = NULL;
	jv_job_cancel(j, NULL);
}

/*
 * End the run now; `done` still runs once, from the child's exit, with
 * `why` (NULL: the timeout) as the reason.
 */
void
jv_job_cancel(struct jv_job *j, const char *why)
{
	if (j == NULL || j->cancel[0] != '\0')
		return;
	if (why != NULL)
		snprintf(j->cancel, sizeof(j->cancel), "%s", why);
	else
		snprintf(j->cancel, sizeof(j->cancel), "jattach did not "
		    "answer within %u ms", j->timeout_ms);
	if (j->child != NULL)
		j->api->child_stop(j->child, SIGTERM, JV_KILL_GRACE);
}

void
jv_job_forget(struct jv_job *j)
{
	if (j != NULL)
		jv_job_free(j);
}

/* Run `jattach PID cmd...`; NULL (errno set) if it cannot be spawned. */
struct jv_job *
jv_job_start(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    const char *jattach, pid_t pid, const char *const *cmd,
    uint32_t timeout_ms, jv_job_done_fn done, void *arg)
{
	const char *argv[JV_ARGV_MAX + 3];
	struct gp_child_spec spec;
	struct jv_job *j;
	char pidstr[16];
	size_t i;

	if ((j = calloc(1, sizeof(*j))) == NULL)
		return (NULL);
	j->ctx = ctx;
	j->api = api;
	j->done = done;
	j->arg = arg;
	j->timeout_ms = timeout_ms;
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	argv[0] = jattach;
	argv[1] = pidstr;
	for (i = 0; cmd[i] != NULL && i < JV_ARGV_MAX; i++)
		argv[2 + i] = cmd[i];
	argv[2 + i] = NULL;
	spec = (struct gp_child_spec){
		.size = sizeof(spec), .argv = argv,
		.on_stdout_data = jv_job_stdout, .on_exit = jv_job_exit,
		.arg = j, .stderr_keep = 8,
	};
	if ((j->timer = api->timer_add(ctx, timeout_ms, 0, jv_job_timeout,
	    j)) == NULL) {
		free(j);
		errno = ENOMEM;
		return (NULL);
	}
	if ((j->child = api->child_spawn(ctx, &spec)) == NULL) {
		i = (size_t)errno;
		api->timer_del(j->timer);
		free(j);
		errno = (int)i;
		return (NULL);
	}
	return (j);
}
