/*
 * Container names (docs/specs/gprofiler-compat.md §9): the container of a PID
 * from /proc/PID/cgroup (container_cgroup.c), its name from every runtime whose
 * socket exists under the host root: Docker, podman (Docker's API), CRI on
 * containerd and CRI-O (k8s_ names), containerd's own API (ctr, nerdctl). All
 * of it is asynchronous: a miss starts a refresh of every runtime's list and
 * the current cycle uses what is cached ("" meanwhile).  When runtimes disagree
 * on an id, Docker wins, then podman, CRI, containerd. Ids no runtime knows are
 * cached as nameless for a while; a runtime that failed keeps its last names
 * and is asked again only after a pause.
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

#include <event2/event.h>

#include "base/http.h"
#include "base/log.h"
#include "base/safeopen.h"
#include "base/xmalloc.h"
#include "meta/container.h"
#include "meta/meta.h"

#define HOST			"/proc/1/root"
#define CONTAINER_REFRESH_MIN_S	5	/* between two refreshes */
#define CONTAINER_RETRY_S	60	/* a failed runtime is left alone */
#define CONTAINER_UNKNOWN_TTL_S	600	/* an unknown id stays nameless */
#define CONTAINER_PID_TTL_S	60	/* about a cycle: PID -> key */
#define CONTAINER_PID_SLOTS	4096
#define CONTAINER_MAX_ENTRIES	65536	/* names held at once */
#define CONTAINER_WANT_MAX	1024	/* misses waiting for a refresh */
#define CONTAINER_TIMEOUT_MS	5000
#define CONTAINER_PRIO_NONE	99

enum container_kind {
	CONTAINER_DOCKER_API,	/* Docker and podman */
	CONTAINER_CRI,
	CONTAINER_CTRD,
};

struct container_src {
	const char *what;
	enum container_kind kind;
	char *paths[2];		/* host root's, then ours */
	const char *sock;	/* the one found */
	struct http_req *req;
	int present;	/* socket seen at the last probe */
	int failed;	/* in the running refresh */
	int cri_alpha;	/* speaks runtime.v1alpha2 */
	int cri_trying_alpha;
	char **ns;	/* containerd namespaces */
	size_t ns_i;
	time_t retry_at;
	int warned;
	/*
	 * containerd's API waits for CRI on the same socket: two streams at
	 * once on one HTTP/2 connection end in framing errors there.
	 */
	struct container_src *after;
	int deferred;
};

struct container_entry {
	char *key;
	char *name;	/* "" when no runtime knows it */
	int prio;	/* index of the source; lower wins */
	time_t t;
};

struct container_table {
	struct container_entry *v;
	size_t n;
	size_t cap;
	int full_warned;
};

struct container_pid {
	int32_t pid;
	time_t t;
	char *key;	/* "" when not in a container */
};

#define CONTAINER_NSRC	5

static struct {
	int on;
	struct event_base *base;
	struct event *later;	/* a refresh held back */
	unsigned timeout_ms;
	struct container_src src[CONTAINER_NSRC];
	size_t nsrc;
	struct container_table cur, next;
	char **want;
	size_t nwant;
	size_t nwant_asked;	/* wants the refresh covers */
	int refreshing;
	unsigned pending;
	time_t last_refresh;
	struct container_pid pids[CONTAINER_PID_SLOTS];
} ct;

static void container_src_start(struct container_src *);

static time_t
container_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec);
}

/* A name fit for a frame and the JSON header: printable ASCII, no ';'. */
static char *
container_clean_name(const char *name)
{
	char *s;
	size_t i, n = strnlen(name, CONTAINER_NAME_MAX - 1);

	s = xmalloc(n + 1);
	for (i = 0; i < n; i++) {
		s[i] = name[i];
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ||
		    s[i] == ';')
			s[i] = '_';
	}
	s[n] = '\0';
	return (s);
}

static void
container_table_add(struct container_table *t, const char *key,
    const char *name, int prio, time_t when)
{
	struct container_entry *e;

	if (strlen(key) >= CONTAINER_KEY_MAX || *key == '\0')
		return;
	if (t->n == CONTAINER_MAX_ENTRIES) {
		if (!t->full_warned++)
			log_info("container: more than %d containers; the "
			    "rest stay nameless", CONTAINER_MAX_ENTRIES);
		return;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->v = xreallocarray(t->v, t->cap, sizeof(*t->v));
	}
	e = &t->v[t->n++];
	e->key = xstrdup(key);
	e->name = container_clean_name(name);
	e->prio = prio;
	e->t = when;
}

