/*
 * The container of a process from its /proc/PID/cgroup text: pure
 * functions over bytes (docs/specs/gprofiler-compat.md §9.1).  cgroup v1 has a
 * line per hierarchy ("4:memory:/docker/<id>"), v2 one line ("0::/...").  The
 * shapes seen in the field, all ending in a 64-hex id: /docker/<id>,
 * /system.slice/docker-<id>.scope, /kubepods/<qos>/pod<uid>/<id>,
 * .../cri-containerd-<id>.scope, .../crio-<id>.scope,
 * /machine.slice/libpod-<id>.scope, /libpod_parent/libpod-<id>,
 * /ecs/<task>/<id>.  `ctr run` names containers freely and puts them at
 * /<namespace>/<id>.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "meta/container.h"
#include "meta/meta.h"

static int
container_ishex(char c)
{
	return ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
}

/* The last run of exactly 64 hex characters in s[0..len), or NULL. */
static const char *
container_hex64(const char *s, size_t len)
{
	const char *best = NULL;
	size_t i = 0, start;

	while (i < len) {
		start = i;
		while (i < len && container_ishex(s[i]))
			i++;
		if (i - start == 64)
			best = s + start;
		if (i == start)
			i++;
	}
	return (best);
}

int
container_id_parse(const char *s, size_t len, char id[65])
{
	const char *nl, *end = s + len, *h;

	while (s < end) {
		if ((nl = memchr(s, '\n', end - s)) == NULL)
			nl = end;
		if ((h = container_hex64(s, nl - s)) != NULL) {
			memcpy(id, h, 64);
			id[64] = '\0';
			return (0);
		}
		s = nl + 1;
	}
	return (-ENOENT);
}

/* containerd's identifier rule: [A-Za-z0-9][A-Za-z0-9._-]*, at most 76. */
static int
container_ctrd_ident(const char *s, size_t len)
{
	size_t i;
	char c;

	if (len == 0 || len > 76)
		return (0);
	for (i = 0; i < len; i++) {
		c = s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9'))
			continue;
		if (i > 0 && (c == '.' || c == '_' || c == '-'))
			continue;
		return (0);
	}
	return (1);
}

static int
container_endswith(const char *s, size_t len, const char *suf)
{
	size_t n = strlen(suf);

	return (len >= n && memcmp(s + len - n, suf, n) == 0);
}

/*
 * "/<ns>/<id>" (the path after the second ':' of a line) as "ns/id", when
 * both parts are containerd identifiers and not systemd units (a host
 * service lives at /system.slice/cron.service).
 */
static int
container_ctrd_key(const char *line, size_t len, char key[CONTAINER_KEY_MAX])
{
	const char *p, *end = line + len, *ns, *id;
	size_t nslen, idlen;

	if ((p = memchr(line, ':', len)) == NULL ||
	    (p = memchr(p + 1, ':', end - p - 1)) == NULL)
		return (-ENOENT);
	p++;
	if (p >= end || *p != '/')
		return (-ENOENT);
	ns = p + 1;
	if ((p = memchr(ns, '/', end - ns)) == NULL)
		return (-ENOENT);
	nslen = p - ns;
	id = p + 1;
	idlen = end - id;
	if (memchr(id, '/', idlen) != NULL ||
	    !container_ctrd_ident(ns, nslen) ||
	    !container_ctrd_ident(id, idlen) ||
	    container_endswith(ns, nslen, ".slice") ||
	    container_endswith(id, idlen, ".scope") ||
	    container_endswith(id, idlen, ".service") ||
	    container_endswith(id, idlen, ".slice"))
		return (-ENOENT);
	snprintf(key, CONTAINER_KEY_MAX, "%.*s/%.*s", (int)nslen, ns,
	    (int)idlen, id);
	return (0);
}

int
container_key_parse(const char *s, size_t len, char key[CONTAINER_KEY_MAX])
{
	const char *nl, *end = s + len, *line;
	char id[65];

	if (container_id_parse(s, len, id) == 0) {
		memcpy(key, id, sizeof(id));
		return (0);
	}
	for (line = s; line < end; line = nl + 1) {
		if ((nl = memchr(line, '\n', end - line)) == NULL)
			nl = end;
		if (container_ctrd_key(line, nl - line, key) == 0)
			return (0);
	}
	return (-ENOENT);
}
