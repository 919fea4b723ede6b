/*
 * gProfiler 1.57.1 flags that neither the core nor an installed plugin
 * implements (docs/COMPAT.md; the flag list is tests/compat/
 * gprofiler-1.57.1-flags.txt).  A DaemonSet or a config.ini written for
 * gProfiler must start this agent unchanged: each such flag is declared as
 * an option of the runtime it belongs to (so that the config file, the
 * GPROFILER_* environment, --mode conflicts and run_arguments treat it like
 * any plugin option), validated as gProfiler's parser validates it, and,
 * when it cannot do here what it does in gProfiler, named once at start-up
 * with the reason.  A plugin that implements one of these flags lists it in
 * its manifest; that declaration wins and the row here is not used.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"

#define POSINT_MAX	0x7fffffffffffffffLL
#define ALLMODES	(MODE_CPU | MODE_ALLOCATION | MODE_GPU)
#define CPU		MODE_CPU
#define JAVAMODES	(MODE_CPU | MODE_ALLOCATION)

struct compat_flag {
	struct gp_option row;	/* first: rows are walked by size */
	const char *owner;	/* the runtime (plugin name) */
	unsigned modes;		/* MODE_* where it applies */
	const char *bare;	/* optional value: what a bare flag means */
	const char *inert;	/* value for which it does what it
				 * does in gProfiler (NULL: none) */
	const char *why;	/* why it has no effect here */
};

#define ROW(n, t, d, lo, hi, ch)					\
	{ .name = (n), .type = (t), .defval = (d), .min = (lo),		\
	  .max = (hi), .choices = (ch),					\
	  .help = "gProfiler compatibility (docs/COMPAT.md)" }

static const char AP[] = "async-profiler is not embedded here: Java frames "
    "come from each JVM's perf map, symbolized by perf";
static const char PYPERF[] = "PyPerf is not used here: the built-in "
    "CPython reader walks interpreter frames and perf supplies native ones";

