/*
 * The cloud metadata probes run in a short-lived child of the agent
 * ("gprofiler probe-cloud"): they need libcurl and a TLS library, about
 * 8 MB resident once initialised, which the long-running agent would
 * otherwise carry for its whole life to ask three metadata services once.
 * The child prints {"provider": ..., "info": {...}}; the agent takes it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "base/child.h"
#include "base/http.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "meta/meta.h"

#define CLOUD_PROBE_OUT_MAX	(64 * 1024)

static struct {
	char *out;
	size_t len;
} probe;

static void
cloud_probe_line(void *arg, const char *line, size_t len)
{
	(void)arg;
	if (probe.len + len + 1 > CLOUD_PROBE_OUT_MAX)
		return;
	probe.out = xreallocarray(probe.out, probe.len + len + 2, 1);
	memcpy(probe.out + probe.len, line, len);
	probe.len += len;
	probe.out[probe.len++] = '\n';
	probe.out[probe.len] = '\0';
}

static void
cloud_probe_stderr(void *arg, const char *line, size_t len)
{
	(void)arg;
	log_debug("cloud probe: %.*s", (int)len, line);
}

/* The child is gone: take its answer (a provider, or nothing). */
static void
cloud_probe_exit(void *arg, int status)
{
	struct json_object *o, *p, *info;

	(void)arg;
	o = probe.out != NULL ? json_tokener_parse(probe.out) : NULL;
	if (o != NULL && json_object_object_get_ex(o, "provider", &p) &&
	    json_object_is_type(p, json_type_string)) {
		info = json_object_object_get(o, "info");
		metadata_set_cloud(json_object_get_string(p),
		    json_object_is_type(info, json_type_object) ?
		    json_object_get(info) : NULL);
	} else if (status != 0)
		log_debug("cloud probe: ended with status 0x%x, no answer",
		    status);
	json_object_put(o);
	free(probe.out);
	probe.out = NULL;
	probe.len = 0;
}

/* Agent side: probe in a child when the DMI identity allows a cloud. */
void
cloud_probe_start(struct event_base *base)
{
	static const char *const argv[] = { "/proc/self/exe", "probe-cloud",
		NULL };
	struct gp_child_spec spec;

	if (cloud_host_clouds() == 0) {
		log_debug("cloud: this host shows no cloud identity; no "
		    "metadata probes");
		return;
	}
	spec = (struct gp_child_spec){
		.size = sizeof(spec),
		.argv = argv,
		.on_stdout_line = cloud_probe_line,
		.on_stderr_line = cloud_probe_stderr,
		.on_exit = cloud_probe_exit,
	};
	if (child_spawn(base, &spec, &probe) == NULL)
		log_debug("cloud probe: cannot start: %s", strerror(errno));
}

static void
cloud_probe_done(const char *provider, void *arg)
{
	(void)provider;
	event_base_loopexit(arg, NULL);
}

/* Child side: the "probe-cloud" subcommand. */
int
cloud_probe_main(void)
{
	struct event_base *base;
	struct json_object *o, *info;
	const char *provider;

	if ((base = event_base_new()) == NULL)
		return (1);
	http_init(base);
	cloud_detect(cloud_probe_done, base);
	event_base_dispatch(base);
	provider = metadata_cloud(&info);
	o = json_object_new_object();
	if (provider != NULL) {
		json_object_object_add(o, "provider",
		    json_object_new_string(provider));
		json_object_object_add(o, "info", json_object_get(info));
	}
	printf("%s\n", json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	http_fini();
	metadata_set_cloud(NULL, NULL);
	event_base_free(base);
	return (0);
}
