/*
 * nodejs-attach PID STARTTIME WRITER: the short-lived helper that the
 * nodejs plugin spawns for --nodejs-mode attach-maps, so that nothing on
 * the agent's loop blocks (connect, DNS-free but slow HTTP, timeouts).
 *
 * In order: check that PID is still the process the plugin chose (its
 * start time), enter its network namespace (its 127.0.0.1), become its
 * user, send SIGUSR1 (node opens its inspector on 127.0.0.1:9229), prove
 * that the listener on 9229 is one of the target's own descriptors, find
 * the WebSocket URL (GET /json/list), copy the perf map writer into the
 * target's /tmp, evaluate one expression that checks the V8 version,
 * loads the writer with process.dlopen() and closes the inspector again
 * (process._debugEnd() in a second request), then check that the port
 * is closed and remove the copied file (the mapping stays).
 *
 * Whoever else can bind 127.0.0.1:9229 in that namespace could take the
 * port before node does and answer in its place: every connection is
 * checked on both ends, before anything is sent (nja_owned): the
 * listener, then the accepted end of our own connection, must be sockets
 * of the target (an inode among /proc/PID/fd), or the helper refuses.
 * The writer is copied only once node's inspector is proven, so its
 * appearance in /tmp tells nobody when to race for the port.
 *
 * Prints "copy NAME DEV INO" before it creates the copy (the agent
 * removes it through a directory descriptor of its own if this helper
 * is killed before it could), then one line: "ok ...", "refused: ..." or
 * "error: ...", and exits 0 only for "ok".  Every step is bounded by a
 * deadline, and the whole run by NJA_TOTAL_MS.
 */
#include "config.h"

#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <linux/openat2.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clockns.h"
#include "nj_proto.h"
#include "procstat.h"

#define NJA_TOTAL_MS	6000	/* the whole run (the agent stops us at
				 * NJ_HELPER_MS, 8 s) */
#define NJA_OPEN_MS	4000	/* for the inspector to listen */
#define NJA_ACCEPT_MS	1000	/* for node to accept our connection */
#define NJA_REPLY_MS	3000	/* for the expression's reply */
#define NJA_CLOSE_MS	2000	/* for the port to close again */
#define NJA_IO_MS	1000	/* one read or write */
#define NJA_POLL_MS	20	/* between looks at /proc/net/tcp */
#define NJA_BUF		(64 * 1024)
#define NJA_SO_MAX	(4 * 1024 * 1024)
#define NJA_MATCH_MAX	16	/* sockets on port 9229 we look for */

/* The V8 major whose struct JitCodeEvent layout nj_writer.c was
 * checked against. */
#define NJA_V8_MAJOR	"11"

static int nja_pid;
static int nja_procfd = -1;	/* /proc/PID, pinned to the process */
static int nja_tmpfd = -1;	/* the target's /tmp (O_PATH) */
static char nja_copy[64];		/* the copy's name in it, once made */
static char nja_target_so[96];	/* the copy, as the target names it */
static int nja_ws = -1;		/* the WebSocket, until closed */
static uint32_t nja_mask;
static int nja_signalled;		/* SIGUSR1 was sent */
static uint64_t nja_end;		/* NJA_TOTAL_MS after the start */
static volatile sig_atomic_t nja_term;	/* the agent asked us to stop */

static void nja_close_inspector(void);

static void __attribute__((noreturn, format(printf, 2, 3)))
nja_exit(int code, const char *fmt, ...)
{
	va_list ap;

	/* Through the directory held since the start: the copy goes even
	 * if the target died meanwhile. */
	if (nja_copy[0] != '\0')
		(void)unlinkat(nja_tmpfd, nja_copy, 0);
	/* On every failure after the signal: close what it opened. */
	if (nja_ws != -1)
		nja_close_inspector();
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (code != 0 && nja_signalled && nja_ws == -1 && nja_mask == 0)
		printf(" (SIGUSR1 was sent: if node opens its inspector "
		    "later, it stays open)");
	putchar('\n');
	fflush(stdout);
	exit(code);
}

/* SIGTERM from the agent (its timeout, its stop): the blocking call in
 * progress returns EINTR (no SA_RESTART) and the step fails, through
 * nja_exit, which closes the inspector if it was opened. */
static void
nja_on_term(int sig)
{
	(void)sig;
	nja_term = 1;
}

static void
nja_check_term(void)
{
	if (nja_term)
		nja_exit(1, "error: stopped by the agent");
}

