/*
 * The upload path end to end against the fake Studio server: real
 * metadata in the header (the server enforces §4.4), gpid flow, retries
 * on 500 keep order with nothing lost or duplicated, 4xx put aside.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "base/http.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "meta/meta.h"
#include "profile/profile.h"
#include "studio/studio.h"
#include "testing.h"

static struct event_base *base;
static char tmp[] = "/tmp/gpstudio.XXXXXX";
static int port;
static pid_t srv;
static struct json_object *got;

static void
start_server(void)
{
	char pf[128], buf[32], *py, *script;
	FILE *f;
	int i;

	snprintf(pf, sizeof(pf), "%s/port", tmp);
	py = getenv("PYTHON3") ? getenv("PYTHON3") : "python3";
	xasprintf(&script, "%s/tests/fakes/studio_server.py",
	    getenv("top_srcdir") ? getenv("top_srcdir") : TOP_SRCDIR);
	if ((srv = fork()) == 0) {
		execlp(py, py, script, "--port-file", pf, "--token", "tok",
		    (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 100 && (f = fopen(pf, "r")) == NULL; i++)
		usleep(50000);
	if (f == NULL || fgets(buf, sizeof(buf), f) == NULL)
		SKIP_ALL("the fake Studio server did not start");
	fclose(f);
	port = atoi(buf);
	free(script);
}

static void
loop_stop(evutil_socket_t fd, short w, void *a)
{
	event_base_loopbreak(base);
}

/* Run the loop until pred() or timeout seconds. */
static int
run_until(int (*pred)(void), int timeout)
{
	struct timeval tv = { 0, 100000 };
	int i;

	for (i = 0; i < timeout * 10; i++) {
		if (pred())
			return (1);
		event_base_once(base, -1, EV_TIMEOUT, loop_stop, NULL, &tv);
		event_base_dispatch(base);
	}
	return (pred());
}

static int fake_done;
static void
fake_cb(void *arg, const struct http_result *r)
{
	json_object_put(got);
	got = r->rc == 0 ? json_tokener_parse(r->body) : NULL;
	fake_done = 1;
}

static int
fake_is_done(void)
{
	return (fake_done);
}

static struct json_object *
fake(const char *method, const char *path, const char *body)
{
	struct http_req_opts o;
	char url[256];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
	memset(&o, 0, sizeof(o));
	o.method = method;
	o.url = url;
	o.body = body;
	o.bodylen = body ? strlen(body) : 0;
	o.done = fake_cb;
	fake_done = 0;
	http_request(&o);
	run_until(fake_is_done, 10);
	return (got);
}

static uint64_t want_sent;
static int
sent_enough(void)
{
	return (upload_sent_count() >= want_sent);
}

static void
enqueue(struct json_object *md, int n)
{
	struct cycle_output co;
	struct json_object *h;
	char *col;

	h = json_object_new_object();
	json_object_object_add(h, "containers", json_object_new_array());
	json_object_object_add(h, "metadata", json_object_get(md));
	json_object_object_add(h, "application_metadata_enabled",
	    json_object_new_boolean(0));
	xasprintf(&col, "# %s\n;sh;main_%d 3", json_object_to_json_string_ext(
	    h, JSON_C_TO_STRING_PLAIN), n);
	memset(&co, 0, sizeof(co));
	co.header = h;
	clock_gettime(CLOCK_REALTIME, &co.start);
	co.end = co.start;
	upload_enqueue(&co, col, strlen(col));
	free(col);
	json_object_put(h);
}

static int
frame_of(struct json_object *prof)
{
	struct json_object *v;
	const char *s;

	if (!json_object_object_get_ex(prof, "profile", &v))
		return (-1);
	s = strstr(json_object_get_string(v), "main_");
	return (s != NULL ? atoi(s + 5) : -1);
}

