/* flamegraph.c: the tree and page built from .col text. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "output/output.h"
#include "testing.h"

static struct json_object *
fg(const char *col, size_t len)
{
	struct json_object *o;
	size_t n;
	char *j;

	j = flamegraph_json(col, len, NULL, NULL, &n);
	o = json_tokener_parse(j);
	free(j);
	return (o);
}

/* The node at "a|b|c" under the tree root, or NULL. */
static struct json_object *
node_at(struct json_object *root, const char *path)
{
	struct json_object *n, *kids, *k = NULL, *name;
	char buf[256], *save, *seg;
	size_t i;

	if (!json_object_object_get_ex(root, "tree", &n))
		return (NULL);
	snprintf(buf, sizeof(buf), "%s", path);
	for (seg = strtok_r(buf, "|", &save); seg != NULL;
	    seg = strtok_r(NULL, "|", &save)) {
		if (!json_object_object_get_ex(n, "children", &kids))
			return (NULL);
		for (i = 0; i < json_object_array_length(kids); i++) {
			k = json_object_array_get_idx(kids, i);
			json_object_object_get_ex(k, "name", &name);
			if (strcmp(json_object_get_string(name),
			    strcmp(seg, "-") == 0 ? "" : seg) == 0)
				break;
		}
		if (i == json_object_array_length(kids))
			return (NULL);
		n = k;
	}
	return (n);
}

static long long
value_at(struct json_object *root, const char *path)
{
	struct json_object *n = node_at(root, path), *v;

	if (n == NULL || !json_object_object_get_ex(n, "value", &v))
		return (-1);
	return (json_object_get_int64(v));
}

static const char *
meta_str(struct json_object *root, const char *key)
{
	struct json_object *m, *v;

	if (!json_object_object_get_ex(root, "meta", &m) ||
	    !json_object_object_get_ex(m, key, &v))
		return (NULL);
	return (json_object_get_string(v));
}

static void
test_tree(void)
{
	static const char col[] = "# {\"application_metadata_enabled\": true, "
	    "\"profiling_mode\": \"cpu\", \"metadata\": {\"hostname\": \"h1\", "
	    "\"current_time\": \"2025-01-08T11:00:00\"}}\n"
	    "0;;python3;main_[p];f_[p] 5\n"
	    "3;;python3;main_[p];g_[p] 2\n"
	    "1;web;nginx;ngx_main;epoll_wait_[k] 4\n"
	    "1;web;python3;main_[p] 1";
	struct json_object *o = fg(col, strlen(col));

	CHECK(o != NULL, "page JSON parses");
	CHECK_INTEQ(value_at(o, ""), 12, "root = total");
	CHECK_INTEQ(value_at(o, "-"), 7, "no-container group");
	CHECK_INTEQ(value_at(o, "-|python3|main_[p]"), 7,
	    "index frame cut, stacks merged across indexes");
	CHECK_INTEQ(value_at(o, "-|python3|main_[p]|f_[p]"), 5, "leaf f");
	CHECK_INTEQ(value_at(o, "-|python3|main_[p]|g_[p]"), 2, "leaf g");
	CHECK_INTEQ(value_at(o, "web|nginx|ngx_main|epoll_wait_[k]"), 4,
	    "container level");
	CHECK_INTEQ(value_at(o, "web|python3|main_[p]"), 1, "self-only frame");
	CHECK(node_at(o, "0") == NULL && node_at(o, "-|0") == NULL,
	    "no index frame anywhere");
	CHECK_STREQ(meta_str(o, "host"), "h1", "host");
	CHECK_STREQ(meta_str(o, "mode"), "cpu", "mode");
	CHECK_STREQ(meta_str(o, "end"), "2025-01-08T11:00:00",
	    "end from metadata.current_time");
	CHECK_STREQ(meta_str(o, "containers"), "true", "container level flag");
	json_object_put(o);
}