static uint64_t
nja_now_ms(void)
{
	return (clock_ns(CLOCK_MONOTONIC) / 1000000);
}

/* now + ms, but never past the end of the whole run. */
static uint64_t
nja_deadline(uint64_t ms)
{
	uint64_t d = nja_now_ms() + ms;

	return (d < nja_end ? d : nja_end);
}

/* A file under /proc/PID (the directory opened at the start: a new
 * process with the same PID is never read). */
static ssize_t
nja_read_proc(const char *what, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd;

	if ((fd = openat(nja_procfd, what, O_RDONLY | O_CLOEXEC |
	    O_NOFOLLOW)) == -1)
		return (-1);
	while ((size_t)got < len - 1 &&
	    (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return (got);
}

/* The start time (field 22 of /proc/PID/stat; 0 if unread) and the state
 * (field 3) into *state. */
static unsigned long long
nja_starttime(char *state)
{
	char buf[1024];
	uint64_t start = 0;
	ssize_t n;

	*state = '?';
	if ((n = nja_read_proc("stat", buf, sizeof(buf))) <= 0)
		return (0);
	(void)procstat_state(buf, (size_t)n, state);
	(void)procstat_u64(buf, (size_t)n, 22, &start);
	return (start);
}

struct nja_match {
	uint64_t inode;
	uint32_t uid;
	int found;	/* among the target's descriptors */
};

/* The sockets of one /proc/PID/net table that nj_tcp_is_inspector()
 * matches, appended to m; -1 when there are more than NJA_MATCH_MAX. */
static int
nja_tcp_scan(const char *table, unsigned peer_port, struct nja_match *m,
    size_t *nm)
{
	static char buf[NJA_BUF];
	struct nj_tcp_sock s;
	size_t got = 0, off;
	ssize_t n;
	int fd, rc = 0;

	if ((fd = openat(nja_procfd, table, O_RDONLY | O_CLOEXEC |
	    O_NOFOLLOW)) == -1)
		return (errno == ENOENT ? 0 : -1);	/* no IPv6 */
	while ((n = read(fd, buf + got, sizeof(buf) - got)) > 0) {
		got += (size_t)n;
		off = 0;
		while (nj_tcp_next(buf, got, &off, &s) == 1) {
			if (!nj_tcp_is_inspector(&s, NJ_INSPECT_PORT,
			    peer_port))
				continue;
			if (*nm == NJA_MATCH_MAX) {
				rc = -1;
				goto out;
			}
			m[*nm].inode = s.inode;
			m[*nm].uid = s.uid;
			m[(*nm)++].found = 0;
		}
		/* Keep the torn line; one that fills the buffer is no
		 * line of this table. */
		if (off == 0 && got == sizeof(buf))
			off = got;
		memmove(buf, buf + off, got - off);
		got -= off;
	}
out:
	close(fd);
	return (rc);
}

/*
 * Whether what answers on 127.0.0.1:9229 in the namespace is the
 * target's: with peer_port 0 the listeners on the port, otherwise the
 * accepted end of our connection from peer_port.  1: found, and every
 * one is a socket among the target's descriptors; 0: none yet (or not
 * yet accepted); -1: another's (why says whose), or it cannot be told.
 */
static int
nja_owned(unsigned peer_port, char *why, size_t whylen)
{
	struct nja_match m[NJA_MATCH_MAX];
	struct dirent *de;
	char link[64];
	uint64_t ino;
	size_t nm = 0, i, left;
	ssize_t len;
	DIR *d;
	int dfd;

	if (nja_tcp_scan("net/tcp", peer_port, m, &nm) != 0 ||
	    nja_tcp_scan("net/tcp6", peer_port, m, &nm) != 0) {
		snprintf(why, whylen, "the process's /proc/net/tcp cannot be "
		    "read, or holds over %d sockets on port %u",
		    NJA_MATCH_MAX, NJ_INSPECT_PORT);
		return (-1);
	}
	if (nm == 0)
		return (0);
	for (i = 0; i < nm; i++)
		if (m[i].inode == 0)
			return (0);	/* in the accept queue */
	if ((dfd = openat(nja_procfd, "fd", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (d = fdopendir(dfd)) == NULL) {
		if (dfd != -1)
			close(dfd);
		snprintf(why, whylen, "its descriptors cannot be read "
		    "(/proc/%d/fd: %s), so who holds port %u cannot be told",
		    nja_pid, strerror(errno), NJ_INSPECT_PORT);
		return (-1);
	}
	left = nm;
	while (left > 0 && !nja_term && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || (len = readlinkat(dfd, de->d_name,
		    link, sizeof(link))) <= 0 || (size_t)len >= sizeof(link) ||
		    nj_fd_socket_inode(link, (size_t)len, &ino) != 0)
			continue;
		for (i = 0; i < nm; i++)
			if (!m[i].found && m[i].inode == ino) {
				m[i].found = 1;
				left--;
			}
	}
	closedir(d);
	nja_check_term();
	for (i = 0; i < nm; i++)
		if (!m[i].found) {
			snprintf(why, whylen, "%s on 127.0.0.1:%u in its network "
			    "namespace is socket %llu of uid %u, not one of the "
			    "process's own descriptors: another process holds "
			    "the port", peer_port == 0 ? "the listener" :
			    "the end that accepted our connection",
			    NJ_INSPECT_PORT, (unsigned long long)m[i].inode,
			    m[i].uid);
			return (-1);
		}
	return (1);
}

/* A TCP connection to 127.0.0.1:port with I/O timeouts; -1 and errno. */
static int
nja_connect(unsigned port)
{
	struct sockaddr_in sa;
	struct timeval tv = { NJA_IO_MS / 1000,
	    (NJA_IO_MS % 1000) * 1000 };
	int s;

	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return (-1);
	(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
		int e = errno;

		close(s);
		errno = e;
		return (-1);
	}
	return (s);
}

/*
 * A connection to the inspector, proven to be node's before a byte is
 * sent: the listener is the target's, then so is the end that accepted
 * this very connection (a listener that changed in between is caught by
 * the second look).
 */
static int
nja_connect_owned(void)
{
	struct sockaddr_in me;
	socklen_t ml = sizeof(me);
	uint64_t deadline;
	char why[256];
	int s, r;

	if ((r = nja_owned(0, why, sizeof(why))) != 1)
		nja_exit(1, "refused: %s", r == 0 ? "node's inspector "
		    "closed before it was used" : why);
	if ((s = nja_connect(NJ_INSPECT_PORT)) == -1)
		nja_exit(1, "error: cannot connect to the inspector: %s",
		    strerror(errno));
	if (getsockname(s, (struct sockaddr *)&me, &ml) == -1)
		nja_exit(1, "error: getsockname: %s", strerror(errno));
	deadline = nja_deadline(NJA_ACCEPT_MS);
	while ((r = nja_owned(ntohs(me.sin_port), why, sizeof(why))) == 0) {
		nja_check_term();
		if (nja_now_ms() > deadline)
			nja_exit(1, "error: node did not accept the inspector "
			    "connection within %u ms", NJA_ACCEPT_MS);
		(void)poll(NULL, 0, 5);
	}
	if (r != 1)
		nja_exit(1, "refused: %s", why);
	return (s);
}

static int
nja_send_all(int s, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		if ((n = send(s, p, len, MSG_NOSIGNAL)) <= 0)
			return (-1);
		p += n;
		len -= (size_t)n;
	}
	return (0);
}

/* GET /json/list: the WebSocket path of the target. */
static void
nja_json_list(char *path, size_t pathlen)
{
	static char buf[NJA_BUF];
	const char req[] = "GET /json/list HTTP/1.1\r\n"
	    "Host: 127.0.0.1:9229\r\nConnection: close\r\n\r\n";
	size_t got = 0;
	ssize_t n;
	int s, rc = -EAGAIN;

	s = nja_connect_owned();
	if (nja_send_all(s, req, sizeof(req) - 1) == -1)
		nja_exit(1, "error: cannot ask the inspector: %s",
		    strerror(errno));
	while (got < sizeof(buf) &&
	    (n = recv(s, buf + got, sizeof(buf) - got, 0)) > 0) {
		got += (size_t)n;
		if ((rc = nj_http_json_list(buf, got, NJ_INSPECT_PORT, path,
		    pathlen)) != -EAGAIN)
			break;
	}
	close(s);
	nja_check_term();
	if (rc != 0)
		nja_exit(1, "error: port %u does not answer as node's "
		    "inspector (GET /json/list)", NJ_INSPECT_PORT);
}

static void
nja_base64(const uint8_t *in, size_t n, char *out)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i, o = 0;
	uint32_t v;

	for (i = 0; i + 2 < n; i += 3) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		out[o++] = t[v >> 18 & 63];
		out[o++] = t[v >> 12 & 63];
		out[o++] = t[v >> 6 & 63];
		out[o++] = t[v & 63];
	}
	if (n - i == 1) {
		v = (uint32_t)in[i] << 16;
		out[o++] = t[v >> 18 & 63];
		out[o++] = t[v >> 12 & 63];
		out[o++] = '=';
		out[o++] = '=';
	}
	out[o] = '\0';
}

