/*
 * Profile upload (docs/specs/studio-api.md §4): every cycle's body goes through
 * the spool, and one request at a time takes the oldest record to POST
 * /api/v2/profiles, so profiles arrive in order and none twice. Connection
 * errors, timeouts, 408, 429 and 5xx are retried with backoff; other 4xx put
 * the record aside.  The gpid starts as "" and is then the server's, kept for
 * the process lifetime, failures included.  A gpid names one agent process
 * (docs/specs/studio-api.md §4.5), so each record carries the id of the process
 * that made it: a record of an earlier run (spooled before a restart) goes out
 * with the gpid it was built with, and the gpid the server returns for it is
 * not adopted; a record of this process built before the gpid was known gets it
 * at send time.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
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
#include "profile/profile.h"
#include "studio/studio.h"

#define UPLOAD_SPOOL_DIR	"/var/lib/gprofiler/spool"
#define UPLOAD_SPOOL_MAX	(256ull << 20)
#define UPLOAD_RETRY_BASE_MS	1000
#define UPLOAD_RETRY_MAX_MS	30000
#define UPLOAD_FLUSH_MS		5000

static struct {
	struct event_base *base;
	char *server_host;
	unsigned timeout_ms;
	char gpid[32];
	struct spool_entry *cur;
	struct http_req *req;
	struct event *retry;
	unsigned attempt;
	int waiting;	/* backoff timer armed */
	struct event *flush_timer;
	void (*flush_done)(void *);
	void *flush_arg;
	uint64_t sent;
	int memory_only;
	int cur_own;		/* cur made by this process */
	char run_id[40];	/* tags this process's records */
} up;

/* Keep records in memory only (the upload-file subcommand). */
void
upload_set_memory_only(int on)
{
	up.memory_only = on;
}

uint64_t
upload_sent_count(void)
{
	return (up.sent);
}

const char *
upload_gpid(void)
{
	return (up.gpid);
}

static void upload_send(void);
static void upload_new_run_id(void);

static void
upload_on_retry(evutil_socket_t fd, short what, void *arg)
{
	up.waiting = 0;
	upload_send();
}

static void
upload_backoff(const char *why)
{
	struct timeval tv;
	unsigned ms;

	ms = backoff_delay_ms(up.attempt++, UPLOAD_RETRY_BASE_MS,
	    UPLOAD_RETRY_MAX_MS);
	log_warnx("upload: profile #%" PRIu64 " not accepted (%s); %zu "
	    "queued, retrying in %u ms", up.cur != NULL ? up.cur->seq : 0,
	    why, spool_count(), ms);
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	up.waiting = 1;
	evtimer_add(up.retry, &tv);
}

static void
upload_check_flush(void)
{
	void (*done)(void *);

	if (up.flush_done == NULL)
		return;
	if (up.req != NULL || (spool_first() != NULL && !up.waiting))
		return;
	done = up.flush_done;
	up.flush_done = NULL;
	upload_fini();
	done(up.flush_arg);
}

static void
upload_done(void *arg, const struct http_result *res)
{
	struct spool_entry *e = up.cur;
	char msg[256], why[320], gpid[32];

	up.req = NULL;
	up.cur = NULL;
	e->busy = 0;
	if (res->rc != 0) {
		up.cur = e;
		upload_backoff(res->err);
		up.cur = NULL;
		goto out;
	}
	if (res->status == 200) {
		if (upload_parse_response(res->body, res->bodylen, gpid,
		    sizeof(gpid)) == 0) {
			if (up.cur_own)
				snprintf(up.gpid, sizeof(up.gpid), "%s", gpid);
		} else {
			log_warnx("upload: accepted, but the answer has no "
			    "valid gpid; keeping \"%s\"", up.gpid);
			snprintf(gpid, sizeof(gpid), "%s", up.cur_own ?
			    up.gpid : "");
		}
		up.sent++;
		up.attempt = 0;
		/* The gpid the backend filed this profile under: an earlier
		 * process's profile has its own, not ours (issue 11). */
		log_info("upload: profile #%" PRIu64 "%s accepted (gpid %s), "
		    "%zu left", e->seq, up.cur_own ? "" : " (spooled by an "
		    "earlier agent process)", gpid[0] != '\0' ? gpid :
		    "unknown", spool_count() - 1);
		spool_done(e);
		upload_send();
		goto out;
	}
	upload_error_message(res->body, res->bodylen, msg, sizeof(msg));
	if (res->status == 408 || res->status == 429 || res->status >= 500 ||
	    res->status < 400) {
		snprintf(why, sizeof(why), "HTTP %ld: %s", res->status, msg);
		up.cur = e;
		upload_backoff(why);
		up.cur = NULL;
		goto out;
	}
	log_warnx("upload: the server rejected profile #%" PRIu64 " with "
	    "HTTP %ld: %s; not retrying", e->seq, res->status, msg);
	spool_reject(e);
	up.attempt = 0;
	upload_send();
out:
	upload_check_flush();
}

