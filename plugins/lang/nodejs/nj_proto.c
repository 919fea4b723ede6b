/*
 * Pure parsers of --nodejs-mode attach-maps (see nj_proto.h).  Every
 * input here comes from a process the agent does not control: lengths
 * are checked before each read, nothing is NUL-terminated on trust, and
 * JSON goes through json-c with a length.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "nj_proto.h"

/* Whether the argument `a` (len n) is `opt` or `opt=...` or `opt-...`
 * (the --inspect-brk, --inspect-port families). */
static int
nj_arg_is(const char *a, size_t n, const char *opt, int family)
{
	size_t ol = strlen(opt);

	if (n < ol || memcmp(a, opt, ol) != 0)
		return (0);
	if (n == ol || a[ol] == '=')
		return (1);
	return (family && a[ol] == '-');
}

static int
nj_arg_classify(const char *a, size_t n)
{
	if (nj_arg_is(a, n, "--perf-basic-prof", 1) ||
	    nj_arg_is(a, n, "--perf-prof", 1) ||
	    nj_arg_is(a, n, "--perf_basic_prof", 1) ||
	    nj_arg_is(a, n, "--perf_prof", 1))
		return (NJ_ARGS_PERFMAP);
	if (nj_arg_is(a, n, "--inspect", 1) ||
	    nj_arg_is(a, n, "--debug-port", 0) ||
	    nj_arg_is(a, n, "--debug", 1))
		return (NJ_ARGS_INSPECT);
	return (NJ_ARGS_PLAIN);
}

/* Words of a NODE_OPTIONS value (space separated; quotes are rare and a
 * quoted word is still seen whole enough for these flags). */
static int
nj_options_check(const char *v, size_t n)
{
	size_t i = 0, s;
	int worst = NJ_ARGS_PLAIN, r;

	while (i < n) {
		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == '"' ||
		    v[i] == '\''))
			i++;
		s = i;
		while (i < n && v[i] != ' ' && v[i] != '\t' && v[i] != '"' &&
		    v[i] != '\'')
			i++;
		if (i > s && (r = nj_arg_classify(v + s, i - s)) > worst)
			worst = r;
	}
	return (worst);
}

int
nj_args_check(const char *buf, size_t len, int is_environ)
{
	size_t i = 0, n;
	int worst = NJ_ARGS_PLAIN, r;
	const char *a, *end;

	static const char key[] = "NODE_OPTIONS=";

	while (i < len) {
		a = buf + i;
		end = memchr(a, '\0', len - i);
		n = end != NULL ? (size_t)(end - a) : len - i;
		i += n + 1;
		if (is_environ) {
			if (n < sizeof(key) - 1 ||
			    memcmp(a, key, sizeof(key) - 1) != 0)
				continue;
			r = nj_options_check(a + sizeof(key) - 1,
			    n - (sizeof(key) - 1));
		} else {
			/* A script's own arguments come after it, but
			 * node's flags come first: any of them counts. */
			r = nj_arg_classify(a, n);
		}
		if (r > worst)
			worst = r;
	}
	return (worst);
}

static int
nj_hex(char c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	return (-1);
}

/* The line of /proc/PID/status starting with `key`, as [*v, *vlen). */
static int
nj_status_field(const char *buf, size_t len, const char *key,
    const char **v, size_t *vlen)
{
	size_t i = 0, e, kl = strlen(key);

	while (i < len) {
		for (e = i; e < len && buf[e] != '\n'; e++)
			;
		if (e - i > kl && memcmp(buf + i, key, kl) == 0) {
			*v = buf + i + kl;
			*vlen = e - i - kl;
			return (0);
		}
		i = e + 1;
	}
	return (-EPROTO);
}

/* The first `count` numbers of a "Uid:\tR\tE\tS\tF" line. */
static int
nj_status_ids(const char *v, size_t n, uint32_t *out, int count)
{
	size_t i = 0;
	uint64_t x;
	int k;

	for (k = 0; k < count; k++) {
		while (i < n && (v[i] == '\t' || v[i] == ' '))
			i++;
		if (i >= n || v[i] < '0' || v[i] > '9')
			return (-EPROTO);
		for (x = 0; i < n && v[i] >= '0' && v[i] <= '9'; i++) {
			x = x * 10 + (uint64_t)(v[i] - '0');
			if (x > 0xffffffffu)
				return (-EPROTO);
		}
		out[k] = (uint32_t)x;
	}
	return (0);
}