static const struct compat_flag compat_flags[] = {
	/* The mode flags of the plugins, for when the plugin is missing. */
	{ ROW("perf-mode", GP_OPT_ENUM, "fp", 0, 0, "fp|dwarf|smart|disabled"),
	  "perf", CPU, NULL, "disabled", "the perf plugin is not installed" },
	{ ROW("perf-dwarf-stack-size", GP_OPT_INT, "8192", -POSINT_MAX, 65528,
	  NULL), "perf", CPU, NULL, NULL, "the perf plugin is not installed" },
	{ ROW("python-mode", GP_OPT_ENUM, "auto", 0, 0,
	  "auto|pyperf|pyspy|py-spy|disabled"), "python", CPU, NULL,
	  "disabled", "the python plugin is not installed" },
	{ ROW("java-mode", GP_OPT_ENUM, "ap", 0, 0, "ap|disabled"), "java",
	  JAVAMODES, NULL, "disabled", "the java plugin is not installed" },
	/* perf (profilers/perf.py) */
	{ ROW("perf-no-memory-restart", GP_OPT_BOOL, "false", 0, 0, NULL),
	  "perf", CPU, NULL, "false", "perf runs inside the agent as a BPF "
	  "program, so there is no perf process whose memory could grow and "
	  "be restarted" },
	{ ROW("perf-event", GP_OPT_STRING, NULL, 0, 0, NULL), "perf", CPU,
	  NULL, NULL, "the perf plugin is not installed" },
	{ ROW("perf-event-period", GP_OPT_INT, NULL, 1, POSINT_MAX, NULL),
	  "perf", CPU, NULL, NULL, "the perf plugin is not installed" },
	{ ROW("hw-events-file", GP_OPT_PATH, NULL, 0, 0, NULL), "perf", CPU,
	  NULL, NULL, "the perf plugin is not installed" },
	{ ROW("perf-use-cgroups", GP_OPT_BOOL, "false", 0, 0, NULL), "perf",
	  CPU, NULL, "false", "the perf plugin is not installed" },
	{ ROW("perf-max-cgroups", GP_OPT_INT, "50", 0, POSINT_MAX, NULL),
	  "perf", CPU, NULL, NULL, "the perf plugin is not installed" },
	{ ROW("perf-max-docker-containers", GP_OPT_INT, "0", 0, POSINT_MAX,
	  NULL), "perf", CPU, NULL, NULL, "the perf plugin is not "
	  "installed" },
	/* python (profilers/python.py) */
	{ ROW("no-python-versions", GP_OPT_BOOL, "false", 0, 0, NULL),
	  "python", CPU, NULL, "false", "the python plugin is not "
	  "installed" },
	{ ROW("pyperf-user-stacks-pages", GP_OPT_INT, NULL, 0, POSINT_MAX,
	  NULL), "python", CPU, NULL, NULL, PYPERF },
	{ ROW("python-pyperf-verbose", GP_OPT_BOOL, "false", 0, 0, NULL),
	  "python", CPU, NULL, "false", PYPERF },
	{ ROW("python-pyspy-process", GP_OPT_STRING, NULL, 0, 0, NULL),
	  "python", CPU, NULL, NULL, "py-spy is not used here: Python "
	  "processes are found by their interpreter, not by PID lists" },
	{ ROW("python-skip-pyperf-profiler-above", GP_OPT_INT, "0", 1,
	  POSINT_MAX, NULL), "python", CPU, NULL, NULL, PYPERF },
	/* java (profilers/java.py) */
	{ ROW("java-no-version-check", GP_OPT_BOOL, "false", 0, 0, NULL),
	  "java", JAVAMODES, NULL, "false", "no JDK version gate here: a "
	  "JVM that cannot write a perf map is reported per PID" },
	{ ROW("java-async-profiler-mode", GP_OPT_ENUM, "auto", 0, 0,
	  "cpu|itimer|alloc|auto"), "java", JAVAMODES, NULL, NULL, AP },
	{ ROW("java-async-profiler-safemode", GP_OPT_INT, "0", 0, 63, NULL),
	  "java", JAVAMODES, NULL, NULL, AP },
	{ ROW("java-async-profiler-features", GP_OPT_STRING, "probesp,vtable",
	  0, 0, NULL), "java", JAVAMODES, NULL, NULL, AP },
	{ ROW("java-async-profiler-args", GP_OPT_STRING, NULL, 0, 0, NULL),
	  "java", JAVAMODES, NULL, NULL, AP },
	{ ROW("java-safemode", GP_OPT_STRING,
	  "profiled-oom,profiled-signaled,hserr", 0, 0, NULL), "java",
	  JAVAMODES, "all", NULL, "nothing is loaded into the JVM here, so "
	  "there is no profiler-caused crash to stop on" },
	{ ROW("java-jattach-timeout", GP_OPT_INT, "30", 1, POSINT_MAX, NULL),
	  "java", JAVAMODES, NULL, NULL, "the java plugin is not installed" },
	{ ROW("java-async-profiler-mcache", GP_OPT_INT, "30", 0, 255, NULL),
	  "java", JAVAMODES, NULL, NULL, AP },
	{ ROW("java-collect-spark-app-name-as-appid", GP_OPT_BOOL, "false", 0,
	  0, NULL), "java", JAVAMODES, NULL, "false", "Spark executors are "
	  "not asked for spark.app.name (no jcmd VM.system_properties call)" },
	{ ROW("java-async-profiler-no-report-meminfo", GP_OPT_BOOL, "false",
	  0, 0, NULL), "java", JAVAMODES, NULL, "false", AP },
	{ ROW("java-collect-jvm-flags", GP_OPT_STRING, "default", 0, 0, NULL),
	  "java", JAVAMODES, "default", NULL, "JVM flags are not collected "
	  "into the application metadata here" },
	{ ROW("java-full-hserr", GP_OPT_BOOL, "false", 0, 0, NULL), "java",
	  JAVAMODES, NULL, "false", "nothing is loaded into the JVM here, so "
	  "there is no profiler-caused hs_err to report" },
	{ ROW("java-include-method-modifiers", GP_OPT_BOOL, "false", 0, 0,
	  NULL), "java", JAVAMODES, NULL, "false", AP },
	{ ROW("java-line-numbers", GP_OPT_ENUM, "none", 0, 0,
	  "none|line-of-function"), "java", JAVAMODES, NULL, "none", AP },
	{ ROW("java-async-profiler-buildids", GP_OPT_BOOL, "false", 0, 0,
	  NULL), "java", JAVAMODES, NULL, "false", AP },
	/* The perf plugin names JVM threads (its emit.c): works. */
	{ ROW("java-collect-thread-names", GP_OPT_BOOL, "false", 0, 0, NULL),
	  "java", JAVAMODES, NULL, "false", NULL },
	/* Runtimes without a profiler here: perf's native stacks are what
	 * gProfiler gives them when their profiler is disabled. */
	/* The ruby plugin implements this; the row serves without it. */
	{ ROW("ruby-mode", GP_OPT_ENUM, "rbspy", 0, 0, "rbspy|disabled"),
	  "ruby", CPU, NULL, "disabled", "the ruby plugin is not installed: "
	  "Ruby processes get perf's native stacks, as with --no-ruby" },
	/* The php plugin implements these; the rows serve without it. */
	{ ROW("php-mode", GP_OPT_ENUM, "disabled", 0, 0, "phpspy|disabled"),
	  "php", CPU, NULL, "disabled", "the php plugin is not installed: "
	  "PHP processes get perf's native stacks, as with --no-php" },
	{ ROW("php-proc-filter", GP_OPT_STRING, "php-fpm", 0, 0, NULL), "php",
	  CPU, NULL, NULL, "the php plugin is not installed" },
	{ ROW("dotnet-mode", GP_OPT_ENUM, "disabled", 0, 0,
	  "dotnet-trace|disabled"), "dotnet", CPU, NULL, "disabled", "no .NET "
	  "profiler here (dotnet-trace is not embedded): .NET processes get "
	  "perf's stacks, as with --no-dotnet" },
	/* The nodejs plugin implements it; the row serves without it. */
	{ ROW("nodejs-mode", GP_OPT_ENUM, "disabled", 0, 0,
	  "attach-maps|perf|disabled"), "nodejs", CPU, NULL, "disabled",
	  "the nodejs plugin is not installed: perf still reads "
	  "/tmp/perf-<pid>.map, which node writes when started with "
	  "--perf-basic-prof, but nothing attaches to running node "
	  "processes" },
	/* PerfSpect's (main.py): the perfspect plugin is loaded only when
	 * enabled, so gProfiler's types are checked here as well. */
	{ ROW("enable-hw-metrics-collection", GP_OPT_BOOL, "false", 0, 0,
	  NULL), "perfspect", CPU, NULL, NULL, NULL },
	{ ROW("perfspect-duration", GP_OPT_INT, "60", 1, POSINT_MAX, NULL),
	  "perfspect", CPU, NULL, NULL, NULL },
	/* main.py */
	{ ROW("spark-sample-period", GP_OPT_INT, "120", 0, 0, NULL),
	  "gprofiler", ALLMODES, NULL, "120", "removed from gProfiler in "
	  "1.42.0" },
	{ ROW("collect-spark-metrics", GP_OPT_BOOL, "false", 0, 0, NULL),
	  "gprofiler", ALLMODES, NULL, "false", "removed from gProfiler in "
	  "1.42.0" },
	{ ROW("databricks-job-name-as-service-name", GP_OPT_BOOL, "false", 0,
	  0, NULL), "gprofiler", ALLMODES, NULL, "false", "removed from "
	  "gProfiler in 1.49.0" },
	{ ROW("curlify-requests", GP_OPT_BOOL, "false", 0, 0, NULL),
	  "gprofiler", ALLMODES, NULL, "false", "a curl command line would "
	  "carry the token into the log; use -v for request logs" },
	/* Done in compat_usage.c. */
	{ ROW("log-usage", GP_OPT_BOOL, "false", 0, 0, NULL), "gprofiler",
	  ALLMODES, NULL, "false", NULL },
	{ ROW("diagnostics", GP_OPT_BOOL, "false", 0, 0, NULL), "gprofiler",
	  ALLMODES, NULL, "false", NULL },
	{ ROW("profile-spawned-processes", GP_OPT_BOOL, "false", 0, 0, NULL),
	  "gprofiler", ALLMODES, NULL, "false", "process profilers here "
	  "rescan /proc every cycle, so processes spawned during a session "
	  "are profiled from the next cycle on" },
};

