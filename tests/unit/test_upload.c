/* Unit tests of the upload body (gzip'd JSON, truncation) and answers. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <zlib.h>

#include "studio/studio.h"
#include "testing.h"

/* gunzip with zlib (the way the backend's gzip.decompress reads it). */
static char *
gunzip(const unsigned char *gz, size_t len, size_t *outlen)
{
	z_stream z;
	size_t cap = 1 << 20;
	char *out = malloc(cap);
	int rc;

	memset(&z, 0, sizeof(z));
	inflateInit2(&z, 15 + 16);
	z.next_in = (unsigned char *)gz;
	z.avail_in = len;
	for (;;) {
		z.next_out = (unsigned char *)out + z.total_out;
		z.avail_out = cap - z.total_out - 1;
		rc = inflate(&z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			break;
		if (rc != Z_OK || z.avail_out != 0) {
			if (rc != Z_OK && rc != Z_BUF_ERROR) {
				free(out);
				inflateEnd(&z);
				return (NULL);
			}
		}
		cap *= 2;
		out = realloc(out, cap);
	}
	*outlen = z.total_out;
	out[z.total_out] = '\0';
	inflateEnd(&z);
	return (out);
}

static const char *HDR = "# {\"containers\": [], \"metadata\": {\"hostname\": "
    "\"h1\", \"run_arguments\": {}}, \"application_metadata_enabled\": true}";

static void
test_plain_body(void)
{
	struct upload_body_args a;
	struct json_object *o, *v;
	unsigned char *gz;
	char *txt, col[512];
	size_t len, tlen;
	unsigned trunc = 99;

	snprintf(col, sizeof(col), "%s\n0;;python3;main;f/g 7\n0;;sh;x 2",
	    HDR);
	memset(&a, 0, sizeof(a));
	a.col = col;
	a.collen = strlen(col);
	a.start_time = "2025-01-08T11:00:00";
	a.end_time = "2025-01-08T11:01:00";
	a.hostname = "h1";
	a.spawn_time = "2025-01-08T10:00:02";
	a.gpid = "";
	a.cpu_avg = 12.5;
	a.mem_avg = NAN;
	gz = upload_build_body(&a, UPLOAD_MAX_COMPRESSED, &len, &trunc);
	CHECK(gz != NULL && gz[0] == 0x1f && gz[1] == 0x8b, "body is gzip");
	CHECK_INTEQ(trunc, 0, "small body not truncated");
	txt = gunzip(gz, len, &tlen);
	o = json_tokener_parse(txt);
	CHECK(o != NULL, "body is JSON");
	CHECK(json_object_object_get_ex(o, "profile", &v) &&
	    strcmp(json_object_get_string(v), col) == 0,
	    "profile is the exact col text (slashes unescaped)");
	CHECK(strstr(txt, "f/g") != NULL, "no \\/ escaping in the body");
	CHECK(json_object_object_get_ex(o, "gpid", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    strcmp(json_object_get_string(v), "") == 0, "gpid \"\" first");
	CHECK(json_object_object_get_ex(o, "start_time", &v) &&
	    strcmp(json_object_get_string(v), "2025-01-08T11:00:00") == 0,
	    "start_time naive UTC");
	CHECK(json_object_object_get_ex(o, "mem_avg", &v) && v == NULL,
	    "NaN metric is null");
	CHECK(json_object_object_get_ex(o, "cpu_avg", &v) &&
	    json_object_get_double(v) == 12.5, "cpu_avg");
	json_object_put(o);
	free(txt);
	free(gz);
}

/* A header alone over the limit has no stack to fold: no body. */
static void
test_header_only(void)
{
	struct upload_body_args a;
	unsigned char *gz;
	char col[2048];
	size_t len, i;
	unsigned trunc = 7;
	uint64_t x = 88172645463325252ull;

	strcpy(col, "# {\"h\": \"");
	for (i = strlen(col); i < sizeof(col) - 8; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		col[i] = 'a' + x % 26;
	}
	strcpy(col + i, "\"}");
	memset(&a, 0, sizeof(a));
	a.col = col;
	a.collen = strlen(col);
	a.start_time = a.end_time = "2025-01-08T11:00:00";
	a.gpid = "";
	a.cpu_avg = a.mem_avg = NAN;
	gz = upload_build_body(&a, 256, &len, &trunc);
	CHECK(gz == NULL, "a header alone over the limit gives no body");
	CHECK_INTEQ(trunc, 0, "nothing counted as dropped");
	free(gz);
}

/*
 * An empty first line where the header belongs, and stacks over the limit
 * (fuzz_upload_resp): the truncation note reads the header line without
 * stepping past its end.
 */
static void
test_empty_header(void)
{
	struct upload_body_args a;
	unsigned char *gz;
	char col[8192];
	size_t len, off = 0;
	unsigned trunc = 0;
	uint64_t x = 88172645463325252ull;
	int i, j;

	col[off++] = '\n';
	for (i = 0; i < 100; i++) {
		col[off++] = 'p';
		col[off++] = ';';
		for (j = 0; j < 40; j++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			col[off++] = 'a' + x % 26;
		}
		off += snprintf(col + off, sizeof(col) - off, " %d\n", i + 1);
	}
	col[off] = '\0';
	memset(&a, 0, sizeof(a));
	a.col = col;
	a.collen = off;
	a.start_time = a.end_time = "2025-01-08T11:00:00";
	a.gpid = "";
	a.cpu_avg = a.mem_avg = NAN;
	gz = upload_build_body(&a, 2048, &len, &trunc);
	CHECK(gz != NULL && trunc > 0, "no header: truncated, not read past");
	free(gz);
}

/* Random-looking frames compress badly: a small limit forces truncation. */
static void
test_truncation(void)
{
	struct upload_body_args a;
	struct json_object *o, *v, *h, *note;
	unsigned char *gz;
	char *col, *txt, *p, *last;
	size_t len, tlen, off, i;
	unsigned trunc = 0, nlines = 0, seen_big = 0;
	uint64_t x = 88172645463325252ull, total = 0, got = 0;
	const char *prof;

	col = malloc(4 << 20);
	off = sprintf(col, "%s", HDR);
	for (i = 0; i < 20000; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		off += sprintf(col + off, "\n0;;proc;f%016llx;g%016llx %zu",
		    (unsigned long long)x, (unsigned long long)(x * 31),
		    i == 777 ? (size_t)1000000 : i % 50 + 1);
		total += i == 777 ? 1000000 : i % 50 + 1;
	}
	memset(&a, 0, sizeof(a));
	a.col = col;
	a.collen = off;
	a.start_time = a.end_time = "2025-01-08T11:00:00";
	a.hostname = "h1";
	a.gpid = "3";
	a.cpu_avg = a.mem_avg = NAN;
	gz = upload_build_body(&a, 64 << 10, &len, &trunc);
	CHECK(gz != NULL, "truncated body built");
	CHECK(len <= (64 << 10), "compressed body under the limit");
	CHECK(trunc > 0 && trunc < 20000, "some stacks dropped");
	txt = gunzip(gz, len, &tlen);
	o = json_tokener_parse(txt);
	CHECK(o != NULL && json_object_object_get_ex(o, "profile", &v),
	    "truncated body is JSON with a profile");
	prof = json_object_get_string(v);
	CHECK(strncmp(prof, "# {", 3) == 0, "header line kept");
	h = json_tokener_parse(prof + 2);
	CHECK(h != NULL && json_object_object_get_ex(h, "truncated", &note) &&
	    json_object_object_get_ex(note, "dropped_stacks", &v) &&
	    json_object_get_int64(v) == trunc, "header notes the truncation");
	CHECK(h != NULL && json_object_object_get_ex(h, "metadata", &v),
	    "header keeps metadata");
	/* Sum counts: nothing lost, the big stack kept. */
	last = NULL;
	for (p = strchr(prof, '\n'); p != NULL; p = strchr(p + 1, '\n')) {
		const char *eol = strchr(p + 1, '\n'), *sp;

		if (eol == NULL)
			eol = p + 1 + strlen(p + 1);
		nlines++;
		last = p + 1;
		for (sp = eol; sp > p && *sp != ' '; sp--)
			;
		got += strtoull(sp + 1, NULL, 10);
		if (eol - sp == 8 && strncmp(sp, " 1000000", 8) == 0)
			seen_big = 1;
	}
	CHECK_INTEQ(got, total, "sample total preserved");
	CHECK(seen_big, "the highest-count stack kept");
	CHECK(last != NULL && strncmp(last, "0;;[truncated] ", 15) == 0,
	    "last line is the [truncated] stack with index/container frames");
	CHECK_INTEQ(nlines, 20000 - trunc + 1, "line count");
	json_object_put(h);
	json_object_put(o);
	free(txt);
	free(gz);
	free(col);
}

static void
test_responses(void)
{
	char g[32], m[256];

	CHECK(upload_parse_response("{\"message\": \"ok\", \"gpid\": \"3\"}",
	    30, g, sizeof(g)) == 0 && strcmp(g, "3") == 0, "gpid string");
	CHECK(upload_parse_response("{\"message\":\"ok\",\"gpid\":42}", 26,
	    g, sizeof(g)) == 0 && strcmp(g, "42") == 0, "gpid int");
	CHECK(upload_parse_response("{\"gpid\":\"x1\"}", 13, g, sizeof(g)) ==
	    -EINVAL, "non-numeric gpid refused");
	CHECK(upload_parse_response("{\"gpid\":null}", 13, g, sizeof(g)) ==
	    -EINVAL, "null gpid refused");
	CHECK(upload_parse_response("garbage", 7, g, sizeof(g)) == -EINVAL,
	    "garbage refused");
	CHECK(upload_parse_response("[1]", 3, g, sizeof(g)) == -EINVAL,
	    "array refused");
	upload_error_message("{\"message\": \"Failed to parse v2 metadata\"}",
	    42, m, sizeof(m));
	CHECK_STREQ(m, "Failed to parse v2 metadata", "dict message");
	upload_error_message("\"Length Required\"", 17, m, sizeof(m));
	CHECK_STREQ(m, "Length Required", "bare string");
	upload_error_message("{\"detail\": [{\"loc\": [\"body\", \"gpid\"], "
	    "\"msg\": \"field required\", \"type\": \"value_error.missing\"}]}",
	    97, m, sizeof(m));
	CHECK_STREQ(m, "field required ([\"body\",\"gpid\"])", "422 detail");
	upload_error_message("<html>\x01oops", 11, m, sizeof(m));
	CHECK_STREQ(m, "<html>?oops", "raw text made printable");
	{
		const char *page = "<html>\r\n<head><title>502 Bad Gateway"
		    "</title></head>\r\n<body>\r\n<center><h1>502 Bad "
		    "Gateway</h1></center>\r\n</body>\r\n</html>\r\n";
		const char *text = "\r\n  Internal Server Error\r\nTraceback"
		    " (most recent call last):\r\n";

		upload_error_message(page, strlen(page), m, sizeof(m));
		CHECK_STREQ(m, "502 Bad Gateway", "an HTML page: its title");
		upload_error_message(text, strlen(text), m, sizeof(m));
		CHECK_STREQ(m, "Internal Server Error",
		    "plain text: its first non-empty line");
		upload_error_message("<html><title>x", 14, m, sizeof(m));
		CHECK_STREQ(m, "<html><title>x", "an unclosed title: the line");
		upload_error_message("", 0, m, sizeof(m));
		CHECK_STREQ(m, "", "an empty body");
	}
}

static void
test_sizes(void)
{
	uint64_t v = 0;

	CHECK(upload_parse_size("2mb", &v) == 0 && v == 2097152, "2mb");
	CHECK(upload_parse_size("100", &v) == 0 && v == 100, "bytes");
	CHECK(upload_parse_size("1G", &v) == 0 && v == (1ull << 30), "1G");
	CHECK(upload_parse_size("mb", &v) == -EINVAL, "no number");
	CHECK(upload_parse_size("3x", &v) == -EINVAL, "bad unit");
}

static void
test_backoff(void)
{
	unsigned d, i, ok = 1;

	for (i = 0; i < 200; i++) {
		d = backoff_delay_ms(0, 1000, 30000);
		if (d < 500 || d > 1000)
			ok = 0;
		d = backoff_delay_ms(3, 1000, 30000);
		if (d < 4000 || d > 8000)
			ok = 0;
		d = backoff_delay_ms(30, 1000, 30000);
		if (d < 15000 || d > 30000)
			ok = 0;
	}
	CHECK(ok, "backoff doubles, jitters within [d/2, d], caps");
}

int
main(void)
{
	test_plain_body();
	test_truncation();
	test_header_only();
	test_empty_header();
	test_responses();
	test_sizes();
	test_backoff();
	return (testing_done());
}
