/*
 * Asynchronous HTTP for the daemon: libcurl's multi interface driven by the
 * libevent loop (CURLMOPT_SOCKETFUNCTION / CURLMOPT_TIMERFUNCTION), so
 * uploads, heartbeats, Docker and cloud probes never block sampling.
 * libcurl is loaded on the first request (curl_shim.c): an agent that never
 * speaks HTTP never maps it and the TLS libraries behind it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <event2/event.h>

#include "base/curl_shim.h"
#include "base/http.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "gprofiler.h"

/*
 * Every curl call in this file goes through the table curl_shim_load()
 * fills.  curl.h may define some of these as type-checking macros.
 */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_multi_setopt
#define curl_global_init	(curl_shim.global_init)
#define curl_global_cleanup	(curl_shim.global_cleanup)
#define curl_easy_init		(curl_shim.easy_init)
#define curl_easy_cleanup	(curl_shim.easy_cleanup)
#define curl_easy_setopt	(curl_shim.easy_setopt)
#define curl_easy_getinfo	(curl_shim.easy_getinfo)
#define curl_easy_strerror	(curl_shim.easy_strerror)
#define curl_slist_append	(curl_shim.slist_append)
#define curl_slist_free_all	(curl_shim.slist_free_all)
#define curl_multi_init		(curl_shim.multi_init)
#define curl_multi_cleanup	(curl_shim.multi_cleanup)
#define curl_multi_setopt	(curl_shim.multi_setopt)
#define curl_multi_add_handle	(curl_shim.multi_add_handle)
#define curl_multi_remove_handle (curl_shim.multi_remove_handle)
#define curl_multi_assign	(curl_shim.multi_assign)
#define curl_multi_socket_action (curl_shim.multi_socket_action)
#define curl_multi_info_read	(curl_shim.multi_info_read)

#define HTTP_MAGIC		0x48545450u
#define HTTP_MAX_BODY_DFLT	(8u << 20)

struct http_req {
	unsigned magic;
	CURL *easy;
	struct curl_slist *hdrs;
	char *body;	/* request body, owned */
	char *resp;
	size_t resplen;
	size_t respcap;
	size_t max_body;
	int fd;
	int too_big;
	int unix_sock;	/* over CURLOPT_UNIX_SOCKET_PATH */
	char errbuf[CURL_ERROR_SIZE];
	void (*done)(void *, const struct http_result *);
	void *arg;
	TAILQ_ENTRY(http_req)	 entry;
};
TAILQ_HEAD(http_req_list, http_req);

/* The event watching one of curl's sockets. */
struct http_sock {
	struct event *ev;
};

static struct {
	struct event_base *base;
	CURLM *multi;
	struct event *timer;
	struct http_req_list reqs;
	unsigned npending;
	int start_rc;	/* libcurl's start failed */
	int verify;
	char *ca_bundle;
	char *client_cert;
	char *client_key;
} http;

static void http_check_done(void);

static void
http_on_timer(evutil_socket_t fd, short what, void *arg)
{
	int running;

	curl_multi_socket_action(http.multi, CURL_SOCKET_TIMEOUT, 0, &running);
	http_check_done();
}

static void
http_on_socket(evutil_socket_t fd, short what, void *arg)
{
	int action = 0, running;

	if (what & EV_READ)
		action |= CURL_CSELECT_IN;
	if (what & EV_WRITE)
		action |= CURL_CSELECT_OUT;
	curl_multi_socket_action(http.multi, fd, action, &running);
	http_check_done();
}

/* curl asks for a socket to be watched, changed or forgotten. */
static int
http_cb_socket(CURL *easy, curl_socket_t s, int what, void *userp,
    void *socketp)
{
	struct http_sock *hs = socketp;
	short ev = EV_PERSIST;

	if (what == CURL_POLL_REMOVE) {
		if (hs != NULL) {
			event_free(hs->ev);
			free(hs);
		}
		curl_multi_assign(http.multi, s, NULL);
		return (0);
	}
	if (what & CURL_POLL_IN)
		ev |= EV_READ;
	if (what & CURL_POLL_OUT)
		ev |= EV_WRITE;
	if (hs == NULL) {
		hs = xcalloc(1, sizeof(*hs));
		curl_multi_assign(http.multi, s, hs);
	} else
		event_free(hs->ev);
	hs->ev = event_new(http.base, s, ev, http_on_socket, NULL);
	event_add(hs->ev, NULL);
	return (0);
}

/* curl wants to be called after timeout_ms (-1: never). */
static int
http_cb_timer(CURLM *multi, long timeout_ms, void *userp)
{
	struct timeval tv;

	if (timeout_ms < 0) {
		evtimer_del(http.timer);
		return (0);
	}
	tv.tv_sec = timeout_ms / 1000;
	tv.tv_usec = (timeout_ms % 1000) * 1000;
	evtimer_add(http.timer, &tv);
	return (0);
}