/*
 * Core options that are accepted but do nothing yet, with the reason
 * (named in the same start-up line).  Remove a row when its option works.
 */
static const struct {
	const char *name;
	const char *inert;	/* value that means "off" */
	const char *why;
} compat_core_inert[] = {
	{ "external-metadata", "", "its static section is sent; the "
	  "per-PID application section is not read yet" },
};

/* "--no-X" spellings of gProfiler that are not options of their own. */
static const char *const compat_negations[] = {
	"no-flamegraph", "no-perf", "no-python", "no-java", "no-ruby",
	"no-php", "no-dotnet", "no-nodejs",
};

/* Options of plugins loaded only when enabled (perfspect): gProfiler's
 * types are checked here too, or a bad value would pass unnoticed. */
static const char *const compat_precheck[] = {
	"enable-hw-metrics-collection", "perfspect-duration",
};

#define NFLAGS	(sizeof(compat_flags) / sizeof(compat_flags[0]))

/* Rows declared by the last compat_declare(): a flag an installed plugin
 * declares is that plugin's, and does what the plugin does with it. */
static unsigned char compat_declared[NFLAGS];

static const struct compat_flag *
compat_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < NFLAGS; i++)
		if (strcmp(compat_flags[i].row.name, name) == 0)
			return (&compat_flags[i]);
	return (NULL);
}

