/*
 * The run configuration of a heartbeat start command (docs/specs/studio-api.md
 * §9): combined_config applied over the CLI/config defaults with source
 * SRC_COMMAND.  Bad values fail the command; unknown keys are ignored.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/log.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "studio/studio.h"

static int
cmd_set(struct config *c, const char *name, const char *val, char *err,
    size_t errlen)
{
	char e[256];

	if (config_set(c, name, val, SRC_COMMAND, "combined_config", e,
	    sizeof(e)) == 0)
		return (0);
	snprintf(err, errlen, "%s", e);
	return (-EINVAL);
}

/*
 * A plugin option: absent when the plugin is not installed, and left
 * alone when its plugin does not serve the run's mode (profiler_configs
 * name every profiler whatever the mode).  -ENOENT when not installed.
 */
static int
cmd_set_optional(struct config *c, const char *name, const char *val)
{
	const char *plugin;
	unsigned modes;
	char e[256];

	if ((plugin = config_option_plugin(c, name, &modes)) == NULL) {
		log_debug("command: %s=%s not applied: no installed plugin "
		    "has that option", name, val);
		return (-ENOENT);
	}
	if ((modes & config_mode(c)) == 0) {
		log_debug("command: %s=%s not applied: plugin %s does not "
		    "serve mode %s", name, val, plugin,
		    config_mode_name(config_mode(c)));
		return (0);
	}
	if (config_set(c, name, val, SRC_COMMAND, "combined_config", e,
	    sizeof(e)) != 0)
		log_warnx("command: %s=%s not applied: %s", name, val, e);
	return (0);
}

static int
cmd_int_min(struct json_object *v, const char *key, int64_t min, char *buf,
    size_t len, char *err, size_t errlen)
{
	int64_t n;

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
	if (n < min) {
		snprintf(err, errlen, "%s: must be %s", key, min > 0 ?
		    "positive" : "zero or more");
		return (-EINVAL);
	}
	snprintf(buf, len, "%lld", (long long)n);
	return (0);
}

/* A positive integer, as a number or a string of digits. */
static int
cmd_int(struct json_object *v, const char *key, char *buf, size_t len,
    char *err, size_t errlen)
{
	return (cmd_int_min(v, key, 1, buf, len, err, errlen));
}

/* pids: a list of ints, or (project) a comma-separated string. */
static int
cmd_pids(struct json_object *v, char *buf, size_t len, char *err,
    size_t errlen)
{
	struct json_object *p;
	size_t i, n, off = 0;
	const char *s;

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

/*
 * The profiler_configs keys the UI sends and the values each accepts
 * (docs/specs/studio-api.md §8.1, §9).  Anything else fails the command, naming
 * the key and value: a typo must not silently profile with other settings.
 */
static const struct cmd_pc_key {
	const char *key;
	const char *values;	/* '|'-separated */
} cmd_pc_keys[] = {
	{ "perf", "enabled_restricted|enabled_aggressive|disabled" },
	{ "pyperf", "enabled|disabled" },
	{ "pyspy", "enabled_fallback|enabled|disabled" },
	{ "async_profiler", "enabled|enabled_cpu|enabled_wall|disabled" },
	{ "phpspy", "enabled|disabled" },
	{ "rbspy", "enabled|disabled" },
	{ "dotnet_trace", "enabled|disabled" },
	{ "nodejs_perf", "enabled|disabled" },
};

static const struct cmd_pc_key *
cmd_pc_find(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(cmd_pc_keys) / sizeof(cmd_pc_keys[0]); i++)
		if (strcmp(cmd_pc_keys[i].key, key) == 0)
			return (&cmd_pc_keys[i]);
	return (NULL);
}

/* "a|b|c" -> "a, b or c" for messages. */
static void
cmd_pc_choices(const char *values, char *buf, size_t len)
{
	const char *p, *bar, *last;
	size_t n;

	buf[0] = '\0';
	last = strrchr(values, '|');
	for (p = values; *p != '\0'; p = *bar == '|' ? bar + 1 : bar) {
		if ((bar = strchr(p, '|')) == NULL)
			bar = p + strlen(p);
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s%.*s", p == values ? "" :
		    (last != NULL && p == last + 1 ? " or " : ", "),
		    (int)(bar - p), p);
	}
}

/*
 * One profiler's setting as a string: the string itself or {"mode": ...};
 * async_profiler's {"enabled": bool, "time": "cpu"|"wall"} becomes
 * disabled / enabled_cpu / enabled_wall.  -EINVAL naming key and value.
 */
