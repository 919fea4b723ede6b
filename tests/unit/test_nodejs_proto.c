/*
 * The pure parsers of --nodejs-mode attach-maps (plugins/lang/nodejs/
 * nj_proto.c) on replies captured from node 20's inspector and on
 * /proc texts of this machine's format, plus truncated and hostile input.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "testing.h"
#include "nj_proto.h"

/* As node v20.20.2 answered GET /json/list (body shortened to one
 * target, headers as sent). */
static const char LIST_BODY[] =
    "[ {\n  \"description\": \"node.js instance\",\n"
    "  \"devtoolsFrontendUrl\": \"devtools://devtools/bundled/js_app.html?"
    "experiments=true&v8only=true&ws=127.0.0.1:9229/50ef4e01-bc95-4738-"
    "96df-835b117bca1f\",\n  \"id\": \"50ef4e01-bc95-4738-96df-"
    "835b117bca1f\",\n  \"title\": \"hot.js\",\n  \"type\": \"node\",\n"
    "  \"url\": \"file:///tmp/na/hot.js\",\n  \"webSocketDebuggerUrl\": "
    "\"ws://127.0.0.1:9229/50ef4e01-bc95-4738-96df-835b117bca1f\"\n} ]\n\n";

static int
list_reply(char *out, size_t len, const char *body)
{
	return (snprintf(out, len, "HTTP/1.0 200 OK\r\nContent-Type: "
	    "application/json; charset=UTF-8\r\nCache-Control: no-cache\r\n"
	    "Content-Length: %zu\r\n\r\n%s", strlen(body), body));
}

static void
test_json_list(void)
{
	char r[2048], path[128];
	int n, i, rc;

	n = list_reply(r, sizeof(r), LIST_BODY);
	CHECK_INTEQ(nj_http_json_list(r, (size_t)n, 9229, path, sizeof(path)),
	    0, NULL);
	CHECK_STREQ(path, "/50ef4e01-bc95-4738-96df-835b117bca1f", NULL);
	for (i = 0, rc = -EAGAIN; i < n && rc == -EAGAIN; i++)
		rc = nj_http_json_list(r, (size_t)i, 9229, path, sizeof(path));
	CHECK(rc == -EAGAIN || rc == -EPROTO,
	    "every truncation of the reply: incomplete, never a path");
	CHECK_INTEQ(nj_http_json_list(r, (size_t)n, 9230, path,
	    sizeof(path)), -EPROTO, NULL);
	CHECK_INTEQ(nj_http_json_list("HTTP/1.1 404 Not Found\r\n\r\n", 26,
	    9229, path, sizeof(path)), -EPROTO, NULL);
	n = list_reply(r, sizeof(r), "[{\"webSocketDebuggerUrl\": "
	    "\"ws://127.0.0.1:9229/x HTTP/1.1\\r\\nEvil: 1\"}]");
	CHECK_INTEQ(nj_http_json_list(r, (size_t)n, 9229, path,
	    sizeof(path)), -EPROTO, NULL);
	n = list_reply(r, sizeof(r), "{\"not\": \"a list\"}");
	CHECK_INTEQ(nj_http_json_list(r, (size_t)n, 9229, path,
	    sizeof(path)), -EPROTO, NULL);
	n = list_reply(r, sizeof(r), LIST_BODY);
	CHECK_INTEQ(nj_http_json_list(r, (size_t)n, 9229, path, 8), -EPROTO, NULL);
}

static void
test_upgrade(void)
{
	static const char ok[] = "HTTP/1.1 101 Switching Protocols\r\n"
	    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
	    "Sec-WebSocket-Accept: abc=\r\n\r\n\x81\x02hi";

	CHECK_INTEQ(nj_http_upgrade(ok, sizeof(ok) - 1),
	    (int)(sizeof(ok) - 1 - 4), NULL);
	CHECK_INTEQ(nj_http_upgrade(ok, 20), -EAGAIN, NULL);
	CHECK_INTEQ(nj_http_upgrade("HTTP/1.1 400 Bad Request\r\n\r\n", 28),
	    -EPROTO, NULL);
}