static void
container_table_free(struct container_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i].key);
		free(t->v[i].name);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static int
container_entry_cmp(const void *a, const void *b)
{
	const struct container_entry *x = a, *y = b;
	int c;

	if ((c = strcmp(x->key, y->key)) != 0)
		return (c);
	return (x->prio - y->prio);
}

/* Sort by key, keeping for each key the entry of the best source. */
static void
container_table_settle(struct container_table *t)
{
	size_t i, o = 0;

	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), container_entry_cmp);
	for (i = 0; i < t->n; i++) {
		if (o > 0 && strcmp(t->v[o - 1].key, t->v[i].key) == 0) {
			free(t->v[i].key);
			free(t->v[i].name);
			continue;
		}
		t->v[o++] = t->v[i];
	}
	t->n = o;
}

static int
container_entry_cmp_key(const void *k, const void *e)
{
	return (strcmp(k, ((const struct container_entry *)e)->key));
}

static struct container_entry *
container_table_find(const struct container_table *t, const char *key)
{
	if (t->n == 0)
		return (NULL);
	return (bsearch(key, t->v, t->n, sizeof(*t->v),
	    container_entry_cmp_key));
}

/* container_sink.put for the refresh running: into the next table. */
static void
container_put(void *arg, const char *key, const char *name)
{
	struct container_src *s = arg;

	container_table_add(&ct.next, key, name, (int)(s - ct.src),
	    container_now());
}

static void
container_want_clear(size_t n)
{
	size_t i;

	if (n == 0)
		return;
	for (i = 0; i < n; i++)
		free(ct.want[i]);
	memmove(ct.want, ct.want + n, (ct.nwant - n) * sizeof(*ct.want));
	ct.nwant -= n;
}

/*
 * Every source has answered or failed: the new table is what they said,
 * plus what failed sources said last time, plus the ids still unknown
 * (nameless, for a while).
 */
static void
container_refresh_end(void)
{
	struct container_entry *e;
	time_t now = container_now();
	size_t i;

	for (i = 0; i < ct.cur.n; i++) {
		e = &ct.cur.v[i];
		if (e->prio == CONTAINER_PRIO_NONE) {
			if (now - e->t < CONTAINER_UNKNOWN_TTL_S)
				container_table_add(&ct.next, e->key, "",
				    CONTAINER_PRIO_NONE, e->t);
		} else if ((size_t)e->prio < ct.nsrc &&
		    ct.src[e->prio].failed)
			container_table_add(&ct.next, e->key, e->name, e->prio,
			    e->t);
	}
	for (i = 0; i < ct.nwant_asked; i++)
		container_table_add(&ct.next, ct.want[i], "",
		    CONTAINER_PRIO_NONE, now);
	container_table_settle(&ct.next);
	container_table_free(&ct.cur);
	ct.cur = ct.next;
	memset(&ct.next, 0, sizeof(ct.next));
	container_want_clear(ct.nwant_asked);
	ct.nwant_asked = 0;
	ct.refreshing = 0;
	log_debug("container: %zu names known", ct.cur.n);
	/* Misses that came during the refresh: another one, soon. */
	if (ct.nwant > 0 && ct.later != NULL) {
		struct timeval tv = { CONTAINER_REFRESH_MIN_S, 0 };

		evtimer_add(ct.later, &tv);
	}
}

static void
container_src_done(struct container_src *s, int failed, const char *why)
{
	size_t i;

	s->req = NULL;
	for (i = 0; i < ct.nsrc; i++)
		if (ct.src[i].deferred && ct.src[i].after == s) {
			ct.src[i].deferred = 0;
			container_src_start(&ct.src[i]);
		}
	if (failed) {
		s->failed = 1;
		s->retry_at = container_now() + CONTAINER_RETRY_S;
		if (!s->warned++)
			log_info("container: %s at %s: %s; its container "
			    "names stay as they were, asked again in %d s",
			    s->what, s->sock, why, CONTAINER_RETRY_S);
	} else if (s->warned) {
		log_info("container: %s at %s answers again", s->what,
		    s->sock);
		s->warned = 0;
	}
	if (--ct.pending == 0)
		container_refresh_end();
}

static const char *
container_why(const struct http_result *res)
{
	if (res->rc != 0)
		return (res->err != NULL && *res->err ? res->err :
		    "no answer");
	if (res->status != 200)
		return ("HTTP status not 200");
	return ("an answer that does not parse");
}