/* Whether `name` is a gProfiler flag known here only for compatibility. */
int
compat_known(const char *name)
{
	return (compat_lookup(name) != NULL);
}

/* Whether the flag takes no separate value on the command line. */
int
compat_is_flag(const char *name, const char *next)
{
	const struct compat_flag *f;

	if ((f = compat_lookup(name)) == NULL)
		return (0);
	if (f->row.type == GP_OPT_BOOL)
		return (1);
	return (f->bare != NULL && (next == NULL || (next[0] == '-' &&
	    !(next[1] >= '0' && next[1] <= '9'))));
}

/* The value a bare flag stands for ("--java-safemode" alone: "all"). */
const char *
compat_bare_value(const char *name)
{
	const struct compat_flag *f;

	if ((f = compat_lookup(name)) != NULL && f->bare != NULL)
		return (f->bare);
	return ("true");
}

/*
 * Declare every compatibility flag that no installed plugin declares, as
 * an option of its runtime, typed by its row.
 */
void
compat_declare(struct config *cfg)
{
	const struct compat_flag *f;
	char err[256];
	size_t i;

	for (i = 0; i < NFLAGS; i++) {
		f = &compat_flags[i];
		compat_declared[i] = 0;
		if (config_option_plugin(cfg, f->row.name, NULL) != NULL ||
		    options_find(f->row.name) != NULL)
			continue;
		compat_declared[i] = 1;
		config_declare_plugin_option(cfg, f->row.name, f->owner,
		    f->modes);
		(void)config_register_plugin(cfg, f->owner, &f->row, 1,
		    sizeof(*f), err, sizeof(err));
	}
}