static size_t
http_cb_write(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct http_req *r = userdata;
	size_t n = size * nmemb;
	ssize_t w;
	size_t off;

	if (r->fd >= 0) {
		/* A regular file: writes do not block on the network. */
		for (off = 0; off < n; off += w) {
			w = write(r->fd, ptr + off, n - off);
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w <= 0)
				return (0);
		}
		return (n);
	}
	if (r->resplen + n > r->max_body) {
		r->too_big = 1;
		return (0);
	}
	if (r->resplen + n + 1 > r->respcap) {
		r->respcap = (r->resplen + n + 1) * 2;
		if (r->respcap > r->max_body + 1)
			r->respcap = r->max_body + 1;
		r->resp = xreallocarray(r->resp, 1, r->respcap);
	}
	memcpy(r->resp + r->resplen, ptr, n);
	r->resplen += n;
	r->resp[r->resplen] = '\0';
	return (n);
}

static void
http_req_free(struct http_req *r)
{
	if (r == NULL)
		return;
	curl_multi_remove_handle(http.multi, r->easy);
	curl_easy_cleanup(r->easy);
	curl_slist_free_all(r->hdrs);
	free(r->body);
	free(r->resp);
	r->magic = 0;
	free(r);
}

/* Deliver every finished transfer to its owner. */
/*
 * libcurl says "Failed to connect to localhost port 80" when a unix
 * socket refuses (a daemon stopped, its socket file left behind): say
 * what failed, with the system's reason, in the request's own buffer.
 */
static const char *
http_unix_connect_error(struct http_req *r)
{
	long oserr = 0;

	curl_easy_getinfo(r->easy, CURLINFO_OS_ERRNO, &oserr);
	snprintf(r->errbuf, sizeof(r->errbuf), "cannot connect to the "
	    "socket: %s%s", oserr != 0 ? strerror((int)oserr) :
	    "connection failed", oserr == ECONNREFUSED ? " (nothing "
	    "listens on it: is the daemon running?)" : "");
	return (r->errbuf);
}

static void
http_check_done(void)
{
	CURLMsg *m;
	int left;
	struct http_req *r;
	struct http_result res;
	long status;

	while ((m = curl_multi_info_read(http.multi, &left)) != NULL) {
		if (m->msg != CURLMSG_DONE)
			continue;
		r = NULL;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
		CHECK_OBJ(r, HTTP_MAGIC);
		memset(&res, 0, sizeof(res));
		status = 0;
		curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
		res.status = status;
		res.body = r->resp != NULL ? r->resp : "";
		res.bodylen = r->resplen;
		if (m->data.result != CURLE_OK) {
			res.rc = -EIO;
			if (m->data.result == CURLE_OPERATION_TIMEDOUT) {
				res.rc = -ETIMEDOUT;
				res.timed_out = 1;
			} else if (r->too_big)
				res.rc = -EFBIG;
			res.err = r->errbuf[0] != '\0' ? r->errbuf :
			    curl_easy_strerror(m->data.result);
			if (m->data.result == CURLE_COULDNT_CONNECT &&
			    r->unix_sock)
				res.err = http_unix_connect_error(r);
			if (r->too_big)
				res.err = "response too large";
		}
		TAILQ_REMOVE(&http.reqs, r, entry);
		http.npending--;
		/* Detach before the callback so it may start new requests. */
		curl_multi_remove_handle(http.multi, r->easy);
		r->done(r->arg, &res);
		http_req_free(r);
	}
}

/*
 * Set up the loop's HTTP engine: only remembers the loop; libcurl is loaded
 * and initialised by the first request (http_start).  0 / -errno (logged).
 */
int
http_init(struct event_base *base)
{
	if (http.base != NULL)
		return (0);
	http.base = base;
	TAILQ_INIT(&http.reqs);
	http.verify = 1;
	http.start_rc = 0;
	return (0);
}

/*
 * Load and start libcurl, once.  A failure is logged once and fails this
 * and every later request.
 */
static int
http_start(void)
{
	char err[256];

	if (http.multi != NULL)
		return (0);
	if (http.start_rc != 0)
		return (http.start_rc);
	if ((http.start_rc = curl_shim_load(err, sizeof(err))) != 0) {
		log_warnx("http: %s; HTTP requests (upload, heartbeat, "
		    "downloads, metadata) fail", err);
		return (http.start_rc);
	}
	log_debug("http: loaded libcurl for the first request");
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
		log_warnx("http: curl_global_init failed");
		return (http.start_rc = -EIO);
	}
	if ((http.multi = curl_multi_init()) == NULL) {
		log_warnx("http: curl_multi_init failed");
		curl_global_cleanup();
		return (http.start_rc = -ENOMEM);
	}
	http.timer = evtimer_new(http.base, http_on_timer, NULL);
	curl_multi_setopt(http.multi, CURLMOPT_SOCKETFUNCTION, http_cb_socket);
	curl_multi_setopt(http.multi, CURLMOPT_TIMERFUNCTION, http_cb_timer);
	return (0);
}

