/*
 * Container names (gprofiler-compat.md §9): the container id from
 * /proc/PID/cgroup, the name from the Docker Engine API on the host's
 * socket, asked asynchronously.  A miss starts a refresh of the whole list
 * and the current cycle uses what is cached ("" meanwhile); ids the list
 * does not know are remembered as nameless until the next refresh.
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

#include "gprofiler.h"
#include "safeopen.h"

#define CONTAINER_DOCKER_SOCK	"/proc/1/root/var/run/docker.sock"
#define CONTAINER_REFRESH_MIN_S	5

struct cname {
	char	 id[65];
	char	*name;		/* "" when the runtime does not know it */
};

static struct {
	char		*sock;
	struct cname	*v;
	size_t		 n;
	struct http_req	*req;
	time_t		 last_refresh;
	int		 warned;
} ct;

static int
container_ishex(char c)
{
	return ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
}

/*
 * The container id of a /proc/PID/cgroup text: in the first line that
 * has one, the last run of exactly 64 lowercase hex characters.  0 with
 * id filled, or -ENOENT.
 */
int
container_id_parse(const char *s, size_t len, char id[65])
{
	size_t	 i = 0, run, start, best;
	int	 found;

	while (i < len) {
		found = 0;
		best = 0;
		while (i < len && s[i] != '\n') {
			start = i;
			while (i < len && container_ishex(s[i]))
				i++;
			run = i - start;
			if (run == 64) {
				found = 1;
				best = start;
			}
			if (run == 0)
				i++;
		}
		if (found) {
			memcpy(id, s + best, 64);
			id[64] = '\0';
			return (0);
		}
		i++;
	}
	return (-ENOENT);
}

static struct cname *
container_find(const char *id)
{
	size_t	 i;

	for (i = 0; i < ct.n; i++)
		if (strcmp(ct.v[i].id, id) == 0)
			return (&ct.v[i]);
	return (NULL);
}

static void
container_put(const char *id, const char *name)
{
	struct cname	*c;

	if ((c = container_find(id)) == NULL) {
		ct.v = xreallocarray(ct.v, ct.n + 1, sizeof(*ct.v));
		c = &ct.v[ct.n++];
		snprintf(c->id, sizeof(c->id), "%s", id);
		c->name = NULL;
	}
	free(c->name);
	c->name = xstrdup(name);
}

/*
 * A Docker GET /containers/json body: [{"Id": …, "Names": ["/web"]}].
 * Each id's name (without the leading '/') goes into the cache.  The
 * number of containers, or -EINVAL.
 */
int
container_parse_docker(const char *body, size_t len)
{
	struct json_tokener	*tok;
	struct json_object	*a, *e, *id, *names, *n0;
	const char		*name;
	size_t			 i, n;
	int			 count = 0;

	tok = json_tokener_new();
	a = json_tokener_parse_ex(tok, body, (int)len);
	json_tokener_free(tok);
	if (a == NULL || !json_object_is_type(a, json_type_array)) {
		json_object_put(a);
		return (-EINVAL);
	}
	n = json_object_array_length(a);
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(a, i);
		if (!json_object_is_type(e, json_type_object) ||
		    !json_object_object_get_ex(e, "Id", &id) ||
		    !json_object_is_type(id, json_type_string) ||
		    json_object_get_string_len(id) != 64)
			continue;
		name = "";
		if (json_object_object_get_ex(e, "Names", &names) &&
		    json_object_is_type(names, json_type_array) &&
		    json_object_array_length(names) > 0 &&
		    (n0 = json_object_array_get_idx(names, 0)) != NULL &&
		    json_object_is_type(n0, json_type_string)) {
			name = json_object_get_string(n0);
			if (*name == '/')
				name++;
		}
		container_put(json_object_get_string(id), name);
		count++;
	}
	json_object_put(a);
	return (count);
}

static void
container_refresh_done(void *arg, const struct http_result *res)
{
	char	*want = arg;

	ct.req = NULL;
	if (res->rc != 0 || res->status != 200 ||
	    container_parse_docker(res->body, res->bodylen) < 0) {
		if (!ct.warned++)
			log_info("container: Docker at %s did not answer (%s); "
			    "names stay empty", ct.sock, res->rc != 0 ?
			    res->err : "bad answer");
	}
	/* Still unknown: nameless until the next refresh. */
	if (container_find(want) == NULL)
		container_put(want, "");
	free(want);
}

static void
container_refresh(const char *id)
{
	struct http_req_opts	 o;
	time_t			 now = time(NULL);

	if (ct.req != NULL || ct.sock == NULL ||
	    now - ct.last_refresh < CONTAINER_REFRESH_MIN_S)
		return;
	ct.last_refresh = now;
	memset(&o, 0, sizeof(o));
	o.method = "GET";
	o.url = "http://localhost/containers/json";
	o.unix_socket = ct.sock;
	o.no_proxy = 1;
	o.timeout_ms = 5000;
	o.max_body = 16 << 20;
	o.done = container_refresh_done;
	o.arg = xstrdup(id);
	if ((ct.req = http_request(&o)) == NULL)
		free(o.arg);
}

const char *
container_name_for_id(const char *id)
{
	struct cname	*c = container_find(id);

	if (c != NULL)
		return (c->name);
	container_refresh(id);
	return ("");
}

/* run_hooks.container_name. */
const char *
container_name_for_pid(int32_t pid, void *arg)
{
	struct gp_open_spec	 spec;
	char	 path[64], buf[8192], id[65];
	ssize_t	 n;

	(void)arg;
	if (ct.sock == NULL)
		return ("");
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	memset(&spec, 0, sizeof(spec));
	spec.size = sizeof(spec);
	spec.path = path;
	spec.owner = -1;
	n = safeopen_read(&spec, buf, sizeof(buf));
	if (n <= 0 || container_id_parse(buf, n, id) != 0)
		return ("");
	return (container_name_for_id(id));
}

/* Names from Docker when its socket exists (docker_sock NULL: host's). */
int
container_init(struct event_base *base, const char *docker_sock)
{
	struct stat	 st;
	const char	*s = docker_sock != NULL ? docker_sock :
			    CONTAINER_DOCKER_SOCK;

	(void)base;
	if (stat(s, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		log_debug("container: no Docker socket at %s; container "
		    "names stay empty", s);
		return (0);
	}
	if (http_init(base) != 0)
		return (0);
	ct.sock = xstrdup(s);
	return (0);
}

void
container_fini(void)
{
	size_t	 i;

	http_cancel(ct.req);
	for (i = 0; i < ct.n; i++)
		free(ct.v[i].name);
	free(ct.v);
	free(ct.sock);
	memset(&ct, 0, sizeof(ct));
}