static int
cmd_pc_value(const struct cmd_pc_key *k, struct json_object *v,
    const char **out, char *err, size_t errlen)
{
	struct json_object *m;
	const char *t;
	char ch[128];

	*out = NULL;
	if (json_object_is_type(v, json_type_string))
		*out = json_object_get_string(v);
	else if (json_object_is_type(v, json_type_object) &&
	    strcmp(k->key, "async_profiler") == 0 &&
	    !json_object_object_get_ex(v, "mode", NULL)) {
		if (json_object_object_get_ex(v, "enabled", &m) && m != NULL &&
		    !json_object_get_boolean(m)) {
			*out = "disabled";
			return (0);
		}
		t = "cpu";
		if (json_object_object_get_ex(v, "time", &m) && m != NULL)
			t = json_object_is_type(m, json_type_string) ?
			    json_object_get_string(m) : "";
		if (strcmp(t, "cpu") != 0 && strcmp(t, "wall") != 0) {
			snprintf(err, errlen, "profiler_configs.async_profiler"
			    ".time: unknown value \"%.32s\" (expected cpu or "
			    "wall)", t);
			return (-EINVAL);
		}
		*out = strcmp(t, "wall") == 0 ? "enabled_wall" : "enabled_cpu";
		return (0);
	} else if (json_object_is_type(v, json_type_object) &&
	    json_object_object_get_ex(v, "mode", &m) &&
	    json_object_is_type(m, json_type_string))
		*out = json_object_get_string(m);
	cmd_pc_choices(k->values, ch, sizeof(ch));
	if (*out == NULL) {
		snprintf(err, errlen, "profiler_configs.%s: expected a string "
		    "(%s), not %.32s", k->key, ch, json_object_to_json_string(v));
		return (-EINVAL);
	}
	if (!config_choice_ok(k->values, *out)) {
		snprintf(err, errlen, "profiler_configs.%s: unknown value "
		    "\"%.32s\" (expected %s)", k->key, *out, ch);
		return (-EINVAL);
	}
	return (0);
}

/* Every key and value of profiler_configs checked; the settings in vals,
 * in cmd_pc_keys order (NULL: not given). */
static int
cmd_pc_check(struct json_object *pc, const char **vals, char *err,
    size_t errlen)
{
	const struct cmd_pc_key *k;
	char known[160];
	size_t i, n;

	json_object_object_foreach(pc, key, v) {
		if ((k = cmd_pc_find(key)) == NULL) {
			known[0] = '\0';
			for (i = 0; i < sizeof(cmd_pc_keys) /
			    sizeof(cmd_pc_keys[0]); i++) {
				n = strlen(known);
				snprintf(known + n, sizeof(known) - n, "%s%s",
				    i ? ", " : "", cmd_pc_keys[i].key);
			}
			snprintf(err, errlen, "profiler_configs: unknown "
			    "profiler \"%.32s\" (known: %s)", key, known);
			return (-EINVAL);
		}
		if (v == NULL)
			continue;	/* null: as if absent */
		if (cmd_pc_value(k, v, &vals[k - cmd_pc_keys], err,
		    errlen) != 0)
			return (-EINVAL);
	}
	return (0);
}

