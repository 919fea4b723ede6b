/*
 * Dynamic profiling (docs/specs/studio-api.md §5, §6, §9): a heartbeat every
 * --heartbeat-interval seconds; the backend answers with its latest command
 * for this host every time, so commands are de-duplicated by command_id,
 * and the ids acted on are persisted (state.json under --state-dir): a
 * command counts as executed once its outcome is known (completion sent),
 * so a restarted agent neither replays an executed command nor silently
 * skips one it died in (that one runs once more; heartbeat_state.c).
 * command.c runs the commands; this file talks to the server.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "base/http.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "run/run.h"
#include "studio/studio.h"

#define HB_STATE_FILE		"state.json"
/* Runs of one command the agent may die in before it is reported failed
 * instead of run again (a command that crashes the agent must not crash
 * it on every restart). */
#define HB_MAX_ATTEMPTS		2

static struct {
	struct event_base *base;
	char *api_server;
	char *userpwd;
	char *auth_hdr;
	char *state_path;
	const char *headers[6];
	unsigned interval_s;
	struct event *timer;
	struct http_req *req;
	char last_id[64];
	char skip_logged[64];	/* re-sent, logged once */
	int running;
} hb;

/* The address the backend would see: source of a UDP "connection". */
static void
hb_ip_address(char *buf, size_t len)
{
	struct sockaddr_in sin, local;
	socklen_t sl = sizeof(local);
	int s;

	snprintf(buf, len, "127.0.0.1");
	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(80);
	inet_pton(AF_INET, "8.8.8.8", &sin.sin_addr);
	/* connect() on UDP sends nothing and does not block. */
	if (connect(s, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    getsockname(s, (struct sockaddr *)&local, &sl) == 0)
		inet_ntop(AF_INET, &local.sin_addr, buf, len);
	close(s);
}

static void
hb_post_opts(struct http_req_opts *o, const char *url, const char *body,
    void (*done)(void *, const struct http_result *), void *arg)
{
	memset(o, 0, sizeof(*o));
	o->method = "POST";
	o->url = url;
	o->headers = hb.headers;
	o->body = body;
	o->bodylen = strlen(body);
	o->userpwd = hb.userpwd;
	o->timeout_ms = 10000;
	o->max_body = 1 << 20;
	o->done = done;
	o->arg = arg;
}

/* What a completion reports, until the server answers it. */
struct hb_completion {
	char *id;
	char *err;			/* NULL: completed */
	struct hb_completion *next;	/* hb_sent */
};

/* Completions sent and not answered: freed at exit if never answered
 * (heartbeat_fini, once the transport cancelled their requests). */
static struct hb_completion *hb_sent;

static void
hb_completion_free(struct hb_completion *c)
{
	struct hb_completion **pp;

	for (pp = &hb_sent; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	free(c->id);
	free(c->err);
	free(c);
}

void
heartbeat_fini(void)
{
	while (hb_sent != NULL)
		hb_completion_free(hb_sent);
}

/*
 * The command's outcome is logged once the server has answered: a
 * completion it refused was first logged as "completed", then warned
 * about, which read as two contradicting outcomes.
 */
static void
hb_completion_done(void *arg, const struct http_result *res)
{
	struct hb_completion *c = arg;
	const char *what = c->err == NULL ? "completed" : "failed";
	char msg[256];

	upload_error_message(res->body, res->bodylen, msg, sizeof(msg));
	if (res->rc != 0)
		log_warnx("heartbeat: command %s %s%s%s, but its completion "
		    "was not delivered: %s", c->id, what, c->err ? ": " : "",
		    c->err ? c->err : "", res->err);
	else if (res->status != 200 || (strstr(res->body, "\"success\": "
	    "true") == NULL && strstr(res->body, "\"success\":true") == NULL))
		log_warnx("heartbeat: command %s %s%s%s, but the server "
		    "refused its completion: HTTP %ld: %s", c->id, what,
		    c->err ? ": " : "", c->err ? c->err : "", res->status, msg);
	else
		log_info("heartbeat: command %s %s%s%s", c->id, what,
		    c->err ? ": " : "", c->err ? c->err : "");
	hb_completion_free(c);
}

/* A command needs no completion (another host's): never run it again. */
static void
hb_settled(const char *id, void *arg)
{
	(void)arg;
	hb_state_add(hb.state_path, id);
}

/*
 * POST /api/metrics/command_completion (not retried, §9).  The command is
 * executed from now on: its outcome is known.
 */
static void
hb_complete(const char *id, int ok, const char *err, void *arg)
{
	struct json_object *o;
	struct http_req_opts ro;
	struct hb_completion *c;
	char *url;

	hb_state_add(hb.state_path, id);
	c = xcalloc(1, sizeof(*c));
	c->id = xstrdup(id);
	c->err = ok ? NULL : xstrdup(err != NULL ? err : "?");
	c->next = hb_sent;
	hb_sent = c;

	o = json_object_new_object();
	json_object_object_add(o, "command_id", json_object_new_string(id));
	json_object_object_add(o, "hostname",
	    json_object_new_string(studio_hostname()));
	json_object_object_add(o, "status",
	    json_object_new_string(ok ? "completed" : "failed"));
	json_object_object_add(o, "execution_time", json_object_new_int(0));
	json_object_object_add(o, "error_message", ok || err == NULL ? NULL :
	    json_object_new_string(err));
	json_object_object_add(o, "results_path", NULL);
	xasprintf(&url, "%s/api/metrics/command_completion", hb.api_server);
	hb_post_opts(&ro, url, json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN), hb_completion_done, c);
	if (http_request(&ro) == NULL) {
		log_warnx("heartbeat: command %s %s%s%s; its completion could "
		    "not be sent", id, ok ? "completed" : "failed",
		    ok ? "" : ": ", c->err != NULL ? c->err : "");
		hb_completion_free(c);
	}
	free(url);
	json_object_put(o);
}

/*
 * Run a new command.  Its attempt is saved first: if the agent dies in
 * it, the next process runs it once more, and reports it failed after a
 * second death (HB_MAX_ATTEMPTS) rather than dying a third time.
 */
static void
hb_execute(const struct hb_command *c)
{
	unsigned n;
	char msg[160];

	if ((n = hb_state_attempts(c->command_id)) >= HB_MAX_ATTEMPTS) {
		log_warnx("heartbeat: command %s: the agent stopped %u times "
		    "while executing it (crash or kill); reported failed, not "
		    "run again", c->command_id, n);
		snprintf(msg, sizeof(msg), "the agent stopped %u times while "
		    "executing this command; not run again", n);
		hb_complete(c->command_id, 0, msg, NULL);
		return;
	}
	if (n > 0)
		log_warnx("heartbeat: command %s was interrupted: the agent "
		    "stopped while executing it; running it again (attempt %u "
		    "of %d)", c->command_id, n + 1, HB_MAX_ATTEMPTS);
	log_info("heartbeat: new %s command %s", c->command_type,
	    c->command_id);
	if (!hb_id_is_uuid(c->command_id))
		log_warnx("heartbeat: command id %s is not a UUID; it is "
		    "executed but not echoed back to the server",
		    c->command_id);
	snprintf(hb.last_id, sizeof(hb.last_id), "%s", c->command_id);
	hb_state_begin(hb.state_path, c->command_id);
	command_execute(c);
}

static void
hb_on_response(void *arg, const struct http_result *res)
{
	struct hb_command c;
	char err[256];
	int rc;

	hb.req = NULL;
	if (res->rc != 0) {
		log_warnx("heartbeat: %s: %s", hb.api_server, res->err);
		return;
	}
	if (res->status != 200) {
		upload_error_message(res->body, res->bodylen, err,
		    sizeof(err));
		log_warnx("heartbeat: HTTP %ld: %s", res->status, err);
		return;
	}
	rc = heartbeat_parse_response(res->body, res->bodylen, &c, err,
	    sizeof(err));
	if (rc < 0) {
		log_warnx("heartbeat: bad answer from %s: %s", hb.api_server,
		    err);
		/* A malformed command with an id: report it once. */
		if (c.command_id[0] != '\0' && !hb_state_seen(c.command_id))
			hb_complete(c.command_id, 0, err, NULL);
		hb_command_clear(&c);
		return;
	}
	if (rc == 0 || hb_state_running(c.command_id)) {
		hb_command_clear(&c);
		return;
	}
	if (hb_state_seen(c.command_id)) {
		/* The backend re-sends its latest command forever (§5). */
		if (strcmp(hb.skip_logged, c.command_id) != 0) {
			log_info("heartbeat: command %s was already executed; "
			    "the backend re-sends its latest command, which "
			    "is not run again", c.command_id);
			snprintf(hb.skip_logged, sizeof(hb.skip_logged), "%s",
			    c.command_id);
		}
		hb_command_clear(&c);
		return;
	}
	hb_execute(&c);
	hb_command_clear(&c);
}

static void
hb_send(evutil_socket_t fd, short what, void *arg)
{
	struct json_object *o;
	struct http_req_opts ro;
	struct timespec ts;
	char ip[64], now[48], *url;

	if (hb.req != NULL)
		return;		/* the previous one is still on its way */
	hb_ip_address(ip, sizeof(ip));
	clock_gettime(CLOCK_REALTIME, &ts);
	studio_iso_time(ts.tv_sec, ts.tv_nsec / 1000, 1, now, sizeof(now));
	o = json_object_new_object();
	json_object_object_add(o, "ip_address", json_object_new_string(ip));
	json_object_object_add(o, "hostname",
	    json_object_new_string(studio_hostname()));
	json_object_object_add(o, "service_name",
	    json_object_new_string(studio_service()));
	json_object_object_add(o, "last_command_id",
	    hb_id_is_uuid(hb.last_id) ? json_object_new_string(hb.last_id) :
	    NULL);
	json_object_object_add(o, "status", json_object_new_string("active"));
	json_object_object_add(o, "timestamp", json_object_new_string(now));
	json_object_object_add(o, "received_command_ids", hb_state_ids_json(1));
	json_object_object_add(o, "executed_command_ids", hb_state_ids_json(0));
	xasprintf(&url, "%s/api/metrics/heartbeat", hb.api_server);
	hb_post_opts(&ro, url, json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN), hb_on_response, NULL);
	hb.req = http_request(&ro);
	free(url);
	json_object_put(o);
}