/* GPROFILER_* for the compatibility flags and the "no-X" spellings. */
int
compat_apply_env(struct config *cfg, char *err, size_t errlen)
{
	const char *v;
	char var[96], out[8], why[64], *q;
	size_t i;
	int rc;

	for (i = 0; i < NFLAGS; i++)
		if (config_option_plugin(cfg, compat_flags[i].row.name,
		    NULL) != NULL && (rc = config_env_one(cfg,
		    compat_flags[i].row.name, err, errlen)) != 0)
			return (rc);
	for (i = 0; i < sizeof(compat_negations) /
	    sizeof(compat_negations[0]); i++) {
		snprintf(var, sizeof(var), "GPROFILER_%s",
		    compat_negations[i]);
		for (q = var; *q != '\0'; q++)
			*q = *q == '-' ? '_' : (*q >= 'a' && *q <= 'z' ?
			    *q - 32 : *q);
		if ((v = getenv(var)) == NULL)
			continue;
		if (config_check_value(GP_OPT_BOOL, v, 0, 0, NULL, out,
		    sizeof(out), why, sizeof(why)) != 0) {
			snprintf(err, errlen, "%s: invalid value \"%s\" for "
			    "--%s: %s", var, v, compat_negations[i], why);
			return (-EINVAL);
		}
		/* -ENOENT: the runtime is unknown here (no such plugin
		 * and no row); gProfiler would not have it either. */
		if (strcmp(out, "true") == 0 && (rc = config_set_user(cfg,
		    compat_negations[i], "true", SRC_ENV, var, err,
		    errlen)) != 0 && rc != -ENOENT)
			return (rc);
	}
	/* gProfiler's deprecated spelling of --api-server. */
	if ((v = getenv("GPROFILER_GLOGGER_SERVER")) != NULL &&
	    getenv("GPROFILER_API_SERVER") == NULL &&
	    (rc = config_set(cfg, "api-server", v, SRC_ENV,
	    "GPROFILER_GLOGGER_SERVER", err, errlen)) != 0)
		return (rc);
	/* In gProfiler any GPROFILER_DONT_SEND_LOGS, even "false", keeps
	 * logs home (main.py: the default is "the variable is unset"). */
	if (getenv("GPROFILER_DONT_SEND_LOGS") != NULL &&
	    (rc = config_set(cfg, "dont-send-logs", "true", SRC_ENV,
	    "GPROFILER_DONT_SEND_LOGS", err, errlen)) != 0)
		return (rc);
	return (0);
}

static const char *
compat_where(const struct config *cfg, const char *name)
{
	const char *o = config_origin(cfg, name);

	return (o != NULL ? o : name);
}

/* A comma-separated list whose every item is one of `choices`. */
static int
compat_check_list(const struct config *cfg, const char *name,
    const char *choices, const char *shown, char *err, size_t errlen)
{
	const char *v = config_get(cfg, name);
	char *buf, *tok, *save;
	int rc = 0;

	if (v == NULL || config_origin(cfg, name) == NULL)
		return (0);
	buf = xstrdup(v);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save))
		if (!config_choice_ok(choices, tok)) {
			snprintf(err, errlen, "%s: invalid value \"%s\" for "
			    "--%s: expected a comma-separated list of %s",
			    compat_where(cfg, name), tok, name, shown);
			rc = -EINVAL;
			break;
		}
	free(buf);
	return (rc);
}

/* gProfiler's integers_list: "12" or "12,345" (any integers). */
static int
compat_check_ints(const struct config *cfg, const char *name, char *err,
    size_t errlen)
{
	const char *p = config_get(cfg, name);
	char *end;

	if (p == NULL || config_origin(cfg, name) == NULL)
		return (0);
	for (;;) {
		(void)strtol(p, &end, 10);
		if (end == p || (*end != ',' && *end != '\0')) {
			snprintf(err, errlen, "%s: invalid value for --%s: "
			    "expected one integer or comma-separated "
			    "integers, e.g. 13,452,2388",
			    compat_where(cfg, name), name);
			return (-EINVAL);
		}
		if (*end == '\0')
			return (0);
		p = end + 1;
	}
}

/* A value given for an option whose plugin has not checked it yet. */
static int
compat_check_type(const struct config *cfg, const struct gp_option *row,
    char *err, size_t errlen)
{
	const char *v = config_get(cfg, row->name);
	char out[256], why[128];

	if (v == NULL || config_origin(cfg, row->name) == NULL)
		return (0);
	if (config_check_value(row->type, v, row->min, row->max,
	    row->choices, out, sizeof(out), why, sizeof(why)) == 0)
		return (0);
	snprintf(err, errlen, "%s: invalid value \"%s\" for --%s: %s",
	    compat_where(cfg, row->name), v, row->name, why);
	return (-EINVAL);
}

/*
 * gProfiler's parse-time rules for the compatibility flags (main.py's
 * parse_cmd_args); -EINVAL with one line naming the flags (exit 2).
 */
