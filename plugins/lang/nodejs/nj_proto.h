/*
 * Pure parsers and builders for --nodejs-mode attach-maps: what the agent
 * reads from a node process (its command line and environment, its
 * network namespace's /proc/net/tcp) and what the inspector answers (the
 * HTTP reply of GET /json/list, WebSocket frames, the Chrome DevTools
 * Protocol reply).  Functions over bytes only: no I/O, unit tested and
 * fuzzed (fuzz/fuzz_nodejs_proto.c).
 */
#ifndef NJ_PROTO_H
#define NJ_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define NJ_INSPECT_PORT	9229	/* what SIGUSR1 opens (node's default) */

/* Why a node process is left alone, from its NUL-separated argv or
 * environ (only NODE_OPTIONS is read there). */
#define NJ_ARGS_PLAIN		0	/* nothing in the way */
#define NJ_ARGS_PERFMAP		1	/* --perf-basic-prof/--perf-prof: it
					 * already writes a map */
#define NJ_ARGS_INSPECT		2	/* --inspect*, --debug-port: the
					 * user's own inspector */
int nj_args_check(const char *buf, size_t len, int is_environ);

/* From /proc/PID/status: the effective uid and gid, and whether the
 * process catches SIGUSR1 (SigCgt): 0, or -EPROTO when a field is
 * missing. */
int nj_status_parse(const char *buf, size_t len, uint32_t *uid,
	    uint32_t *gid, int *catches_usr1);

/* The four uids of /proc/PID/status's Uid line (real, effective, saved,
 * filesystem): 0, or -EPROTO. */
int nj_status_uids(const char *buf, size_t len, uint32_t uids[4]);

/* Whether /proc/net/tcp or tcp6 text has a listening socket on `port`:
 * 1 yes, 0 no. */
int nj_tcp_listening(const char *buf, size_t len, unsigned port);

/* One socket line of /proc/net/tcp or tcp6. */
struct nj_tcp_sock {
	uint8_t laddr[16];	/* network byte order; IPv4 in 0..3 */
	uint8_t raddr[16];
	unsigned alen;	/* 4 (tcp) or 16 (tcp6) */
	unsigned lport, rport;
	unsigned state;	/* NJ_TCP_* */
	uint32_t uid;
	uint64_t inode;	/* 0: not (yet) owned by a descriptor */
};
#define NJ_TCP_ESTABLISHED	0x01
#define NJ_TCP_LISTEN		0x0a
/*
 * The next socket of /proc/net/tcp{,6} text from *off, which is moved past
 * its line: 1 and *s; 0 when no complete line is left (a caller reading
 * in pieces keeps the bytes from *off).  The header and lines that do not
 * parse are skipped.
 */
int nj_tcp_next(const char *buf, size_t len, size_t *off,
	    struct nj_tcp_sock *s);
/*
 * Whether s is what reaches node's inspector on 127.0.0.1:port: with
 * peer_port 0, a listener on that port that a connection to 127.0.0.1
 * reaches (127.0.0.1, 0.0.0.0, ::, ::ffff:127.0.0.1, ::ffff:0.0.0.0);
 * otherwise the accepted end of the connection from 127.0.0.1:peer_port
 * to it.
 */
int nj_tcp_is_inspector(const struct nj_tcp_sock *s, unsigned port,
	    unsigned peer_port);
/* The inode of a /proc/PID/fd link "socket:[N]": 0 and *ino; -EINVAL
 * for anything else. */
int nj_fd_socket_inode(const char *link, size_t len, uint64_t *ino);

/*
 * The HTTP reply to GET /json/list: the WebSocket path ("/<uuid>") of the
 * first target whose webSocketDebuggerUrl is ws://127.0.0.1:PORT/..., into
 * path.  0; -EAGAIN the reply is incomplete; -EPROTO not a 200 JSON list
 * of inspector targets.
 */
int nj_http_json_list(const char *buf, size_t len, unsigned port,
	    char *path, size_t pathlen);

/* Whether buf holds a complete "HTTP/1.1 101" WebSocket upgrade reply:
 * its header length (> 0); -EAGAIN incomplete; -EPROTO refused. */
int nj_http_upgrade(const char *buf, size_t len);

/* One WebSocket frame parsed from buf. */
struct nj_ws_frame {
	unsigned fin;
	unsigned opcode;	/* 1 text, 8 close, 9 ping, 10 pong */
	size_t off;		/* payload offset in buf */
	size_t len;		/* payload length */
	size_t total;		/* bytes of the whole frame */
};
#define NJ_WS_MAX_PAYLOAD	(1u << 20)
/* 0 and *f; -EAGAIN more bytes needed; -EPROTO bad or oversized frame.
 * A masked frame (servers never send one) is refused. */
int nj_ws_parse(const uint8_t *buf, size_t len, struct nj_ws_frame *f);
/* A masked client text frame with `payload` into out (which needs
 * len + 14 bytes): its size, or 0 when out is too small. */
size_t nj_ws_build_text(const char *payload, size_t len, uint32_t mask,
	    uint8_t *out, size_t outlen);

/*
 * A CDP message: if it is the reply to request `id` of Runtime.evaluate
 * whose result is a string, that string into out and 1; 0 when the
 * message is something else (an event, another id); -EPROTO when the
 * reply is an exception, an error or not a string (out holds why).
 */
int nj_cdp_result(const char *msg, size_t len, int id, char *out,
	    size_t outlen);

#endif /* NJ_PROTO_H */