static const char *
cmd_pc_get(const char **vals, const char *key, const char *dflt)
{
	const struct cmd_pc_key *k = cmd_pc_find(key);

	return (vals[k - cmd_pc_keys] != NULL ? vals[k - cmd_pc_keys] : dflt);
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
	const char *vals[sizeof(cmd_pc_keys) / sizeof(cmd_pc_keys[0])];
	const char *perf, *pyperf, *pyspy, *python, *ap;
	size_t i;

	if (!json_object_is_type(pc, json_type_object)) {
		snprintf(err, errlen, "profiler_configs: not an object");
		return (-EINVAL);
	}
	memset(vals, 0, sizeof(vals));
	if (cmd_pc_check(pc, vals, err, errlen) != 0)
		return (-EINVAL);
	if (json_object_object_length(pc) == 0)
		return (0);
	perf = cmd_pc_get(vals, "perf", "enabled_restricted");
	if (strcmp(perf, "disabled") == 0)
		cmd_set_optional(c, "perf-mode", "disabled");
	else if (cmd_set(c, "skip-system-profilers-above",
	    strcmp(perf, "enabled_aggressive") == 0 ? "1500" : "600", err,
	    errlen) != 0)
		return (-EINVAL);
	/* pyperf first, then pyspy, whose default wins (§9). */
	pyperf = cmd_pc_get(vals, "pyperf", "enabled");
	pyspy = cmd_pc_get(vals, "pyspy", "enabled_fallback");
	python = strcmp(pyperf, "disabled") == 0 ? "disabled" : "pyperf";
	if (strcmp(pyspy, "enabled_fallback") == 0)
		python = "auto";
	else if (strcmp(pyspy, "enabled") == 0)
		python = "pyspy";
	cmd_set_optional(c, "python-mode", python);
	if ((ap = cmd_pc_get(vals, "async_profiler", NULL)) != NULL) {
		if (strcmp(ap, "disabled") == 0)
			cmd_set_optional(c, "java-mode", "disabled");
		else
			/* wall clock is unsupported: itimer (§12 #15). */
			cmd_set_optional(c, "java-async-profiler-mode",
			    strcmp(ap, "enabled_wall") == 0 ? "itimer" : "cpu");
	}
	for (i = 0; i < sizeof(simple) / sizeof(simple[0]); i++)
		if (strcmp(cmd_pc_get(vals, simple[i][0], ""), "disabled") == 0)
			cmd_set_optional(c, simple[i][1], "disabled");
	return (0);
}

/* Names of plugin options set for plugins that do not serve the mode. */
struct cmd_foreign {
	const struct config *cfg;
	unsigned mode;
	char **names;
	size_t n;
};

static void
cmd_foreign_one(const char *name, const char *value, const char *origin,
    int source, void *arg)
{
	struct cmd_foreign *f = arg;
	unsigned modes;

	(void)value;
	(void)origin;
	(void)source;
	if (config_option_plugin(f->cfg, name, &modes) == NULL ||
	    (modes & f->mode) != 0)
		return;
	f->names = xreallocarray(f->names, f->n + 1, sizeof(*f->names));
	f->names[f->n++] = xstrdup(name);
}

/*
 * The base configuration may hold options of plugins for another mode (a
 * GPU host's --iaprof-path): they are no mistake when a command chooses
 * the mode, so they are dropped from the command's run instead of failing
 * it (the loader refuses options of plugins that do not serve the mode).
 */
static void
cmd_drop_foreign(struct config *c)
{
	struct cmd_foreign f;
	size_t i;

	memset(&f, 0, sizeof(f));
	f.cfg = c;
	f.mode = config_mode(c);
	config_foreach_set(c, cmd_foreign_one, &f);
	for (i = 0; i < f.n; i++) {
		log_debug("command: --%s does not apply in mode %s; left out "
		    "of the command's run", f.names[i],
		    config_mode_name(f.mode));
		config_unset(c, f.names[i]);
		free(f.names[i]);
	}
	free(f.names);
}

static int
cmd_hostname_listed(struct json_object *v, const char *hostname)
{
	struct json_object *e;
	size_t i, n;

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
 * One combined_config key: its handler gets the key's value (NULL when
 * absent or null) and sets the option(s) it stands for.  The handlers
 * run in the table's order, each once per command.
 */
struct cmd_key;
typedef int (*cmd_key_fn)(struct config *, const struct cmd_key *,
		    struct json_object *, char *err, size_t errlen);

struct cmd_key {
	const char *key;
	const char *option;	/* the option it sets, or NULL */
	cmd_key_fn apply;
};

/* A positive integer option (duration, frequency). */
static int
cmd_key_int(struct config *c, const struct cmd_key *k, struct json_object *v,
    char *err, size_t errlen)
{
	char buf[32];

	if (v == NULL)
		return (0);
	if (cmd_int(v, k->key, buf, sizeof(buf), err, errlen) != 0)
		return (-EINVAL);
	return (cmd_set(c, k->option, buf, err, errlen));
}

static int
cmd_key_string(struct config *c, const struct cmd_key *k,
    struct json_object *v, char *err, size_t errlen)
{
	if (v == NULL)
		return (0);
	if (!json_object_is_type(v, json_type_string)) {
		snprintf(err, errlen, "%s: not a string", k->key);
		return (-EINVAL);
	}
	return (cmd_set(c, k->option, json_object_get_string(v), err, errlen));
}

/* continuous: false when absent; an ad-hoc run also writes the flame
 * graph it uploads (§12 #10). */
static int
cmd_key_continuous(struct config *c, const struct cmd_key *k,
    struct json_object *v, char *err, size_t errlen)
{
	int cont = 0;

