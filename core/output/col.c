/*
 * The .col collapsed text (docs/specs/gprofiler-compat.md §4): "# " + the
 * header JSON, then one stack per line, lines joined by '\n', no trailing
 * newline.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/textesc.h"
#include "base/xmalloc.h"
#include "output/col_parse.h"
#include "output/output.h"
#include "profile/profile.h"

struct colbuf {
	char *buf;
	size_t len;
	size_t cap;
};

struct col_state {
	struct colbuf b;
	int with_idx;
	int with_container;
};

static void
colbuf_reserve(struct colbuf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	while (b->len + more + 1 > b->cap)
		b->cap = b->cap ? b->cap * 2 : 4096;
	b->buf = xreallocarray(b->buf, b->cap, 1);
}

static void
colbuf_add(struct colbuf *b, const char *s, size_t n)
{
	colbuf_reserve(b, n);
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

/*
 * A frame must not break the line format: the one text rule (textesc.c)
 * turns ';' into '|' (the spec's rule for Java signatures) and escapes
 * newlines, other control characters and invalid UTF-8.  The profile's
 * names already are under it (profile.c); this keeps the .col safe even
 * for a name that came another way.
 */
static void
colbuf_add_frame(struct colbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (textesc_clean(s, n, TEXTESC_FRAME)) {
		colbuf_add(b, s, n);
		return;
	}
	colbuf_reserve(b, textesc_len(s, n, TEXTESC_FRAME));
	b->len += textesc_write(b->buf + b->len, s, n, TEXTESC_FRAME);
}

static int
col_line(const struct profile_stack *s, void *arg)
{
	struct col_state *st = arg;
	struct colbuf *b = &st->b;
	char num[32];
	uint32_t i;
	int n;

	if (s->count == 0)
		return (0);
	colbuf_add(b, "\n", 1);
	if (st->with_idx) {
		n = snprintf(num, sizeof(num), "%u;", s->appmeta_idx);
		colbuf_add(b, num, n);
	}
	if (st->with_container) {
		colbuf_add_frame(b, s->container != NULL ? s->container : "");
		colbuf_add(b, ";", 1);
	}
	colbuf_add_frame(b, s->comm);
	if (s->appid != NULL) {
		colbuf_add(b, ";appid: ", 8);
		colbuf_add_frame(b, s->appid);
	}
	for (i = 0; i < s->nframes; i++) {
		colbuf_add(b, ";", 1);
		colbuf_add_frame(b, s->frames[i]);
	}
	n = snprintf(num, sizeof(num), " %llu", (unsigned long long)s->count);
	colbuf_add(b, num, n);
	return (0);
}

/*
 * API v1 as the backend decides it: from the header's
 * metadata.run_arguments.profile_api_version (docs/specs/studio-api.md §4.3).
 */
static int
col_api_v1(struct json_object *hdr)
{
	static const char *const keys[] = { "profile_api_version",
	    "profile-api-version" };
	struct json_object *md, *ra, *v;
	size_t i;

	if (hdr == NULL || !json_object_object_get_ex(hdr, "metadata", &md) ||
	    !json_object_object_get_ex(md, "run_arguments", &ra))
		return (0);
	for (i = 0; i < 2; i++)
		if (json_object_object_get_ex(ra, keys[i], &v) &&
		    json_object_is_type(v, json_type_string))
			return (strcmp(json_object_get_string(v), "v1") == 0);
	return (0);
}

static const char *const col_header_own[] = { "flamegraph_html", "htmlblob",
	NULL };

/*
 * Render the cycle.  The index frame follows the header's
 * application_metadata_enabled and the API version in its run_arguments (one
 * source of truth, the one the backend reads); v1 drops both the index and
 * the container frames.  Caller frees the result.
 */
char *
col_render(const struct cycle_output *co, size_t *lenp)
{
	struct col_state st;
	struct json_object *en;
	const char *hdr;

	memset(&st, 0, sizeof(st));
	st.with_container = !col_api_v1(co->header);
	st.with_idx = st.with_container && co->header != NULL &&
	    json_object_object_get_ex(co->header,
	    "application_metadata_enabled", &en) && json_object_get_boolean(en);
	/* The header's strings come from /proc, PerfSpect, the config:
	 * bring them under the rule (the flame graph page and PerfSpect's
	 * base64 blob are ours and multi-line on purpose). */
	textesc_json(co->header, col_header_own);
	hdr = co->header != NULL ? json_object_to_json_string_ext(co->header,
	    JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE) : "{}";
	colbuf_add(&st.b, "# ", 2);
	colbuf_add(&st.b, hdr, strlen(hdr));
	if (co->profile != NULL)
		profile_foreach(co->profile, col_line, &st);
	if (lenp != NULL)
		*lenp = st.b.len;
	return (st.b.buf);
}