static void
test_ws(void)
{
	uint8_t out[300], big[70000 + 14];
	char payload[200];
	struct nj_ws_frame f;
	size_t n, i;

	memset(payload, 'a', sizeof(payload));
	n = nj_ws_build_text(payload, 5, 0x01020304u, out, sizeof(out));
	CHECK_INTEQ((int)n, 11, NULL);
	CHECK(out[0] == 0x81 && out[1] == 0x85 && out[6] == ('a' ^ 1),
	    "short text frame: FIN, text, masked");
	n = nj_ws_build_text(payload, 200, 7, out, sizeof(out));
	CHECK(n == 208 && out[1] == (0x80 | 126) && out[3] == 200,
	    "16-bit length");
	CHECK_INTEQ((int)nj_ws_build_text(payload, 200, 7, out, 100), 0, NULL);
	/* Server frames: unmasked. */
	out[0] = 0x81; out[1] = 3; memcpy(out + 2, "abc", 3);
	CHECK_INTEQ(nj_ws_parse(out, 5, &f), 0, NULL);
	CHECK(f.opcode == 1 && f.fin && f.off == 2 && f.len == 3 &&
	    f.total == 5, "text frame parsed");
	for (i = 0; i < 5; i++)
		CHECK_INTEQ(nj_ws_parse(out, i, &f), -EAGAIN, NULL);
	out[1] = 0x83;
	CHECK_INTEQ(nj_ws_parse(out, 5, &f), -EPROTO, NULL);
	out[0] = 0x81; out[1] = 127;
	memset(out + 2, 0xff, 8);
	CHECK_INTEQ(nj_ws_parse(out, 10, &f), -EPROTO, NULL);
	out[1] = 126; out[2] = 0x01; out[3] = 0x00;
	CHECK_INTEQ(nj_ws_parse(out, 100, &f), -EAGAIN, NULL);
	memset(big, 0, sizeof(big));
	big[0] = 0x81; big[1] = 127; big[7] = 0x01; big[8] = 0x11;
	big[9] = 0x70;		/* 70000 */
	CHECK_INTEQ(nj_ws_parse(big, 10 + 70000, &f), 0, NULL);
	CHECK(f.len == 70000 && f.off == 10, "64-bit length");
}

static void
test_cdp(void)
{
	char out[256];
	static const char ok[] = "{\"id\":1,\"result\":{\"result\":{\"type\":"
	    "\"string\",\"value\":\"ok node v20.20.2\"}}}";
	static const char thrown[] = "{\"id\":1,\"result\":{\"result\":{"
	    "\"type\":\"object\"},\"exceptionDetails\":{\"text\":\"x\"}}}";
	static const char ev[] = "{\"method\":\"Runtime.consoleAPICalled\","
	    "\"params\":{}}";
	static const char num[] = "{\"id\":1,\"result\":{\"result\":{"
	    "\"type\":\"number\",\"value\":1}}}";
	static const char err[] = "{\"id\":1,\"error\":{\"code\":-32000,"
	    "\"message\":\"Execution context was destroyed.\"}}";

	CHECK_INTEQ(nj_cdp_result(ok, sizeof(ok) - 1, 1, out, sizeof(out)), 1, NULL);
	CHECK_STREQ(out, "ok node v20.20.2", NULL);
	CHECK_INTEQ(nj_cdp_result(ok, sizeof(ok) - 1, 2, out, sizeof(out)), 0, NULL);
	CHECK_INTEQ(nj_cdp_result(ev, sizeof(ev) - 1, 1, out, sizeof(out)), 0, NULL);
	CHECK_INTEQ(nj_cdp_result(thrown, sizeof(thrown) - 1, 1, out,
	    sizeof(out)), -EPROTO, NULL);
	CHECK_INTEQ(nj_cdp_result(num, sizeof(num) - 1, 1, out, sizeof(out)),
	    -EPROTO, NULL);
	CHECK_INTEQ(nj_cdp_result(err, sizeof(err) - 1, 1, out, sizeof(out)),
	    -EPROTO, NULL);
	CHECK(strstr(out, "context was destroyed") != NULL,
	    "the inspector's error message is kept");
	CHECK_INTEQ(nj_cdp_result(ok, 20, 1, out, sizeof(out)), 0, NULL);
}

