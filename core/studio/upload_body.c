/*
 * The profile upload's body and the backend's answers (docs/specs/studio-api.md
 * §4): gzip'd JSON with the .col text, truncated to fit the 4 MiB compressed
 * limit by folding the lowest-count stacks into one "[truncated]" stack. Pure
 * functions over bytes: unit tested and fuzzed.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <zlib.h>

#include "base/gzip.h"
#include "base/textesc.h"
#include "base/xmalloc.h"
#include "studio/studio.h"

struct col_line {
	const char *s;
	size_t len;
	uint64_t count;
	size_t idx;
};

/* gunzip of a body we made, at most max bytes.  Caller frees. */
static char *
upload_gunzip(const unsigned char *buf, size_t len, size_t max,
    size_t *outlen)
{
	z_stream z;
	char *out;
	size_t cap = len * 4 + 1024;
	int rc;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return (NULL);
	out = xmalloc(cap + 1);
	z.next_in = (unsigned char *)buf;
	z.avail_in = len;
	for (;;) {
		z.next_out = (unsigned char *)out + z.total_out;
		z.avail_out = cap - z.total_out;
		rc = inflate(&z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			break;
		if (rc != Z_OK && rc != Z_BUF_ERROR)
			goto fail;
		if (z.avail_out > 0 && z.avail_in == 0)
			goto fail;	/* truncated */
		if (cap >= max)
			goto fail;
		cap = cap * 2 > max ? max : cap * 2;
		out = xreallocarray(out, cap + 1, 1);
	}
	*outlen = z.total_out;
	out[z.total_out] = '\0';
	inflateEnd(&z);
	return (out);
fail:
	inflateEnd(&z);
	free(out);
	return (NULL);
}

/*
 * The same gzip'd body with another gpid: a profile spooled before this
 * process learnt its gpid goes out with it.  NULL if the body is not
 * one of ours.  Caller frees.
 */
unsigned char *
upload_body_set_gpid(const unsigned char *gz, size_t len, const char *gpid,
    size_t *lenp)
{
	struct json_object *o;
	const char *txt;
	unsigned char *out;
	char *raw;
	size_t rlen, tlen;

	if ((raw = upload_gunzip(gz, len, 1024u << 20, &rlen)) == NULL)
		return (NULL);
	o = json_tokener_parse(raw);
	free(raw);
	if (o == NULL || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return (NULL);
	}
	json_object_object_add(o, "gpid", json_object_new_string(gpid));
	txt = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE, &tlen);
	out = gzip_compress(txt, tlen, lenp);
	json_object_put(o);
	return (out);
}

/* The .col is multi-line by design, and already under the rule. */
static const char *const upload_body_own[] = { "profile", NULL };

static unsigned char *
upload_body_gz(const struct upload_body_args *a, const char *col,
    size_t collen, size_t *lenp)
{
	struct json_object *o;
	const char *txt;
	size_t tlen;
	unsigned char *gz;
	char *safe = NULL;

	/* The backend decodes strictly (422 on one bad byte): a .col from
	 * disk (upload-file) or a hostname from the kernel is brought under
	 * the one text rule; our own .col already is (a no-op scan). */
	if (!textesc_clean(col, collen, TEXTESC_LINES)) {
		safe = xmalloc(textesc_len(col, collen, TEXTESC_LINES) + 1);
		collen = textesc_write(safe, col, collen, TEXTESC_LINES);
		col = safe;
	}
	o = json_object_new_object();
	json_object_object_add(o, "start_time",
	    json_object_new_string(a->start_time));
	json_object_object_add(o, "end_time",
	    json_object_new_string(a->end_time));
	json_object_object_add(o, "hostname",
	    json_object_new_string(a->hostname != NULL ? a->hostname : ""));
	json_object_object_add(o, "profile",
	    json_object_new_string_len(col, (int)collen));
	json_object_object_add(o, "cpu_avg", isnan(a->cpu_avg) ? NULL :
	    json_object_new_double(a->cpu_avg));
	json_object_object_add(o, "mem_avg", isnan(a->mem_avg) ? NULL :
	    json_object_new_double(a->mem_avg));
	if (a->spawn_time != NULL)
		json_object_object_add(o, "spawn_time",
		    json_object_new_string(a->spawn_time));
	json_object_object_add(o, "gpid",
	    json_object_new_string(a->gpid != NULL ? a->gpid : ""));
	textesc_json(o, upload_body_own);
	txt = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE, &tlen);
	gz = gzip_compress(txt, tlen, lenp);
	json_object_put(o);
	free(safe);
	return (gz);
}

