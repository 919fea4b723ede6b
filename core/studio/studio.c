/*
 * Performance Studio glue: the start-up health check (retried with
 * backoff; only a refused key is fatal, docs/specs/gprofiler-compat.md §12 #9),
 * the upload queue, and the entry points main.c calls.  Who the agent is to the
 * Studio (token, headers) is studio_ident.c's, which the uploads, heartbeats
 * and logs read without depending on this file.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/http.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "host/host.h"
#include "profile/profile.h"
#include "studio/studio.h"

#define STUDIO_HC_TIMEOUT_MS	5000
#define STUDIO_HC_BASE_MS	2000
#define STUDIO_HC_MAX_MS	60000

static struct {
	struct event_base *base;
	char *server_host;
	struct event *hc_timer;
	struct http_req *hc_req;
	unsigned hc_attempt;
	int uploading;
} studio;

static void studio_hc_send(evutil_socket_t, short, void *);

static void
studio_hc_retry(const char *why)
{
	struct timeval tv;
	unsigned ms;

	ms = backoff_delay_ms(studio.hc_attempt++, STUDIO_HC_BASE_MS,
	    STUDIO_HC_MAX_MS);
	log_warnx("studio: health check of %s failed (%s); retrying in "
	    "%u ms", studio.server_host, why, ms);
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(studio.hc_timer, &tv);
}

static void
studio_hc_done(void *arg, const struct http_result *res)
{
	char msg[256], why[320];

	studio.hc_req = NULL;
	if (res->rc != 0) {
		studio_hc_retry(res->err);
		return;
	}
	if (res->status == 200) {
		log_info("studio: %s is reachable and accepts the API key",
		    studio.server_host);
		return;
	}
	upload_error_message(res->body, res->bodylen, msg, sizeof(msg));
	if (res->status >= 400 && res->status < 500 && res->status != 408 &&
	    res->status != 429)
		fatalx("studio: the server refused the API key (HTTP %ld: "
		    "%s); check --token/--token-file and --server-host",
		    res->status, msg);
	snprintf(why, sizeof(why), "HTTP %ld: %s", res->status, msg);
	studio_hc_retry(why);
}

static void
studio_hc_send(evutil_socket_t fd, short what, void *arg)
{
	struct http_req_opts o;
	char *url;

	xasprintf(&url, "%s/api/v1/health_check", studio.server_host);
	o = (struct http_req_opts){
		.method = "GET",
		.url = url,
		.headers = studio_headers(),
		.timeout_ms = STUDIO_HC_TIMEOUT_MS,
		.max_body = 64 << 10,
		.done = studio_hc_done,
	};
	studio.hc_req = http_request(&o);
	free(url);
	if (studio.hc_req == NULL)
		studio_hc_retry("cannot start the request");
}

static char *
studio_strip_slash(const char *url)
{
	char *s = xstrdup(url);
	size_t n = strlen(s);

	/* "/api/v2/profiles/" would get a 307 from the backend. */
	while (n > 0 && s[n - 1] == '/')
		s[--n] = '\0';
	return (s);
}

/*
 * HTTP with the TLS options, for the Studio and for everyone else
 * (plugins download through it, cloud probes and Docker use it).
 */
int
studio_http_init(struct event_base *base, const struct config *cfg)
{
	int rc;

	if ((rc = http_init(base)) != 0)
		return (rc);
	host_set_http_download(http_download);
	http_set_tls(!config_get_bool(cfg, "no-verify"),
	    config_get(cfg, "tls-ca-bundle"), config_get(cfg,
	    "tls-client-cert"), config_get(cfg, "tls-client-key"));
	return (0);
}

/*
 * Set up the backend connection: HTTP with the TLS options, the token,
 * the headers; with -u also the upload queue and the health check.
 * -EINVAL with one line logged for a usage error (exit 2).
 */
int
studio_init(struct event_base *base, const struct config *cfg)
{
	const char *sh;
	int rc;

	studio.base = base;
	if ((rc = studio_ident_init(cfg)) != 0)
		return (rc);
	sh = config_get(cfg, "server-host");
	studio.server_host = studio_strip_slash(sh != NULL ? sh :
	    "https://profiler.granulate.io");
	if ((rc = studio_http_init(base, cfg)) != 0)
		return (rc);
	if (!config_get_bool(cfg, "upload-results"))
		return (0);
	studio.uploading = 1;
	if ((rc = upload_init(base, cfg)) != 0)
		return (rc);
	studio.hc_timer = evtimer_new(base, studio_hc_send, NULL);
	studio_hc_send(-1, 0, NULL);
	return (0);
}

/* run_hooks.on_cycle: queue the cycle's profile for upload. */
void
studio_upload_hook(const struct cycle_output *co, const char *col,
    size_t collen, void *arg)
{
	if (studio.uploading)
		upload_enqueue(co, col, collen);
}

/* Flush the queue (bounded), then free everything and call done. */
void
studio_shutdown(void (*done)(void *), void *arg)
{
	http_cancel(studio.hc_req);
	studio.hc_req = NULL;
	if (studio.hc_timer != NULL) {
		event_free(studio.hc_timer);
		studio.hc_timer = NULL;
	}
	if (studio.uploading) {
		studio.uploading = 0;
		upload_flush(done, arg);
		return;
	}
	if (done != NULL)
		done(arg);
}
