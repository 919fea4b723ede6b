/*
 * The agent's log records to the Studio's logs service, as gProfiler's
 * RemoteLogsHandler sends them: POST {api-server}/api/v1/logs, a gzip JSON
 * batch {batch_id, metadata, lost_logs_count, logs[]} every LOGSHIP_PERIOD
 * seconds, earlier when the queue nears a batch.  Only with -u, without
 * --dont-send-logs and with API version v2 (gProfiler's _should_send_logs).
 *
 * Memory is bounded: records wait in a queue of at most LOGSHIP_QUEUE_MAX
 * bytes; when the server is unreachable the batch in flight is kept and
 * retried with backoff while newer records queue behind it, the oldest
 * dropped and counted in lost_logs_count.  A record never carries the
 * token: it is replaced before the record is queued.
 */
#include "config.h"

#include <sys/random.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "base/gzip.h"
#include "base/http.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "studio/studio.h"

#define LOGSHIP_PERIOD_S	10
#define LOGSHIP_BATCH_MAX	(512 * 1024)	/* JSON bytes per batch */
#define LOGSHIP_QUEUE_MAX	(2 * 1024 * 1024)
#define LOGSHIP_RETRY_BASE_MS	2000
#define LOGSHIP_RETRY_MAX_MS	60000
#define LOGSHIP_TOKEN_MIN	6	/* shorter: too common to replace */

struct logship_rec {
	char *json;
	size_t len;
	TAILQ_ENTRY(logship_rec) entry;
};
TAILQ_HEAD(logship_q, logship_rec);

static struct {
	int queueing;	/* the sink is installed */
	int on;		/* and sending */
	struct event *timer;
	char *url;
	char *token;	/* scrubbed out of every record */
	char *hdr_token;
	const char *headers[6];
	char run_id[40];
	struct logship_q q;
	size_t qbytes;
	uint64_t serial;
	uint64_t lost;	/* dropped, not yet reported */
	struct http_req *req;
	unsigned char *body;	/* the batch in flight (gzip) */
	size_t bodylen;
	uint64_t body_lost;	/* lost_logs_count it reports */
	unsigned attempt;
	unsigned long long sent, failed;
	struct complain complain;
} ls;

static void logship_arm(unsigned ms);

static void
logship_uuid(char *buf, size_t len, int dashes)
{
	unsigned char r[16];
	size_t i, o = 0;

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		for (i = 0; i < sizeof(r); i++)
			r[i] = (unsigned char)random();
	r[6] = (r[6] & 0x0f) | 0x40;	/* version 4 */
	r[8] = (r[8] & 0x3f) | 0x80;
	for (i = 0; i < sizeof(r) && o + 3 < len; i++) {
		if (dashes && (i == 4 || i == 6 || i == 8 || i == 10))
			buf[o++] = '-';
		snprintf(buf + o, len - o, "%02x", r[i]);
		o += 2;
	}
	buf[o] = '\0';
}

/* gProfiler's severities: 2 debug, 3 info, 4 warning, 5 error. */
static int
logship_severity(int level)
{
	switch (level) {
	case LOG_LEVEL_ERR:
		return (5);
	case LOG_LEVEL_WARN:
		return (4);
	case LOG_LEVEL_INFO:
		return (3);
	default:
		return (2);
	}
}

/* msg with every occurrence of the token replaced; caller frees. */
static char *
logship_scrub(const char *msg)
{
	const char *p, *hit;
	char *out;
	size_t tl, n = 0, cap;

	if (ls.token == NULL || (tl = strlen(ls.token)) < LOGSHIP_TOKEN_MIN ||
	    strstr(msg, ls.token) == NULL)
		return (xstrdup(msg));
	cap = strlen(msg) + 1;
	out = xmalloc(cap);
	for (p = msg; (hit = strstr(p, ls.token)) != NULL; p = hit + tl) {
		memcpy(out + n, p, hit - p);
		n += hit - p;
		memcpy(out + n, "***", 3);	/* tl >= 6: fits */
		n += 3;
	}
	memcpy(out + n, p, strlen(p) + 1);	/* fits: "***" is shorter */
	return (out);
}

static void
logship_drop_oldest(void)
{
	struct logship_rec *r;

	if ((r = TAILQ_FIRST(&ls.q)) == NULL)
		return;
	TAILQ_REMOVE(&ls.q, r, entry);
	ls.qbytes -= r->len;
	ls.lost++;
	free(r->json);
	free(r);
}