/* The second one: the effective id. */
static int
nj_status_id(const char *v, size_t n, uint32_t *out)
{
	uint32_t ids[2];

	if (nj_status_ids(v, n, ids, 2) != 0)
		return (-EPROTO);
	*out = ids[1];
	return (0);
}

int
nj_status_uids(const char *buf, size_t len, uint32_t uids[4])
{
	const char *v;
	size_t n;

	if (nj_status_field(buf, len, "Uid:", &v, &n) != 0)
		return (-EPROTO);
	return (nj_status_ids(v, n, uids, 4));
}

int
nj_status_parse(const char *buf, size_t len, uint32_t *uid, uint32_t *gid,
    int *catches_usr1)
{
	const char *v;
	size_t n, i, digits;
	int h;

	if (nj_status_field(buf, len, "Uid:", &v, &n) != 0 ||
	    nj_status_id(v, n, uid) != 0 ||
	    nj_status_field(buf, len, "Gid:", &v, &n) != 0 ||
	    nj_status_id(v, n, gid) != 0 ||
	    nj_status_field(buf, len, "SigCgt:", &v, &n) != 0)
		return (-EPROTO);
	/* A 64-bit mask in hex; SIGUSR1 (10) is bit 9, the third hex digit
	 * from the right. */
	for (i = 0; i < n && (v[i] == '\t' || v[i] == ' '); i++)
		;
	for (digits = 0; i + digits < n && nj_hex(v[i + digits]) >= 0;
	    digits++)
		;
	if (digits < 3)
		return (-EPROTO);
	h = nj_hex(v[i + digits - 3]);
	*catches_usr1 = (h & 0x2) != 0;
	return (0);
}

/* The next space-separated word of [*p, e): its start, its length in
 * *n (0 at the end of the line). */
static const char *
nj_word(const char **p, const char *e, size_t *n)
{
	const char *w;

	while (*p < e && (**p == ' ' || **p == '\t'))
		(*p)++;
	w = *p;
	while (*p < e && **p != ' ' && **p != '\t')
		(*p)++;
	*n = (size_t)(*p - w);
	return (w);
}

/* "HEXADDR:HEXPORT" as /proc/net/tcp prints it: the address is the
 * in-memory __be32 (or four of them for tcp6) printed as host-order
 * words, so each word is read back into memory as it was. */
static int
nj_tcp_addr(const char *w, size_t n, uint8_t *addr, unsigned *alen,
    unsigned *port)
{
	uint32_t word;
	size_t i, k, hl;
	unsigned p = 0;
	int h;

	for (hl = 0; hl < n && w[hl] != ':'; hl++)
		;
	if ((hl != 8 && hl != 32) || n - hl != 5)
		return (-EPROTO);
	for (i = 0; i < hl; i += 8) {
		word = 0;
		for (k = 0; k < 8; k++) {
			if ((h = nj_hex(w[i + k])) < 0)
				return (-EPROTO);
			word = word << 4 | (uint32_t)h;
		}
		memcpy(addr + i / 2, &word, 4);
	}
	for (i = hl + 1; i < n; i++) {
		if ((h = nj_hex(w[i])) < 0)
			return (-EPROTO);
		p = p << 4 | (unsigned)h;
	}
	*alen = (unsigned)hl / 2;
	*port = p;
	return (0);
}

static int
nj_dec(const char *w, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 20)
		return (-EPROTO);
	for (i = 0; i < n; i++) {
		if (w[i] < '0' || w[i] > '9' ||
		    v > (max - (uint64_t)(w[i] - '0')) / 10)
			return (-EPROTO);
		v = v * 10 + (uint64_t)(w[i] - '0');
	}
	*out = v;
	return (0);
}

