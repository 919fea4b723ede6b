/*
 * Performance Studio glue: the token and the GPROFILER-* headers shared by
 * every request, the start-up health check (retried with backoff; only a
 * refused key is fatal, gprofiler-compat.md §12 #9), and the entry points
 * main.c calls.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "gprofiler.h"

#define STUDIO_HC_TIMEOUT_MS	5000
#define STUDIO_HC_BASE_MS	2000
#define STUDIO_HC_MAX_MS	60000

static struct {
	struct event_base	*base;
	char			*token;
	char			*service;
	char			*server_host;
	char			 hostname[256];
	char			*hdr_key;
	char			*hdr_service;
	const char		*headers[5];
	struct event		*hc_timer;
	struct http_req		*hc_req;
	unsigned		 hc_attempt;
	int			 uploading;
} studio;

const char *
studio_token(void)
{
	return (studio.token != NULL ? studio.token : "");
}

const char *
studio_service(void)
{
	return (studio.service != NULL ? studio.service : "");
}

const char *
studio_hostname(void)
{
	if (studio.hostname[0] == '\0' &&
	    gethostname(studio.hostname, sizeof(studio.hostname) - 1) != 0)
		snprintf(studio.hostname, sizeof(studio.hostname),
		    "<unknown>");
	return (studio.hostname);
}

const char *const *
studio_headers(void)
{
	return (studio.headers);
}

void
studio_iso_time(time_t t, long usec, int us, char *buf, size_t len)
{
	struct tm	 tm;
	char		 s[32];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	if (us)
		snprintf(buf, len, "%s.%06ld", s, usec);
	else
		snprintf(buf, len, "%s", s);
}

/* Free a string that held the token, wiping it first (NULL is fine). */
static void
studio_wipe(char *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

/*
 * Read a token file: one line, a regular file of the daemon's user (or
 * root) that nobody else can read, opened without following a link (a
 * planted symlink would make root read any file into a header).  The
 * buffer is wiped: the token lives only in studio.token.
 */
static int
studio_token_file(const char *path, char **tokenp, char *err, size_t errlen)
{
	struct stat	 st;
	char		 buf[4096];
	ssize_t		 n;
	int		 fd, rc = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY)) == -1) {
		snprintf(err, errlen, "--token-file %s: %s%s", path,
		    strerror(errno), errno == ELOOP ? " (a symlink: name the "
		    "file itself)" : "");
		return (-EINVAL);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "--token-file %s: not a regular file",
		    path);
		rc = -EINVAL;
		goto out;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(err, errlen, "--token-file %s: owned by uid %u, not "
		    "by this user or root; run chown %u %s", path,
		    (unsigned)st.st_uid, (unsigned)geteuid(), path);
		rc = -EINVAL;
		goto out;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(err, errlen, "--token-file %s: readable by group or "
		    "others (mode %03o); run chmod 600 %s", path,
		    (unsigned)(st.st_mode & 0777), path);
		rc = -EINVAL;
		goto out;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		snprintf(err, errlen, "--token-file %s: %s", path,
		    strerror(errno));
		rc = -EINVAL;
		goto out;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (buf[0] == '\0') {
		snprintf(err, errlen, "--token-file %s: empty", path);
		rc = -EINVAL;
		goto out;
	}
	*tokenp = xstrdup(buf);
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return (rc);
}

/* --token, else the file named by --token-file.  *tokenp may be NULL. */
int
studio_token_load(const struct config *cfg, char **tokenp, char *err,
    size_t errlen)
{
	const char	*t, *f;
	int		 rc = 0;

	*tokenp = NULL;
	t = config_get(cfg, "token");
	f = config_get(cfg, "token-file");
	if (t != NULL && *t != '\0')
		*tokenp = xstrdup(t);
	else if (f != NULL && *f != '\0')
		rc = studio_token_file(f, tokenp, err, errlen);
	if (rc == 0 && *tokenp != NULL && !http_header_value_ok(*tokenp)) {
		snprintf(err, errlen, "%s: the token holds a control character "
		    "(CR, LF...), which would end the HTTP header it goes "
		    "into; give the token alone", t != NULL && *t != '\0' ?
		    "--token" : f);
		studio_wipe(*tokenp);
		*tokenp = NULL;
		rc = -EINVAL;
	}
	return (rc);
}

static void	studio_hc_send(evutil_socket_t, short, void *);

static void
studio_hc_retry(const char *why)
{
	struct timeval	 tv;
	unsigned	 ms;

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
	char	 msg[256], why[320];

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
	struct http_req_opts	 o;
	char			*url;

	xasprintf(&url, "%s/api/v1/health_check", studio.server_host);
	memset(&o, 0, sizeof(o));
	o.method = "GET";
	o.url = url;
	o.headers = studio.headers;
	o.timeout_ms = STUDIO_HC_TIMEOUT_MS;
	o.max_body = 64 << 10;
	o.done = studio_hc_done;
	studio.hc_req = http_request(&o);
	free(url);
	if (studio.hc_req == NULL)
		studio_hc_retry("cannot start the request");
}

static char *
studio_strip_slash(const char *url)
{
	char	*s = xstrdup(url);
	size_t	 n = strlen(s);

	/* "/api/v2/profiles/" would get a 307 from the backend. */
	while (n > 0 && s[n - 1] == '/')
		s[--n] = '\0';
	return (s);
}

/*
 * Set up the backend connection: HTTP with the TLS options, the token,
 * the headers; with -u also the upload queue and the health check.
 * -EINVAL with one line logged for a usage error (exit 2).
 */
int
studio_init(struct event_base *base, const struct config *cfg)
{
	const char	*sh, *svc;
	char		 err[512];
	int		 rc;

	studio.base = base;
	if ((rc = studio_token_load(cfg, &studio.token, err,
	    sizeof(err))) != 0) {
		log_warnx("%s", err);
		return (rc);
	}
	if (studio.token == NULL) {
		log_warnx("studio: --upload-results needs --token or "
		    "--token-file");
		return (-EINVAL);
	}
	svc = config_get(cfg, "service-name");
	if (svc != NULL && !http_header_value_ok(svc)) {
		log_warnx("--service-name: holds a control character (CR, "
		    "LF...), which would end the HTTP header it goes into; "
		    "use printable characters only");
		return (-EINVAL);
	}
	studio.service = xstrdup(svc != NULL ? svc : "");
	sh = config_get(cfg, "server-host");
	studio.server_host = studio_strip_slash(sh != NULL ? sh :
	    "https://profiler.granulate.io");
	xasprintf(&studio.hdr_key, "GPROFILER-API-KEY: %s", studio.token);
	xasprintf(&studio.hdr_service, "GPROFILER-SERVICE-NAME: %s",
	    studio.service);
	studio.headers[0] = studio.hdr_key;
	studio.headers[1] = studio.hdr_service;
	studio.headers[2] = NULL;
	studio_hostname();
	if ((rc = http_init(base)) != 0)
		return (rc);
	host_set_http_download(http_download);
	http_set_tls(!config_get_bool(cfg, "no-verify"),
	    config_get(cfg, "tls-ca-bundle"), config_get(cfg,
	    "tls-client-cert"), config_get(cfg, "tls-client-key"));
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