/*
 * TLS settings for every later request: verify on unless --no-verify;
 * a CA bundle and a client certificate/key (mTLS) are optional.
 */
void
http_set_tls(int verify, const char *ca_bundle, const char *client_cert,
    const char *client_key)
{
	http.verify = verify;
	free(http.ca_bundle);
	free(http.client_cert);
	free(http.client_key);
	http.ca_bundle = ca_bundle != NULL && *ca_bundle ? xstrdup(ca_bundle) :
	    NULL;
	http.client_cert = client_cert != NULL && *client_cert ?
	    xstrdup(client_cert) : NULL;
	http.client_key = client_key != NULL && *client_key ?
	    xstrdup(client_key) : NULL;
}

static void
http_apply_opts(struct http_req *r, const struct http_req_opts *o)
{
	CURL *e = r->easy;
	const char *const *h;

	curl_easy_setopt(e, CURLOPT_URL, o->url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)r);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->errbuf);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, http_cb_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "gprofiler/" GP_AGENT_VERSION);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
	    (long)(o->timeout_ms ? o->timeout_ms : 30000));
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
	    (long)(o->connect_timeout_ms ? o->connect_timeout_ms : 10000));
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, http.verify ? 1L : 0L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, http.verify ? 2L : 0L);
	if (http.ca_bundle != NULL)
		curl_easy_setopt(e, CURLOPT_CAINFO, http.ca_bundle);
	if (http.client_cert != NULL)
		curl_easy_setopt(e, CURLOPT_SSLCERT, http.client_cert);
	if (http.client_key != NULL)
		curl_easy_setopt(e, CURLOPT_SSLKEY, http.client_key);
	if (o->https_only) {
		/* Code that root runs comes this way (PerfSpect): HTTPS all
		 * along, verified whatever --no-verify says for the Studio;
		 * release URLs redirect (GitHub answers 302). */
		curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "https");
		curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "https");
		curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
		curl_easy_setopt(e, CURLOPT_MAXREDIRS, 5L);
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
	}
	if (o->unix_socket != NULL) {
		curl_easy_setopt(e, CURLOPT_UNIX_SOCKET_PATH, o->unix_socket);
		r->unix_sock = 1;
	}
	if (o->no_proxy)
		curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
	if (o->http2) {
		curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
		    (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
		/*
		 * libcurl 7.88 sends nothing on an HTTP/2 connection to a
		 * unix socket it reuses: one connection per request.
		 */
		curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
		curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
	}
	if (o->userpwd != NULL) {
		curl_easy_setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(e, CURLOPT_USERPWD, o->userpwd);
	}
	/* No "Expect: 100-continue" round trip before large bodies. */
	r->hdrs = curl_slist_append(r->hdrs, "Expect:");
	for (h = o->headers; h != NULL && *h != NULL; h++)
		r->hdrs = curl_slist_append(r->hdrs, *h);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->hdrs);
	if (o->method != NULL && strcmp(o->method, "GET") != 0) {
		r->body = xmalloc(o->bodylen + 1);
		if (o->bodylen > 0)
			memcpy(r->body, o->body, o->bodylen);
		/* POSTFIELDS with a size: curl sends Content-Length. */
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)o->bodylen);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
		if (strcmp(o->method, "POST") != 0)
			curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, o->method);
	}
}

/*
 * Whether text may go into an HTTP header value: no control characters
 * (CR or LF would end the header and start one of the sender's choosing;
 * NUL would cut it).  Tabs are allowed, as RFC 9110 does.
 */
int
http_header_value_ok(const char *v)
{
	const unsigned char *p;

	for (p = (const unsigned char *)v; *p != '\0'; p++)
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return (0);
	return (1);
}

/*
 * Start a request; o->done runs later from the loop, exactly once, unless
 * http_cancel() is called first.  Everything in o is copied.  NULL when
 * the engine is not initialised or libcurl cannot be loaded (logged once).
 */