/* One line [l, e): 0 and *s, or -EPROTO (the header, a torn line). */
static int
nj_tcp_line(const char *l, const char *e, struct nj_tcp_sock *s)
{
	const char *w;
	uint64_t v;
	unsigned ra;
	size_t n;
	int f, h1, h2;

	memset(s, 0, sizeof(*s));
	w = nj_word(&l, e, &n);			/* "sl:" */
	if (n < 2 || w[n - 1] != ':')
		return (-EPROTO);
	w = nj_word(&l, e, &n);
	if (nj_tcp_addr(w, n, s->laddr, &s->alen, &s->lport) != 0)
		return (-EPROTO);
	w = nj_word(&l, e, &n);
	if (nj_tcp_addr(w, n, s->raddr, &ra, &s->rport) != 0 ||
	    ra != s->alen)
		return (-EPROTO);
	w = nj_word(&l, e, &n);			/* st */
	if (n != 2 || (h1 = nj_hex(w[0])) < 0 || (h2 = nj_hex(w[1])) < 0)
		return (-EPROTO);
	s->state = (unsigned)(h1 << 4 | h2);
	for (f = 0; f < 3; f++) {		/* queues, timer, retrnsmt */
		(void)nj_word(&l, e, &n);
		if (n == 0)
			return (-EPROTO);
	}
	w = nj_word(&l, e, &n);
	if (nj_dec(w, n, UINT32_MAX, &v) != 0)
		return (-EPROTO);
	s->uid = (uint32_t)v;
	(void)nj_word(&l, e, &n);		/* timeout */
	if (n == 0)
		return (-EPROTO);
	w = nj_word(&l, e, &n);
	if (nj_dec(w, n, UINT64_MAX, &s->inode) != 0)
		return (-EPROTO);
	return (0);
}

int
nj_tcp_next(const char *buf, size_t len, size_t *off, struct nj_tcp_sock *s)
{
	const char *l, *e;

	while (*off < len) {
		l = buf + *off;
		if ((e = memchr(l, '\n', len - *off)) == NULL)
			return (0);	/* incomplete: the caller reads more */
		*off = (size_t)(e - buf) + 1;
		if (nj_tcp_line(l, e, s) == 0)
			return (1);
	}
	return (0);
}

int
nj_tcp_listening(const char *buf, size_t len, unsigned port)
{
	struct nj_tcp_sock s;
	size_t off = 0;

	while (nj_tcp_next(buf, len, &off, &s) == 1)
		if (s.state == NJ_TCP_LISTEN && s.lport == port)
			return (1);
	return (0);
}

int
nj_tcp_is_inspector(const struct nj_tcp_sock *s, unsigned port,
    unsigned peer_port)
{
	static const uint8_t lo4[4] = { 127, 0, 0, 1 };
	static const uint8_t any4[4] = { 0, 0, 0, 0 };
	static const uint8_t lo6m[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0xff, 0xff, 127, 0, 0, 1 };
	static const uint8_t any6[16] = { 0 };
	static const uint8_t any6m[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0xff, 0xff, 0, 0, 0, 0 };

	if (s->lport != port)
		return (0);
	/* A listener that a connection to 127.0.0.1 can reach: on it or
	 * on a wildcard (a v6 one may be dual-stack). */
	if (peer_port == 0)
		return (s->state == NJ_TCP_LISTEN && (s->alen == 4 ?
		    memcmp(s->laddr, lo4, 4) == 0 ||
		    memcmp(s->laddr, any4, 4) == 0 :
		    memcmp(s->laddr, any6, 16) == 0 ||
		    memcmp(s->laddr, lo6m, 16) == 0 ||
		    memcmp(s->laddr, any6m, 16) == 0));
	if (s->state != NJ_TCP_ESTABLISHED || s->rport != peer_port)
		return (0);
	return (s->alen == 4 ? memcmp(s->raddr, lo4, 4) == 0 :
	    memcmp(s->raddr, lo6m, 16) == 0);
}

int
nj_fd_socket_inode(const char *link, size_t len, uint64_t *ino)
{
	static const char pre[] = "socket:[";

	if (len < sizeof(pre) + 1 || memcmp(link, pre, sizeof(pre) - 1) != 0 ||
	    link[len - 1] != ']')
		return (-EINVAL);
	if (nj_dec(link + sizeof(pre) - 1, len - sizeof(pre), UINT64_MAX,
	    ino) != 0)
		return (-EINVAL);
	return (0);
}