	if (v != NULL) {
		if (!json_object_is_type(v, json_type_boolean)) {
			snprintf(err, errlen, "%s: not a boolean", k->key);
			return (-EINVAL);
		}
		cont = json_object_get_boolean(v);
	}
	if (cmd_set(c, k->option, cont ? "true" : "false", err, errlen) != 0 ||
	    cmd_set(c, "flamegraph", cont ? "false" : "true", err, errlen) != 0)
		return (-EINVAL);
	return (0);
}

static int
cmd_key_pids(struct config *c, const struct cmd_key *k,
    struct json_object *v, char *err, size_t errlen)
{
	char buf[4096];

	if (v == NULL)
		return (0);
	if (cmd_pids(v, buf, sizeof(buf), err, errlen) != 0)
		return (-EINVAL);
	return (buf[0] != '\0' ? cmd_set(c, k->option, buf, err, errlen) : 0);
}

/* 0: no limit, as in gProfiler (the option's default; the flag itself
 * refuses 0). */
static int
cmd_key_max_processes(struct config *c, const struct cmd_key *k,
    struct json_object *v, char *err, size_t errlen)
{
	char buf[32];

	if (v == NULL)
		return (0);
	if (cmd_int_min(v, k->key, 0, buf, sizeof(buf), err, errlen) != 0)
		return (-EINVAL);
	if (strcmp(buf, "0") == 0) {
		config_unset(c, k->option);
		return (0);
	}
	return (cmd_set(c, k->option, buf, err, errlen));
}

/*
 * false leaves the agent's own setting (the UI always sends the key); a
 * missing PerfSpect is an error log, not a failure (§9).
 */
static int
cmd_key_perfspect(struct config *c, const struct cmd_key *k,
    struct json_object *v, char *err, size_t errlen)
{
	const char *plugin;
	unsigned modes, mode = config_mode(c);

	if (v == NULL)
		return (0);
	if (!json_object_is_type(v, json_type_boolean)) {
		snprintf(err, errlen, "%s: not a boolean", k->key);
		return (-EINVAL);
	}
	if (!json_object_get_boolean(v))
		return (0);
	/* profiling_mode applies first (cmd_keys order): a mode PerfSpect
	 * does not serve (none) runs without it, and says so. */
	plugin = config_option_plugin(c, k->option, &modes);
	if (plugin != NULL && (modes & mode) == 0) {
		log_info("command: enable_perfspect with profiling_mode %s: "
		    "PerfSpect is not run (%s collects hardware metrics beside "
		    "%s profiling only); this run has no hardware metrics",
		    config_mode_name(mode), plugin, (modes & MODE_CPU) ? "cpu" :
		    "other");
		return (0);
	}
	if (cmd_set_optional(c, k->option, "true") == -ENOENT)
		log_warnx("command: enable_perfspect: the perfspect plugin is "
		    "not installed; profiling without hardware metrics");
	return (0);
}

static int
cmd_key_profiler_configs(struct config *c, const struct cmd_key *k,
    struct json_object *v, char *err, size_t errlen)
{
	(void)k;
	return (v == NULL ? 0 : cmd_profiler_configs(c, v, err, errlen));
}

/* The combined_config keys a start command may carry (§9), in the order
 * they apply; any other key is ignored. */
static const struct cmd_key cmd_keys[] = {
	{ "duration",		"profiling-duration",	cmd_key_int },
	{ "frequency",		"profiling-frequency",	cmd_key_int },
	{ "profiling_mode",	"mode",			cmd_key_string },
	{ "continuous",		"continuous",		cmd_key_continuous },
	{ "pids",		"pids",			cmd_key_pids },
	{ "max_processes",	"max-processes-runtime-profiler",
	    cmd_key_max_processes },
	{ "enable_perfspect",	"enable-hw-metrics-collection",
	    cmd_key_perfspect },
	{ "profiler_configs",	NULL,			cmd_key_profiler_configs },
};

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
	struct config *c;
	struct json_object *v;
	size_t i;
	int rc = -EINVAL;

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
	for (i = 0; i < sizeof(cmd_keys) / sizeof(cmd_keys[0]); i++) {
		if (!json_object_object_get_ex(cc, cmd_keys[i].key, &v))
			v = NULL;
		if (cmd_keys[i].apply(c, &cmd_keys[i], v, err, errlen) != 0)
			goto out;
	}
	cmd_drop_foreign(c);
	*outp = c;
	c = NULL;
	rc = 0;
out:
	config_free(c);
	return (rc);
}
