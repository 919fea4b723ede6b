/*
 * Building the effective configuration from its sources, lowest first:
 * built-in defaults < config file < GPROFILER_* environment < command line
 * (docs/specs/gprofiler-compat.md §1.1).  Plugin options are known from the
 * manifests, which are found first, so every source can name them.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/safeopen.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "config/manifest.h"
#include "gprofiler.h"

#define CONFIG_FILE_MAX	(1024 * 1024)

/* One setting as given, before it is checked. */
struct setting {
	char *name;
	char *value;
	char *origin;
	char *section;
};

struct settings {
	struct setting *v;
	size_t n;
};

static void
settings_add(struct settings *s, const char *section, const char *name,
    const char *value, const char *origin)
{
	struct setting *e;

	s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
	e = &s->v[s->n++];
	e->section = xstrdup(section != NULL ? section : "");
	e->name = xstrdup(name);
	e->value = xstrdup(value);
	e->origin = xstrdup(origin);
}

static void
settings_free(struct settings *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].section);
		free(s->v[i].name);
		explicit_bzero(s->v[i].value, strlen(s->v[i].value));
		free(s->v[i].value);
		free(s->v[i].origin);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void
cmdline_free(struct cmdline *cl)
{
	if (cl == NULL)
		return;
	if (cl->cl_cli != NULL)
		settings_free(cl->cl_cli);
	free(cl->cl_cli);
	free(cl->cl_subcommand);
	memset(cl, 0, sizeof(*cl));
}

/* Whether the next argument is a value: not an option, but "-3" is one
 * (argparse takes negative numbers as values too). */
static int
cmdline_is_value(const char *next)
{
	return (next != NULL && (next[0] != '-' ||
	    (next[1] >= '0' && next[1] <= '9')));
}

/*
 * Whether the option takes no separate argument: core bools; plugin
 * options typed bool in their manifest, or (untyped) when no value follows.
 */
static int
cmdline_is_flag(const char *name, const struct plugin_list *plugins,
    const char *next)
{
	const struct option_def *od;
	const struct plugin *p;
	int is_bool;

	if ((od = options_find(name)) != NULL)
		return (od->od_type == GP_OPT_BOOL);
	if (plugins != NULL)
		TAILQ_FOREACH(p, plugins, entry)
			if (manifest_has_option(&p->manifest, name, &is_bool))
				return (is_bool || !cmdline_is_value(next));
	if (compat_known(name))
		return (compat_is_flag(name, next));
	/* "--no-X", and (before the plugins are known) anything not
	 * followed by a value. */
	return (strncmp(name, "no-", 3) == 0 || !cmdline_is_value(next));
}

/* Whether a long option is known: core, a plugin's, or a --no-X form. */
static int
cmdline_known(const char *name, const struct plugin_list *plugins)
{
	const struct plugin *p;
	char mode[160];

	if (options_find(name) != NULL || compat_known(name))
		return (1);
	TAILQ_FOREACH(p, plugins, entry)
		if (manifest_has_option(&p->manifest, name, NULL))
			return (1);
	if (strncmp(name, "no-", 3) != 0)
		return (0);
	snprintf(mode, sizeof(mode), "%s-mode", name + 3);
	return (cmdline_known(name + 3, plugins) ||
	    cmdline_known(mode, plugins));
}

/*
 * Split argv into settings (origin "--name"), the subcommand and the
 * special flags.  Values are checked later, once plugins are known.
 */
