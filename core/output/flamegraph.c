/*
 * The flame graph page: parse a .col, fold its stacks into the d3-style
 * {name, value, children} tree (container frame kept as the first level so
 * the page can group by it; app-metadata index frame cut), and pour the tree
 * plus a header summary as JSON into data/flamegraph.html.  The JSON is
 * escaped so that no byte of a frame name can leave the <script> element,
 * after the one text rule (textesc.c: invalid UTF-8 and control characters
 * escaped), so the page never depends on the bytes untrusted processes put
 * in their symbol names.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "base/log.h"
#include "base/textesc.h"
#include "base/utctime.h"
#include "base/xmalloc.h"
#include "output/col_parse.h"
#include "output/output.h"

/* data/flamegraph_html.c, generated from data/flamegraph.html. */
extern const char flamegraph_template[];
extern const size_t flamegraph_template_len;

#define FG_PLACEHOLDER	"{{{JSON_DATA}}}"
#define FG_NONE		UINT32_MAX
#define FG_VALUE_MAX	INT64_MAX

struct fg_buf {
	char *p;
	size_t len, cap;
};

struct fg_node {
	uint32_t parent, child, sibling;
	uint32_t name, namelen;	/* into fg_tree.names */
	uint64_t value;
};

struct fg_tree {
	struct fg_node *nodes;
	uint32_t nnodes, capnodes;
	struct fg_buf names;
	uint32_t *hash;		/* node ids, FG_NONE empty */
	uint32_t hashcap;	/* power of two */
	unsigned nprefix;	/* leading frames: index, container */
	int has_container;
};

