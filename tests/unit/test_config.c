/* Config: the option table, value checks, the file grammar, precedence,
 * plugin options declared by manifests, --no-X, run_arguments redaction. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/xmalloc.h"
#include "config/configuration.h"
#include "config/manifest.h"
#include "gprofiler.h"
#include "testing.h"

struct collected {
	char buf[4096];
};

static int
collect(void *arg, const char *section, const char *key, const char *value,
    const char *origin)
{
	struct collected *c = arg;
	size_t n = strlen(c->buf);

	snprintf(c->buf + n, sizeof(c->buf) - n, "[%s]%s=%s@%s;", section, key,
	    value, origin);
	return (0);
}

static void
test_parse_buf(void)
{
	struct collected c;
	char err[256];
	const char *ok = "# comment\n; also\n\nprofiling_duration = 30\n"
	    "  output-dir=\"/tmp/x y\"  \n[perf]\nmode = dwarf\n--pids = 1\n";

	memset(&c, 0, sizeof(c));
	CHECK(config_parse_buf(ok, strlen(ok), "f.conf", collect, &c, err,
	    sizeof(err)) == 0, "a valid file parses");
	CHECK_STREQ(c.buf, "[]profiling-duration=30@f.conf:4;"
	    "[]output-dir=/tmp/x y@f.conf:5;[perf]mode=dwarf@f.conf:7;"
	    "[perf]pids=1@f.conf:8;", "keys, sections, quotes, origins");
	CHECK(config_parse_buf("a b\n", 4, "f", collect, &c, err,
	    sizeof(err)) == -EINVAL, "a line without = is an error");
	CHECK_STREQ(err, "f:1: expected \"key = value\"", "error names file:line");
	CHECK(config_parse_buf("\n[bad\n", 6, "f", collect, &c, err,
	    sizeof(err)) == -EINVAL && strstr(err, "f:2:") != NULL,
	    "a broken section header names its line");
	CHECK(config_parse_buf("k\0 = 1\n", 7, "f", collect, &c, err,
	    sizeof(err)) == -EINVAL, "NUL bytes are refused");
	CHECK(config_parse_buf("x y = 1\n", 8, "f", collect, &c, err,
	    sizeof(err)) == -EINVAL, "keys with spaces are refused");
}

static void
test_values(void)
{
	struct config *c = config_new();
	char err[512];

	CHECK_STREQ(config_get(c, "profiling-frequency"), "11",
	    "cpu mode frequency default is 11");
	CHECK_INTEQ(config_get_int(c, "profiling-duration", 0), 60,
	    "duration default 60");
	CHECK(config_set(c, "mode", "gpu", SRC_CLI, "--mode", err,
	    sizeof(err)) == 0, "mode gpu accepted");
	CHECK_STREQ(config_get(c, "profiling-frequency"), "100",
	    "gpu mode frequency default is 100");
	CHECK(config_set(c, "profiling-frequency", "0", SRC_CLI, "-f", err,
	    sizeof(err)) == -EINVAL, "-f 0 rejected");
	CHECK(strstr(err, "-f: invalid value \"0\" for --profiling-frequency")
	    != NULL, "error names the flag and value");
	CHECK(config_set(c, "profiling-frequency", "12x", SRC_CLI, "-f", err,
	    sizeof(err)) == -EINVAL, "garbage integers rejected");
	CHECK(config_set(c, "continuous", "yes", SRC_CLI, "-c", err,
	    sizeof(err)) == 0 && config_get_bool(c, "continuous"),
	    "booleans accept yes");
	CHECK(config_set(c, "continuous", "maybe", SRC_CLI, "-c", err,
	    sizeof(err)) == -EINVAL, "booleans reject maybe");
	CHECK(config_set(c, "alloc-interval", "2mb", SRC_CLI, "x", err,
	    sizeof(err)) == 0, "sizes parse");
	CHECK_INTEQ(config_get_int(c, "alloc-interval", 0), 2097152,
	    "2mb is 2097152 bytes (binary)");
	CHECK(config_set(c, "mode", "fast", SRC_CLI, "--mode", err,
	    sizeof(err)) == -EINVAL && strstr(err, "cpu|allocation|gpu|none"),
	    "enum errors list the choices");
	CHECK(config_set(c, "no-such-thing", "1", SRC_CLI, "--no-such-thing",
	    err, sizeof(err)) == -ENOENT, "unknown options rejected");
	CHECK(config_set(c, "pids", "1,2", SRC_CLI, "--pids", err,
	    sizeof(err)) == 0 && config_set(c, "pids", "3", SRC_CLI,
	    "--pids", err, sizeof(err)) == 0, "repeated --pids");
	CHECK_STREQ(config_get(c, "pids"), "1,2,3", "repeated --pids join");
	CHECK(config_set(c, "profiling-duration", "5", SRC_FILE, "f:1", err,
	    sizeof(err)) == 0 && config_set(c, "profiling-duration", "7",
	    SRC_CLI, "-d", err, sizeof(err)) == 0 &&
	    config_set(c, "profiling-duration", "9", SRC_ENV, "GP", err,
	    sizeof(err)) == 0, "three sources");
	CHECK_STREQ(config_get(c, "profiling-duration"), "7",
	    "command line beats environment beats file");
	CHECK_STREQ(config_get(c, "glogger-server"),
	    "https://api.granulate.io", "deprecated alias resolves");
	config_free(c);
}

/* Numbers come from the table's defaults: no caller repeats one. */
static void
test_num_defaults(void)
{
	struct config *c = config_new();
	char err[512];

	CHECK_INTEQ(config_get_num(c, "profiling-duration"), 60,
	    "-d's default from its row");
	CHECK_INTEQ(config_get_num(c, "profiling-frequency"),
	    strtoll(OPT_FREQUENCY_CPU, NULL, 10), "-f's cpu default");
	CHECK_INTEQ(config_get_num(c, "alloc-interval"), 2097152,
	    "a size default (\"2mb\") as bytes");
	CHECK_INTEQ(config_get_num(c, "server-upload-timeout"), 120,
	    "the upload timeout's default");
	CHECK(config_set(c, "mode", "gpu", SRC_CLI, "--mode", err,
	    sizeof(err)) == 0, "mode gpu");
	CHECK_INTEQ(config_get_num(c, "profiling-frequency"),
	    strtoll(OPT_FREQUENCY_GPU, NULL, 10), "-f's gpu default");
	CHECK(config_set(c, "profiling-duration", "7", SRC_CLI, "-d", err,
	    sizeof(err)) == 0 && config_get_num(c, "profiling-duration") == 7,
	    "a set value wins");
	CHECK_INTEQ(config_get_num(c, "pid-file"), 0,
	    "not a number: 0");
	config_free(c);
}