static void
test_prefixes(void)
{
	static const char v1[] = "# {\"metadata\": {\"run_arguments\": "
	    "{\"profile_api_version\": \"v1\"}}}\nbash;main 3";
	static const char plain[] = "bash;main 3\nbash;x 1";
	static const char noidx[] = "# {}\nweb;bash;main 3";
	struct json_object *o;

	o = fg(v1, strlen(v1));
	CHECK_INTEQ(value_at(o, "bash|main"), 3, "v1: no prefix frames");
	CHECK_STREQ(meta_str(o, "containers"), "false", "v1: no containers");
	json_object_put(o);
	o = fg(plain, strlen(plain));
	CHECK_INTEQ(value_at(o, "bash"), 4, "no header: plain folded stacks");
	json_object_put(o);
	o = fg(noidx, strlen(noidx));
	CHECK_INTEQ(value_at(o, "web|bash|main"), 3,
	    "header without appmeta: container only");
	json_object_put(o);
}

static void
test_escaping(void)
{
	static const char col[] = "a;</script><script>alert(1)</script>;"
	    "x\xe2\x80\xa8y;bad\xff\xc0z;q\"\\&<!-- 2";
	struct json_object *o;
	char *j, *html;
	size_t n, hn;
	const char *s, *e;
	int tags = 0;

	j = flamegraph_json(col, strlen(col), NULL, NULL, &n);
	CHECK(memchr(j, '<', n) == NULL && memchr(j, '>', n) == NULL,
	    "no < or > in the JSON");
	CHECK(strstr(j, "\\u2028") != NULL, "U+2028 escaped");
	o = json_tokener_parse(j);
	CHECK(o != NULL, "escaped JSON parses");
	CHECK_INTEQ(value_at(o, "a|</script><script>alert(1)</script>"), 2,
	    "hostile name survives as text");
	CHECK_INTEQ(value_at(o, "a|</script><script>alert(1)</script>|"
	    "x\\u2028y|bad\\xff\\xc0z"), 2,
	    "U+2028 and invalid UTF-8 escaped by the text rule");
	json_object_put(o);
	free(j);
	html = flamegraph_render(col, strlen(col), &hn);
	CHECK(strlen(html) == hn, "page length");
	CHECK(strstr(html, "{{{JSON_DATA}}}") == NULL, "placeholder replaced");
	for (s = html; (e = strstr(s, "</script>")) != NULL; s = e + 1)
		tags++;
	CHECK_INTEQ(tags, 2, "only the template's own </script> tags");
	free(html);
}

static void
test_bad_and_empty(void)
{
	static const char col[] = "# {}\n;a;b 1\ngarbage\n;a;c x\n;a;b 2";
	struct json_object *o, *m, *bad, *v;
	struct timespec st = { 1736330400, 0 }, en = { 1736330460, 0 };
	size_t n;
	char *j;

	o = fg(col, strlen(col));
	CHECK_INTEQ(value_at(o, "-|a|b"), 3, "good lines drawn");
	json_object_object_get_ex(o, "meta", &m);
	json_object_object_get_ex(m, "nbad", &v);
	CHECK_INTEQ(json_object_get_int(v), 2, "bad lines counted");
	json_object_object_get_ex(m, "bad", &bad);
	v = json_object_array_get_idx(bad, 1);
	json_object_object_get_ex(v, "line", &v);
	CHECK_INTEQ(json_object_get_int(v), 4, "second bad line number");
	json_object_put(o);

	o = fg("# {}", 4);
	CHECK_INTEQ(value_at(o, ""), 0, "empty profile: total 0");
	json_object_put(o);
	j = flamegraph_json("", 0, &st, &en, &n);
	o = json_tokener_parse(j);
	CHECK_STREQ(meta_str(o, "start"), "2025-01-08T10:00:00",
	    "start from the cycle");
	CHECK_STREQ(meta_str(o, "end"), "2025-01-08T10:01:00",
	    "end from the cycle");
	json_object_put(o);
	free(j);
}

static void
test_deep(void)
{
	size_t depth = 200000, i, n;
	char *col, *j;

	col = malloc(depth * 2 + 8);
	for (i = 0; i < depth; i++)
		memcpy(col + i * 2, "f;", 2);
	memcpy(col + depth * 2 - 1, " 1", 3);
	j = flamegraph_json(col, strlen(col), NULL, NULL, &n);
	CHECK(j != NULL && n > depth * 10, "200000-deep stack without "
	    "recursion");
	free(j);
	free(col);
}

int
main(void)
{
	test_tree();
	test_prefixes();
	test_escaping();
	test_bad_and_empty();
	test_deep();
	return (testing_done());
}