static char *
upload_url(const char *start_time, const char *hostname)
{
	char *k, *s, *h, *t, *url, now[32];

	studio_iso_time(time(NULL), 0, 0, now, sizeof(now));
	k = http_escape(studio_token());
	s = http_escape(studio_service());
	h = http_escape(hostname);
	t = http_escape(now);
	xasprintf(&url, "%s/api/v2/profiles?key=%s&service=%s&hostname=%s"
	    "&timestamp=%s&version=%s", up.server_host, k, s, h, t,
	    GP_AGENT_VERSION);
	free(k);
	free(s);
	free(h);
	free(t);
	(void)start_time;
	return (url);
}

/* Take the oldest record and POST it, unless one is already on its way. */
static void
upload_send(void)
{
	struct http_req_opts o;
	struct spool_entry *e;
	struct json_object *meta = NULL, *v;
	const char *m, *hdrs[8], *hostname;
	const unsigned char *body;
	unsigned char *rec = NULL, *rebody = NULL;
	const char *run, *rgpid;
	size_t len, mlen, blen, i;
	char *url, *copy;

	if (up.req != NULL || up.waiting)
		return;
	while ((e = spool_first()) != NULL) {
		if ((rec = spool_read(e, &len)) != NULL &&
		    spool_record_split(rec, len, &m, &mlen, &body,
		    &blen) == 0) {
			copy = xstrndup(m, mlen);
			meta = json_tokener_parse(copy);
			free(copy);
			if (meta != NULL)
				break;
		}
		log_warnx("upload: spooled profile #%" PRIu64 " is damaged; "
		    "putting it aside", e->seq);
		free(rec);
		spool_reject(e);
	}
	if (e == NULL) {
		upload_check_flush();
		return;
	}
	hostname = studio_hostname();
	if (json_object_object_get_ex(meta, "hostname", &v))
		hostname = json_object_get_string(v);
	run = json_object_object_get_ex(meta, "run", &v) ?
	    json_object_get_string(v) : NULL;
	rgpid = json_object_object_get_ex(meta, "gpid", &v) ?
	    json_object_get_string(v) : NULL;
	up.cur_own = run != NULL && strcmp(run, up.run_id) == 0;
	if (up.cur_own && up.gpid[0] != '\0' && (rgpid == NULL ||
	    strcmp(rgpid, up.gpid) != 0)) {
		if ((rebody = upload_body_set_gpid(body, blen, up.gpid,
		    &len)) != NULL) {
			body = rebody;
			blen = len;
		} else
			log_warnx("upload: profile #%" PRIu64 " cannot be "
			    "given gpid %s; sent as it is", e->seq, up.gpid);
	}
	url = upload_url(NULL, hostname);
	for (i = 0; studio_headers()[i] != NULL; i++)
		hdrs[i] = studio_headers()[i];
	hdrs[i++] = "Content-Encoding: gzip";
	hdrs[i++] = "Content-Type: application/json";
	hdrs[i] = NULL;
	o = (struct http_req_opts){
		.method = "POST",
		.url = url,
		.headers = hdrs,
		.body = body,
		.bodylen = blen,
		.timeout_ms = up.timeout_ms,
		.max_body = 1 << 20,
		.done = upload_done,
	};
	up.cur = e;
	e->busy = 1;
	up.req = http_request(&o);
	free(url);
	free(rec);
	free(rebody);
	json_object_put(meta);
	if (up.req == NULL) {
		e->busy = 0;
		upload_backoff("cannot start the request");
		up.cur = NULL;
	}
}

void
upload_kick(void)
{
	upload_send();
}

int
upload_init(struct event_base *base, const struct config *cfg)
{
	const char *sh, *dir, *max;
	uint64_t maxsz = UPLOAD_SPOOL_MAX;
	int64_t t;

	up.base = base;
	sh = config_get(cfg, "server-host");
	up.server_host = xstrdup(sh != NULL ? sh :
	    "https://profiler.granulate.io");
	while (*up.server_host && up.server_host[strlen(up.server_host) -
	    1] == '/')
		up.server_host[strlen(up.server_host) - 1] = '\0';
	t = config_get_num(cfg, "server-upload-timeout");
	up.timeout_ms = (unsigned)(t > 0 ? t * 1000 : 1000);	/* bound 1 */
	dir = config_get(cfg, "spool-dir");
	max = config_get(cfg, "spool-max-size");
	if (max != NULL && upload_parse_size(max, &maxsz) != 0) {
		log_warnx("--spool-max-size %s: not a size (e.g. 256mb)", max);
		return (-EINVAL);
	}
	spool_open(up.memory_only ? NULL : dir != NULL ? dir :
	    UPLOAD_SPOOL_DIR, maxsz);
	up.retry = evtimer_new(base, upload_on_retry, NULL);
	up.gpid[0] = '\0';
	upload_new_run_id();
	upload_send();
	return (0);
}