static const struct gp_option rows[] = {
	{ "perf-mode", GP_OPT_ENUM, 0, "fp", 0, 0, "fp|dwarf|smart|disabled",
	  "how" },
	{ "perf-secret", GP_OPT_STRING, GP_OPTF_SECRET, NULL, 0, 0, NULL,
	  "s" },
	{ "perf-depth", GP_OPT_INT, 0, "4", 1, 10, NULL, "d" },
};

static void
test_plugin_options(void)
{
	struct config *c = config_new(), *d;
	struct json_object *ra;
	char err[512];

	config_declare_plugin_option(c, "perf-mode", "perf", MODE_CPU);
	config_declare_plugin_option(c, "perf-secret", "perf", MODE_CPU);
	config_declare_plugin_option(c, "perf-depth", "perf", MODE_CPU);
	CHECK(config_set_user(c, "no-perf", "true", SRC_CLI, "--no-perf", err,
	    sizeof(err)) == 0, "--no-perf accepted before the plugin loads");
	CHECK_STREQ(config_get(c, "perf-mode"), "disabled",
	    "--no-perf means perf-mode disabled");
	CHECK(config_set(c, "perf-depth", "99", SRC_FILE, "f:3", err,
	    sizeof(err)) == 0, "untyped values are kept until load");
	CHECK(config_register_plugin(c, "perf", rows, 3, sizeof(rows[0]), err,
	    sizeof(err)) == -EINVAL, "registration type-checks them");
	CHECK(strstr(err, "f:3") != NULL && strstr(err, "plugin perf"),
	    "and names file:line and the plugin");
	CHECK(config_set(c, "perf-depth", "3", SRC_CLI, "--perf-depth", err,
	    sizeof(err)) == 0, "valid plugin int");
	CHECK(config_set(c, "perf-secret", "hunter2", SRC_CLI, "x", err,
	    sizeof(err)) == 0 && config_set(c, "token", "tok-XYZ", SRC_CLI,
	    "--token", err, sizeof(err)) == 0, "secrets set");
	CHECK(config_set_user(c, "no-flamegraph", "true", SRC_CLI,
	    "--no-flamegraph", err, sizeof(err)) == 0 &&
	    !config_get_bool(c, "flamegraph"), "--no-flamegraph");
	d = config_clone(c);
	ra = config_run_arguments(d);
	CHECK(strstr(json_object_to_json_string(ra), "tok-XYZ") == NULL &&
	    strstr(json_object_to_json_string(ra), "hunter2") == NULL,
	    "run_arguments never holds a secret");
	CHECK(json_object_object_get_ex(ra, "frequency", NULL) &&
	    json_object_get_int(json_object_object_get(ra, "frequency")) == 11,
	    "run_arguments uses gProfiler's dest names and types");
	CHECK_STREQ(json_object_get_string(json_object_object_get(ra,
	    "perf_mode")), "disabled", "plugin options appear as dests");
	json_object_put(ra);
	config_free(d);
	config_free(c);
}

/*
 * Issue 11: a heartbeat command unloads (dlclose) a plugin while
 * configurations that registered its rows live on.  The rows here live in
 * heap memory that is scribbled over and freed after registration, as
 * dlclose unmaps them; defaults, types and run_arguments must not change
 * (and ASan sees any read of the freed rows).
 */