/*
 * Close the inspector from inside, in its own request: the reply to it is
 * never sent (the session ends with it), and it works while node's loop
 * is busy (a setImmediate() would wait for the loop).  The caller then
 * checks that the port is closed.
 */
static void
nja_close_inspector(void)
{
	static const char msg[] = "{\"id\":2,\"method\":\"Runtime.evaluate\","
	    "\"params\":{\"expression\":\"try{process._debugEnd()}"
	    "catch(e){}\"}}";
	uint8_t frame[sizeof(msg) + 14];
	size_t fl;
	int s = nja_ws;

	nja_ws = -1;
	if ((fl = nj_ws_build_text(msg, sizeof(msg) - 1, nja_mask, frame,
	    sizeof(frame))) != 0)
		(void)nja_send_all(s, frame, fl);
	(void)poll(NULL, 0, 100);
	/* A close frame, then the socket. */
	frame[0] = 0x88;
	frame[1] = 0x80;
	memcpy(frame + 2, &nja_mask, 4);
	(void)nja_send_all(s, frame, 6);
	close(s);
}

/* Runtime.evaluate of the loader over a WebSocket on `path`. */
static void
nja_evaluate(const char *path, char *result, size_t reslen)
{
	static char req[2048], expr[1536], msg[4096];
	static uint8_t buf[NJA_BUF], frame[4096 + 14];
	struct nj_ws_frame f;
	uint8_t key[16];
	char key64[32];
	uint32_t mask;
	uint64_t deadline;
	size_t got = 0, fl;
	ssize_t n;
	int s, h, rc, len;

	if (getrandom(key, sizeof(key), 0) != sizeof(key) ||
	    getrandom(&mask, sizeof(mask), 0) != sizeof(mask))
		nja_exit(1, "error: getrandom: %s", strerror(errno));
	nja_base64(key, sizeof(key), key64);
	len = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\n"
	    "Host: 127.0.0.1:%u\r\nUpgrade: websocket\r\n"
	    "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
	    "Sec-WebSocket-Version: 13\r\n\r\n", path, NJ_INSPECT_PORT, key64);
	s = nja_connect_owned();
	if (nja_send_all(s, req, (size_t)len) == -1)
		nja_exit(1, "error: WebSocket upgrade: %s", strerror(errno));
	h = -EAGAIN;
	while (h == -EAGAIN && got < sizeof(buf) &&
	    (n = recv(s, buf + got, sizeof(buf) - got, 0)) > 0) {
		got += (size_t)n;
		h = nj_http_upgrade((const char *)buf, got);
	}
	if (h < 0)
		nja_exit(1, "error: the inspector refused the WebSocket");
	memmove(buf, buf + h, got - (size_t)h);
	got -= (size_t)h;
	nja_ws = s;
	nja_mask = mask | 1;	/* never 0: 0 means "not upgraded" above */

	/*
	 * The loader.  It runs in the target: it refuses V8 versions the
	 * writer was not checked against and loads the writer once per
	 * process (a marker on globalThis).  It first turns off the
	 * compaction of V8's code space, as --perf-basic-prof does at
	 * start-up: compaction moves compiled code, and a map entry for
	 * the old address would name nothing.  `require` is the inspector
	 * command line API's (includeCommandLineAPI).
	 */
	len = snprintf(expr, sizeof(expr),
	    "(function(){var r,k=Symbol.for('gprofiler.nodejs.perfmap');"
	    "try{var v=String(process.versions.v8);"
	    "if(globalThis[k])r='ok (the writer was already loaded)';"
	    "else if(v.split('.')[0]!=='%s')r='refused: V8 '+v+' (node '+"
	    "process.version+') is not a version the perf map writer was "
	    "checked against (V8 11, node 20)';"
	    "else{var c=typeof require==='function';"
	    "if(c)require('v8').setFlagsFromString('--no-compact-code-space');"
	    "var m={exports:{}};process.dlopen(m,'%s');"
	    "if(m.exports.ok){globalThis[k]=true;r='ok node '+"
	    "process.version+(c?'':', but code space compaction stays on "
	    "(no require in the inspector): names of code moved by a "
	    "compacting GC go stale');}else r='error: '+m.exports.error;}"
	    "}catch(e){r='error: '+String(e&&e.message||e);}"
	    "return r;})()", NJA_V8_MAJOR, nja_target_so);
	if (len < 0 || (size_t)len >= sizeof(expr))
		nja_exit(1, "error: expression too long");
	len = snprintf(msg, sizeof(msg), "{\"id\":1,\"method\":"
	    "\"Runtime.evaluate\",\"params\":{\"expression\":\"%s\","
	    "\"includeCommandLineAPI\":true,\"returnByValue\":true}}", expr);
	if (len < 0 || (size_t)len >= sizeof(msg) ||
	    (fl = nj_ws_build_text(msg, (size_t)len, mask, frame,
	    sizeof(frame))) == 0)
		nja_exit(1, "error: request too long");
	if (nja_send_all(s, frame, fl) == -1)
		nja_exit(1, "error: sending the expression: %s",
		    strerror(errno));
	deadline = nja_deadline(NJA_REPLY_MS);
	for (;;) {
		while ((rc = nj_ws_parse(buf, got, &f)) == 0) {
			if (f.opcode == 8)
				nja_exit(1, "error: the inspector closed the "
				    "WebSocket before answering");
			if (f.opcode == 1 && f.fin) {
				rc = nj_cdp_result((const char *)buf + f.off,
				    f.len, 1, result, reslen);
				if (rc != 0)
					goto done;
			}
			memmove(buf, buf + f.total, got - f.total);
			got -= f.total;
		}
		if (rc != -EAGAIN)
			nja_exit(1, "error: bad WebSocket frame from the "
			    "inspector");
		nja_check_term();
		if (nja_now_ms() > deadline || got == sizeof(buf))
			nja_exit(1, "error: no reply from the inspector "
			    "within %u ms", NJA_REPLY_MS);
		if ((n = recv(s, buf + got, sizeof(buf) - got, 0)) <= 0)
			nja_exit(1, "error: the inspector connection ended "
			    "before the reply");
		got += (size_t)n;
	}
