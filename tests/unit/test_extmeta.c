/*
 * --external-metadata's parser (core/config/extmeta.c): gProfiler's format, the
 * static section extracted, everything else refused with a reason.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "config/configuration.h"
#include "testing.h"

static int
parse(const char *s, struct json_object **st, char *err, size_t errlen)
{
	*err = '\0';
	return (extmeta_parse(s, strlen(s), st, err, errlen));
}

int
main(void)
{
	struct json_object *st, *v;
	char err[256];

	CHECK(parse("{\"static\": {\"team\": \"sre\", \"n\": 3}, "
	    "\"application\": {\"123\": {\"k\": \"v\"}}}", &st, err,
	    sizeof(err)) == 0, "gProfiler's format parses");
	CHECK(st != NULL && json_object_object_get_ex(st, "team", &v) &&
	    strcmp(json_object_get_string(v), "sre") == 0,
	    "the static section is returned");
	CHECK(st != NULL && !json_object_object_get_ex(st, "application",
	    NULL), "... and only it");
	json_object_put(st);
	CHECK(parse("{\"application\": {}}", &st, err, sizeof(err)) == 0 &&
	    st != NULL && json_object_object_length(st) == 0,
	    "no static section: an empty object");
	json_object_put(st);
	CHECK(parse("[1, 2]", &st, err, sizeof(err)) == -EINVAL &&
	    st == NULL && strstr(err, "object") != NULL,
	    "an array is refused, with the reason");
	CHECK(parse("{\"static\": \"x\"}", &st, err, sizeof(err)) == -EINVAL &&
	    strstr(err, "static") != NULL, "a static that is not an object");
	CHECK(parse("{\"static\": {}, \"application\": 7}", &st, err,
	    sizeof(err)) == -EINVAL && strstr(err, "application") != NULL,
	    "an application that is not an object");
	CHECK(parse("{\"static\": {}", &st, err, sizeof(err)) == -EINVAL,
	    "truncated JSON refused");
	CHECK(parse("{\"static\": {}} {}", &st, err, sizeof(err)) == -EINVAL,
	    "trailing data refused");
	CHECK(parse("", &st, err, sizeof(err)) == -EINVAL, "empty file");
	CHECK(extmeta_parse("{\"static\": {\"a\": 1}}\0junk", 24, &st, err,
	    sizeof(err)) == -EINVAL, "a NUL inside the bytes is not the end");
	return (testing_done());
}
