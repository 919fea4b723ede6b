/* Unit tests of core/output/col.c: the .col text of
 * docs/specs/gprofiler-compat.md §4. */
#include "config.h"

#include <json-c/json.h>

#include "base/log.h"
#include "output/output.h"
#include "profile/profile.h"
#include "testing.h"

static struct json_object *
header(int appmeta, const char *api)
{
	struct json_object *h = json_object_new_object(), *md, *ra;

	md = json_object_new_object();
	ra = json_object_new_object();
	if (api != NULL)
		json_object_object_add(ra, "profile_api_version",
		    json_object_new_string(api));
	json_object_object_add(md, "run_arguments", ra);
	json_object_object_add(md, "hostname", json_object_new_string("h/1"));
	json_object_object_add(h, "metadata", md);
	json_object_object_add(h, "application_metadata_enabled",
	    json_object_new_boolean(appmeta));
	return (h);
}

/* Lines after the header, for lookups independent of hash order. */
static int
has_line(const char *col, const char *line)
{
	const char *p = col;
	size_t n = strlen(line);

	while ((p = strchr(p, '\n')) != NULL) {
		p++;
		if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return (1);
	}
	return (0);
}

static int
count_lines(const char *col)
{
	int n = 1;

	while ((col = strchr(col, '\n')) != NULL) {
		n++;
		col++;
	}
	return (n);
}

static void
test_render(void)
{
	struct profile *p = profile_new();
	struct cycle_output co;
	const char *f1[] = { "main", "Foo.bar(Ljava/lang/String;I)V_[j]" };
	const char *f2[] = { "<module> (/srv/m.py:1)_[p]", "run_[p]" };
	const char *f3[] = { "bad\nframe" };
	struct json_object *parsed, *v;
	char *col;
	size_t len;

	profile_add_stack(p, 10, "java", f1, 2, 3);
	profile_add_stack(p, 11, "python3", f2, 2, 7);
	profile_add_stack(p, 12, "nginx", f3, 1, 1);
	profile_add_stack(p, 13, "idle", NULL, 0, 2);
	profile_set_container(p, 10, "k8s_web_web-7d9f_default_0c1d_0");
	profile_set_appmeta_idx(p, 10, 2);
	profile_set_appid(p, 11, "python: -m mymod");
	profile_set_appid(p, 13, "x: y");
	memset(&co, 0, sizeof(co));
	co.profile = p;
	co.header = header(1, "v2");
	col = col_render(&co, &len);
	CHECK(col != NULL && len == strlen(col), "rendered, length right");
	CHECK(strncmp(col, "# {", 3) == 0, "header line starts with '# {'");
	{
		char *nl = strchr(col, '\n'), *hdr;

		hdr = strndup(col + 2, nl - col - 2);
		parsed = json_tokener_parse(hdr);
		CHECK(parsed != NULL && json_object_object_get_ex(parsed,
		    "metadata", &v), "header is one JSON object on one line");
		CHECK(strstr(hdr, "h/1") != NULL, "slashes not escaped");
		json_object_put(parsed);
		free(hdr);
	}
	CHECK(has_line(col, "2;k8s_web_web-7d9f_default_0c1d_0;java;main;"
	    "Foo.bar(Ljava/lang/String|I)V_[j] 3"),
	    "index, container, ';' in a frame becomes '|'");
	CHECK(has_line(col, "0;;python3;appid: python: -m mymod;"
	    "<module> (/srv/m.py:1)_[p];run_[p] 7"), "appid after comm");
	CHECK(has_line(col, "0;;nginx;bad\\x0aframe 1"),
	    "newline in a frame escaped (textesc.c)");
	CHECK(has_line(col, "0;;idle;appid: x: y 2"),
	    "comm-only stack: appid appended after comm");
	CHECK_INTEQ(count_lines(col), 5, "header + 4 stacks");
	CHECK(col[len - 1] != '\n', "no trailing newline");
	free(col);
	json_object_put(co.header);

	co.header = header(0, NULL);
	col = col_render(&co, &len);
	CHECK(has_line(col, ";python3;appid: python: -m mymod;"
	    "<module> (/srv/m.py:1)_[p];run_[p] 7"),
	    "app metadata disabled: no index frame, container stays");
	free(col);
	json_object_put(co.header);

	co.header = header(1, "v1");
	col = col_render(&co, &len);
	CHECK(has_line(col, "python3;appid: python: -m mymod;"
	    "<module> (/srv/m.py:1)_[p];run_[p] 7"),
	    "API v1: neither index nor container frame");
	free(col);
	json_object_put(co.header);
	profile_free(p);
}

static void
test_empty(void)
{
	struct profile *p = profile_new();
	struct cycle_output co;
	char *col;
	size_t len;

	memset(&co, 0, sizeof(co));
	co.profile = p;
	co.header = header(1, NULL);
	col = col_render(&co, &len);
	CHECK(strchr(col, '\n') == NULL, "empty profile: header line only");
	free(col);
	json_object_put(co.header);
	profile_free(p);
}

int
main(void)
{
	log_init(0, "test_col");
	test_render();
	test_empty();
	return (testing_done());
}