int
cmdline_parse(struct cmdline *cl, int argc, char **argv,
    const struct plugin_list *plugins, char *err, size_t errlen)
{
	const struct option_def *od;
	char name[128], origin[160];
	const char *arg, *val, *eq;
	int i, j;

	memset(cl, 0, sizeof(*cl));
	cl->cl_cli = xcalloc(1, sizeof(*cl->cl_cli));
	for (i = 1; i < argc; i++) {
		arg = argv[i];
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			cl->cl_help = 1;
			continue;
		}
		if (strcmp(arg, "-V") == 0 || strcmp(arg, "--version") == 0) {
			cl->cl_version = 1;
			continue;
		}
		if (strcmp(arg, "-n") == 0 ||
		    strcmp(arg, "--check-config") == 0) {
			cl->cl_check = 1;
			continue;
		}
		if (arg[0] == '-' && arg[1] == '-' && arg[2] != '\0') {
			eq = strchr(arg + 2, '=');
			snprintf(name, sizeof(name), "%.*s", eq != NULL ?
			    (int)(eq - arg - 2) : (int)strlen(arg + 2),
			    arg + 2);
			snprintf(origin, sizeof(origin), "--%s", name);
			if (plugins != NULL && !cmdline_known(name, plugins)) {
				snprintf(err, errlen, "unknown option "
				    "\"%s\" (see gprofiler --help for the "
				    "options of the core and of the installed "
				    "plugins)", name);
				return (-EINVAL);
			}
			if (eq != NULL)
				val = eq + 1;
			else if (cmdline_is_flag(name, plugins,
			    i + 1 < argc ? argv[i + 1] : NULL))
				val = compat_bare_value(name);
			else if (i + 1 < argc)
				val = argv[++i];
			else {
				snprintf(err, errlen, "--%s needs a value",
				    name);
				return (-EINVAL);
			}
			settings_add(cl->cl_cli, NULL, name, val, origin);
			continue;
		}
		if (arg[0] == '-' && arg[1] != '\0' && arg[1] != '-') {
			for (j = 1; arg[j] != '\0'; j++) {
				if ((od = options_find_short(arg[j])) == NULL) {
					snprintf(err, errlen, "unknown option "
					    "-%c (see --help)", arg[j]);
					return (-EINVAL);
				}
				snprintf(origin, sizeof(origin), "-%c", arg[j]);
				if (od->od_type == GP_OPT_BOOL) {
					settings_add(cl->cl_cli, NULL,
					    od->od_name, "true", origin);
					continue;
				}
				if (arg[j + 1] != '\0')
					val = arg + j + 1;
				else if (i + 1 < argc)
					val = argv[++i];
				else {
					snprintf(err, errlen, "-%c needs a "
					    "value", arg[j]);
					return (-EINVAL);
				}
				settings_add(cl->cl_cli, NULL, od->od_name,
				    val, origin);
				break;
			}
			continue;
		}
		/* "flamegraph" takes its own arguments; other subcommands
		 * (upload-file) take the agent's options around them. */
		if (cl->cl_subcommand == NULL) {
			cl->cl_subcommand = xstrdup(arg);
			cl->cl_subargc = argc - i;
			cl->cl_subargv = argv + i;
			if (strcmp(arg, "flamegraph") == 0)
				return (0);
			continue;
		}
		snprintf(err, errlen, "unexpected argument \"%s\" (options "
		    "start with - or --; see --help)", arg);
		return (-EINVAL);
	}
	return (0);
}

/* The last command-line value of `name`, or NULL. */
static const char *
cmdline_last(const struct cmdline *cl, const char *name)
{
	size_t i;

	for (i = cl->cl_cli->n; i > 0; i--)
		if (strcmp(cl->cl_cli->v[i - 1].name, name) == 0)
			return (cl->cl_cli->v[i - 1].value);
	return (NULL);
}

/* The directories to look for plugins in: --plugin-dir (repeatable),
 * GPROFILER_PLUGIN_DIR, then the system one.  Caller frees. */
char **
cmdline_plugin_dirs(const struct cmdline *cl)
{
	char **dirs = NULL;
	size_t n = 0, i;
	char *e;

	for (i = 0; i < cl->cl_cli->n; i++)
		if (strcmp(cl->cl_cli->v[i].name, "plugin-dir") == 0) {
			dirs = xreallocarray(dirs, n + 2, sizeof(char *));
			dirs[n++] = xstrdup(cl->cl_cli->v[i].value);
		}
	if ((e = getenv("GPROFILER_PLUGIN_DIR")) != NULL && *e != '\0') {
		dirs = xreallocarray(dirs, n + 2, sizeof(char *));
		dirs[n++] = xstrdup(e);
	}
	/* GPROFILER_PLUGIN_SYSTEM_DIR replaces the built-in directory
	 * (empty: none), as GStreamer's GST_PLUGIN_SYSTEM_PATH does. */
	if ((e = getenv("GPROFILER_PLUGIN_SYSTEM_DIR")) == NULL)
		e = PLUGINDIR;
	dirs = xreallocarray(dirs, n + 2, sizeof(char *));
	if (*e != '\0')
		dirs[n++] = xstrdup(e);
	dirs[n] = NULL;
	return (dirs);
}