/* log.c's sink: one record, queued (never blocks, never logs). */
static void
logship_sink(int level, const char *component, const char *msg, void *arg)
{
	struct json_object *o, *text;
	struct logship_rec *r;
	struct timespec ts;
	char *clean;
	const char *s;

	(void)arg;
	if (!ls.queueing || level > LOG_LEVEL_INFO)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	clean = logship_scrub(msg);
	o = json_object_new_object();
	json_object_object_add(o, "severity",
	    json_object_new_int(logship_severity(level)));
	json_object_object_add(o, "timestamp", json_object_new_int64(
	    (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000));
	text = json_object_new_object();
	json_object_object_add(text, "message", json_object_new_string(clean));
	json_object_object_add(text, "logger_name", json_object_new_string(
	    component != NULL ? component : "gprofiler"));
	json_object_object_add(text, "serial_no",
	    json_object_new_int64((int64_t)++ls.serial));
	json_object_object_add(o, "text", text);
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	r = xcalloc(1, sizeof(*r));
	r->len = strlen(s);
	r->json = xstrdup(s);
	json_object_put(o);
	free(clean);
	if (r->len > LOGSHIP_BATCH_MAX) {	/* cannot be sent */
		free(r->json);
		free(r);
		ls.lost++;
		return;
	}
	while (ls.qbytes + r->len > LOGSHIP_QUEUE_MAX)
		logship_drop_oldest();
	TAILQ_INSERT_TAIL(&ls.q, r, entry);
	ls.qbytes += r->len;
	/* gProfiler flushes early at 80 % of its buffer. */
	if (ls.on && ls.req == NULL && ls.body == NULL &&
	    ls.qbytes >= LOGSHIP_BATCH_MAX * 4 / 5)
		logship_arm(0);
}

/* Take up to a batch of records into the gzip body to send. */
static int
logship_make_batch(void)
{
	struct logship_rec *r;
	struct json_object *md;
	char *json, bid[40];
	size_t n = 0, cap, used = 0;
	const char *mds;
	int first = 1;

	if (TAILQ_EMPTY(&ls.q) && ls.lost == 0)
		return (0);
	logship_uuid(bid, sizeof(bid), 0);
	md = json_object_new_object();
	json_object_object_add(md, "run_id", json_object_new_string(
	    ls.run_id));
	json_object_object_add(md, "gprofiler_version",
	    json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(md, "service_name", json_object_new_string(
	    studio_service() != NULL ? studio_service() : ""));
	json_object_object_add(md, "hostname", json_object_new_string(
	    studio_hostname()));
	mds = json_object_to_json_string_ext(md, JSON_C_TO_STRING_PLAIN);
	cap = LOGSHIP_BATCH_MAX + strlen(mds) + 256;
	json = xmalloc(cap);
	used = snprintf(json, cap, "{\"batch_id\": \"%s\", \"metadata\": %s, "
	    "\"lost_logs_count\": %llu, \"logs\": [", bid, mds,
	    (unsigned long long)ls.lost);
	json_object_put(md);
	ls.body_lost = ls.lost;
	ls.lost = 0;
	while ((r = TAILQ_FIRST(&ls.q)) != NULL &&
	    (first || used + r->len + 4 < cap) && n < 10000) {
		if (!first)
			json[used++] = ',';
		memcpy(json + used, r->json, r->len);
		used += r->len;
		first = 0;
		n++;
		TAILQ_REMOVE(&ls.q, r, entry);
		ls.qbytes -= r->len;
		free(r->json);
		free(r);
	}
	used += snprintf(json + used, cap - used, "]}");
	ls.body = gzip_compress(json, used, &ls.bodylen);
	free(json);
	return (ls.body != NULL ? 1 : -ENOMEM);
}

static void
logship_done(void *arg, const struct http_result *res)
{
	(void)arg;
	ls.req = NULL;
	if (!ls.on)			/* the final batch, at shutdown */
		return;
	if (res->rc == 0 && res->status >= 200 && res->status < 300) {
		free(ls.body);
		ls.body = NULL;
		ls.sent++;
		if (ls.attempt > 0)
			log_release(&ls.complain, "logs", "agent logs reach "
			    "%s again", ls.url);
		ls.attempt = 0;
		logship_arm(TAILQ_EMPTY(&ls.q) ? LOGSHIP_PERIOD_S * 1000 :
		    (ls.qbytes >= LOGSHIP_BATCH_MAX * 4 / 5 ? 0 :
		    LOGSHIP_PERIOD_S * 1000));
		return;
	}
	/* A 4xx other than 408/429 will not change on retry: drop it. */
	if (res->rc == 0 && res->status >= 400 && res->status < 500 &&
	    res->status != 408 && res->status != 429) {
		log_complain(&ls.complain, LOG_LEVEL_WARN, "logs", "%s "
		    "refused a batch of agent logs (HTTP %ld); dropped",
		    ls.url, res->status);
		free(ls.body);
		ls.body = NULL;
		ls.failed++;
		logship_arm(LOGSHIP_PERIOD_S * 1000);
		return;
	}
	log_complain(&ls.complain, LOG_LEVEL_WARN, "logs", "agent logs not "
	    "delivered to %s (%s); kept and retried", ls.url,
	    res->rc != 0 ? res->err : "server error");
	logship_arm(backoff_delay_ms(ls.attempt++, LOGSHIP_RETRY_BASE_MS,
	    LOGSHIP_RETRY_MAX_MS));
}

static void
logship_send(void)
{
	struct http_req_opts o;

	o = (struct http_req_opts){
		.method = "POST",
		.url = ls.url,
		.headers = ls.headers,
		.body = ls.body,
		.bodylen = ls.bodylen,
	};
	o.connect_timeout_ms = 1500;	/* gProfiler's */
	o.timeout_ms = 10000;
	o.max_body = 64 * 1024;
	o.done = logship_done;
	if ((ls.req = http_request(&o)) == NULL)
		logship_arm(backoff_delay_ms(ls.attempt++,
		    LOGSHIP_RETRY_BASE_MS, LOGSHIP_RETRY_MAX_MS));
}

static void
logship_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (ls.req != NULL)
		return;
	if (ls.body == NULL && logship_make_batch() <= 0) {
		logship_arm(LOGSHIP_PERIOD_S * 1000);
		return;
	}
	logship_send();
}

static void
logship_arm(unsigned ms)
{
	struct timeval tv;

	if (ls.timer == NULL)
		return;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(ls.timer, &tv);
}

/* For tests: bytes of records waiting, and records dropped so far. */
void
logship_stats(size_t *queued, uint64_t *lost)
{
	*queued = ls.qbytes;
	*lost = ls.lost;
}

/* Whether gProfiler would send logs with this configuration. */
int
logship_wanted(const struct config *cfg)
{
	const char *v = config_get(cfg, "profile-api-version");

	return (config_get_bool(cfg, "upload-results") &&
	    !config_get_bool(cfg, "dont-send-logs") &&
	    (v == NULL || strcmp(v, "v1") != 0));
}

/*
 * Once the configuration is known: queue the records from now on (the
 * start-up lines too), to be sent once logship_start() runs.
 */
void
logship_prepare(const struct config *cfg)
{
	if (ls.queueing || !logship_wanted(cfg))
		return;
	TAILQ_INIT(&ls.q);
	ls.queueing = 1;
	log_set_sink(logship_sink, NULL);
}

/* After studio_init (the token is known): start sending. */
int
logship_start(struct event_base *base, const struct config *cfg)
{
	struct logship_rec *r;
	const char *api = config_get(cfg, "api-server");
	char *clean;
	size_t n;

	if (ls.on || !logship_wanted(cfg) || studio_token() == NULL)
		return (0);
	logship_prepare(cfg);
	if (api == NULL)
		api = "https://api.granulate.io";
	n = strlen(api);
	while (n > 0 && api[n - 1] == '/')
		n--;
	xasprintf(&ls.url, "%.*s/api/v1/logs", (int)n, api);
	ls.token = xstrdup(studio_token());
	xasprintf(&ls.hdr_token, "X-Token: %s", ls.token);
	ls.headers[0] = "Content-Type: application/json";
	ls.headers[1] = "Content-Encoding: gzip";
	ls.headers[2] = "X-Application-Name: gprofiler";
	ls.headers[3] = ls.hdr_token;
	ls.headers[4] = NULL;
	logship_uuid(ls.run_id, sizeof(ls.run_id), 1);
	/* Records queued before the token was read. */
	TAILQ_FOREACH(r, &ls.q, entry) {
		clean = logship_scrub(r->json);
		ls.qbytes -= r->len - strlen(clean);
		r->len = strlen(clean);
		free(r->json);
		r->json = clean;
	}
	ls.complain.c_interval = 300;
	if ((ls.timer = evtimer_new(base, logship_tick, NULL)) == NULL)
		return (-ENOMEM);
	ls.on = 1;
	logship_arm(LOGSHIP_PERIOD_S * 1000);
	log_debug("agent logs go to %s every %d s", ls.url, LOGSHIP_PERIOD_S);
	return (0);
}

/*
 * Stop: the sink goes, what is queued leaves in one last batch (the
 * shutdown drain waits for it, bounded), and the state is freed.
 */
void
logship_stop(void)
{
	struct logship_rec *r;

	if (!ls.queueing)
		return;
	log_set_sink(NULL, NULL);
	ls.queueing = 0;
	if (!ls.on) {			/* never started: nothing to send */
		while ((r = TAILQ_FIRST(&ls.q)) != NULL) {
			TAILQ_REMOVE(&ls.q, r, entry);
			free(r->json);
			free(r);
		}
		ls.qbytes = 0;
		ls.lost = 0;
		return;
	}
	event_free(ls.timer);
	ls.timer = NULL;
	if (ls.req == NULL && (ls.body != NULL || logship_make_batch() > 0))
		logship_send();
	ls.on = 0;
	/* http_request() copied the body; a retry will not come. */
	free(ls.body);
	ls.body = NULL;
	while ((r = TAILQ_FIRST(&ls.q)) != NULL) {
		TAILQ_REMOVE(&ls.q, r, entry);
		free(r->json);
		free(r);
	}
	ls.qbytes = 0;
	free(ls.url);
	explicit_bzero(ls.token, strlen(ls.token));
	free(ls.token);
	explicit_bzero(ls.hdr_token, strlen(ls.hdr_token));
	free(ls.hdr_token);
	ls.url = ls.token = ls.hdr_token = NULL;
}
