/*
 * Who the agent is to Performance Studio: the token (from --token or a
 * checked --token-file, wiped when dropped), the service name, the
 * hostname and the GPROFILER-* headers every request carries.  A leaf:
 * uploads, heartbeats, commands and agent logs read it, and it calls none
 * of them.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/http.h"
#include "base/log.h"
#include "base/utctime.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "studio/studio.h"

static struct {
	char *token;
	char *service;
	char hostname[256];
	char *hdr_key;
	char *hdr_service;
	const char *headers[5];
} ident;

const char *
studio_token(void)
{
	return (ident.token != NULL ? ident.token : "");
}

const char *
studio_service(void)
{
	return (ident.service != NULL ? ident.service : "");
}

const char *
studio_hostname(void)
{
	if (ident.hostname[0] == '\0' &&
	    gethostname(ident.hostname, sizeof(ident.hostname) - 1) != 0)
		snprintf(ident.hostname, sizeof(ident.hostname),
		    "<unknown>");
	return (ident.hostname);
}

const char *const *
studio_headers(void)
{
	return (ident.headers);
}

void
studio_iso_time(time_t t, long usec, int us, char *buf, size_t len)
{
	char s[32];

	utc_iso_time(s, sizeof(s), t);
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
 * buffer is wiped: the token lives only in ident.token.
 */
static int
studio_token_file(const char *path, char **tokenp, char *err, size_t errlen)
{
	struct stat st;
	char buf[4096];
	ssize_t n;
	int fd, rc = 0;

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
	const char *t, *f;
	int rc = 0;

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

/*
 * The token (--token or --token-file), the service name and the headers
 * every request carries.  -EINVAL with one line logged for a usage error.
 */
int
studio_ident_init(const struct config *cfg)
{
	const char *svc;
	char err[512];
	int rc;

	if ((rc = studio_token_load(cfg, &ident.token, err,
	    sizeof(err))) != 0) {
		log_warnx("%s", err);
		return (rc);
	}
	if (ident.token == NULL) {
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
	ident.service = xstrdup(svc != NULL ? svc : "");
	xasprintf(&ident.hdr_key, "GPROFILER-API-KEY: %s", ident.token);
	xasprintf(&ident.hdr_service, "GPROFILER-SERVICE-NAME: %s",
	    ident.service);
	ident.headers[0] = ident.hdr_key;
	ident.headers[1] = ident.hdr_service;
	ident.headers[2] = NULL;
	studio_hostname();
	return (0);
}
