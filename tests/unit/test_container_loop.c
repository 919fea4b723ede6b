/*
 * container.c in the loop against runtime sockets that misbehave: one that
 * accepts and never answers (Docker API and gRPC), one that answers
 * garbage, one with 10,000 containers.  Bounded time, the loop keeps
 * turning (a 20 ms ticker measures the longest stall), names stay empty
 * where nothing is known, unknown ids are cached as none.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/log.h"
#include "meta/container.h"
#include "meta/meta.h"
#include "testing.h"

#define NBIG	10000
#define ID_UNKNOWN \
    "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"

static struct event_base *base;
static double max_gap, last_tick;

static char logged[2048];

/* Keeps the container lines logged (the sink sees every record). */
static void
log_keep(int level, const char *component, const char *msg, void *arg)
{
	size_t n = strlen(logged);

	(void)level;
	(void)component;
	(void)arg;
	if (strstr(msg, "container:") != NULL && n + 1 < sizeof(logged))
		snprintf(logged + n, sizeof(logged) - n, "%s\n", msg);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec + ts.tv_nsec / 1e9);
}

static void
bigid(char *id, int i)
{
	snprintf(id, 65, "%064x", i + 1);
}

static void
serve(int fd, const char *mode)
{
	char buf[4096], id[65], *body;
	size_t cap = (size_t)NBIG * 100 + 64, len = 0;
	ssize_t n;
	int i;

	n = read(fd, buf, sizeof(buf));
	(void)n;
	if (strcmp(mode, "hang") == 0) {
		pause();
		return;
	}
	if (strcmp(mode, "garbage") == 0) {
		dprintf(fd, "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n"
		    "Connection: close\r\n\r\n}{garb\001\377");
		return;
	}
	body = malloc(cap);
	len += snprintf(body + len, cap - len, "[");
	for (i = 0; i < NBIG; i++) {
		bigid(id, i);
		len += snprintf(body + len, cap - len,
		    "%s{\"Id\":\"%s\",\"Names\":[\"/c%d\"]}", i ? "," : "",
		    id, i);
	}
	len += snprintf(body + len, cap - len, "]");
	dprintf(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n", len);
	for (size_t o = 0; o < len; o += (size_t)n)
		if ((n = write(fd, body + o, len - o)) <= 0)
			break;
	free(body);
}

/* A server process on path; its pid. */
static pid_t
server_start(const char *path, const char *mode)
{
	struct sockaddr_un sun;
	pid_t pid;
	int s, c;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	unlink(path);
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(s, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(s, 16) == -1)
		return (-1);
	if ((pid = fork()) != 0) {
		close(s);
		return (pid);
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Not holding the test's output open (make check waits for EOF). */
	close(1);
	close(2);
	for (;;) {
		if ((c = accept(s, NULL, NULL)) == -1)
			_exit(1);
		if (fork() == 0) {
			/* A hanging child must not outlive the test. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			serve(c, mode);
			_exit(0);
		}
		close(c);
	}
}

static void
server_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void
tick(evutil_socket_t fd, short what, void *arg)
{
	double t = now_s();

	(void)fd;
	(void)what;
	(void)arg;
	if (last_tick > 0 && t - last_tick > max_gap)
		max_gap = t - last_tick;
	last_tick = t;
	event_base_loopbreak(base);
}

/* Turn the loop until no refresh runs (or limit s); the seconds taken. */
static double
run_until_idle(double limit)
{
	struct event *ev;
	struct timeval tv = { 0, 20000 };
	double t0 = now_s();

	max_gap = 0;
	last_tick = 0;
	ev = event_new(base, -1, EV_PERSIST, tick, NULL);
	event_add(ev, &tv);
	while (container_refreshing() && now_s() - t0 < limit)
		event_base_loop(base, 0);
	event_free(ev);
	return (now_s() - t0);
}

int
main(void)
{
	struct container_socks cs;
	char dir[] = "/tmp/gp-ct-XXXXXX", dsock[128],
				 gsock[128], id[65];
	double t;
	pid_t d, g;

	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(dir) == NULL)
		SKIP_ALL("mkdtemp");
	base = event_base_new();
	snprintf(dsock, sizeof(dsock), "%s/docker.sock", dir);
	snprintf(gsock, sizeof(gsock), "%s/containerd.sock", dir);

	/* 1. Docker and containerd sockets that accept and never answer. */
	d = server_start(dsock, "hang");
	g = server_start(gsock, "hang");
	memset(&cs, 0, sizeof(cs));
	cs.docker = dsock;
	cs.containerd = gsock;
	cs.crio = "/nonexistent/crio.sock";
	cs.timeout_ms = 700;
	CHECK_INTEQ(container_init_socks(base, &cs), 0, "init");
	CHECK(container_refreshing(), "the first refresh starts at once");
	CHECK_STREQ(container_name_for_key(ID_UNKNOWN), "",
	    "hanging runtimes: empty meanwhile");
	t = run_until_idle(10);
	printf("# hanging sockets: refresh over in %.2f s, longest loop "
	    "stall %.3f s\n", t, max_gap);
	CHECK(!container_refreshing() && t >= 0.6 && t < 3.5,
	    "hanging sockets time out (0.7 s each, v1alpha2 after v1)");
	CHECK(max_gap < 0.25, "the loop never stalls on them");
	container_fini();
	server_stop(d);
	server_stop(g);

	/* 2. Garbage from both. */
	d = server_start(dsock, "garbage");
	g = server_start(gsock, "garbage");
	CHECK_INTEQ(container_init_socks(base, &cs), 0, "init again");
	t = run_until_idle(10);
	CHECK(!container_refreshing() && t < 2, "garbage: refresh over fast");
	CHECK_STREQ(container_name_for_key(ID_UNKNOWN), "",
	    "garbage: empty name");
	container_fini();
	server_stop(d);
	server_stop(g);

	/* 3. 10,000 containers; an id none of them has. */
	d = server_start(dsock, "big");
	cs.containerd = NULL;
	CHECK_INTEQ(container_init_socks(base, &cs), 0, "init big");
	t = run_until_idle(10);
	printf("# 10000 containers: %.2f s, longest loop stall %.3f s\n", t,
	    max_gap);
	/* Bounded, not yet sliced: the JSON parse takes one loop turn. */
	CHECK(!container_refreshing() && t < 5, "10,000 containers in time");
	bigid(id, NBIG - 1);
	CHECK_STREQ(container_name_for_key(id), "c9999", "the last one named");
	bigid(id, 0);
	CHECK_STREQ(container_name_for_key(id), "c0", "the first one named");
	bigid(id, NBIG + 5);
	CHECK_STREQ(container_name_for_key(id), "", "an unknown id: empty");
	t = now_s();
	while (!container_refreshing() && now_s() - t < 10)
		event_base_loop(base, EVLOOP_ONCE);
	t = now_s() - t + run_until_idle(10);
	printf("# the held-back refresh ran after %.2f s\n", t);
	CHECK(!container_refreshing() && t >= 0.9,
	    "the miss is asked about after the minimum pause");
	CHECK_STREQ(container_name_for_key(id), "", "still unknown after it");
	CHECK(!container_refreshing(), "cached as none: no new refresh");
	bigid(id, 42);
	CHECK_STREQ(container_name_for_key(id), "c42", "others still named");
	container_fini();
	server_stop(d);

	/* 4. A socket left behind by a stopped daemon: refused, said so
	 * (libcurl's own words are "Failed to connect to localhost port
	 * 80"), and the refresh is over at once. */
	unlink(dsock);
	d = server_start(dsock, "hang");
	server_stop(d);
	log_set_sink(log_keep, NULL);
	CHECK_INTEQ(container_init_socks(base, &cs), 0, "init stale");
	t = run_until_idle(10);
	log_set_sink(NULL, NULL);
	printf("# %s", logged);
	CHECK(!container_refreshing() && t < 1, "a refusing socket: at once");
	CHECK(strstr(logged, dsock) != NULL && strstr(logged,
	    "cannot connect to the socket: Connection refused") != NULL &&
	    strstr(logged, "port 80") == NULL,
	    "the refusal is named with its socket, not as port 80");
	container_fini();

	unlink(dsock);
	unlink(gsock);
	rmdir(dir);
	event_base_free(base);
	return (testing_done());
}