static void
container_docker_done(void *arg, const struct http_result *res)
{
	struct container_src *s = arg;
	struct container_sink sink = { container_put, s };

	if (res->rc != 0 || res->status != 200 ||
	    container_docker_parse(res->body, res->bodylen, &sink) < 0) {
		container_src_done(s, 1, container_why(res));
		return;
	}
	container_src_done(s, 0, NULL);
}

static void
container_cri_done(void *arg, const struct http_result *res)
{
	struct container_src *s = arg;
	struct container_sink sink = { container_put, s };

	if (res->rc == 0 && res->status == 200 && container_cri_parse(
	    (const uint8_t *)res->body, res->bodylen, &sink) >= 0) {
		s->cri_alpha = s->cri_trying_alpha;
		container_src_done(s, 0, NULL);
		return;
	}
	/* No frame: runtime.v1 unimplemented (containerd < 1.7)? v1alpha2. */
	if (res->rc == 0 && res->status == 200 && !s->cri_trying_alpha) {
		s->cri_trying_alpha = 1;
		s->req = NULL;
		container_src_start(s);
		return;
	}
	container_src_done(s, 1, container_why(res));
}

static void container_ctrd_next(struct container_src *);

static void
container_ctrd_list_done(void *arg, const struct http_result *res)
{
	struct container_src *s = arg;
	struct container_sink sink = { container_put, s };

	if (res->rc != 0 || res->status != 200 ||
	    container_containerd_parse_list((const uint8_t *)res->body,
	    res->bodylen, s->ns[s->ns_i], &sink) < 0) {
		container_src_done(s, 1, container_why(res));
		return;
	}
	s->ns_i++;
	container_ctrd_next(s);
}

static void
container_ctrd_ns_done(void *arg, const struct http_result *res)
{
	struct container_src *s = arg;

	container_strv_free(s->ns);
	s->ns = NULL;
	if (res->rc != 0 || res->status != 200 ||
	    (s->ns = container_containerd_parse_ns((const uint8_t *)res->body,
	    res->bodylen)) == NULL) {
		container_src_done(s, 1, container_why(res));
		return;
	}
	s->ns_i = 0;
	container_ctrd_next(s);
}

/* A gRPC call with an empty-message request (or the CRI filter). */
static int
container_grpc_call(struct container_src *s, const char *path,
    const char *ns, const uint8_t *msg, size_t msglen,
    void (*done)(void *, const struct http_result *))
{
	struct http_req_opts o;
	uint8_t body[64];
	char url[160], nsh[128];
	const char *hdrs[4];

	snprintf(url, sizeof(url), "http://localhost%s", path);
	hdrs[0] = "Content-Type: application/grpc";
	hdrs[1] = "TE: trailers";
	hdrs[2] = NULL;
	hdrs[3] = NULL;
	if (ns != NULL) {
		snprintf(nsh, sizeof(nsh), "containerd-namespace: %s", ns);
		hdrs[2] = nsh;
	}
	if (msglen > sizeof(body) - 5)
		return (-EINVAL);
	container_grpc_header(body, msglen);
	if (msglen > 0)
		memcpy(body + 5, msg, msglen);
	o = (struct http_req_opts){
		.method = "POST",
		.url = url,
		.headers = hdrs,
		.body = body,
		.bodylen = msglen + 5,
		.unix_socket = s->sock,
		.no_proxy = 1,
		.http2 = 1,
		.timeout_ms = ct.timeout_ms,
		.connect_timeout_ms = ct.timeout_ms,
		.max_body = 2 * CONTAINER_GRPC_MSG_MAX,
		.done = done,
		.arg = s,
	};
	if ((s->req = http_request(&o)) == NULL)
		return (-EIO);
	return (0);
}

/* The next namespace's containers, one request at a time. */
static void
container_ctrd_next(struct container_src *s)
{
	if (s->ns[s->ns_i] == NULL)
		container_src_done(s, 0, NULL);
	else if (container_grpc_call(s,
	    "/containerd.services.containers.v1.Containers/ListStream",
	    s->ns[s->ns_i], NULL, 0, container_ctrd_list_done) != 0)
		container_src_done(s, 1, "cannot start a request");
}

/* ListContainersRequest{filter: {state: {state: CONTAINER_RUNNING}}} */
static const uint8_t container_cri_req[] = { 0x0a, 0x04, 0x12, 0x02, 0x08,
    0x01 };

