/*
 * JSON objects of the host API: plugins build metadata through opaque
 * gp_json handles, each checked by its magic (it comes back from a .so we
 * did not build).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "base/log.h"
#include "base/xmalloc.h"
#include "gprofiler.h"
#include "host/host.h"
#include "host/host_api_int.h"

struct gp_json {
	unsigned magic;	/* JSON_MAGIC */
	struct json_object *obj;
};

/* JSON. */
struct gp_json *
host_json_new(void)
{
	struct gp_json *j;

	j = xcalloc(1, sizeof(*j));
	j->magic = JSON_MAGIC;
	j->obj = json_object_new_object();
	return (j);
}

void
host_json_free(struct gp_json *j)
{
	if (j == NULL)
		return;
	CHECK_OBJ(j, JSON_MAGIC);
	json_object_put(j->obj);
	j->magic = 0;
	free(j);
}

static int
json_put(struct gp_json *j, const char *key, struct json_object *v)
{
	CHECK_OBJ(j, JSON_MAGIC);
	if (key == NULL) {
		json_object_put(v);
		return (-EINVAL);
	}
	json_object_object_add(j->obj, key, v);
	return (0);
}

int
host_json_set_string(struct gp_json *j, const char *key, const char *val)
{
	return (json_put(j, key, val != NULL ? json_object_new_string(val) :
	    NULL));
}

int
host_json_set_int(struct gp_json *j, const char *key, int64_t val)
{
	return (json_put(j, key, json_object_new_int64(val)));
}

int
host_json_set_double(struct gp_json *j, const char *key, double val)
{
	return (json_put(j, key, json_object_new_double(val)));
}

int
host_json_set_bool(struct gp_json *j, const char *key, int32_t val)
{
	return (json_put(j, key, json_object_new_boolean(val != 0)));
}

int
host_json_set_null(struct gp_json *j, const char *key)
{
	return (json_put(j, key, NULL));
}

int
host_json_set_object(struct gp_json *j, const char *key,
    struct gp_json *child)
{
	if (child == NULL)
		return (-EINVAL);
	return (json_put(j, key, host_json_take(child)));
}

int
host_json_set_raw(struct gp_json *j, const char *key, const char *text)
{
	struct json_object *o;
	enum json_tokener_error jerr;

	CHECK_OBJ(j, JSON_MAGIC);
	if (text == NULL)
		return (-EINVAL);
	o = json_tokener_parse_verbose(text, &jerr);
	if (o == NULL && jerr != json_tokener_success)
		return (-EINVAL);
	return (json_put(j, key, o));
}

/* The object of j, whose wrapper goes: a plugin handed it over. */
struct json_object *
host_json_take(struct gp_json *j)
{
	struct json_object *o;

	CHECK_OBJ(j, JSON_MAGIC);
	o = j->obj;
	j->magic = 0;
	free(j);
	return (o);
}

/* Wrap a json_object for a plugin (adds a reference). */
struct gp_json *
host_json_wrap(struct json_object *o)
{
	struct gp_json *j;

	j = xcalloc(1, sizeof(*j));
	j->magic = JSON_MAGIC;
	j->obj = json_object_get(o);
	return (j);
}

void
host_json_release(struct gp_json *j)
{
	host_json_free(j);
}