/* The config file to read: --config, or the default if it exists. */
static const char *
cmdline_config_path(const struct cmdline *cl, int *explicit)
{
	static const char *const defaults[] = {
		SYSCONFDIR "/gprofiler/gprofiler.conf",
		"/etc/gprofiler/gprofiler.conf",
		"/etc/gprofiler/config.ini",	/* gProfiler's */
	};
	const char *p;
	size_t i;

	*explicit = 1;
	if ((p = cmdline_last(cl, "config")) != NULL)
		return (p);
	/* GPROFILER_CONFIG names the file; set but empty: none at all. */
	if ((p = getenv("GPROFILER_CONFIG")) != NULL)
		return (*p != '\0' ? p : NULL);
	*explicit = 0;
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		if (access(defaults[i], F_OK) == 0)
			return (defaults[i]);
	return (NULL);
}

struct file_state {
	struct settings *s;
};

static int
config_file_line(void *arg, const char *section, const char *key,
    const char *val, const char *origin)
{
	struct file_state *st = arg;

	settings_add(st->s, section, key, val, origin);
	return (0);
}

/*
 * Read the config file into settings.  As root, a file that others can
 * write is refused: whoever writes it controls what the agent runs.
 */
static int
config_read_file(const char *path, int explicit, struct settings *s,
    int *has_secret_perms_issue, char *err, size_t errlen)
{
	struct file_state st;
	struct stat sb;
	char *buf = NULL;
	ssize_t n;
	size_t len = 0;
	int fd, rc = -EINVAL;

	*has_secret_perms_issue = 0;
	/* O_NONBLOCK: a FIFO planted as the config file must fail the
	 * regular-file check below, not block start-up or SIGHUP forever. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) == -1) {
		if (errno == ENOENT && !explicit)
			return (0);
		snprintf(err, errlen, "%s: cannot open config file: %s", path,
		    strerror(errno));
		return (-errno);
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	if (geteuid() == 0 && ((sb.st_mode & 022) || sb.st_uid != 0)) {
		snprintf(err, errlen, "%s: config file must be owned by root "
		    "and not writable by group or others (chown root %s; "
		    "chmod go-w %s)", path, path, path);
		goto out;
	}
	if (sb.st_size > CONFIG_FILE_MAX) {
		snprintf(err, errlen, "%s: config file larger than %d bytes",
		    path, CONFIG_FILE_MAX);
		goto out;
	}
	*has_secret_perms_issue = (sb.st_mode & 004) != 0;
	buf = xmalloc(sb.st_size + 1);
	n = safeopen_pread(fd, buf, sb.st_size, 0);
	len = n > 0 ? (size_t)n : 0;	/* a short file is parsed as it is */
	st.s = s;
	rc = config_parse_buf(buf, len, path, config_file_line, &st, err,
	    errlen);
out:
	free(buf);
	close(fd);
	return (rc);
}

/* Apply one setting of the file; `section` names a plugin. */
static int
config_apply_file(struct config *cfg, const struct setting *e,
    int world_readable, char *err, size_t errlen)
{
	const struct option_def *od;
	const char *owner;
	char full[256];
	const char *name = e->name;

	if (*e->section != '\0') {
		/* In [perf], "mode" means perf-mode. */
		snprintf(full, sizeof(full), "%s-%s", e->section, e->name);
		owner = config_option_plugin(cfg, e->name, NULL);
		if (owner == NULL || strcmp(owner, e->section) != 0) {
			owner = config_option_plugin(cfg, full, NULL);
			name = full;
		}
		if (owner == NULL || strcmp(owner, e->section) != 0) {
			snprintf(err, errlen, "%s: no option \"%s\" in plugin "
			    "\"%s\" (is the plugin installed? see gprofiler "
			    "--help)", e->origin, e->name, e->section);
			return (-EINVAL);
		}
	}
	if ((od = options_find(name)) != NULL) {
		if (od->od_flags & OPTF_CLIONLY) {
			snprintf(err, errlen, "%s: \"%s\" can only be given "
			    "on the command line", e->origin, name);
			return (-EINVAL);
		}
		if ((od->od_flags & OPTF_SECRET) && world_readable) {
			snprintf(err, errlen, "%s: a secret (%s) in a "
			    "world-readable file; chmod o-r the file",
			    e->origin, name);
			return (-EINVAL);
		}
	}
	return (config_set_user(cfg, name, e->value, SRC_FILE, e->origin, err,
	    errlen));
}