static void
container_src_start(struct container_src *s)
{
	struct http_req_opts o;
	int rc = 0;

	switch (s->kind) {
	case CONTAINER_DOCKER_API:
		o = (struct http_req_opts){
			.method = "GET",
			.url = "http://localhost/containers/json",
			.unix_socket = s->sock,
			.no_proxy = 1,
			.timeout_ms = ct.timeout_ms,
			.connect_timeout_ms = ct.timeout_ms,
			.max_body = 64 << 20,
			.done = container_docker_done,
			.arg = s,
		};
		if ((s->req = http_request(&o)) == NULL)
			rc = -EIO;
		break;
	case CONTAINER_CRI:
		rc = container_grpc_call(s, s->cri_trying_alpha ?
		    "/runtime.v1alpha2.RuntimeService/ListContainers" :
		    "/runtime.v1.RuntimeService/ListContainers", NULL,
		    container_cri_req, sizeof(container_cri_req),
		    container_cri_done);
		break;
	case CONTAINER_CTRD:
		rc = container_grpc_call(s,
		    "/containerd.services.namespaces.v1.Namespaces/List", NULL,
		    NULL, 0, container_ctrd_ns_done);
		break;
	}
	if (rc != 0)
		container_src_done(s, 1, "cannot start a request");
}

/*
 * Whether the source's socket exists: under the host root first (the
 * agent may run in a container sharing the host's PID namespace), else
 * at the path itself (a sandbox may deny /proc/1/root; a container may
 * have the socket mounted in).
 */
static int
container_src_probe(struct container_src *s)
{
	struct stat st;
	size_t i;

	for (i = 0; i < 2; i++)
		if (s->paths[i] != NULL && stat(s->paths[i], &st) == 0 &&
		    S_ISSOCK(st.st_mode)) {
			s->sock = s->paths[i];
			return (1);
		}
	s->sock = s->paths[0];
	return (0);
}

static void
container_refresh(void)
{
	struct container_src *s;
	time_t now = container_now();
	size_t i;

	if (ct.refreshing)
		return;
	if (ct.last_refresh != 0 &&
	    now - ct.last_refresh < CONTAINER_REFRESH_MIN_S) {
		if (ct.later != NULL && !evtimer_pending(ct.later, NULL)) {
			struct timeval tv = { CONTAINER_REFRESH_MIN_S -
			    (now - ct.last_refresh), 0 };

			evtimer_add(ct.later, &tv);
		}
		return;
	}
	ct.last_refresh = now;
	ct.refreshing = 1;
	ct.nwant_asked = ct.nwant;
	/* Held so that a source failing synchronously cannot end it early. */
	ct.pending = 1;
	for (i = 0; i < ct.nsrc; i++) {
		s = &ct.src[i];
		s->failed = 0;
		s->deferred = 0;
		s->cri_trying_alpha = s->cri_alpha;
		if (now < s->retry_at) {
			s->failed = 1;	/* keeps its last names */
			continue;
		}
		if (!(s->present = container_src_probe(s)))
			continue;
		ct.pending++;
		if (s->after != NULL && s->after->req != NULL)
			s->deferred = 1;
		else
			container_src_start(s);
	}
	if (--ct.pending == 0)
		container_refresh_end();
}

static void
container_later_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (ct.nwant > 0)
		container_refresh();
}

static int
container_ctrd_present(void)
{
	size_t i;

	for (i = 0; i < ct.nsrc; i++)
		if (ct.src[i].kind == CONTAINER_CTRD && ct.src[i].present)
			return (1);
	return (0);
}

const char *
container_name_for_key(const char *key)
{
	struct container_entry *e;
	size_t i;

	if (!ct.on || *key == '\0')
		return ("");
	if ((e = container_table_find(&ct.cur, key)) != NULL)
		return (e->name);
	/* A /<ns>/<id> path is only worth a refresh when containerd runs. */
	if (strchr(key, '/') != NULL && !container_ctrd_present())
		return ("");
	for (i = 0; i < ct.nwant; i++)
		if (strcmp(ct.want[i], key) == 0)
			return ("");
	if (ct.nwant < CONTAINER_WANT_MAX) {
		ct.want = xreallocarray(ct.want, ct.nwant + 1,
		    sizeof(*ct.want));
		ct.want[ct.nwant++] = xstrdup(key);
	}
	container_refresh();
	return ("");
}

const char *
container_name_for_id(const char *id)
{
	return (container_name_for_key(id));
}

int
container_refreshing(void)
{
	return (ct.refreshing);
}