static void
test_args(void)
{
	static const char plain[] = "node\0server.js\0--inspect\0";
	static const char perf[] = "node\0--perf-basic-prof\0app.js\0";
	static const char insp[] = "node\0--inspect=0.0.0.0:9230\0app.js\0";
	static const char brk[] = "/usr/bin/node\0--inspect-brk\0a.js";
	static const char env[] = "PATH=/bin\0NODE_OPTIONS=--max-old-space-"
	    "size=512 --perf-prof\0HOME=/\0";
	static const char env2[] = "NODE_OPTIONS=\"--inspect-port=0\"\0";
	static const char env3[] = "XNODE_OPTIONS=--inspect\0";

	/* An argument after the script is the script's: still counted,
	 * on the safe side. */
	CHECK_INTEQ(nj_args_check(plain, sizeof(plain) - 1, 0),
	    NJ_ARGS_INSPECT, NULL);
	CHECK_INTEQ(nj_args_check("node\0app.js\0", 12, 0), NJ_ARGS_PLAIN, NULL);
	CHECK_INTEQ(nj_args_check(perf, sizeof(perf) - 1, 0),
	    NJ_ARGS_PERFMAP, NULL);
	CHECK_INTEQ(nj_args_check(insp, sizeof(insp) - 1, 0),
	    NJ_ARGS_INSPECT, NULL);
	CHECK_INTEQ(nj_args_check(brk, sizeof(brk) - 1, 0), NJ_ARGS_INSPECT, NULL);
	CHECK_INTEQ(nj_args_check("node\0--inspector-x\0", 19, 0),
	    NJ_ARGS_PLAIN, NULL);
	CHECK_INTEQ(nj_args_check(env, sizeof(env) - 1, 1), NJ_ARGS_PERFMAP, NULL);
	CHECK_INTEQ(nj_args_check(env2, sizeof(env2) - 1, 1),
	    NJ_ARGS_INSPECT, NULL);
	CHECK_INTEQ(nj_args_check(env3, sizeof(env3) - 1, 1), NJ_ARGS_PLAIN, NULL);
	CHECK_INTEQ(nj_args_check("", 0, 1), NJ_ARGS_PLAIN, NULL);
}

static void
test_proc(void)
{
	static const char tcp[] =
	    "  sl  local_address rem_address   st tx_queue rx_queue tr "
	    "tm->when retrnsmt   uid  timeout inode\n"
	    "   0: 0100007F:240D 00000000:0000 0A 00000000:00000000 "
	    "00:00000000 00000000     0        0 123 1 0 100 0 0 10 0\n";
	static const char est[] =
	    "   0: 0100007F:240D 0100007F:A0B2 01 00000000:00000000 "
	    "00:00000000 00000000     0        0 123 1 0 100 0 0 10 0\n";
	static const char status[] = "Name:\tnode\nUmask:\t0022\n"
	    "Uid:\t1000\t1001\t1001\t1001\nGid:\t100\t101\t101\t101\n"
	    "SigBlk:\t0000000000000000\nSigIgn:\t0000000001001000\n"
	    "SigCgt:\t0000000188004602\n";
	static const char nousr1[] = "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
	    "SigCgt:\t0000000000004002\n";
	uint32_t uid = 0, gid = 0, uids[4];
	int usr1 = -1;

	CHECK_INTEQ(nj_tcp_listening(tcp, sizeof(tcp) - 1, 9229), 1, NULL);
	CHECK_INTEQ(nj_tcp_listening(tcp, sizeof(tcp) - 1, 9230), 0, NULL);
	CHECK_INTEQ(nj_tcp_listening(est, sizeof(est) - 1, 9229), 0, NULL);
	CHECK_INTEQ(nj_tcp_listening(tcp, 70, 9229), 0, NULL);
	CHECK_INTEQ(nj_status_parse(status, sizeof(status) - 1, &uid, &gid,
	    &usr1), 0, NULL);
	CHECK(uid == 1001 && gid == 101 && usr1 == 1,
	    "effective ids; SIGUSR1 caught (node's real mask)");
	CHECK_INTEQ(nj_status_parse(nousr1, sizeof(nousr1) - 1, &uid, &gid,
	    &usr1), 0, NULL);
	CHECK_INTEQ(usr1, 0, NULL);
	CHECK_INTEQ(nj_status_parse(status, 30, &uid, &gid, &usr1), -EPROTO, NULL);
	CHECK_INTEQ(nj_status_uids(status, sizeof(status) - 1, uids), 0, NULL);
	CHECK(uids[0] == 1000 && uids[1] == 1001 && uids[2] == 1001 &&
	    uids[3] == 1001, "the four uids (real, effective, saved, fs)");
	CHECK_INTEQ(nj_status_uids("Uid:\t1\t2\t3\n", 11, uids), -EPROTO,
	    "three uids");
	CHECK_INTEQ(nj_status_uids("Uid:\t1\t2\t3\t99999999999\n", 23,
	    uids), -EPROTO, "over 32 bits");
}