static void
test_plugin_unloaded(void)
{
	struct gp_option *heap;
	struct config *c = config_new(), *d;
	struct json_object *ra;
	char err[512], *def, *ch, *nm;

	config_declare_plugin_option(c, "perf-mode", "perf", MODE_CPU);
	heap = xcalloc(1, sizeof(*heap));
	nm = xstrdup("perf-mode");
	def = xstrdup("fp");
	ch = xstrdup("fp|dwarf|disabled");
	heap->name = nm;
	heap->type = GP_OPT_ENUM;
	heap->defval = def;
	heap->choices = ch;
	heap->help = "m";
	CHECK(config_register_plugin(c, "perf", heap, 1, sizeof(*heap), err,
	    sizeof(err)) == 0, "a plugin's row registers");
	d = config_clone(c);
	/* dlclose: the plugin's memory is gone (or reused). */
	memset(def, 'X', strlen(def));
	memset(ch, 'X', strlen(ch));
	heap->type = 999;
	free(def);
	free(ch);
	free(nm);
	free(heap);
	CHECK_STREQ(config_get(c, "perf-mode"), "fp",
	    "the default outlives the unloaded plugin");
	CHECK_STREQ(config_get(d, "perf-mode"), "fp",
	    "in a clone made while it was loaded too");
	CHECK(config_set(d, "perf-mode", "dwarf", SRC_COMMAND, "cmd", err,
	    sizeof(err)) == 0 && config_set(d, "perf-mode", "bogus",
	    SRC_COMMAND, "cmd", err, sizeof(err)) == -EINVAL,
	    "values are still checked against the row's choices");
	ra = config_run_arguments(d);
	CHECK_STREQ(json_object_get_string(json_object_object_get(ra,
	    "perf_mode")), "dwarf", "run_arguments reads the kept row");
	json_object_put(ra);
	/* A run whose plugins do not include perf: its defaults leave
	 * run_arguments, the mode someone set stays. */
	config_forget_plugin_rows(c);
	ra = config_run_arguments(c);
	CHECK(!json_object_object_get_ex(ra, "perf_mode", NULL),
	    "an unloaded plugin's default is not in run_arguments");
	json_object_put(ra);
	config_forget_plugin_rows(d);
	ra = config_run_arguments(d);
	CHECK_STREQ(json_object_get_string(json_object_object_get(ra,
	    "perf_mode")), "dwarf", "a mode set for it is");
	json_object_put(ra);
	config_free(d);
	config_free(c);
}

static void
test_validate(void)
{
	struct config *c = config_new();
	char err[512];

	CHECK(config_validate(c, err, sizeof(err)) == -EINVAL &&
	    strstr(err, "--output-dir"), "an output method is required");
	config_set(c, "output-dir", "/tmp/o", SRC_CLI, "-o", err, sizeof(err));
	CHECK(config_validate(c, err, sizeof(err)) == 0, "-o suffices");
	config_set(c, "alloc-interval", "1mb", SRC_CLI, "--alloc-interval",
	    err, sizeof(err));
	CHECK(config_validate(c, err, sizeof(err)) == -EINVAL,
	    "--alloc-interval needs allocation mode");
	config_free(c);
	c = config_new();
	config_set(c, "output-dir", "/tmp/o", SRC_CLI, "-o", err, sizeof(err));
	config_set(c, "pids", "1,x", SRC_CLI, "--pids", err, sizeof(err));
	CHECK(config_validate(c, err, sizeof(err)) == -EINVAL,
	    "bad --pids rejected");
	config_free(c);
	c = config_new();
	config_set(c, "upload-results", "true", SRC_CLI, "-u", err,
	    sizeof(err));
	CHECK(config_validate(c, err, sizeof(err)) == -EINVAL &&
	    strstr(err, "--token"), "-u needs a token and service name");
	config_free(c);
}

static void
test_manifest(void)
{
	struct manifest m;
	char err[256];
	const char *good = "name = iaprof\nkind = system\nmodes = gpu\n"
	    "abi = 1\noptions = iaprof-path iaprof-x:bool\n";
	int b = -1;

	CHECK(manifest_parse(good, strlen(good), "iaprof.plugin", &m, err,
	    sizeof(err)) == 0, "manifest parses");
	CHECK(m.kind == GP_KIND_SYSTEM && m.modes == MODE_GPU &&
	    m.abi_major == 1, "kind, modes, abi");
	CHECK(manifest_has_option(&m, "iaprof-x", &b) && b == 1 &&
	    manifest_has_option(&m, "iaprof-path", &b) && b == 0,
	    "options with types");
	manifest_clear(&m);
	CHECK(manifest_parse("name = x\nkind = os\n", 19, "x.plugin", &m, err,
	    sizeof(err)) == -EINVAL && strstr(err, "x.plugin:2"),
	    "bad kind names its line");
	CHECK(manifest_parse("name = x\n", 9, "x.plugin", &m, err,
	    sizeof(err)) == -EINVAL, "missing keys rejected");
}

int
main(void)
{
	test_parse_buf();
	test_values();
	test_num_defaults();
	test_plugin_options();
	test_plugin_unloaded();
	test_validate();
	test_manifest();
	return (testing_done());
}