/*
 * config_set for what a user typed: "--no-X" turns a boolean X off or a
 * profiler's X-mode to disabled (gProfiler's --no-perf, --no-python).
 */
int
config_set_user(struct config *cfg, const char *name, const char *value,
    int source, const char *origin, char *err, size_t errlen)
{
	const struct option_def *od;
	char mode[160];
	int rc;

	rc = config_set(cfg, name, value, source, origin, err, errlen);
	if (rc != -ENOENT || strncmp(name, "no-", 3) != 0)
		return (rc);
	if (strcmp(value, "true") != 0) {
		snprintf(err, errlen, "%s takes no value", origin);
		return (-EINVAL);
	}
	if ((od = options_find(name + 3)) != NULL &&
	    od->od_type == GP_OPT_BOOL)
		return (config_set(cfg, od->od_name, "false", source, origin,
		    err, errlen));
	snprintf(mode, sizeof(mode), "%s-mode", name + 3);
	if (config_option_plugin(cfg, mode, NULL) != NULL ||
	    options_find(mode) != NULL)
		return (config_set(cfg, mode, "disabled", source, origin, err,
		    errlen));
	snprintf(err, errlen, "%s: unknown option \"%s\" (see gprofiler "
	    "--help)", origin, name);
	return (-ENOENT);
}

/* GPROFILER_<NAME> for every core option and every declared plugin one. */
static int
config_apply_env(struct config *cfg, const struct plugin_list *plugins,
    char *err, size_t errlen)
{
	const struct option_def *od;
	const struct plugin *p;
	size_t i;
	int rc;

	for (i = 0; (od = options_get(i)) != NULL; i++)
		if ((rc = config_env_one(cfg, od->od_name, err, errlen)) != 0)
			return (rc);
	TAILQ_FOREACH(p, plugins, entry)
		for (i = 0; p->manifest.options != NULL &&
		    p->manifest.options[i] != NULL; i++)
			if ((rc = config_env_one(cfg, p->manifest.options[i],
			    err, errlen)) != 0)
				return (rc);
	return (compat_apply_env(cfg, err, errlen));
}

int
config_env_one(struct config *cfg, const char *name, char *err, size_t errlen)
{
	char var[192], *q;
	const char *v;

	snprintf(var, sizeof(var), "GPROFILER_%s", name);
	for (q = var; *q != '\0'; q++)
		*q = *q == '-' ? '_' : (*q >= 'a' && *q <= 'z' ? *q - 32 : *q);
	if ((v = getenv(var)) == NULL || strcmp(name, "plugin-dir") == 0)
		return (0);
	return (config_set(cfg, name, v, SRC_ENV, var, err, errlen));
}

/*
 * The effective configuration from the file, the environment and the
 * command line.  `plugins` holds the scanned manifests.  0 or -errno with
 * one line in err.
 */
int
config_load(struct config **cfgp, const struct cmdline *cl,
    const struct plugin_list *plugins, char *err, size_t errlen)
{
	struct config *cfg;
	struct settings file;
	const struct plugin *p;
	const char *path;
	size_t i;
	int rc, explicit, world_readable = 0;

	memset(&file, 0, sizeof(file));
	cfg = config_new();
	TAILQ_FOREACH(p, plugins, entry)
		for (i = 0; p->manifest.options != NULL &&
		    p->manifest.options[i] != NULL; i++)
			config_declare_plugin_option(cfg,
			    p->manifest.options[i], p->manifest.name,
			    p->manifest.modes);
	compat_declare(cfg);
	if ((path = cmdline_config_path(cl, &explicit)) != NULL &&
	    (rc = config_read_file(path, explicit, &file, &world_readable,
	    err, errlen)) != 0)
		goto fail;
	for (i = 0; i < file.n; i++)
		if ((rc = config_apply_file(cfg, &file.v[i], world_readable,
		    err, errlen)) != 0)
			goto fail;
	if ((rc = config_apply_env(cfg, plugins, err, errlen)) != 0)
		goto fail;
	for (i = 0; i < cl->cl_cli->n; i++)
		if ((rc = config_set_user(cfg, cl->cl_cli->v[i].name,
		    cl->cl_cli->v[i].value, SRC_CLI, cl->cl_cli->v[i].origin,
		    err, errlen)) != 0)
			goto fail;
	settings_free(&file);
	*cfgp = cfg;
	return (0);
fail:
	settings_free(&file);
	config_free(cfg);
	return (rc);
}
