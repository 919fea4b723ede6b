/* Unit tests of heartbeat answers, the executed-command state, and the
 * run configuration built from a command's combined_config. */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/log.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "studio/studio.h"
#include "testing.h"

static int
parse(const char *s, struct hb_command *c)
{
	char err[256];

	return (heartbeat_parse_response(s, strlen(s), c, err, sizeof(err)));
}

static void
test_parse(void)
{
	struct hb_command c;
	struct json_object *v;

	CHECK_INTEQ(parse("{\"success\": true, \"message\": \"Heartbeat "
	    "received. New profiling command available.\", "
	    "\"profiling_command\": {\"command_type\": \"start\", "
	    "\"combined_config\": {\"duration\": 60, \"continuous\": true}}, "
	    "\"command_id\": \"0efb3650-ab14-47a5-9c0f-e7a23e7faf8b\"}", &c), 1,
	    "a start command");
	CHECK_STREQ(c.command_id, "0efb3650-ab14-47a5-9c0f-e7a23e7faf8b", "id");
	CHECK_STREQ(c.command_type, "start", "type");
	CHECK(c.combined_config != NULL && json_object_object_get_ex(
	    c.combined_config, "duration", &v) && json_object_get_int(v) == 60,
	    "combined_config kept");
	hb_command_clear(&c);
	CHECK_INTEQ(parse("{\"success\": true, \"message\": \"Heartbeat "
	    "received. No profiling commands.\", \"profiling_command\": null, "
	    "\"command_id\": null}", &c), 0, "no command");
	CHECK_INTEQ(parse("{\"success\": true, \"message\": \"Heartbeat "
	    "received, but failed to check for commands.\", "
	    "\"profiling_command\": null, \"command_id\": null}", &c), 0,
	    "fallback answer");
	CHECK_INTEQ(parse("{\"success\": true, \"profiling_command\": "
	    "{\"command_type\": \"stop\", \"combined_config\": "
	    "{\"stop_level\": \"host\"}}, \"command_id\": \"x\"}", &c), 1,
	    "stop command");
	hb_command_clear(&c);
	CHECK_INTEQ(parse("\x00garbage", &c), -EINVAL, "garbage");
	CHECK_INTEQ(parse("[]", &c), -EINVAL, "array");
	CHECK_INTEQ(parse("{\"success\": true, \"profiling_command\": "
	    "{\"command_type\": 5}, \"command_id\": \"x\"}", &c), -EINVAL,
	    "wrong type");
	CHECK_INTEQ(parse("{\"success\": true, \"profiling_command\": "
	    "{\"command_type\": \"start\"}, \"command_id\": 7}", &c), -EINVAL,
	    "non-string id");
	CHECK_INTEQ(parse("{\"success\": true, \"profiling_command\": "
	    "{\"command_type\": \"start\", \"combined_config\": [1]}, "
	    "\"command_id\": \"a\"}", &c), -EINVAL, "config not an object");
	CHECK_INTEQ(parse("{\"message\": \"x\"}", &c), -EINVAL,
	    "success missing");
}

static void
test_state(void)
{
	char tmpl[] = "/tmp/gphb.XXXXXX", path[128];
	struct stat st;
	int i;

	if (mkdtemp(tmpl) == NULL)
		return;
	snprintf(path, sizeof(path), "%s/state.json", tmpl);
	CHECK_INTEQ(hb_state_load(path), 0, "no state file is fine");
	CHECK(!hb_state_seen("a"), "nothing seen");
	hb_state_add(path, "a");
	hb_state_add(path, "b");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600,
	    "state file 0600");
	CHECK_INTEQ(hb_state_load(path), 0, "reload");
	CHECK(hb_state_seen("a") && hb_state_seen("b") && !hb_state_seen("c"),
	    "ids survive a restart");
	for (i = 0; i < 1001; i++) {
		char id[32];

		snprintf(id, sizeof(id), "id-%d", i);
		hb_state_add(path, id);
	}
	hb_state_load(path);
	CHECK(!hb_state_seen("a") && hb_state_seen("id-1000"),
	    "capped at 1000, oldest forgotten");
	unlink(path);
	FILE *f = fopen(path, "w");
	fputs("{not json", f);
	fclose(f);
	CHECK_INTEQ(hb_state_load(path), -EINVAL, "damaged state reported");
	unlink(path);
	rmdir(tmpl);
}

