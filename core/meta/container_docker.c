/*
 * The Docker Engine API's container list (GET /containers/json), which
 * podman's Docker-compatible service answers too: a pure parser.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <json-c/json.h>

#include "meta/container.h"

static int
container_docker_id_ok(const char *s, size_t len)
{
	size_t i;

	if (len != 64)
		return (0);
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return (0);
	return (1);
}

/*
 * [{"Id": "<64 hex>", "Names": ["/web"]}, ...]: the name as `docker ps`
 * shows it, the first of Names without the leading '/'.
 */
int
container_docker_parse(const char *body, size_t len,
    const struct container_sink *sink)
{
	struct json_tokener *tok;
	struct json_object *a, *e, *id, *names, *n0;
	const char *name;
	size_t i, n;
	int count = 0;

	if (len > INT32_MAX)
		return (-EINVAL);
	tok = json_tokener_new();
	a = json_tokener_parse_ex(tok, body, (int)len);
	json_tokener_free(tok);
	if (a == NULL || !json_object_is_type(a, json_type_array)) {
		json_object_put(a);
		return (-EINVAL);
	}
	n = json_object_array_length(a);
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(a, i);
		if (!json_object_is_type(e, json_type_object) ||
		    !json_object_object_get_ex(e, "Id", &id) ||
		    !json_object_is_type(id, json_type_string) ||
		    !container_docker_id_ok(json_object_get_string(id),
		    json_object_get_string_len(id)))
			continue;
		name = "";
		if (json_object_object_get_ex(e, "Names", &names) &&
		    json_object_is_type(names, json_type_array) &&
		    json_object_array_length(names) > 0 &&
		    (n0 = json_object_array_get_idx(names, 0)) != NULL &&
		    json_object_is_type(n0, json_type_string)) {
			name = json_object_get_string(n0);
			if (*name == '/')
				name++;
		}
		sink->put(sink->arg, json_object_get_string(id), name);
		count++;
	}
	json_object_put(a);
	return (count);
}
