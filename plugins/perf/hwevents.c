/*
 * gProfiler's custom PMU event file (--hw-events-file): see hwevents.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "hwevents.h"

/* The platforms the file defines `ev` for, comma-separated, into out. */
static void
hwevents_known(struct json_object *ev, char *out, size_t outlen)
{
	size_t used = 0;
	int n;

	out[0] = '\0';
	json_object_object_foreach(ev, key, val) {
		(void)val;
		if (key[0] == '_')
			continue;
		n = snprintf(out + used, outlen - used, "%s'%s'",
		    used > 0 ? ", " : "", key);
		if (n < 0 || (size_t)n >= outlen - used) {
			/* keep what fits; the line stays one line */
			break;
		}
		used += (size_t)n;
	}
	if (used == 0)
		snprintf(out, outlen, "none");
}

int
hwevents_lookup(const char *buf, size_t len, const char *event,
    const char *const *platforms, size_t nplatforms, char *raw,
    size_t rawlen, char *err, size_t errlen)
{
	struct json_tokener *tok = NULL;
	struct json_object *root = NULL, *ev, *plat, *r;
	char known[256], tried[256];
	const char *s;
	size_t i, used;
	int n, rc = -EINVAL;

	raw[0] = '\0';
	if (len > HWEVENTS_MAX_FILE || (tok = json_tokener_new()) == NULL) {
		snprintf(err, errlen, "larger than %u bytes", HWEVENTS_MAX_FILE);
		goto out;
	}
	root = json_tokener_parse_ex(tok, buf, (int)len);
	if (root == NULL) {
		/* json_tokener_continue: the file ended inside the object */
		snprintf(err, errlen, "not valid JSON (%s at byte %zu)",
		    json_tokener_get_error(tok) == json_tokener_continue ?
		    "unexpected end of the file" : json_tokener_error_desc(
		    json_tokener_get_error(tok)), json_tokener_get_parse_end(
		    tok));
		goto out;
	}
	/* as Python's json.load: white space may follow, nothing else */
	for (i = json_tokener_get_parse_end(tok); i < len; i++)
		if (strchr(" \t\r\n", buf[i]) == NULL || buf[i] == '\0') {
			snprintf(err, errlen, "not valid JSON (extra data at "
			    "byte %zu)", i);
			goto out;
		}
	if (!json_object_is_type(root, json_type_object)) {
		snprintf(err, errlen, "not a JSON object of events");
		goto out;
	}
	if (event[0] == '_' || !json_object_object_get_ex(root, event, &ev)) {
		snprintf(err, errlen, "event '%s' is not defined there", event);
		rc = -ENOENT;
		goto out;
	}
	if (!json_object_is_type(ev, json_type_object)) {
		snprintf(err, errlen, "event '%s': not an object of platforms",
		    event);
		goto out;
	}
	for (i = 0; i < nplatforms; i++) {
		if (platforms[i] == NULL || platforms[i][0] == '\0' ||
		    platforms[i][0] == '_' ||
		    !json_object_object_get_ex(ev, platforms[i], &plat))
			continue;
		if (!json_object_is_type(plat, json_type_object) ||
		    !json_object_object_get_ex(plat, "raw", &r) ||
		    !json_object_is_type(r, json_type_string) ||
		    (s = json_object_get_string(r))[0] == '\0') {
			snprintf(err, errlen, "event '%s', platform '%s': "
			    "missing 'raw' field", event, platforms[i]);
			goto out;
		}
		if (strlen(s) >= rawlen) {
			snprintf(err, errlen, "event '%s', platform '%s': "
			    "'raw' longer than %zu bytes", event, platforms[i],
			    rawlen - 1);
			goto out;
		}
		memcpy(raw, s, strlen(s) + 1);
		rc = 0;
		goto out;
	}
	hwevents_known(ev, known, sizeof(known));
	tried[0] = '\0';
	for (i = 0, used = 0; i < nplatforms; i++) {
		if (platforms[i] == NULL || platforms[i][0] == '\0')
			continue;
		n = snprintf(tried + used, sizeof(tried) - used, "%s'%s'",
		    used > 0 ? " or " : "", platforms[i]);
		if (n < 0 || (size_t)n >= sizeof(tried) - used)
			break;
		used += (size_t)n;
	}
	snprintf(err, errlen, "event '%s' is not defined for this host's "
	    "platform (%s); the file defines it for: %s", event,
	    used > 0 ? tried : "unknown", known);
	rc = -ENODEV;
out:
	json_object_put(root);
	if (tok != NULL)
		json_tokener_free(tok);
	return (rc);
}

/* [b, e) trimmed of blanks into out, if printable ASCII and it fits. */
static void
hwevents_copy_trimmed(const char *b, const char *e, char *out, size_t outlen)
{
	const char *c;

	out[0] = '\0';
	while (b < e && (*b == ' ' || *b == '\t'))
		b++;
	while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	if ((size_t)(e - b) >= outlen)
		return;
	for (c = b; c < e; c++)
		if (*c < 0x20 || *c > 0x7e)
			return;
	memcpy(out, b, (size_t)(e - b));
	out[e - b] = '\0';
}

void
hwevents_cpuinfo_model(const char *buf, size_t len, char *out, size_t outlen)
{
	const char *p = buf, *end = buf + len, *nl, *colon;
	static const char key[] = "model name";

	out[0] = '\0';
	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((size_t)(nl - p) > sizeof(key) - 1 &&
		    memcmp(p, key, sizeof(key) - 1) == 0 &&
		    (colon = memchr(p, ':', (size_t)(nl - p))) != NULL) {
			/* only blanks between the key and the colon */
			const char *c = p + sizeof(key) - 1;

			while (c < colon && (*c == ' ' || *c == '\t'))
				c++;
			if (c == colon) {
				hwevents_copy_trimmed(colon + 1, nl, out,
				    outlen);
				return;
			}
		}
		p = nl + 1;
	}
}

void
hwevents_first_line(const char *buf, size_t len, char *out, size_t outlen)
{
	const char *nl = memchr(buf, '\n', len);

	hwevents_copy_trimmed(buf, nl != NULL ? nl : buf + len, out, outlen);
}