/*
 * Issue 11: an id is executed only once its outcome is known.  A command
 * the agent died in is not "seen" after a restart (it runs again), and
 * its attempts are counted across restarts.
 */
static void
test_state_attempts(void)
{
	char tmpl[] = "/tmp/gphb.XXXXXX", path[128];
	const char *u = "0efb3650-ab14-47a5-9c0f-e7a23e7faf8b";
	struct json_object *a;

	if (mkdtemp(tmpl) == NULL)
		return;
	snprintf(path, sizeof(path), "%s/state.json", tmpl);
	CHECK_INTEQ(hb_state_load(path), 0, "fresh state");
	CHECK_INTEQ(hb_state_begin(path, u), 1, "first attempt");
	CHECK(hb_state_running(u) && !hb_state_seen(u),
	    "running, not executed before its outcome");
	a = hb_state_ids_json(1);
	CHECK(json_object_array_length(a) == 1, "received ids list it");
	json_object_put(a);
	a = hb_state_ids_json(0);
	CHECK(json_object_array_length(a) == 0, "executed ids do not");
	json_object_put(a);
	/* The agent dies here: a new process loads the state. */
	CHECK_INTEQ(hb_state_load(path), 0, "reload after a crash");
	CHECK(!hb_state_seen(u) && !hb_state_running(u),
	    "a crashed command is neither executed nor running");
	CHECK_INTEQ(hb_state_attempts(u), 1, "its attempt is remembered");
	CHECK_INTEQ(hb_state_begin(path, u), 2, "second attempt");
	hb_state_add(path, u);
	CHECK(hb_state_seen(u) && !hb_state_running(u) &&
	    hb_state_attempts(u) == 0, "settled: executed");
	CHECK_INTEQ(hb_state_load(path), 0, "reload");
	CHECK(hb_state_seen(u) && hb_state_attempts(u) == 0,
	    "executed survives a restart");
	hb_state_free();
	unlink(path);
	rmdir(tmpl);
}

static struct config *
build(struct config *base, const char *json, int *rc, char *err)
{
	struct json_object *cc = json_tokener_parse(json);
	struct config *out = NULL;
	int skip = 0;

	*rc = command_build_config(base, cc, "host-a", &out, &skip, err, 256);
	json_object_put(cc);
	if (*rc == 0 && skip)
		*rc = 1;
	return (out);
}