/*
 * Dynamic-profiling mode: nothing runs until a command says so.  Call
 * after studio_init.  The runs are started with `hooks`.
 */
int
heartbeat_start(struct event_base *base, const struct config *cfg,
    struct plugin_list *plugins, const struct run_hooks *hooks)
{
	struct command_ops ops;
	struct timeval tv;
	const char *as, *user, *pw, *sd;
	size_t n, i;

	hb.base = base;
	as = config_get(cfg, "api-server");
	hb.api_server = xstrdup(as != NULL ? as : "https://api.granulate.io");
	while ((n = strlen(hb.api_server)) > 0 && hb.api_server[n - 1] == '/')
		hb.api_server[n - 1] = '\0';
	user = config_get(cfg, "api-server-user");
	pw = config_get(cfg, "api-server-password");
	for (i = 0; studio_headers()[i] != NULL && i < 3; i++)
		hb.headers[i] = studio_headers()[i];
	hb.headers[i++] = "Content-Type: application/json";
	if (user != NULL && *user != '\0')
		xasprintf(&hb.userpwd, "%s:%s", user, pw != NULL ? pw : "");
	else {
		/* What the reference agent sends (§1). */
		xasprintf(&hb.auth_hdr, "Authorization: Bearer %s",
		    studio_token());
		hb.headers[i++] = hb.auth_hdr;
	}
	hb.headers[i] = NULL;
	sd = config_get(cfg, "state-dir");
	if (sd != NULL && *sd != '\0') {
		if (mkdir(sd, 0700) == -1 && errno != EEXIST)
			log_warn("heartbeat: --state-dir %s", sd);
		xasprintf(&hb.state_path, "%s/" HB_STATE_FILE, sd);
		if (hb_state_load(hb.state_path) != 0)
			log_warnx("heartbeat: %s is damaged; starting with no "
			    "executed commands", hb.state_path);
	}
	hb.interval_s = (unsigned)config_get_int(cfg, "heartbeat-interval",
	    30);
	if (hb.interval_s == 0)
		hb.interval_s = 30;
	memset(&ops, 0, sizeof(ops));
	ops.complete = hb_complete;
	ops.settled = hb_settled;
	command_init(base, cfg, plugins, hooks, &ops);
	hb.timer = event_new(base, -1, EV_PERSIST, hb_send, NULL);
	tv.tv_sec = hb.interval_s;
	tv.tv_usec = 0;
	event_add(hb.timer, &tv);
	hb.running = 1;
	log_info("heartbeat: dynamic profiling through %s every %u s",
	    hb.api_server, hb.interval_s);
	hb_send(-1, 0, NULL);
	return (0);
}

static void
hb_stopped(void *arg)
{
	hb_state_free();
	free(hb.api_server);
	free(hb.userpwd);
	free(hb.auth_hdr);
	free(hb.state_path);
	hb.api_server = hb.userpwd = hb.auth_hdr = hb.state_path = NULL;
}

static struct {
	void (*done)(void *);
	void *arg;
} hb_stop;

static void
hb_runs_stopped(void *arg)
{
	(void)arg;
	/* Only now: stopping runs may still report completions. */
	hb_stopped(NULL);
	if (hb_stop.done != NULL)
		hb_stop.done(hb_stop.arg);
}

/* Stop heartbeats and every command run, then done(arg). */
void
heartbeat_stop(void (*done)(void *), void *arg)
{
	if (!hb.running) {
		if (done != NULL)
			done(arg);
		return;
	}
	hb.running = 0;
	if (hb.timer != NULL)
		event_free(hb.timer);
	hb.timer = NULL;
	http_cancel(hb.req);
	hb.req = NULL;
	hb_stop.done = done;
	hb_stop.arg = arg;
	command_stop_all(hb_runs_stopped, NULL);
}