/* The PID's lookup key, from the cache or /proc/PID/cgroup; NULL: gone. */
static const char *
container_pid_key(int32_t pid)
{
	struct container_pid *p = &ct.pids[(uint32_t)pid %
				    CONTAINER_PID_SLOTS];
	struct gp_open_spec spec;
	char path[64], buf[8192], key[CONTAINER_KEY_MAX];
	time_t now = container_now();
	ssize_t n;

	if (p->key != NULL && p->pid == pid && now - p->t <
	    CONTAINER_PID_TTL_S)
		return (p->key);
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	spec = (struct gp_open_spec){
		.size = sizeof(spec),
		.path = path,
		.owner = -1,
	};
	if ((n = safeopen_read(&spec, buf, sizeof(buf))) < 0)
		return (NULL);
	if (container_key_parse(buf, (size_t)n, key) != 0)
		key[0] = '\0';
	free(p->key);
	p->key = xstrdup(key);
	p->pid = pid;
	p->t = now;
	return (p->key);
}

/* run_hooks.container_name. */
const char *
container_name_for_pid(int32_t pid, void *arg)
{
	const char *key;

	(void)arg;
	if (!ct.on || pid <= 0 || (key = container_pid_key(pid)) == NULL)
		return ("");
	return (container_name_for_key(key));
}

/* host: also look for path under the host root, first. */
static void
container_src_add(const char *what, enum container_kind kind,
    const char *path, int host)
{
	struct container_src *s = &ct.src[ct.nsrc++];
	char buf[256];

	s->what = what;
	s->kind = kind;
	if (host) {
		snprintf(buf, sizeof(buf), "%s%s", HOST, path);
		s->paths[0] = xstrdup(buf);
		s->paths[1] = xstrdup(path);
	} else
		s->paths[0] = xstrdup(path);
	s->sock = s->paths[0];
}

int
container_init_socks(struct event_base *base, const struct container_socks *cs)
{
	struct container_src *cri = NULL;
	size_t i;

	container_fini();
	ct.base = base;
	ct.timeout_ms = cs->timeout_ms ? cs->timeout_ms : CONTAINER_TIMEOUT_MS;
	/* In precedence order: Docker's answer wins (§9.2). */
	if (cs->docker != NULL)
		container_src_add("Docker", CONTAINER_DOCKER_API, cs->docker,
		    cs->host);
	if (cs->podman != NULL)
		container_src_add("podman", CONTAINER_DOCKER_API, cs->podman,
		    cs->host);
	if (cs->containerd != NULL) {
		container_src_add("CRI (containerd)", CONTAINER_CRI,
		    cs->containerd, cs->host);
		cri = &ct.src[ct.nsrc - 1];
	}
	if (cs->crio != NULL)
		container_src_add("CRI (CRI-O)", CONTAINER_CRI, cs->crio,
		    cs->host);
	if (cs->containerd != NULL) {
		container_src_add("containerd", CONTAINER_CTRD,
		    cs->containerd, cs->host);
		ct.src[ct.nsrc - 1].after = cri;
	}
	for (i = 0; i < ct.nsrc; i++)
		if ((ct.src[i].present = container_src_probe(&ct.src[i])))
			log_debug("container: %s at %s", ct.src[i].what,
			    ct.src[i].sock);
	if (http_init(base) != 0)
		return (-EIO);
	ct.later = evtimer_new(base, container_later_cb, NULL);
	ct.on = 1;
	/* Warm the table before the first cycle needs it. */
	for (i = 0; i < ct.nsrc; i++)
		if (ct.src[i].present) {
			container_refresh();
			break;
		}
	return (0);
}

/* Names from every runtime on the host (docker_sock: Docker's elsewhere). */
int
container_init(struct event_base *base, const char *docker_sock)
{
	struct container_socks cs = {
		.docker = docker_sock != NULL ? docker_sock :
		    "/var/run/docker.sock",
		.podman = "/run/podman/podman.sock",
		.containerd = "/run/containerd/containerd.sock",
		.crio = "/var/run/crio/crio.sock",
		.host = 1,
	};

	return (container_init_socks(base, &cs));
}

void
container_fini(void)
{
	size_t i;

	for (i = 0; i < ct.nsrc; i++) {
		http_cancel(ct.src[i].req);
		free(ct.src[i].paths[0]);
		free(ct.src[i].paths[1]);
		container_strv_free(ct.src[i].ns);
	}
	for (i = 0; i < CONTAINER_PID_SLOTS; i++)
		free(ct.pids[i].key);
	if (ct.later != NULL)
		event_free(ct.later);
	container_table_free(&ct.cur);
	container_table_free(&ct.next);
	container_want_clear(ct.nwant);
	free(ct.want);
	memset(&ct, 0, sizeof(ct));
}