static void
test_build(void)
{
	struct config *base, *c;
	char err[256];
	int rc;

	base = config_new();
	c = build(base, "{\"command_type\": \"start\", \"duration\": 30, "
	    "\"frequency\": 49, \"continuous\": true, \"profiling_mode\": "
	    "\"cpu\", \"max_processes\": 7, \"unknown_key\": 1}", &rc, err);
	CHECK(rc == 0 && c != NULL, "valid start config");
	if (c != NULL) {
		CHECK_INTEQ(config_get_int(c, "profiling-duration", 0), 30,
		    "duration");
		CHECK_INTEQ(config_get_int(c, "profiling-frequency", 0), 49,
		    "frequency");
		CHECK(config_get_bool(c, "continuous"), "continuous");
		CHECK(!config_get_bool(c, "flamegraph"),
		    "continuous runs send no flamegraph_html");
		CHECK_INTEQ(config_get_int(c, "max-processes-runtime-profiler",
		    0), 7, "max_processes");
	}
	config_free(c);
	c = build(base, "{\"duration\": 60, \"pids\": [12, 34]}", &rc, err);
	CHECK(rc == 0 && c != NULL && strcmp(config_get(c, "pids"),
	    "12,34") == 0, "pids list");
	CHECK(c != NULL && !config_get_bool(c, "continuous") &&
	    config_get_bool(c, "flamegraph"), "ad-hoc embeds the flame graph");
	CHECK(c != NULL && config_get_int(c, "max-processes-runtime-profiler",
	    0) == 10, "max_processes defaults to 10");
	config_free(c);
	/* gProfiler: 0 is no limit (the option's default, 0) */
	c = build(base, "{\"max_processes\": 0}", &rc, err);
	CHECK(rc == 0 && c != NULL && config_get_int(c,
	    "max-processes-runtime-profiler", -1) == 0,
	    "max_processes 0: no limit");
	config_free(c);
	c = build(base, "{\"max_processes\": \"0\"}", &rc, err);
	CHECK(rc == 0 && c != NULL && config_get_int(c,
	    "max-processes-runtime-profiler", -1) == 0,
	    "max_processes \"0\": no limit");
	config_free(c);
	c = build(base, "{\"max_processes\": -1}", &rc, err);
	CHECK(rc == -EINVAL && c == NULL && strstr(err, "max_processes") !=
	    NULL, "max_processes -1 refused");
	c = build(base, "{\"pids\": \"5, 6\"}", &rc, err);
	CHECK(rc == 0 && c != NULL && strcmp(config_get(c, "pids"), "5,6") ==
	    0, "pids as a comma string");
	config_free(c);
	c = build(base, "{\"target_hostnames\": [\"host-b\"]}", &rc, err);
	CHECK(rc == 1 && c == NULL, "other host: skipped");
	c = build(base, "{\"target_hostnames\": [\"host-a\"]}", &rc, err);
	CHECK(rc == 0 && c != NULL, "this host listed");
	config_free(c);
	c = build(base, "{\"duration\": -5}", &rc, err);
	CHECK(rc == -EINVAL && c == NULL && strstr(err, "duration") != NULL,
	    "negative duration refused");
	c = build(base, "{\"frequency\": \"abc\"}", &rc, err);
	CHECK(rc == -EINVAL && strstr(err, "frequency") != NULL,
	    "non-numeric frequency refused");
	c = build(base, "{\"profiling_mode\": \"bogus\"}", &rc, err);
	CHECK(rc == -EINVAL, "unknown mode refused");
	c = build(base, "{\"pids\": [\"x\"]}", &rc, err);
	CHECK(rc == -EINVAL, "bad pid refused");
	c = build(base, "{\"profiler_configs\": {\"perf\": \"weird\"}}", &rc,
	    err);
	CHECK(rc == -EINVAL, "unknown perf config refused");
	c = build(base, "{\"profiler_configs\": {\"perf\": "
	    "\"enabled_aggressive\"}}", &rc, err);
	CHECK(rc == 0 && c != NULL && config_get_int(c,
	    "skip-system-profilers-above", 0) == 1500, "perf aggressive");
	config_free(c);
	c = build(base, "{\"profiler_configs\": {\"perf\": {\"mode\": "
	    "\"enabled_restricted\"}}}", &rc, err);
	CHECK(rc == 0 && c != NULL && config_get_int(c,
	    "skip-system-profilers-above", 0) == 600, "perf as a dict");
	config_free(c);
	c = build(base, "{\"profiler_configs\": {}}", &rc, err);
	CHECK(rc == 0 && c != NULL && !config_is_set(c,
	    "skip-system-profilers-above"), "empty profiler_configs: no change");
	config_free(c);
	CHECK(build(base, "[]", &rc, err) == NULL && rc == -EINVAL,
	    "combined_config not an object");
	config_free(base);
}

