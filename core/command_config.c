/*
 * The run configuration of a heartbeat start command (studio-api.md §9):
 * combined_config applied over the CLI/config defaults with source
 * SRC_COMMAND.  Bad values fail the command; unknown keys are ignored.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "gprofiler.h"

static int
cmd_set(struct config *c, const char *name, const char *val, char *err,
    size_t errlen)
{
	char	 e[256];

	if (config_set(c, name, val, SRC_COMMAND, "combined_config", e,
	    sizeof(e)) == 0)
		return (0);
	snprintf(err, errlen, "%s", e);
	return (-EINVAL);
}

/* A plugin option: absent when the plugin is not installed. */
static void
cmd_set_optional(struct config *c, const char *name, const char *val)
{
	char	 e[256];

	if (config_set(c, name, val, SRC_COMMAND, "combined_config", e,
	    sizeof(e)) != 0)
		log_debug("command: %s=%s not applied: %s", name, val, e);
}

static int
cmd_int(struct json_object *v, const char *key, char *buf, size_t len,
    char *err, size_t errlen)
{
	int64_t	 n;

	if (json_object_is_type(v, json_type_int))
		n = json_object_get_int64(v);
	else if (json_object_is_type(v, json_type_string) &&
	    json_object_get_string_len(v) > 0 &&
	    strspn(json_object_get_string(v), "0123456789") ==
	    (size_t)json_object_get_string_len(v) &&
	    json_object_get_string_len(v) < 12)
		n = strtoll(json_object_get_string(v), NULL, 10);
	else {
		snprintf(err, errlen, "%s: not an integer", key);
		return (-EINVAL);
	}
	if (n <= 0) {
		snprintf(err, errlen, "%s: must be positive", key);
		return (-EINVAL);
	}
	snprintf(buf, len, "%lld", (long long)n);
	return (0);
}

/* pids: a list of ints, or (project) a comma-separated string. */
static int
cmd_pids(struct json_object *v, char *buf, size_t len, char *err,
    size_t errlen)
{
	struct json_object	*p;
	size_t			 i, n, off = 0;
	const char		*s;

	buf[0] = '\0';
	if (json_object_is_type(v, json_type_string)) {
		s = json_object_get_string(v);
		if (strspn(s, "0123456789, ") != strlen(s) ||
		    strlen(s) >= len) {
			snprintf(err, errlen, "pids: \"%.64s\" is not a "
			    "comma-separated list of PIDs", s);
			return (-EINVAL);
		}
		for (i = 0; *s != '\0'; s++)
			if (*s != ' ')
				buf[i++] = *s;
		buf[i] = '\0';
		return (0);
	}
	if (!json_object_is_type(v, json_type_array)) {
		snprintf(err, errlen, "pids: not a list");
		return (-EINVAL);
	}
	n = json_object_array_length(v);
	for (i = 0; i < n; i++) {
		p = json_object_array_get_idx(v, i);
		if (!json_object_is_type(p, json_type_int) ||
		    json_object_get_int64(p) <= 0 ||
		    json_object_get_int64(p) > 0x7fffffff || off + 16 >= len) {
			snprintf(err, errlen, "pids: entry %zu is not a PID", i);
			return (-EINVAL);
		}
		off += snprintf(buf + off, len - off, "%s%lld", i ? "," : "",
		    (long long)json_object_get_int64(p));
	}
	return (0);
}

static const char *
cmd_pc_mode(struct json_object *pc, const char *key, const char *dflt)
{
	struct json_object	*v, *m;

	if (!json_object_object_get_ex(pc, key, &v) || v == NULL)
		return (dflt);
	if (json_object_is_type(v, json_type_string))
		return (json_object_get_string(v));
	if (json_object_is_type(v, json_type_object) &&
	    json_object_object_get_ex(v, "mode", &m) &&
	    json_object_is_type(m, json_type_string))
		return (json_object_get_string(m));
	return (dflt);
}

/* profiler_configs (§9 table), applied only when present and non-empty. */
static int
cmd_profiler_configs(struct config *c, struct json_object *pc, char *err,
    size_t errlen)
{
	static const char *const simple[][2] = {
		{ "phpspy", "php-mode" }, { "rbspy", "ruby-mode" },
		{ "dotnet_trace", "dotnet-mode" },
		{ "nodejs_perf", "nodejs-mode" },
	};
	struct json_object	*ap, *v;
	const char		*perf, *pyperf, *pyspy, *python, *s;
	size_t			 i;

	if (!json_object_is_type(pc, json_type_object)) {
		snprintf(err, errlen, "profiler_configs: not an object");
		return (-EINVAL);
	}
	if (json_object_object_length(pc) == 0)
		return (0);
	perf = cmd_pc_mode(pc, "perf", "enabled_restricted");
	if (strcmp(perf, "disabled") == 0)
		cmd_set_optional(c, "perf-mode", "disabled");
	else if (strcmp(perf, "enabled_aggressive") == 0)
		cmd_set(c, "skip-system-profilers-above", "1500", err, errlen);
	else if (strcmp(perf, "enabled_restricted") == 0)
		cmd_set(c, "skip-system-profilers-above", "600", err, errlen);
	else {
		snprintf(err, errlen, "profiler_configs.perf: unknown value "
		    "\"%.32s\"", perf);
		return (-EINVAL);
	}
	/* pyperf first, then pyspy, whose default wins (§9). */
	pyperf = cmd_pc_mode(pc, "pyperf", "enabled");
	pyspy = cmd_pc_mode(pc, "pyspy", "enabled_fallback");
	python = strcmp(pyperf, "disabled") == 0 ? "disabled" : "pyperf";
	if (strcmp(pyspy, "enabled_fallback") == 0)
		python = "auto";
	else if (strcmp(pyspy, "enabled") == 0)
		python = "pyspy";
	cmd_set_optional(c, "python-mode", python);
	if (json_object_object_get_ex(pc, "async_profiler", &ap) &&
	    ap != NULL) {
		s = "cpu";
		if (json_object_is_type(ap, json_type_string))
			s = json_object_get_string(ap);
		if (json_object_is_type(ap, json_type_object)) {
			if (json_object_object_get_ex(ap, "enabled", &v) &&
			    !json_object_get_boolean(v))
				s = "disabled";
			else if (json_object_object_get_ex(ap, "time", &v) &&
			    strcmp(json_object_get_string(v), "wall") == 0)
				s = "enabled_wall";
		}
		if (strcmp(s, "disabled") == 0)
			cmd_set_optional(c, "java-mode", "disabled");
		else
			/* wall clock is unsupported: itimer (§12 #15). */
			cmd_set_optional(c, "java-async-profiler-mode",
			    strcmp(s, "enabled_wall") == 0 ? "itimer" : "cpu");
	}
	for (i = 0; i < sizeof(simple) / sizeof(simple[0]); i++)
		if (strcmp(cmd_pc_mode(pc, simple[i][0], ""), "disabled") == 0)
			cmd_set_optional(c, simple[i][1], "disabled");
	return (0);
}