/* The stack's count: the number after the last space. */
static int
upload_line_count(const char *s, size_t len, uint64_t *count)
{
	size_t i = len;
	uint64_t c = 0;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == len || i == 0 || s[i - 1] != ' ' || len - i > 19)
		return (-1);
	for (; i < len; i++)
		c = c * 10 + (s[i] - '0');
	*count = c;
	return (0);
}

static int
upload_cmp_count(const void *a, const void *b)
{
	const struct col_line *x = a, *y = b;

	if (x->count != y->count)
		return (x->count < y->count ? -1 : 1);
	return (x->idx < y->idx ? -1 : x->idx > y->idx);
}

static int
upload_cmp_idx(const void *a, const void *b)
{
	const struct col_line *x = a, *y = b;

	return (x->idx < y->idx ? -1 : x->idx > y->idx);
}

/*
 * The header line with a "truncated" note, and the prefix a stack line
 * needs (index frame, container frame) so the indexer reads "[truncated]"
 * as the process.  Caller frees both.
 */
static char *
upload_note_header(const char *hdr, size_t hlen, unsigned nstacks,
    uint64_t nsamples, char **prefixp)
{
	struct json_object *h, *note, *v, *md, *ra;
	char *copy, *out;
	const char *p;
	int appmeta = 0, v1 = 0;

	copy = xstrndup(hdr, hlen);
	p = copy;
	if (*p == '#')		/* an empty first line has no '#' to skip */
		p++;
	while (*p == ' ')
		p++;
	h = json_tokener_parse(p);
	if (h == NULL || !json_object_is_type(h, json_type_object)) {
		json_object_put(h);
		*prefixp = xstrdup("");
		return (copy);
	}
	if (json_object_object_get_ex(h, "application_metadata_enabled", &v))
		appmeta = json_object_get_boolean(v);
	if (json_object_object_get_ex(h, "metadata", &md) &&
	    json_object_object_get_ex(md, "run_arguments", &ra) &&
	    json_object_object_get_ex(ra, "profile_api_version", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    strcmp(json_object_get_string(v), "v1") == 0)
		v1 = 1;
	xasprintf(prefixp, "%s%s", appmeta && !v1 ? "0;" : "", v1 ? "" : ";");
	note = json_object_new_object();
	json_object_object_add(note, "dropped_stacks",
	    json_object_new_int64(nstacks));
	json_object_object_add(note, "dropped_samples",
	    json_object_new_int64((int64_t)nsamples));
	json_object_object_add(note, "reason", json_object_new_string(
	    "compressed profile above the backend's 4 MiB limit"));
	json_object_object_add(h, "truncated", note);
	xasprintf(&out, "# %s", json_object_to_json_string_ext(h,
	    JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(h);
	free(copy);
	return (out);
}

/* The col with the stacks sorted below `keep_from` folded into one. */
static char *
upload_col_truncated(const char *hdr, size_t hlen, struct col_line *lines,
    size_t n, size_t drop, size_t *lenp)
{
	struct col_line *kept;
	uint64_t dropped = 0;
	size_t i, len, off;
	char *h, *prefix, *out, tail[96];

	for (i = 0; i < drop; i++)
		dropped += lines[i].count;
	h = upload_note_header(hdr, hlen, (unsigned)drop, dropped, &prefix);
	kept = xreallocarray(NULL, n - drop + 1, sizeof(*kept));
	memcpy(kept, lines + drop, (n - drop) * sizeof(*kept));
	qsort(kept, n - drop, sizeof(*kept), upload_cmp_idx);
	snprintf(tail, sizeof(tail), "%s[truncated] %llu", prefix,
	    (unsigned long long)dropped);
	len = strlen(h) + strlen(tail) + 2;
	for (i = 0; i < n - drop; i++)
		len += kept[i].len + 1;
	out = xmalloc(len + 1);
	off = strlen(h);
	memcpy(out, h, off);
	for (i = 0; i < n - drop; i++) {
		out[off++] = '\n';
		memcpy(out + off, kept[i].s, kept[i].len);
		off += kept[i].len;
	}
	if (drop > 0)
		off += sprintf(out + off, "\n%s", tail);
	out[off] = '\0';
	*lenp = off;
	free(kept);
	free(h);
	free(prefix);
	return (out);
}

/* Split the col into its header and stack lines (borrowed). */
static struct col_line *
upload_col_split(const char *col, size_t collen, size_t *hlenp, size_t *np)
{
	struct col_line *lines = NULL;
	const char *p, *end = col + collen, *nl;
	size_t n = 0, cap = 0;

	nl = memchr(col, '\n', collen);
	*hlenp = nl != NULL ? (size_t)(nl - col) : collen;
	for (p = nl != NULL ? nl + 1 : end; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			lines = xreallocarray(lines, cap, sizeof(*lines));
		}
		lines[n].s = p;
		lines[n].len = nl - p;
		lines[n].idx = n;
		if (upload_line_count(p, nl - p, &lines[n].count) != 0)
			lines[n].count = 0;
		n++;
	}
	*np = n;
	return (lines);
}

/*
 * The gzip'd JSON body of one upload.  When it is above `limit`, the
 * lowest-count stacks are folded into "[truncated] N" until it fits and
 * the header says so; *truncated is the number of stacks dropped.  NULL
 * if even the header alone does not fit.  Caller frees.
 */
unsigned char *
upload_build_body(const struct upload_body_args *a, size_t limit,
    size_t *lenp, unsigned *truncated)
{
	struct col_line *lines;
	unsigned char *gz;
	char *col;
	size_t gzlen, hlen, n, drop, keepbytes, clen;
	double target;
	int round;

	*truncated = 0;
	gz = upload_body_gz(a, a->col, a->collen, &gzlen);
	if (gz == NULL || gzlen <= limit || limit == 0) {
		*lenp = gzlen;
		return (gz);
	}
	lines = upload_col_split(a->col, a->collen, &hlen, &n);
	if (n == 0) {
		/* A header alone over the limit: nothing to fold. */
		free(gz);
		*lenp = gzlen;
		return (NULL);
	}
	qsort(lines, n, sizeof(*lines), upload_cmp_count);
	/* Aim below the limit by the compression ratio seen; shrink more
	 * each round the estimate misses. */
	target = (double)a->collen * ((double)limit / gzlen) * 0.9;
	for (round = 0; round < 12; round++) {
		keepbytes = 0;
		for (drop = n; drop > 0; drop--) {
			if (keepbytes + lines[drop - 1].len + 1 > target)
				break;
			keepbytes += lines[drop - 1].len + 1;
		}
		free(gz);
		col = upload_col_truncated(a->col, hlen, lines, n, drop, &clen);
		gz = upload_body_gz(a, col, clen, &gzlen);
		free(col);
		if (gz != NULL && gzlen <= limit) {
			*truncated = (unsigned)drop;
			break;
		}
		target *= 0.7;
		if (drop == n && round > 0) {
			free(gz);
			gz = NULL;
			break;
		}
	}
	if (gz != NULL && gzlen > limit) {
		free(gz);
		gz = NULL;
	}
	free(lines);
	*lenp = gzlen;
	return (gz);
}

/*
 * A 200 answer: {"message": "ok", "gpid": "3"}.  The gpid is a string of
 * digits (pydantic coerces it); an int is accepted too.  0 / -EINVAL.
 */
int
upload_parse_response(const char *body, size_t len, char *gpid,
    size_t gpidlen)
{
	struct json_tokener *tok;
	struct json_object *o, *g;
	const char *s;
	char num[32];
	int rc = -EINVAL;

	tok = json_tokener_new();
	o = json_tokener_parse_ex(tok, body, (int)len);
	json_tokener_free(tok);
	if (o == NULL || !json_object_is_type(o, json_type_object))
		goto out;
	if (!json_object_object_get_ex(o, "gpid", &g))
		goto out;
	if (json_object_is_type(g, json_type_string))
		s = json_object_get_string(g);
	else if (json_object_is_type(g, json_type_int)) {
		snprintf(num, sizeof(num), "%lld",
		    (long long)json_object_get_int64(g));
		s = num;
	} else
		goto out;
	if (strlen(s) == 0 || strlen(s) >= gpidlen || strlen(s) > 20 ||
	    strspn(s, "0123456789") != strlen(s))
		goto out;
	snprintf(gpid, gpidlen, "%s", s);
	rc = 0;
out:
	json_object_put(o);
	return (rc);
}

static void
upload_copy_printable(char *buf, size_t buflen, const char *s, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < len && o + 1 < buflen; i++)
		buf[o++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	buf[o] = '\0';
}

/*
 * The first line of a text body that is not JSON, for one log line: an
 * HTML page (a proxy's or a web server's error page) by its <title>, any
 * other text by its first non-empty line.  A whole page with its CR/LF
 * shown as '?' told the operator nothing (issue seen against a proxy in
 * front of Performance Studio).
 */
static void
upload_first_line(const char *body, size_t len, const char **out,
    size_t *outlen)
{
	const char *p = body, *end = body + len, *t, *e;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' ||
	    *p == '\n'))
		p++;
	if (p < end && *p == '<' &&
	    (t = memmem(p, (size_t)(end - p), "<title>", 7)) != NULL &&
	    (e = memmem(t + 7, (size_t)(end - t - 7), "</title>", 8)) != NULL) {
		p = t + 7;
		end = e;
		while (p < end && (*p == ' ' || *p == '\r' || *p == '\n'))
			p++;
	}
	for (e = p; e < end && *e != '\r' && *e != '\n'; e++)
		;
	*out = p;
	*outlen = (size_t)(e - p);
}