done:
	nja_close_inspector();
	if (rc < 0)
		nja_exit(1, "error: %s", result);
}

/*
 * The target's /tmp, as the target resolves it (inside its root, as its
 * user), held open for the whole run: the copy is created and removed
 * through it, even after the target died.
 */
static void
nja_open_tmp(void)
{
	struct open_how how;
	int rootfd;

	if ((rootfd = openat(nja_procfd, "root", O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		nja_exit(1, "error: cannot open the process's root: %s",
		    strerror(errno));
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	nja_tmpfd = (int)syscall(SYS_openat2, rootfd, "tmp", &how,
	    sizeof(how));
	if (nja_tmpfd == -1 && errno == ENOSYS)
		nja_tmpfd = openat(rootfd, "tmp", O_PATH | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
	if (nja_tmpfd == -1)
		nja_exit(1, "error: cannot open the process's /tmp: %s",
		    strerror(errno));
	close(rootfd);
}

/* Copy the writer (wfd, opened as root) into the target's /tmp as the
 * target's user, under a name nobody can guess, announced to the agent
 * first. */
static void
nja_copy_writer(int wfd, const char *src)
{
	static char data[NJA_SO_MAX];
	struct stat st;
	uint64_t r;
	ssize_t n;
	size_t got = 0;
	int fd;

	while (got < sizeof(data) &&
	    (n = read(wfd, data + got, sizeof(data) - got)) > 0)
		got += (size_t)n;
	close(wfd);
	if (got == 0 || got == sizeof(data))
		nja_exit(1, "error: %s: unreadable or too large", src);
	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		nja_exit(1, "error: getrandom: %s", strerror(errno));
	if (fstat(nja_tmpfd, &st) == -1)
		nja_exit(1, "error: the process's /tmp: %s", strerror(errno));
	snprintf(nja_copy, sizeof(nja_copy),
	    ".gprofiler-nodejs-perfmap-%d-%016llx.so", nja_pid,
	    (unsigned long long)r);
	snprintf(nja_target_so, sizeof(nja_target_so), "/tmp/%s", nja_copy);
	printf("copy %s %llu %llu\n", nja_copy, (unsigned long long)st.st_dev,
	    (unsigned long long)st.st_ino);
	fflush(stdout);
	fd = openat(nja_tmpfd, nja_copy, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1) {
		int e = errno;

		nja_copy[0] = '\0';
		nja_exit(1, "error: cannot create %s in the process's /tmp: %s",
		    nja_target_so, strerror(e));
	}
	if (write(fd, data, got) != (ssize_t)got || close(fd) == -1)
		nja_exit(1, "error: writing %s: %s", nja_target_so,
		    strerror(errno));
}

int
main(int argc, char **argv)
{
	char path[128], status[4096], result[512];
	char why[256];
	unsigned long long start;
	uint32_t uid, gid;
	uint64_t deadline, t0;
	int nsfd, wfd, usr1, r;
	char state;
	struct sigaction sa;

	nja_end = nja_now_ms() + NJA_TOTAL_MS;
	if (argc != 4)
		nja_exit(2, "error: usage: nodejs-attach PID STARTTIME WRITER");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nja_on_term;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGINT, &sa, NULL);
	nja_pid = atoi(argv[1]);
	start = strtoull(argv[2], NULL, 10);
	snprintf(path, sizeof(path), "/proc/%d", nja_pid);
	if (nja_pid <= 0 || (nja_procfd = open(path, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || nja_starttime(&state) != start)
		nja_exit(1, "error: the process is gone or was replaced");
	/* A stopped process would open its inspector only when continued,
	 * maybe long after this helper gave up: it would stay open. */
	if (state == 'T' || state == 't' || state == 'Z')
		nja_exit(1, "refused: the process is stopped or traced "
		    "(state %c)", state);
	if (nja_read_proc("status", status, sizeof(status)) <= 0 ||
	    nj_status_parse(status, strlen(status), &uid, &gid, &usr1) != 0)
		nja_exit(1, "error: cannot read /proc/%d/status", nja_pid);
	if (!usr1)
		nja_exit(1, "refused: the process does not handle SIGUSR1 "
		    "(no inspector, or --disable-sigusr1)");
	if ((wfd = open(argv[3], O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		nja_exit(1, "error: %s: %s", argv[3], strerror(errno));

	if ((nsfd = openat(nja_procfd, "ns/net", O_RDONLY | O_CLOEXEC)) == -1 ||
	    setns(nsfd, CLONE_NEWNET) == -1)
		nja_exit(1, "error: cannot enter the network namespace "
		    "(/proc/%d/ns/net): %s", nja_pid, strerror(errno));
	close(nsfd);
	/* From here on only what the target's own user could do. */
	if (setgroups(0, NULL) == -1 || setresgid(gid, gid, gid) == -1 ||
	    setresuid(uid, uid, uid) == -1)
		nja_exit(1, "error: cannot become uid %u: %s", uid,
		    strerror(errno));
	nja_open_tmp();
	/* Checked again in the namespace, just before the signal. */
	if ((r = nja_owned(0, why, sizeof(why))) != 0)
		nja_exit(1, "refused: port %u is already in use in the "
		    "process's network namespace%s", NJ_INSPECT_PORT,
		    r == 1 ? " (by the process itself)" : "");

	if (nja_starttime(&state) != start || state == 'T' ||
	    state == 't' || kill(nja_pid, SIGUSR1) == -1)
		nja_exit(1, "error: the process is gone or was replaced");
	nja_signalled = 1;
	t0 = nja_now_ms();
	deadline = nja_deadline(NJA_OPEN_MS);
	while ((r = nja_owned(0, why, sizeof(why))) == 0) {
		nja_check_term();
		if (nja_now_ms() > deadline)
			nja_exit(1, "error: no inspector on 127.0.0.1:%u "
			    "within %u ms of SIGUSR1", NJ_INSPECT_PORT,
			    (unsigned)(deadline - t0));
		(void)poll(NULL, 0, NJA_POLL_MS);
	}
	if (r != 1)
		nja_exit(1, "refused: %s", why);
	nja_json_list(path, sizeof(path));
	nja_copy_writer(wfd, argv[3]);
	nja_evaluate(path, result, sizeof(result));

	/* The second request closed the inspector: until nothing listens
	 * on the port (a listener that is no longer among node's
	 * descriptors may be node's still, shared or being closed). */
	deadline = nja_deadline(NJA_CLOSE_MS);
	while ((r = nja_owned(0, why, sizeof(why))) != 0) {
		nja_check_term();
		if (nja_now_ms() > deadline)
			nja_exit(1, "error: %s, but %s", result, r == 1 ?
			    "the inspector is still open on 127.0.0.1:9229" :
			    why);
		(void)poll(NULL, 0, NJA_POLL_MS);
	}
	nja_exit(strncmp(result, "ok", 2) == 0 ? 0 : 1, "%s", result);
}