/* The end of the HTTP header (index past "\r\n\r\n") or 0. */
static size_t
nj_http_header_end(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i + 4 <= len; i++)
		if (memcmp(buf + i, "\r\n\r\n", 4) == 0)
			return (i + 4);
	return (0);
}

/* The value of header `name` (case-insensitive) as an unsigned long, or
 * -1 when absent or not a number. */
static long
nj_http_header_num(const char *buf, size_t hlen, const char *name)
{
	size_t i, nl = strlen(name), j;
	long v;

	for (i = 0; i + nl + 1 < hlen; i++) {
		if ((i > 0 && buf[i - 1] != '\n') ||
		    strncasecmp(buf + i, name, nl) != 0 || buf[i + nl] != ':')
			continue;
		j = i + nl + 1;
		while (j < hlen && buf[j] == ' ')
			j++;
		if (j >= hlen || buf[j] < '0' || buf[j] > '9')
			return (-1);
		for (v = 0; j < hlen && buf[j] >= '0' && buf[j] <= '9'; j++) {
			if (v > 100000000)
				return (-1);
			v = v * 10 + (buf[j] - '0');
		}
		return (v);
	}
	return (-1);
}

static int
nj_http_status(const char *buf, size_t len, const char *code)
{
	/* "HTTP/1.x NNN" */
	if (len < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' ')
		return (0);
	return (memcmp(buf + 9, code, 3) == 0);
}

int
nj_http_upgrade(const char *buf, size_t len)
{
	size_t h;

	if (len >= 12 && !nj_http_status(buf, len, "101"))
		return (-EPROTO);
	if ((h = nj_http_header_end(buf, len)) == 0)
		return (len > 8192 ? -EPROTO : -EAGAIN);
	if (!nj_http_status(buf, len, "101"))
		return (-EPROTO);
	return ((int)h);
}

int
nj_http_json_list(const char *buf, size_t len, unsigned port, char *path,
    size_t pathlen)
{
	struct json_tokener *tok = NULL;
	struct json_object *root = NULL, *t, *u;
	const char *url, *p;
	char prefix[40];
	size_t h, i, n, body;
	long clen;
	int rc = -EPROTO;

	if (len >= 12 && !nj_http_status(buf, len, "200"))
		return (-EPROTO);
	if ((h = nj_http_header_end(buf, len)) == 0)
		return (len > 8192 ? -EPROTO : -EAGAIN);
	clen = nj_http_header_num(buf, h, "Content-Length");
	body = len - h;
	if (clen < 0 || clen > 1 << 20)
		return (-EPROTO);
	if (body < (size_t)clen)
		return (-EAGAIN);
	if ((tok = json_tokener_new()) == NULL)
		return (-ENOMEM);
	root = json_tokener_parse_ex(tok, buf + h, (int)clen);
	if (root == NULL || !json_object_is_type(root, json_type_array))
		goto out;
	snprintf(prefix, sizeof(prefix), "ws://127.0.0.1:%u/", port);
	n = json_object_array_length(root);
	for (i = 0; i < n; i++) {
		t = json_object_array_get_idx(root, i);
		if (!json_object_is_type(t, json_type_object) ||
		    !json_object_object_get_ex(t, "webSocketDebuggerUrl", &u) ||
		    !json_object_is_type(u, json_type_string))
			continue;
		url = json_object_get_string(u);
		if (strncmp(url, prefix, strlen(prefix)) != 0)
			continue;
		p = url + strlen(prefix) - 1;	/* the '/' */
		/* A UUID path: nothing that could split the request line. */
		if (strlen(p) < 2 || strlen(p) >= pathlen ||
		    strspn(p + 1, "0123456789abcdefABCDEF-") != strlen(p + 1))
			continue;
		memcpy(path, p, strlen(p) + 1);
		rc = 0;
		break;
	}
out:
	json_object_put(root);
	json_tokener_free(tok);
	return (rc);
}