/* Real lines (kernel 6.1): node's inspector listening, a connection to
 * it and its accepted end, a tcp6 wildcard listener, and torn ones. */
static void
test_tcp_sockets(void)
{
	static const char tcp[] =
	    "  sl  local_address rem_address   st tx_queue rx_queue tr "
	    "tm->when retrnsmt   uid  timeout inode\n"
	    "   0: 0100007F:240D 00000000:0000 0A 00000000:00000000 "
	    "00:00000000 00000000     0        0 284483 1 000000004f15aee1 "
	    "100 0 0 10 0\n"
	    "   1: 0100007F:C734 0100007F:240D 01 00000000:00000000 "
	    "00:00000000 00000000 65534        0 284490 1 00000000 20 4 30 "
	    "10 -1\n"
	    "   2: 0100007F:240D 0100007F:C734 01 00000000:00000000 "
	    "00:00000000 00000000     0        0 0 1 00000000 20 4 30 10 -1\n"
	    "   3: 0100007F:240D 0100007F:C734 01 00000000:00000000 ";
	static const char tcp6[] =
	    "  sl  local_address                         remote_address"
	    "                        st tx_queue rx_queue tr tm->when "
	    "retrnsmt   uid  timeout inode\n"
	    "   0: 00000000000000000000000000000000:240D "
	    "00000000000000000000000000000000:0000 0A 00000000:00000000 "
	    "00:00000000 00000000  1000        0 777 1 0000000 100 0 0 10 0\n"
	    "   1: 0000000000000000FFFF00000100007F:240D "
	    "0000000000000000FFFF00000100007F:9A01 01 00000000:00000000 "
	    "00:00000000 00000000  1000        0 778 1 0000000 100 0 0 10 0\n";
	static const char bad[] =
	    "   0: 0100007F:240D 00000000:0000 0A 00000000:00000000 "
	    "00:00000000 00000000 99999999999        0 5 1\n"
	    "   1: 0100007G:240D 00000000:0000 0A 00000000:00000000 "
	    "00:00000000 00000000     0        0 6 1\n"
	    "   2: 0100007F:240D 00000000000000000000000000000000:0000 0A "
	    "00000000:00000000 00:00000000 00000000 0 0 7 1\n"
	    "   3: 0100007F:240D 00000000:0000 0A 00000000:00000000\n"
	    "   4: 0100007F:240D 00000000:0000 0A 0 0 0 12 0\n";
	static const char other[] =
	    "   0: 0500000A:240D 00000000:0000 0A 00000000:00000000 "
	    "00:00000000 00000000  1000        0 901 1 0 100 0 0 10 0\n"
	    "   1: 00000000:240D 00000000:0000 0A 00000000:00000000 "
	    "00:00000000 00000000  1000        0 902 1 0 100 0 0 10 0\n";
	static const uint8_t lo[4] = { 127, 0, 0, 1 };
	struct nj_tcp_sock s;
	uint64_t ino = 1;
	size_t off = 0;

	CHECK_INTEQ(nj_tcp_next(tcp, sizeof(tcp) - 1, &off, &s), 1,
	    "the header is skipped");
	CHECK(s.alen == 4 && memcmp(s.laddr, lo, 4) == 0 &&
	    s.lport == 9229 && s.state == NJ_TCP_LISTEN && s.uid == 0 &&
	    s.inode == 284483, "node's listener: 127.0.0.1:9229, inode");
	CHECK_INTEQ(nj_tcp_is_inspector(&s, 9229, 0), 1, NULL);
	CHECK_INTEQ(nj_tcp_is_inspector(&s, 9230, 0), 0, NULL);
	CHECK_INTEQ(nj_tcp_is_inspector(&s, 9229, 0xC734), 0,
	    "a listener is not the accepted end");
	CHECK_INTEQ(nj_tcp_next(tcp, sizeof(tcp) - 1, &off, &s), 1, NULL);
	CHECK(s.lport == 0xC734 && s.rport == 9229 && s.uid == 65534 &&
	    s.state == NJ_TCP_ESTABLISHED, "the client's end, its uid");
	CHECK_INTEQ(nj_tcp_is_inspector(&s, 9229, 0xC734), 0,
	    "the client's end is not the inspector's");
	CHECK_INTEQ(nj_tcp_next(tcp, sizeof(tcp) - 1, &off, &s), 1, NULL);
	CHECK(nj_tcp_is_inspector(&s, 9229, 0xC734) == 1 && s.inode == 0,
	    "the accepted end, before accept(): no inode yet");
	CHECK_INTEQ(nj_tcp_is_inspector(&s, 9229, 0xC735), 0,
	    "another client's connection");
	CHECK_INTEQ(nj_tcp_next(tcp, sizeof(tcp) - 1, &off, &s), 0,
	    "a torn last line is left for the next read");
	CHECK(off < sizeof(tcp) - 1 && tcp[off] == ' ',
	    "the offset is at the torn line");

	off = 0;
	CHECK_INTEQ(nj_tcp_next(tcp6, sizeof(tcp6) - 1, &off, &s), 1, NULL);
	CHECK(s.alen == 16 && s.lport == 9229 && s.uid == 1000 &&
	    s.inode == 777 && nj_tcp_is_inspector(&s, 9229, 0) == 1,
	    "tcp6 wildcard listener on 9229");
	CHECK_INTEQ(nj_tcp_next(tcp6, sizeof(tcp6) - 1, &off, &s), 1, NULL);
	CHECK(s.raddr[10] == 0xff && s.raddr[12] == 127 && s.raddr[15] == 1 &&
	    nj_tcp_is_inspector(&s, 9229, 0x9A01) == 1,
	    "tcp6: the accepted end of a v4-mapped loopback connection");
	CHECK_INTEQ(nj_tcp_next(tcp6, sizeof(tcp6) - 1, &off, &s), 0, NULL);
	off = 0;
	CHECK_INTEQ(nj_tcp_next(other, sizeof(other) - 1, &off, &s), 1, NULL);
	CHECK_INTEQ(nj_tcp_is_inspector(&s, 9229, 0), 0,
	    "a listener on 10.0.0.5:9229 never gets a connection to 127.0.0.1");
	CHECK_INTEQ(nj_tcp_next(other, sizeof(other) - 1, &off, &s), 1, NULL);
	CHECK_INTEQ(nj_tcp_is_inspector(&s, 9229, 0), 1,
	    "one on 0.0.0.0:9229 does");

	off = 0;
	CHECK_INTEQ(nj_tcp_next(bad, sizeof(bad) - 1, &off, &s), 0,
	    "an uid over 32 bits, a bad digit, mixed families, short "
	    "lines: all skipped");
	CHECK_INTEQ(off, sizeof(bad) - 1, NULL);
	CHECK_INTEQ(nj_tcp_listening(bad, sizeof(bad) - 1, 9229), 0, NULL);

	CHECK_INTEQ(nj_fd_socket_inode("socket:[284483]", 15, &ino), 0, NULL);
	CHECK(ino == 284483, "socket:[N]");
	CHECK_INTEQ(nj_fd_socket_inode("socket:[]", 9, &ino), -EINVAL, NULL);
	CHECK_INTEQ(nj_fd_socket_inode("socket:[12", 10, &ino), -EINVAL,
	    NULL);
	CHECK_INTEQ(nj_fd_socket_inode("socket:[1x]", 11, &ino), -EINVAL,
	    NULL);
	CHECK_INTEQ(nj_fd_socket_inode("pipe:[284483]", 13, &ino), -EINVAL,
	    NULL);
	CHECK_INTEQ(nj_fd_socket_inode("socket:[99999999999999999999]", 29,
	    &ino), -EINVAL, "over 64 bits");
}

int
main(void)
{
	test_json_list();
	test_upgrade();
	test_ws();
	test_cdp();
	test_args();
	test_proc();
	test_tcp_sockets();
	return (testing_done());
}
