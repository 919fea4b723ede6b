/*
 * The one text rule (core/base/textesc.c): invalid UTF-8 and control characters
 * escaped, ';' kept out of frames, idempotent; and where it is applied:
 * the profile store, the .col (stack lines and header JSON), the upload
 * body.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/textesc.h"
#include "output/output.h"
#include "profile/profile.h"
#include "testing.h"

static char *
esc(const char *s, int flags)
{
	return (textesc_dup(s, strlen(s), flags, NULL));
}

static void
check_esc(const char *in, int flags, const char *want, const char *what)
{
	char *o = esc(in, flags);

	CHECK_STREQ(o, want, what);
	CHECK(o != NULL && textesc_clean(o, strlen(o), flags) &&
	    strcmp(o, want) == 0 && textesc_len(in, strlen(in), flags) ==
	    strlen(want), "clean output, length agrees");
	CHECK(textesc_clean(in, strlen(in), flags) == (strcmp(in, want) == 0),
	    "clean() iff unchanged");
	free(o);
}

static void
test_rule(void)
{
	check_esc("python3", TEXTESC_FRAME, "python3", "ASCII unchanged");
	check_esc("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x94\xa5", TEXTESC_FRAME,
	    "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x94\xa5",
	    "valid UTF-8 unchanged");
	check_esc("\xffx", TEXTESC_FRAME, "\\xffx",
	    "the issue's comm: 0xff as \\xff");
	check_esc("a\xc0\xaf" "b\xed\xa0\x80" "c\xf4\x90\x80\x80" "d\xe2\x82",
	    0, "a\\xc0\\xafb\\xed\\xa0\\x80c\\xf4\\x90\\x80\\x80d\\xe2\\x82",
	    "overlong, surrogate, past U+10FFFF, truncated: byte by byte");
	check_esc("a\nb\rc\td\ve\ff\x1cg\x1dh\x1ei\x7fj", 0,
	    "a\\x0ab\\x0dc\\x09d\\x0be\\x0cf\\x1cg\\x1dh\\x1ei\\x7fj",
	    "C0 and DEL escaped (every splitlines() separator)");
	check_esc("x\xc2\x85y\xe2\x80\xa8z\xe2\x80\xa9w\xc2\xa0", 0,
	    "x\\x85y\\u2028z\\u2029w\xc2\xa0",
	    "C1 NEL, U+2028/9 escaped; NBSP kept");
	check_esc("th;read", TEXTESC_FRAME, "th|read", "';' in a frame: '|'");
	check_esc("th;read", 0, "th;read", "';' kept outside frames");
	check_esc("l1\nl2;\x0b", TEXTESC_LINES, "l1\nl2;\\x0b",
	    "multi-line text keeps '\\n' only");
	check_esc("c:\\x41\\", TEXTESC_FRAME, "c:\\x41\\",
	    "backslashes copied (idempotence)");
	CHECK(textesc_len("a\0b", 3, 0) == 6, "NUL inside counted bytes");
}

/* The idempotence the fuzz target checks, over every 2-byte input. */
static void
test_idempotent(void)
{
	char in[2], *a, *b;
	int i, j, bad = 0;

	for (i = 0; i < 256; i++)
		for (j = 0; j < 256; j++) {
			in[0] = (char)i;
			in[1] = (char)j;
			a = textesc_dup(in, 2, TEXTESC_FRAME, NULL);
			b = textesc_dup(a, strlen(a), TEXTESC_FRAME, NULL);
			bad += strcmp(a, b) != 0 ||
			    !textesc_clean(a, strlen(a), TEXTESC_FRAME);
			free(a);
			free(b);
		}
	CHECK_INTEQ(bad, 0, "every 2-byte input: one pass is enough");
}

static int
find_comm(const struct profile_stack *s, void *arg)
{
	const char **want = arg;

	if (strcmp(s->comm, want[0]) == 0 && s->nframes == 2 &&
	    strcmp(s->frames[0], want[1]) == 0 &&
	    strcmp(s->frames[1], want[2]) == 0)
		want[3] = "found";
	return (0);
}

static void
test_profile_col(void)
{
	static const char *const fr[] = { "f;g\n", "\xc3(" };
	const char *want[4] = { "\\xffx", "f|g\\x0a", "\\xc3(",
				    NULL };
	struct cycle_output co;
	struct profile *p = profile_new();
	struct json_object *h, *md, *jo;
	char *col, *nl;
	size_t len;

	profile_add_stack(p, 7, "\xffx", fr, 2, 3);
	profile_set_container(p, 7, "ctr\x1e;x");
	profile_set_appid(p, 7, "python: \xfe");
	profile_foreach(p, find_comm, want);
	CHECK(want[3] != NULL, "the profile holds names under the rule");
	CHECK_STREQ(profile_pid_container(p, 7), "ctr\\x1e|x",
	    "container under the rule");
	CHECK_STREQ(profile_pid_appid(p, 7), "python: \\xfe",
	    "appid under the rule");

	memset(&co, 0, sizeof(co));
	h = json_object_new_object();
	md = json_object_new_object();
	json_object_object_add(md, "hostname",
	    json_object_new_string("h\xff\xe2\x80\xa8"));
	json_object_object_add(h, "metadata", md);
	jo = json_object_new_array();
	json_object_array_add(jo, json_object_new_string("c\x0b"));
	json_object_object_add(h, "containers", jo);
	jo = json_object_new_object();
	json_object_object_add(jo, "metric\xff", json_object_new_string("1"));
	json_object_object_add(h, "hwmetrics", jo);
	json_object_object_add(h, "flamegraph_html",
	    json_object_new_string("<html>\n</html>"));
	co.header = h;
	co.profile = p;
	col = col_render(&co, &len);
	CHECK(textesc_clean(col, len, TEXTESC_LINES), ".col: valid UTF-8, "
	    "no control character but the line breaks");
	nl = strchr(col, '\n');
	CHECK(nl != NULL && strchr(nl + 1, '\n') == NULL,
	    "one header line and one stack line");
	CHECK(nl != NULL && strcmp(nl + 1, "ctr\\x1e|x;\\xffx;appid: python: "
	    "\\xfe;f|g\\x0a;\\xc3( 3") == 0, "the stack line");
	CHECK(strstr(col, "\"h\\\\xff\\\\u2028\"") != NULL &&
	    strstr(col, "\"c\\\\x0b\"") != NULL &&
	    strstr(col, "\"metric\\\\xff\": \"1\"") != NULL,
	    "header strings and keys under the rule");
	CHECK(strstr(col, "<html>\\n</html>") != NULL,
	    "the flame graph page is ours: left as it is");
	free(col);
	json_object_put(h);
	profile_free(p);
}

int
main(void)
{
	test_rule();
	test_idempotent();
	test_profile_col();
	return (testing_done());
}