int
compat_validate(const struct config *cfg, char *err, size_t errlen)
{
	const char *node = config_get(cfg, "nodejs-mode");
	const char *perf = config_get(cfg, "perf-mode");
	size_t i;
	int rc;

	if (perf == NULL)
		perf = "fp";
	if (node != NULL && (strcmp(node, "perf") == 0 ||
	    strcmp(node, "attach-maps") == 0) && strcmp(perf, "fp") != 0 &&
	    strcmp(perf, "smart") != 0) {
		snprintf(err, errlen, "%s: --nodejs-mode perf or attach-maps "
		    "requires --perf-mode 'fp' or 'smart' (%s: --perf-mode "
		    "%s)", compat_where(cfg, "nodejs-mode"),
		    compat_where(cfg, "perf-mode"), perf);
		return (-EINVAL);
	}
	if (config_get_bool(cfg, "profile-spawned-processes") &&
	    config_get(cfg, "pids") != NULL) {
		snprintf(err, errlen, "--pids is not allowed when profiling "
		    "spawned processes (%s and %s): use one of them",
		    compat_where(cfg, "pids"),
		    compat_where(cfg, "profile-spawned-processes"));
		return (-EINVAL);
	}
	for (i = 0; i < sizeof(compat_precheck) / sizeof(compat_precheck[0]);
	    i++)
		if ((rc = compat_check_type(cfg,
		    &compat_lookup(compat_precheck[i])->row, err, errlen)) != 0)
			return (rc);
	if ((rc = compat_check_list(cfg, "java-async-profiler-features",
	    "probesp|vtable|comptask", "probesp, vtable, comptask", err,
	    errlen)) != 0)
		return (rc);
	return (compat_check_ints(cfg, "python-pyspy-process", err, errlen));
}

struct inert_state {
	const struct config *cfg;
	unsigned mode;
	char *buf;
	size_t len;
};

static void
compat_inert_add(struct inert_state *st, const char *name, const char *value,
    int show_value, const char *why)
{
	size_t n = strlen(st->buf);

	snprintf(st->buf + n, st->len - n, "%s--%s%s%s (%s)",
	    n > 0 ? "; " : "", name, show_value ? " " : "",
	    show_value ? value : "", why);
}

static void
compat_inert_one(const char *name, const char *value, const char *origin,
    int source, void *arg)
{
	struct inert_state *st = arg;
	const struct compat_flag *f;
	const char *owner;
	unsigned modes;
	char why[160];
	size_t i;

	(void)origin;
	if (source == SRC_DEFAULT)
		return;
	owner = config_option_plugin(st->cfg, name, &modes);
	f = compat_lookup(name);
	/* gProfiler accepts every flag in every mode; here a runtime's flag
	 * in a mode that runs no such profiler is named, not refused. */
	if (owner != NULL && strcmp(owner, "gprofiler") != 0 &&
	    (modes & st->mode) == 0 &&
	    (st->mode == MODE_ALLOCATION || st->mode == MODE_NONE)) {
		snprintf(why, sizeof(why), "mode %s runs no %s profiler",
		    config_mode_name(st->mode), owner);
		compat_inert_add(st, name, value, 0, why);
		return;
	}
	if (f != NULL && f->why != NULL && owner != NULL &&
	    compat_declared[f - compat_flags] &&
	    strcmp(owner, f->owner) == 0 && (f->inert == NULL ||
	    strcmp(value, f->inert) != 0)) {
		compat_inert_add(st, name, value, f->row.type == GP_OPT_ENUM,
		    f->why);
		return;
	}
	for (i = 0; i < sizeof(compat_core_inert) /
	    sizeof(compat_core_inert[0]); i++)
		if (strcmp(name, compat_core_inert[i].name) == 0 &&
		    strcmp(value, compat_core_inert[i].inert) != 0)
			compat_inert_add(st, name, value, 0,
			    compat_core_inert[i].why);
}

/*
 * The one start-up line naming every flag that was given but does nothing
 * here, each with the reason; nothing when there is none.
 */
void
compat_log_inert(const struct config *cfg)
{
	struct inert_state st;
	char buf[8192] = "";

	st.cfg = cfg;
	st.mode = config_mode(cfg);
	st.buf = buf;
	st.len = sizeof(buf);
	config_foreach_set(cfg, compat_inert_one, &st);
	if (*buf != '\0')
		log_info("accepted for gProfiler compatibility, no effect "
		    "here: %s", buf);
}