/* Issue 11, bad input: a failure names the key and the value. */
static void
test_build_bad(void)
{
	static const struct {
		const char *json;
		const char *want1, *want2;
	} bad[] = {
		{ "{\"profiler_configs\": {\"perf\": \"turbo\"}}",
		    "profiler_configs.perf", "turbo" },
		{ "{\"profiler_configs\": {\"pyspy\": \"sometimes\"}}",
		    "profiler_configs.pyspy", "sometimes" },
		{ "{\"profiler_configs\": {\"pyperf\": \"enabled_fallback\"}}",
		    "profiler_configs.pyperf", "enabled_fallback" },
		{ "{\"profiler_configs\": {\"async_profiler\": \"fast\"}}",
		    "profiler_configs.async_profiler", "fast" },
		{ "{\"profiler_configs\": {\"async_profiler\": {\"time\": "
		    "\"moon\"}}}", "async_profiler.time", "moon" },
		{ "{\"profiler_configs\": {\"rbspy\": \"maybe\"}}",
		    "profiler_configs.rbspy", "maybe" },
		{ "{\"profiler_configs\": {\"xprof\": \"enabled\"}}",
		    "profiler_configs", "xprof" },
		{ "{\"profiler_configs\": {\"perf\": 3}}",
		    "profiler_configs.perf", "3" },
		{ "{\"enable_perfspect\": \"yes\"}", "enable_perfspect",
		    "boolean" },
	};
	struct config *base, *c;
	char err[256];
	char what[512];
	size_t i;
	int rc;

	base = config_new();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		c = build(base, bad[i].json, &rc, err);
		snprintf(what, sizeof(what), "refused: %s (%s)", bad[i].json,
		    err);
		CHECK(rc == -EINVAL && c == NULL &&
		    strstr(err, bad[i].want1) != NULL &&
		    strstr(err, bad[i].want2) != NULL, what);
		config_free(c);
	}
	c = build(base, "{\"profiler_configs\": {\"perf\": \"disabled\", "
	    "\"pyperf\": \"enabled\", \"pyspy\": \"enabled_fallback\", "
	    "\"async_profiler\": {\"enabled\": true, \"time\": \"wall\"}, "
	    "\"phpspy\": \"disabled\", \"rbspy\": \"enabled\", "
	    "\"dotnet_trace\": null, \"nodejs_perf\": {\"mode\": "
	    "\"disabled\"}}}", &rc, err);
	CHECK(rc == 0 && c != NULL, "every key the UI sends is accepted");
	config_free(c);
	config_free(base);
}

/*
 * Options of plugins for another mode (a GPU host's --iaprof-path) are
 * left out of a command's run instead of failing it; profiler_configs
 * touch only the plugins that serve the run's mode.
 */
static void
test_build_modes(void)
{
	struct config *base, *c;
	char err[256];
	int rc;

	base = config_new();
	config_declare_plugin_option(base, "iaprof-path", "iaprof", MODE_GPU);
	config_declare_plugin_option(base, "perf-mode", "perf", MODE_CPU);
	config_declare_plugin_option(base, "python-mode", "python", MODE_CPU);
	CHECK(config_set(base, "iaprof-path", "/opt/iaprof", SRC_CLI,
	    "--iaprof-path", err, sizeof(err)) == 0, "a gpu option set");
	c = build(base, "{\"profiling_mode\": \"cpu\", \"profiler_configs\": "
	    "{\"perf\": \"disabled\"}}", &rc, err);
	CHECK(rc == 0 && c != NULL && !config_is_set(c, "iaprof-path") &&
	    config_get(c, "iaprof-path") == NULL,
	    "cpu command: the gpu option is left out");
	CHECK(c != NULL && strcmp(config_get(c, "perf-mode"), "disabled") == 0,
	    "and perf is disabled");
	CHECK(config_get(base, "iaprof-path") != NULL, "the base keeps it");
	config_free(c);
	c = build(base, "{\"profiling_mode\": \"gpu\", \"profiler_configs\": "
	    "{\"perf\": \"disabled\", \"pyspy\": \"disabled\", "
	    "\"pyperf\": \"disabled\"}}", &rc, err);
	CHECK(rc == 0 && c != NULL && !config_is_set(c, "perf-mode") &&
	    !config_is_set(c, "python-mode") &&
	    strcmp(config_get(c, "iaprof-path"), "/opt/iaprof") == 0,
	    "gpu command: cpu profilers' settings not applied, gpu kept");
	config_free(c);
	c = build(base, "{\"profiling_mode\": \"none\"}", &rc, err);
	CHECK(rc == 0 && c != NULL && !config_is_set(c, "iaprof-path"),
	    "mode none: no plugin option applies");
	config_free(c);
	config_free(base);
}

int
main(void)
{
	log_init(0, "test");
	test_parse();
	test_state();
	test_state_attempts();
	test_build();
	test_build_bad();
	test_build_modes();
	return (testing_done());
}