/* A random id for this process's records (pids repeat in containers). */
static void
upload_new_run_id(void)
{
	struct timespec ts;
	unsigned char r[16];
	FILE *f;
	size_t i, n = 0;

	if ((f = fopen("/dev/urandom", "re")) != NULL) {
		n = fread(r, 1, sizeof(r), f);
		fclose(f);
	}
	if (n != sizeof(r)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(up.run_id, sizeof(up.run_id), "%ld-%ld-%ld",
		    (long)getpid(), (long)ts.tv_sec, ts.tv_nsec);
		return;
	}
	for (i = 0; i < sizeof(r); i++)
		snprintf(up.run_id + 2 * i, 3, "%02x", r[i]);
}

static double
upload_metric(struct json_object *hdr, const char *key)
{
	struct json_object *m, *v;

	if (hdr != NULL && json_object_object_get_ex(hdr, "metrics", &m) &&
	    json_object_object_get_ex(m, key, &v) && v != NULL &&
	    (json_object_is_type(v, json_type_double) ||
	    json_object_is_type(v, json_type_int)))
		return (json_object_get_double(v));
	return (NAN);
}

static const char *
upload_md_string(struct json_object *hdr, const char *key)
{
	struct json_object *m, *v;

	if (hdr != NULL && json_object_object_get_ex(hdr, "metadata", &m) &&
	    json_object_object_get_ex(m, key, &v) &&
	    json_object_is_type(v, json_type_string))
		return (json_object_get_string(v));
	return (NULL);
}

/* Queue one cycle's profile: body built now, sent when its turn comes. */
int
upload_enqueue(const struct cycle_output *co, const char *col, size_t collen)
{
	struct upload_body_args a;
	struct json_object *meta;
	unsigned char *body, *rec;
	char st[32], et[32];
	size_t blen, rlen;
	unsigned trunc;

	if (up.base == NULL)
		return (-ENOTCONN);
	studio_iso_time(co->start.tv_sec, 0, 0, st, sizeof(st));
	studio_iso_time(co->end.tv_sec, 0, 0, et, sizeof(et));
	memset(&a, 0, sizeof(a));
	a.col = col;
	a.collen = collen;
	a.start_time = st;
	a.end_time = et;
	a.hostname = upload_md_string(co->header, "hostname");
	if (a.hostname == NULL)
		a.hostname = studio_hostname();
	a.spawn_time = upload_md_string(co->header, "spawn_time");
	a.gpid = up.gpid;
	a.cpu_avg = upload_metric(co->header, "cpu_avg");
	a.mem_avg = upload_metric(co->header, "mem_avg");
	body = upload_build_body(&a, UPLOAD_MAX_COMPRESSED, &blen, &trunc);
	if (body == NULL) {
		log_warnx("upload: the profile of %s cannot be made to fit "
		    "the backend's 4 MiB limit; dropped", st);
		return (-EFBIG);
	}
	if (trunc > 0)
		log_warnx("upload: the profile of %s was over the backend's "
		    "4 MiB compressed limit: %u lowest-count stacks folded "
		    "into one [truncated] stack", st, trunc);
	meta = json_object_new_object();
	json_object_object_add(meta, "start_time", json_object_new_string(st));
	json_object_object_add(meta, "hostname",
	    json_object_new_string(a.hostname));
	json_object_object_add(meta, "run", json_object_new_string(up.run_id));
	json_object_object_add(meta, "gpid", json_object_new_string(up.gpid));
	rec = spool_record_make(json_object_to_json_string_ext(meta,
	    JSON_C_TO_STRING_PLAIN), body, blen, &rlen);
	json_object_put(meta);
	free(body);
	spool_put(rec, rlen);
	free(rec);
	upload_send();
	return (0);
}

static void
upload_on_flush_timeout(evutil_socket_t fd, short what, void *arg)
{
	void (*done)(void *) = up.flush_done;

	if (done == NULL)
		return;
	log_info("upload: %zu profile(s) not sent yet stay in the spool",
	    spool_count());
	up.flush_done = NULL;
	upload_fini();
	done(up.flush_arg);
}

void
upload_flush(void (*done)(void *), void *arg)
{
	struct timeval tv = { UPLOAD_FLUSH_MS / 1000, 0 };

	up.flush_done = done;
	up.flush_arg = arg;
	if (up.base != NULL) {
		up.flush_timer = evtimer_new(up.base, upload_on_flush_timeout,
		    NULL);
		evtimer_add(up.flush_timer, &tv);
	}
	if (up.waiting) {
		/* The backend is down: do not hold the exit for it. */
		upload_on_flush_timeout(-1, 0, NULL);
		return;
	}
	upload_send();
	upload_check_flush();
}

void
upload_fini(void)
{
	if (up.req != NULL) {
		http_cancel(up.req);
		up.req = NULL;
	}
	if (up.cur != NULL)
		up.cur->busy = 0;
	up.cur = NULL;
	if (up.retry != NULL)
		event_free(up.retry);
	if (up.flush_timer != NULL)
		event_free(up.flush_timer);
	up.retry = up.flush_timer = NULL;
	up.waiting = 0;
	spool_close();
	free(up.server_host);
	up.server_host = NULL;
	up.base = NULL;
}