int
main(void)
{
	struct config *cfg;
	struct json_object *md, *p, *v;
	char err[256], url[64], spool[128];
	const char *gpid;
	int i, order_ok, ma, mi, pa;
	size_t n;

	if (mkdtemp(tmp) == NULL)
		SKIP_ALL("mkdtemp");
	start_server();
	base = event_base_new();
	cfg = config_new();
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	snprintf(spool, sizeof(spool), "%s/spool", tmp);
	config_set(cfg, "upload-results", "true", SRC_CLI, "t", err, 256);
	config_set(cfg, "token", "tok", SRC_CLI, "t", err, 256);
	config_set(cfg, "service-name", "svc", SRC_CLI, "t", err, 256);
	config_set(cfg, "server-host", url, SRC_CLI, "t", err, 256);
	config_set(cfg, "spool-dir", spool, SRC_CLI, "t", err, 256);
	CHECK_INTEQ(studio_init(base, cfg), 0, "studio_init");
	metadata_collect(0);
	md = metadata_build(cfg, MODE_CPU, 11, NULL);

	/* The backend answers "0" to agents older than 1.2.3 (§4.5). */
	json_object_object_get_ex(md, "agent_version", &v);
	gpid = sscanf(json_object_get_string(v), "%d.%d.%d", &ma, &mi, &pa) ==
	    3 && (ma > 1 || (ma == 1 && (mi > 2 || (mi == 2 && pa >= 3)))) ?
	    "1" : "0";
	if (strcmp(gpid, "0") == 0)
		printf("# agent_version %s < 1.2.3: the backend's legacy gpid "
		    "flow\n", json_object_get_string(v));
	enqueue(md, 0);
	want_sent = 1;
	CHECK(run_until(sent_enough, 15), "first profile accepted");
	enqueue(md, 1);
	want_sent = 2;
	CHECK(run_until(sent_enough, 15), "second profile accepted");
	CHECK_STREQ(upload_gpid(), gpid, "gpid from the server kept");
	p = fake("GET", "/_fake/profiles", NULL);
	CHECK(p != NULL && json_object_array_length(p) == 2,
	    "server recorded two (metadata passed validation)");
	if (p != NULL && json_object_array_length(p) == 2) {
		json_object_object_get_ex(json_object_array_get_idx(p, 0),
		    "gpid_sent", &v);
		CHECK_STREQ(json_object_get_string(v), "", "first gpid \"\"");
		json_object_object_get_ex(json_object_array_get_idx(p, 1),
		    "gpid_sent", &v);
		CHECK_STREQ(json_object_get_string(v), gpid,
		    "second sends the server's gpid");
	}

	/* Two 500s, then back: all arrive, in order, none twice. */
	fake("POST", "/_fake/fail", "{\"mode\": \"500\", \"count\": 2}");
	for (i = 2; i < 5; i++)
		enqueue(md, i);
	want_sent = 5;
	CHECK(run_until(sent_enough, 20), "retried after 500s");
	CHECK_STREQ(upload_gpid(), gpid, "gpid kept across failures");
	p = fake("GET", "/_fake/profiles", NULL);
	n = p != NULL ? json_object_array_length(p) : 0;
	CHECK_INTEQ(n, 5, "five profiles, none twice");
	for (order_ok = 1, i = 0; i < (int)n; i++)
		if (frame_of(json_object_array_get_idx(p, i)) != i)
			order_ok = 0;
	CHECK(order_ok, "in order");

	/* A 4xx other than 408/429 is not retried, kept aside. */
	fake("POST", "/_fake/fail", "{\"mode\": \"413\", \"count\": 1}");
	enqueue(md, 5);
	enqueue(md, 6);
	want_sent = 6;
	CHECK(run_until(sent_enough, 15), "the next one still goes");
	p = fake("GET", "/_fake/profiles", NULL);
	CHECK(p != NULL && json_object_array_length(p) == 6 &&
	    frame_of(json_object_array_get_idx(p, 5)) == 6,
	    "the refused one not resent");
	snprintf(spool, sizeof(spool), "%s/spool/rejected", tmp);
	CHECK(access(spool, F_OK) == 0, "refused profile kept in rejected/");
	CHECK_INTEQ(spool_count(), 0, "spool drained");

	json_object_put(md);
	json_object_put(got);
	config_free(cfg);
	kill(srv, SIGTERM);
	waitpid(srv, NULL, 0);
	snprintf(spool, sizeof(spool), "rm -rf %s", tmp);
	if (system(spool) != 0)
		return (1);
	return (testing_done());
}