int
nj_ws_parse(const uint8_t *buf, size_t len, struct nj_ws_frame *f)
{
	uint64_t plen;
	size_t hl = 2, i;

	if (len < 2)
		return (-EAGAIN);
	memset(f, 0, sizeof(*f));
	f->fin = buf[0] >> 7;
	f->opcode = buf[0] & 0x0f;
	if ((buf[0] & 0x70) != 0 || (buf[1] & 0x80) != 0)
		return (-EPROTO);	/* extensions, or a masked frame */
	plen = buf[1] & 0x7f;
	if (plen == 126) {
		if (len < 4)
			return (-EAGAIN);
		plen = (uint64_t)buf[2] << 8 | buf[3];
		hl = 4;
	} else if (plen == 127) {
		if (len < 10)
			return (-EAGAIN);
		for (plen = 0, i = 2; i < 10; i++)
			plen = plen << 8 | buf[i];
		hl = 10;
	}
	if (plen > NJ_WS_MAX_PAYLOAD)
		return (-EPROTO);
	if (len - hl < plen)
		return (-EAGAIN);
	f->off = hl;
	f->len = (size_t)plen;
	f->total = hl + (size_t)plen;
	return (0);
}

size_t
nj_ws_build_text(const char *payload, size_t len, uint32_t mask,
    uint8_t *out, size_t outlen)
{
	uint8_t m[4];
	size_t hl, i;

	hl = len < 126 ? 2 : len <= 0xffff ? 4 : 10;
	if (len > NJ_WS_MAX_PAYLOAD || outlen < hl + 4 + len)
		return (0);
	out[0] = 0x81;		/* FIN, text */
	if (len < 126)
		out[1] = 0x80 | (uint8_t)len;
	else if (len <= 0xffff) {
		out[1] = 0x80 | 126;
		out[2] = (uint8_t)(len >> 8);
		out[3] = (uint8_t)len;
	} else {
		out[1] = 0x80 | 127;
		for (i = 0; i < 8; i++)
			out[2 + i] = (uint8_t)((uint64_t)len >> (56 - 8 * i));
	}
	m[0] = (uint8_t)(mask >> 24);
	m[1] = (uint8_t)(mask >> 16);
	m[2] = (uint8_t)(mask >> 8);
	m[3] = (uint8_t)mask;
	memcpy(out + hl, m, 4);
	for (i = 0; i < len; i++)
		out[hl + 4 + i] = (uint8_t)payload[i] ^ m[i & 3];
	return (hl + 4 + len);
}

int
nj_cdp_result(const char *msg, size_t len, int id, char *out, size_t outlen)
{
	struct json_tokener *tok;
	struct json_object *root, *v, *r, *rr, *ty, *val;
	const char *s;
	int rc = 0;

	if (outlen == 0)
		return (-EINVAL);
	out[0] = '\0';
	if (len > NJ_WS_MAX_PAYLOAD || (tok = json_tokener_new()) == NULL)
		return (-EPROTO);
	root = json_tokener_parse_ex(tok, msg, (int)len);
	json_tokener_free(tok);
	if (root == NULL || !json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "id", &v) ||
	    !json_object_is_type(v, json_type_int) ||
	    json_object_get_int(v) != id)
		goto out;	/* an event or another reply */
	rc = -EPROTO;
	if (json_object_object_get_ex(root, "error", &v)) {
		r = NULL;
		json_object_object_get_ex(v, "message", &r);
		snprintf(out, outlen, "inspector error: %s",
		    r != NULL && json_object_is_type(r, json_type_string) ?
		    json_object_get_string(r) : "(no message)");
		goto out;
	}
	if (!json_object_object_get_ex(root, "result", &r) ||
	    !json_object_is_type(r, json_type_object)) {
		snprintf(out, outlen, "reply without a result");
		goto out;
	}
	if (json_object_object_get_ex(r, "exceptionDetails", &v)) {
		snprintf(out, outlen, "the expression threw");
		goto out;
	}
	if (!json_object_object_get_ex(r, "result", &rr) ||
	    !json_object_is_type(rr, json_type_object) ||
	    !json_object_object_get_ex(rr, "type", &ty) ||
	    !json_object_is_type(ty, json_type_string) ||
	    strcmp(json_object_get_string(ty), "string") != 0 ||
	    !json_object_object_get_ex(rr, "value", &val) ||
	    !json_object_is_type(val, json_type_string)) {
		snprintf(out, outlen, "the expression returned no string");
		goto out;
	}
	s = json_object_get_string(val);
	snprintf(out, outlen, "%s", s);
	rc = 1;
out:
	json_object_put(root);
	return (rc);
}