/*
 * What the server said, for one log line: a {"message"} dict, a bare
 * JSON string, or FastAPI's 422 {"detail": [{"loc", "msg"}]}; else the
 * text's first line (an HTML page's title), made printable and cut.
 */
void
upload_error_message(const char *body, size_t len, char *buf, size_t buflen)
{
	struct json_tokener *tok;
	struct json_object *o, *v, *d, *loc;
	const char *s = NULL;
	char tmp[512];

	if (buflen == 0)
		return;
	buf[0] = '\0';
	tok = json_tokener_new();
	o = json_tokener_parse_ex(tok, body, (int)len);
	json_tokener_free(tok);
	if (o != NULL && json_object_is_type(o, json_type_string))
		s = json_object_get_string(o);
	else if (o != NULL && json_object_is_type(o, json_type_object)) {
		if (json_object_object_get_ex(o, "message", &v) &&
		    json_object_is_type(v, json_type_string))
			s = json_object_get_string(v);
		else if (json_object_object_get_ex(o, "detail", &v) &&
		    json_object_is_type(v, json_type_array) &&
		    json_object_array_length(v) > 0 &&
		    (d = json_object_array_get_idx(v, 0)) != NULL &&
		    json_object_is_type(d, json_type_object) &&
		    json_object_object_get_ex(d, "msg", &v)) {
			loc = NULL;
			json_object_object_get_ex(d, "loc", &loc);
			snprintf(tmp, sizeof(tmp), "%s (%s)",
			    json_object_get_string(v), loc != NULL ?
			    json_object_to_json_string_ext(loc,
			    JSON_C_TO_STRING_PLAIN) : "?");
			s = tmp;
		} else if (json_object_object_get_ex(o, "detail", &v) &&
		    json_object_is_type(v, json_type_string))
			s = json_object_get_string(v);
	}
	if (s != NULL)
		upload_copy_printable(buf, buflen, s, strlen(s));
	else {
		const char *l;
		size_t ll;

		upload_first_line(body, len, &l, &ll);
		upload_copy_printable(buf, buflen, l, ll < 200 ? ll : 200);
	}
	json_object_put(o);
}

/* "256mb" style sizes, binary units, as bytes. */
int
upload_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (s == NULL || !isdigit((unsigned char)*s))
		return (-EINVAL);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return (-EINVAL);
	if (*end != '\0') {
		switch (tolower((unsigned char)*end)) {
		case 'k': mult = 1ull << 10; break;
		case 'm': mult = 1ull << 20; break;
		case 'g': mult = 1ull << 30; break;
		case 'b': mult = 1; break;
		default: return (-EINVAL);
		}
		end++;
		if (*end == 'b' || *end == 'B')
			end++;
		if (*end != '\0')
			return (-EINVAL);
	}
	*out = v * mult;
	return (0);
}