struct http_req *
http_request(const struct http_req_opts *o)
{
	struct http_req *r;
	const char *const *h;

	if (http.base == NULL || o->url == NULL || o->done == NULL)
		return (NULL);
	/* The last line of defence against header injection: the values
	 * are checked where they are configured, with a better message. */
	for (h = o->headers; h != NULL && *h != NULL; h++)
		if (!http_header_value_ok(*h)) {
			log_warnx("http: refusing a request: a header holds "
			    "a control character");
			return (NULL);
		}
	if (http_start() != 0)
		return (NULL);
	r = xcalloc(1, sizeof(*r));
	r->magic = HTTP_MAGIC;
	r->fd = o->download ? o->fd : -1;
	r->max_body = o->max_body ? o->max_body : HTTP_MAX_BODY_DFLT;
	r->done = o->done;
	r->arg = o->arg;
	if ((r->easy = curl_easy_init()) == NULL) {
		free(r);
		return (NULL);
	}
	http_apply_opts(r, o);
	if (curl_multi_add_handle(http.multi, r->easy) != CURLM_OK) {
		http_req_free(r);
		return (NULL);
	}
	TAILQ_INSERT_TAIL(&http.reqs, r, entry);
	http.npending++;
	return (r);
}

/* Abort a request; its done callback is never called.  Accepts NULL. */
void
http_cancel(struct http_req *r)
{
	if (r == NULL)
		return;
	CHECK_OBJ(r, HTTP_MAGIC);
	TAILQ_REMOVE(&http.reqs, r, entry);
	http.npending--;
	http_req_free(r);
}

unsigned
http_pending(void)
{
	return (http.npending);
}

/* Cancel everything and free the engine. */
void
http_fini(void)
{
	struct http_req *r;

	if (http.base == NULL)
		return;
	http.base = NULL;
	http_set_tls(1, NULL, NULL, NULL);
	if (http.multi == NULL)
		return;
	while ((r = TAILQ_FIRST(&http.reqs)) != NULL)
		http_cancel(r);
	curl_multi_cleanup(http.multi);
	event_free(http.timer);
	http.timer = NULL;
	http.multi = NULL;
	curl_global_cleanup();
}

/* A plugin's download: cancelled with its plugin (http_download_cancel). */
struct http_dl {
	struct gp_plugin_ctx *ctx;
	struct http_req *req;
	void (*done)(void *, int32_t, int32_t, const char *);
	void *arg;
	LIST_ENTRY(http_dl)	 entry;
};
static LIST_HEAD(, http_dl) http_dls = LIST_HEAD_INITIALIZER(http_dls);

static void
http_download_done(void *arg, const struct http_result *res)
{
	struct http_dl *d = arg;

	LIST_REMOVE(d, entry);
	if (res->rc != 0)
		d->done(d->arg, res->rc, (int32_t)res->status, res->err);
	else
		d->done(d->arg, 0, (int32_t)res->status, NULL);
	free(d);
}

/*
 * The host API's http_download for plugins: GET url into fd over HTTPS
 * only (redirects followed, to HTTPS only, at most 5), with the daemon's
 * CA bundle and client certificate but always verified.
 */
int
http_download(struct gp_plugin_ctx *ctx, const char *url, int32_t fd,
    uint32_t timeout_ms, void (*done)(void *, int32_t, int32_t,
    const char *), void *arg)
{
	struct http_req_opts o;
	struct http_dl *d;

	if (url == NULL || fd < 0 || done == NULL)
		return (-EINVAL);
	d = xcalloc(1, sizeof(*d));
	d->ctx = ctx;
	d->done = done;
	d->arg = arg;
	o = (struct http_req_opts){
		.method = "GET",
		.url = url,
		.download = 1,
		.fd = fd,
		.https_only = 1,
		.timeout_ms = timeout_ms,
		.done = http_download_done,
		.arg = d,
	};
	if ((d->req = http_request(&o)) == NULL) {
		free(d);
		/* libcurl missing: say so, not a generic I/O error. */
		return (http.start_rc != 0 ? http.start_rc : -EIO);
	}
	LIST_INSERT_HEAD(&http_dls, d, entry);
	return (0);
}

/* The plugin is going away: its callbacks must never run again. */
void
http_download_cancel(struct gp_plugin_ctx *ctx)
{
	struct http_dl *d, *next;

	for (d = LIST_FIRST(&http_dls); d != NULL; d = next) {
		next = LIST_NEXT(d, entry);
		if (d->ctx != ctx)
			continue;
		LIST_REMOVE(d, entry);
		http_cancel(d->req);
		free(d);
	}
}

/*
 * Percent-encode s for a URL query (RFC 3986: all but ALPHA DIGIT "-._~",
 * as curl_easy_escape does) without needing libcurl.  The caller frees.
 */
char *
http_escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;
	char *out, *o;

	out = o = xmalloc(strlen(s) * 3 + 1);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		    *p == '_' || *p == '~')
			*o++ = *p;
		else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return (out);
}