static int
cmd_hostname_listed(struct json_object *v, const char *hostname)
{
	struct json_object	*e;
	size_t			 i, n;

	if (!json_object_is_type(v, json_type_array))
		return (1);
	n = json_object_array_length(v);
	if (n == 0)
		return (1);
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(v, i);
		if (json_object_is_type(e, json_type_string) &&
		    strcmp(json_object_get_string(e), hostname) == 0)
			return (1);
	}
	return (0);
}

/*
 * The run configuration of a start command: a clone of base with the
 * command's settings (source SRC_COMMAND).  *skip = 1 when
 * target_hostnames excludes this host.  -EINVAL with err for bad values;
 * unknown keys are ignored.
 */
int
command_build_config(const struct config *base, struct json_object *cc,
    const char *hostname, struct config **outp, int *skip, char *err,
    size_t errlen)
{
	struct config		*c;
	struct json_object	*v;
	char			 buf[4096];
	int			 rc = -EINVAL, cont = 0;

	*outp = NULL;
	*skip = 0;
	if (cc == NULL || !json_object_is_type(cc, json_type_object)) {
		snprintf(err, errlen, "combined_config is missing");
		return (-EINVAL);
	}
	if (json_object_object_get_ex(cc, "target_hostnames", &v) &&
	    v != NULL && !cmd_hostname_listed(v, hostname)) {
		*skip = 1;
		return (0);
	}
	c = config_clone(base);
	/* Dynamic-profiling default (§9). */
	cmd_set(c, "max-processes-runtime-profiler", "10", err, errlen);
	if (json_object_object_get_ex(cc, "duration", &v) && v != NULL &&
	    (cmd_int(v, "duration", buf, sizeof(buf), err, errlen) != 0 ||
	    cmd_set(c, "profiling-duration", buf, err, errlen) != 0))
		goto out;
	if (json_object_object_get_ex(cc, "frequency", &v) && v != NULL &&
	    (cmd_int(v, "frequency", buf, sizeof(buf), err, errlen) != 0 ||
	    cmd_set(c, "profiling-frequency", buf, err, errlen) != 0))
		goto out;
	if (json_object_object_get_ex(cc, "profiling_mode", &v) && v != NULL &&
	    (!json_object_is_type(v, json_type_string) ||
	    cmd_set(c, "mode", json_object_get_string(v), err, errlen) != 0)) {
		if (!json_object_is_type(v, json_type_string))
			snprintf(err, errlen, "profiling_mode: not a string");
		goto out;
	}
	if (json_object_object_get_ex(cc, "continuous", &v) && v != NULL) {
		if (!json_object_is_type(v, json_type_boolean)) {
			snprintf(err, errlen, "continuous: not a boolean");
			goto out;
		}
		cont = json_object_get_boolean(v);
	}
	if (cmd_set(c, "continuous", cont ? "true" : "false", err,
	    errlen) != 0 || cmd_set(c, "flamegraph", cont ? "false" : "true",
	    err, errlen) != 0)
		goto out;
	if (json_object_object_get_ex(cc, "pids", &v) && v != NULL &&
	    (cmd_pids(v, buf, sizeof(buf), err, errlen) != 0 ||
	    (buf[0] != '\0' && cmd_set(c, "pids", buf, err, errlen) != 0)))
		goto out;
	if (json_object_object_get_ex(cc, "max_processes", &v) && v != NULL &&
	    (cmd_int(v, "max_processes", buf, sizeof(buf), err, errlen) != 0 ||
	    cmd_set(c, "max-processes-runtime-profiler", buf, err,
	    errlen) != 0))
		goto out;
	if (json_object_object_get_ex(cc, "enable_perfspect", &v) &&
	    v != NULL && json_object_get_boolean(v))
		cmd_set_optional(c, "enable-hw-metrics-collection", "true");
	if (json_object_object_get_ex(cc, "profiler_configs", &v) && v != NULL &&
	    cmd_profiler_configs(c, v, err, errlen) != 0)
		goto out;
	*outp = c;
	c = NULL;
	rc = 0;
out:
	config_free(c);
	return (rc);
}
