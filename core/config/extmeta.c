/*
 * gProfiler's --external-metadata FILE: a JSON object written by another
 * component, {"static": {...}, "application": {"<pid>": {...}}}.  The
 * static section is read once at start and sent as metadata's
 * "external_metadata"; a file not updated for 5 minutes is stale, which
 * gProfiler refuses at start (gprofiler/metadata/external_metadata.py).
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

#include <json-c/json.h>

#include "base/safeopen.h"
#include "base/xmalloc.h"
#include "config/configuration.h"

#define EXTMETA_MAX		(1024 * 1024)
#define EXTMETA_STALE_S		(5 * 60)

static struct json_object *extmeta_static;

/*
 * Parse the file's bytes: *staticp gets the "static" object ({} when
 * absent), owned by the caller.  -EINVAL with the reason in err.
 */
int
extmeta_parse(const char *buf, size_t len, struct json_object **staticp,
    char *err, size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *o, *s = NULL, *app = NULL;
	int rc = -EINVAL;

	*staticp = NULL;
	if ((tok = json_tokener_new()) == NULL)
		return (-ENOMEM);
	o = json_tokener_parse_ex(tok, buf, (int)len);
	if (o == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    tok->char_offset != (int)len) {
		snprintf(err, errlen, "not one JSON object (%s)",
		    json_tokener_error_desc(json_tokener_get_error(tok)));
		goto out;
	}
	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "not a JSON object");
		goto out;
	}
	if (json_object_object_get_ex(o, "static", &s) &&
	    !json_object_is_type(s, json_type_object)) {
		snprintf(err, errlen, "\"static\" is not an object");
		goto out;
	}
	if (json_object_object_get_ex(o, "application", &app) &&
	    !json_object_is_type(app, json_type_object)) {
		snprintf(err, errlen, "\"application\" is not an object");
		goto out;
	}
	*staticp = s != NULL ? json_object_get(s) : json_object_new_object();
	rc = 0;
out:
	json_object_put(o);
	json_tokener_free(tok);
	return (rc);
}

/* Read the static section once (agent start); -errno with err. */
int
extmeta_load(const char *path, char *err, size_t errlen)
{
	struct stat sb;
	char *buf = NULL, why[256];
	ssize_t n;
	size_t len = 0;
	int fd, rc;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) == -1 || fstat(fd, &sb) == -1) {
		rc = -errno;
		snprintf(err, errlen, "External metadata file %s does not "
		    "exist! (%s)", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return (rc);
	}
	if (!S_ISREG(sb.st_mode) || sb.st_size > EXTMETA_MAX) {
		snprintf(err, errlen, "--external-metadata %s: not a regular "
		    "file of at most %d bytes", path, EXTMETA_MAX);
		close(fd);
		return (-EINVAL);
	}
	if (time(NULL) - sb.st_mtime > EXTMETA_STALE_S) {
		snprintf(err, errlen, "External metadata file %s is stale "
		    "(not updated for %d minutes)! Please update it or "
		    "disable external metadata, and try again.", path,
		    EXTMETA_STALE_S / 60);
		close(fd);
		return (-ESTALE);
	}
	buf = xmalloc(sb.st_size + 1);
	n = safeopen_pread(fd, buf, sb.st_size, 0);
	len = n > 0 ? (size_t)n : 0;	/* a short file is parsed as it is */
	close(fd);
	json_object_put(extmeta_static);
	extmeta_static = NULL;
	if ((rc = extmeta_parse(buf, len, &extmeta_static, why,
	    sizeof(why))) != 0)
		snprintf(err, errlen, "--external-metadata %s: %s", path, why);
	free(buf);
	return (rc);
}

/* Add "external_metadata" to a cycle's metadata (when a file was read). */
void
extmeta_add(struct json_object *md)
{
	if (extmeta_static != NULL)
		json_object_object_add(md, "external_metadata",
		    json_object_get(extmeta_static));
}

void
extmeta_free(void)
{
	json_object_put(extmeta_static);
	extmeta_static = NULL;
}
