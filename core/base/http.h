/*
 * http.c: asynchronous HTTP driven by the loop (libcurl multi; base room).
 * A request's done callback runs later from the loop, exactly once, unless
 * cancelled; the result and its body are borrowed for the duration of the
 * callback.  The Studio, the container and cloud probes and the host API's
 * http_download all go through it.
 */
#ifndef GP_BASE_HTTP_H
#define GP_BASE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

struct event_base;

struct http_req;
struct http_result {
	int rc;			/* 0, -ETIMEDOUT, -EFBIG, -EIO */
	long status;		/* HTTP status; 0 without a response */
	const char *body;	/* NUL-terminated */
	size_t bodylen;
	const char *err;	/* transport error when rc != 0 */
	int timed_out;
};
struct http_req_opts {
	const char *method;	/* GET (default), POST, PUT */
	const char *url;
	const char *const *headers;	/* "Name: value", NULL-terminated */
	const void *body;		/* copied; sent with Content-Length */
	size_t bodylen;
	const char *unix_socket;	/* e.g. the Docker socket */
	const char *userpwd;		/* Basic auth "user:password" */
	unsigned timeout_ms;		/* 0: 30 s */
	unsigned connect_timeout_ms;	/* 0: 10 s */
	size_t max_body;		/* response cap; 0: 8 MiB */
	int no_proxy;			/* link-local and unix sockets */
	int download;			/* write the response into fd */
	int fd;
	int https_only;	/* HTTPS, redirects (<= 5) to HTTPS only,
					   TLS verified despite --no-verify */
	void (*done)(void *arg, const struct http_result *);
	void *arg;
	int http2;	/* HTTP/2 without upgrade (gRPC) */
};
int http_init(struct event_base *);
void http_set_tls(int verify, const char *ca_bundle,
		    const char *client_cert, const char *client_key);
struct http_req *http_request(const struct http_req_opts *);
void http_cancel(struct http_req *);
unsigned http_pending(void);
void http_fini(void);
/* Whether v may be an HTTP header value (no CR, LF or other controls). */
int http_header_value_ok(const char *v);
/* Percent-encode for a URL query without libcurl; the caller frees. */
char *http_escape(const char *);
/* Cancel the downloads a plugin started (it is being unloaded). */
void http_download_cancel(struct gp_plugin_ctx *);
/* The host API's http_download (wire with host_set_http_download). */
int http_download(struct gp_plugin_ctx *, const char *url,
		    int32_t fd, uint32_t timeout_ms, void (*done)(void *,
		    int32_t, int32_t, const char *), void *arg);

#endif