static void
fg_buf_add(struct fg_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		while (b->len + n + 1 > b->cap)
			b->cap = b->cap ? b->cap * 2 : 4096;
		b->p = xreallocarray(b->p, 1, b->cap);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
fg_buf_str(struct fg_buf *b, const char *s)
{
	fg_buf_add(b, s, strlen(s));
}

static void
fg_buf_u64(struct fg_buf *b, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	fg_buf_str(b, num);
}

/*
 * A JSON string safe inside <script>: <, >, & and U+2028/2029 as \u
 * escapes (no "</script>" or "<!--" can form), after the text rule.
 */
static void
flamegraph_json_string(struct fg_buf *b, const char *s, size_t n)
{
	const unsigned char *p;
	char esc[8], *tmp = NULL;
	size_t i, l;

	/* Names from any .col file: the one text rule first (textesc.c). */
	if (!textesc_clean(s, n, 0)) {
		tmp = xmalloc(textesc_len(s, n, 0) + 1);
		n = textesc_write(tmp, s, n, 0);
		s = tmp;
	}
	p = (const unsigned char *)s;
	fg_buf_add(b, "\"", 1);
	for (i = 0; i < n; i += l) {
		l = col_utf8_len(p + i, n - i);
		if (l == 0) {
			fg_buf_str(b, "\\ufffd");
			l = 1;
		} else if (l == 3 && p[i] == 0xe2 && p[i + 1] == 0x80 &&
		    (p[i + 2] == 0xa8 || p[i + 2] == 0xa9))
			fg_buf_str(b, p[i + 2] == 0xa8 ? "\\u2028" : "\\u2029");
		else if (p[i] == '"' || p[i] == '\\') {
			esc[0] = '\\';
			esc[1] = (char)p[i];
			fg_buf_add(b, esc, 2);
		} else if (p[i] < 0x20 || p[i] == '<' || p[i] == '>' ||
		    p[i] == '&' || p[i] == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", p[i]);
			fg_buf_str(b, esc);
		} else
			fg_buf_add(b, p + i, l);
	}
	fg_buf_add(b, "\"", 1);
	free(tmp);
}

static uint32_t
fg_hash(uint32_t parent, const char *p, size_t n)
{
	uint32_t h = 2166136261u ^ parent;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 16777619u;
	return (h ^ (h >> 15));
}

static uint32_t
fg_node_new(struct fg_tree *t, uint32_t parent, const char *p, size_t n)
{
	struct fg_node *nd;
	uint32_t id;

	if (t->nnodes == t->capnodes) {
		t->capnodes = t->capnodes ? t->capnodes * 2 : 1024;
		t->nodes = xreallocarray(t->nodes, t->capnodes,
		    sizeof(*t->nodes));
	}
	id = t->nnodes++;
	nd = &t->nodes[id];
	nd->parent = parent;
	nd->child = FG_NONE;
	nd->sibling = FG_NONE;
	nd->name = (uint32_t)t->names.len;
	nd->namelen = (uint32_t)n;
	nd->value = 0;
	fg_buf_add(&t->names, p, n);
	if (parent != FG_NONE) {
		nd->sibling = t->nodes[parent].child;
		t->nodes[parent].child = id;
	}
	return (id);
}

static void
fg_hash_grow(struct fg_tree *t)
{
	uint32_t i, h, cap = t->hashcap ? t->hashcap * 2 : 4096;
	struct fg_node *nd;

	free(t->hash);
	t->hash = xreallocarray(NULL, cap, sizeof(*t->hash));
	memset(t->hash, 0xff, (size_t)cap * sizeof(*t->hash));
	t->hashcap = cap;
	for (i = 1; i < t->nnodes; i++) {
		nd = &t->nodes[i];
		h = fg_hash(nd->parent, t->names.p + nd->name, nd->namelen);
		while (t->hash[h & (cap - 1)] != FG_NONE)
			h++;
		t->hash[h & (cap - 1)] = i;
	}
}

/* The child of parent named p[0..n), created if new. */
static uint32_t
fg_child(struct fg_tree *t, uint32_t parent, const char *p, size_t n)
{
	struct fg_node *nd;
	uint32_t h, id;

	if ((t->nnodes + 1) * 2 > t->hashcap)
		fg_hash_grow(t);
	h = fg_hash(parent, p, n);
	for (;; h++) {
		id = t->hash[h & (t->hashcap - 1)];
		if (id == FG_NONE)
			break;
		nd = &t->nodes[id];
		if (nd->parent == parent && nd->namelen == n &&
		    memcmp(t->names.p + nd->name, p, n) == 0)
			return (id);
	}
	id = fg_node_new(t, parent, p, n);
	t->hash[h & (t->hashcap - 1)] = id;
	return (id);
}

static void
fg_add_value(struct fg_node *nd, uint64_t count)
{
	nd->value = FG_VALUE_MAX - nd->value < count ? FG_VALUE_MAX :
	    nd->value + count;
}

static int
fg_add_line(const struct col_line *l, void *arg)
{
	struct fg_tree *t = arg;
	uint32_t node = 0, i;

	fg_add_value(&t->nodes[0], l->count);
	if (t->has_container) {
		/* Level 1 is always the container ("" when none). */
		i = t->nprefix - 1;
		node = fg_child(t, node, i < l->nframes ? l->frames[i].p : "",
		    i < l->nframes ? l->frames[i].len : 0);
		fg_add_value(&t->nodes[node], l->count);
	}
	for (i = t->nprefix; i < l->nframes; i++) {
		node = fg_child(t, node, l->frames[i].p, l->frames[i].len);
		fg_add_value(&t->nodes[node], l->count);
	}
	return (0);
}

/* Emit the tree depth first without recursion (stacks can be deep). */
static void
fg_emit_tree(struct fg_buf *b, const struct fg_tree *t)
{
	const struct fg_node *nd;
	uint32_t n = 0;

	for (;;) {
		nd = &t->nodes[n];
		fg_buf_str(b, "{\"name\":");
		flamegraph_json_string(b, t->names.p + nd->name, nd->namelen);
		fg_buf_str(b, ",\"value\":");
		fg_buf_u64(b, nd->value);
		if (nd->child != FG_NONE) {
			fg_buf_str(b, ",\"children\":[");
			n = nd->child;
			continue;
		}
		fg_buf_add(b, "}", 1);
		while (n != 0 && t->nodes[n].sibling == FG_NONE) {
			n = t->nodes[n].parent;
			fg_buf_str(b, "]}");
		}
		if (n == 0)
			break;
		fg_buf_add(b, ",", 1);
		n = t->nodes[n].sibling;
	}
}

static const char *
fg_json_path_str(struct json_object *o, const char *a, const char *k)
{
	struct json_object *v;

	if (a != NULL && !json_object_object_get_ex(o, a, &o))
		return (NULL);
	if (o == NULL || !json_object_object_get_ex(o, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return (NULL);
	return (json_object_get_string(v));
}

/* Which leading frames the header says each stack carries
 * (docs/specs/gprofiler-compat.md §4.2). */
static void
fg_header_prefix(struct json_object *hdr, struct fg_tree *t)
{
	struct json_object *v, *md;
	const char *api = NULL;

	t->nprefix = 0;
	t->has_container = 0;
	if (hdr == NULL)
		return;		/* plain folded stacks */
	if (json_object_object_get_ex(hdr, "metadata", &md) &&
	    json_object_object_get_ex(md, "run_arguments", &v)) {
		api = fg_json_path_str(v, NULL, "profile_api_version");
		if (api == NULL)
			api = fg_json_path_str(v, NULL, "profile-api-version");
	}
	if (api != NULL && strcmp(api, "v1") == 0)
		return;
	if (json_object_object_get_ex(hdr, "application_metadata_enabled",
	    &v) && json_object_get_boolean(v))
		t->nprefix++;
	t->nprefix++;
	t->has_container = 1;
}

static void
fg_meta_kv(struct fg_buf *b, const char *k, const char *v)
{
	fg_buf_add(b, ",", 1);
	flamegraph_json_string(b, k, strlen(k));
	fg_buf_add(b, ":", 1);
	if (v == NULL)
		fg_buf_str(b, "null");
	else
		flamegraph_json_string(b, v, strlen(v));
}

static void
fg_emit_meta(struct fg_buf *b, struct json_object *hdr,
    const struct col_result *res, const struct fg_tree *t,
    const struct timespec *start, const struct timespec *end)
{
	char sbuf[32], ebuf[32];
	const char *s, *e, *mode;
	unsigned i;

	s = fg_json_path_str(hdr, NULL, "start_time");
	if (s == NULL)
		s = fg_json_path_str(hdr, "metadata", "start_time");
	e = fg_json_path_str(hdr, NULL, "end_time");
	if (e == NULL)
		e = fg_json_path_str(hdr, "metadata", "end_time");
	if (e == NULL)
		e = fg_json_path_str(hdr, "metadata", "current_time");
	if (start != NULL) {
		utc_iso_time(sbuf, sizeof(sbuf), start->tv_sec);
		s = sbuf;
	}
	if (end != NULL) {
		utc_iso_time(ebuf, sizeof(ebuf), end->tv_sec);
		e = ebuf;
	}
	mode = fg_json_path_str(hdr, NULL, "profiling_mode");
	if (mode == NULL)
		mode = fg_json_path_str(hdr, "metadata", "profiling_mode");
	fg_buf_str(b, "{\"total\":");
	fg_buf_u64(b, t->nodes[0].value);
	fg_buf_str(b, ",\"stacks\":");
	fg_buf_u64(b, res->nstacks);
	fg_buf_str(b, ",\"containers\":");
	fg_buf_str(b, t->has_container ? "true" : "false");
	fg_meta_kv(b, "start", s);
	fg_meta_kv(b, "end", e);
	fg_meta_kv(b, "host", fg_json_path_str(hdr, "metadata", "hostname"));
	fg_meta_kv(b, "mode", mode);
	fg_buf_str(b, ",\"nbad\":");
	fg_buf_u64(b, res->nbad);
	fg_buf_str(b, ",\"bad\":[");
	for (i = 0; i < res->nkept; i++) {
		fg_buf_str(b, i ? ",{\"line\":" : "{\"line\":");
		fg_buf_u64(b, res->bad[i].lineno);
		fg_meta_kv(b, "why", res->bad[i].why);
		fg_meta_kv(b, "text", res->bad[i].text);
		fg_buf_add(b, "}", 1);
	}
	fg_buf_str(b, "]}");
}

/* Parse the header JSON, or NULL if absent or not an object. */
static struct json_object *
fg_parse_header(const struct col_span *h)
{
	struct json_tokener *tok;
	struct json_object *o;

	if (h->p == NULL || h->len == 0 || h->len > INT32_MAX)
		return (NULL);
	tok = json_tokener_new();
	o = json_tokener_parse_ex(tok, h->p, (int)h->len);
	json_tokener_free(tok);
	if (o != NULL && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = NULL;
	}
	return (o);
}

/*
 * The JSON the page reads: {"meta": {...}, "tree": {...}}.  Pure over
 * bytes (the fuzz target calls it).  Caller frees.
 */
char *
flamegraph_json(const char *col, size_t collen, const struct timespec *start,
    const struct timespec *end, size_t *lenp)
{
	struct fg_tree t;
	struct col_result res;
	struct json_object *hdr;
	struct fg_buf b = { NULL, 0, 0 };
	const char *nl;

	memset(&t, 0, sizeof(t));
	/* The header decides the prefix frames: parse line 1 alone first. */
	nl = collen > 0 ? memchr(col, '\n', collen) : NULL;
	col_parse(col, nl != NULL ? (size_t)(nl - col) : collen, NULL, NULL,
	    &res);
	hdr = fg_parse_header(&res.header);
	fg_header_prefix(hdr, &t);
	fg_node_new(&t, FG_NONE, "all", 3);
	col_parse(col, collen, fg_add_line, &t, &res);

	fg_buf_str(&b, "{\"meta\":");
	fg_emit_meta(&b, hdr, &res, &t, start, end);
	fg_buf_str(&b, ",\"tree\":");
	fg_emit_tree(&b, &t);
	fg_buf_add(&b, "}", 1);

	json_object_put(hdr);
	free(t.nodes);
	free(t.names.p);
	free(t.hash);
	*lenp = b.len;
	return (b.p);
}

char *
flamegraph_render_times(const char *col, size_t collen,
    const struct timespec *start, const struct timespec *end, size_t *lenp)
{
	struct fg_buf b = { NULL, 0, 0 };
	const char *tp = flamegraph_template, *at;
	size_t tlen = flamegraph_template_len, jlen;
	char *json;

	json = flamegraph_json(col, collen, start, end, &jlen);
	at = memmem(tp, tlen, FG_PLACEHOLDER, strlen(FG_PLACEHOLDER));
	if (at == NULL)
		fatalx("flamegraph template lacks %s", FG_PLACEHOLDER);
	fg_buf_add(&b, tp, (size_t)(at - tp));
	fg_buf_add(&b, json, jlen);
	at += strlen(FG_PLACEHOLDER);
	fg_buf_add(&b, at, tlen - (size_t)(at - tp));
	free(json);
	*lenp = b.len;
	return (b.p);
}

char *
flamegraph_render(const char *col, size_t collen, size_t *lenp)
{
	return (flamegraph_render_times(col, collen, NULL, NULL, lenp));
}
