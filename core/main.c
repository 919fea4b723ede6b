/*
 * gprofiler: parse the command line, check the configuration and the
 * host, load the plugins the mode needs, and hand over to the agent loop.
 * Usage errors exit 2, start-up failures 1.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "agent.h"
#include "base/child.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "host/host.h"
#include "meta/meta.h"
#include "output/output.h"
#include "studio/studio.h"

static void __attribute__((noreturn))
main_usage_error(const char *msg)
{
	log_msg(LOG_LEVEL_ERR, NULL, "%s", msg);
	exit(EXIT_USAGE);
}

/*
 * Blank the values of secret options (--token, --api-server-password) in
 * argv once they are parsed (copied): /proc/PID/cmdline is readable by
 * every user, and shows the argv memory as it is now.  Same grammar as
 * cmdline_parse: "--name value" and "--name=value"; stops at the flamegraph
 * subcommand, which has its own arguments.
 */
static void
main_hide_secrets(int argc, char **argv)
{
	const struct option_def *od;
	char name[128], *val, *eq;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "flamegraph") == 0)
			return;
		if (strncmp(argv[i], "--", 2) != 0 || argv[i][2] == '\0')
			continue;
		eq = strchr(argv[i] + 2, '=');
		snprintf(name, sizeof(name), "%.*s", eq != NULL ?
		    (int)(eq - argv[i] - 2) : (int)strlen(argv[i] + 2),
		    argv[i] + 2);
		if ((od = options_find(name)) == NULL ||
		    !(od->od_flags & OPTF_SECRET))
			continue;
		if (eq != NULL)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			continue;
		if (*val == '\0')
			continue;
		explicit_bzero(val, strlen(val));
		val[0] = '*';
	}
}

/* The log file's directory (/var/log/gprofiler) on first start. */
static void
main_make_parent(const char *path)
{
	char *dir, *slash;

	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		(void)mkdir(dir, 0755);
	}
	free(dir);
}

static int
main_subcommand(struct cmdline *cl, struct config *cfg)
{
	char *argv[4];
	int rc;

	if (strcmp(cl->cl_subcommand, "upload-file") == 0) {
		argv[0] = "upload-file";
		argv[1] = "--file-path";
		argv[2] = (char *)config_get(cfg, "file-path");
		argv[3] = NULL;
		rc = upload_file_main(argv[2] != NULL ? 3 : 1, argv, cfg);
		config_free(cfg);
		return (rc);
	}
	log_msg(LOG_LEVEL_ERR, NULL, "unknown subcommand \"%s\" (known: "
	    "flamegraph, upload-file; see --help)", cl->cl_subcommand);
	config_free(cfg);
	return (EXIT_USAGE);
}

/* Everything main() holds, released on every way out (LeakSanitizer
 * checks the short paths too: --help, -n, subcommands). */
struct main_state {
	struct plugin_list plugins;
	struct cmdline cl;
	struct config *cfg;	/* until the agent takes it */
	struct event_base *base;
};

static int
main_done(struct main_state *m, int rc)
{
	plugins_free(&m->plugins);
	cmdline_free(&m->cl);
	config_free(m->cfg);
	if (m->base != NULL)
		event_base_free(m->base);
	daemon_cleanup();
	log_close_file();
	return (rc);
}

/* The configuration, the plugins, the host: usage errors exit 2 and
 * start-up failures 1 from here; -1 means "go on". */
static int
main_prepare(struct main_state *m, int argc, char **argv)
{
	char err[2048], **dirs;
	int rc, i;

	/* A first pass only to find --plugin-dir: the full parse needs to
	 * know the plugins' options. */
	if (cmdline_parse(&m->cl, argc, argv, NULL, err, sizeof(err)) != 0)
		main_usage_error(err);
	dirs = cmdline_plugin_dirs(&m->cl);
	cmdline_free(&m->cl);
	plugins_scan(&m->plugins, dirs, err, sizeof(err));
	for (i = 0; dirs[i] != NULL; i++)
		free(dirs[i]);
	free(dirs);
	if (cmdline_parse(&m->cl, argc, argv, &m->plugins, err,
	    sizeof(err)) != 0)
		main_usage_error(err);
	main_hide_secrets(argc, argv);
	if (m->cl.cl_help) {
		usage_print(stdout, &m->plugins);
		return (0);
	}
	if (m->cl.cl_version) {
		printf("gprofiler %s (plugin ABI %d.%d)\n", PACKAGE_VERSION,
		    GP_ABI_MAJOR, GP_ABI_MINOR);
		return (0);
	}
	if (m->cl.cl_subcommand != NULL &&
	    strcmp(m->cl.cl_subcommand, "flamegraph") == 0)
		return (flamegraph_main(m->cl.cl_subargc, m->cl.cl_subargv));
	/* Internal: the agent's cloud metadata probe (cloud_probe.c). */
	if (m->cl.cl_subcommand != NULL &&
	    strcmp(m->cl.cl_subcommand, "probe-cloud") == 0)
		return (cloud_probe_main());
	if (config_load(&m->cfg, &m->cl, &m->plugins, err, sizeof(err)) != 0)
		main_usage_error(err);
	child_env_set(config_get(m->cfg, "child-env"));
	if (m->cl.cl_subcommand != NULL) {
		rc = main_subcommand(&m->cl, m->cfg);
		m->cfg = NULL;
		return (rc);
	}
	if (config_validate(m->cfg, err, sizeof(err)) != 0 ||
	    output_check_formats(m->cfg, err, sizeof(err)) != 0)
		main_usage_error(err);
	log_setverbose(config_get_bool(m->cfg, "verbose"));
	metadata_collect(config_get_bool(m->cfg,
	    "disable-metadata-collection"));
	if ((m->base = event_base_new()) == NULL)
		fatalx("cannot create the event loop");
	rc = plugins_load_for_mode(&m->plugins, m->base, m->cfg,
	    config_mode(m->cfg), err, sizeof(err));
	if (rc == 0)
		rc = plugins_check(&m->plugins, err, sizeof(err));
	if (rc == -EINVAL)
		main_usage_error(err);
	if (rc != 0)
		fatalx("%s", err);
	if (!m->cl.cl_check)
		logship_prepare(m->cfg);
	compat_log_inert(m->cfg);
	if (m->cl.cl_check) {
		printf("configuration OK\n");
		return (0);
	}
	if (daemon_check_environment(m->cfg, err, sizeof(err)) != 0 ||
	    output_check_dir(m->cfg, err, sizeof(err)) != 0)
		fatalx("%s", err);
	if (daemon_lock(err, sizeof(err)) != 0)
		fatalx("%s", err);
	return (-1);
}

/* The log file and the pid file, once we know we run. */
static void
main_files(const struct config *cfg)
{
	const char *logfile;
	int rc;

	if ((logfile = config_get(cfg, "log-file")) == NULL)
		return;
	main_make_parent(logfile);
	if ((rc = log_open_file(logfile, config_get_int(cfg,
	    "log-rotate-max-size", 0), (int)config_get_int(cfg,
	    "log-rotate-backup-count", 1))) != 0)
		log_msg(rc == -ENOENT ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARN, NULL,
		    "log file %s: %s", logfile, log_file_refusal(rc));
}

int
main(int argc, char **argv)
{
	struct main_state m;
	struct config *cfg;
	int rc;

	xmalloc_policy();
	log_init(0, "gprofiler");
	memset(&m, 0, sizeof(m));
	TAILQ_INIT(&m.plugins);
	if ((rc = main_prepare(&m, argc, argv)) >= 0)
		return (main_done(&m, rc));
	main_files(m.cfg);
	daemon_write_pidfile(config_get(m.cfg, "pid-file"));
	log_info("gprofiler %s starting: mode %s", PACKAGE_VERSION,
	    config_mode_name(config_mode(m.cfg)));
	cfg = m.cfg;
	m.cfg = NULL;		/* the agent owns it */
	rc = agent_main(m.base, &m.cl, &m.plugins, cfg);
	return (main_done(&m, rc));
}
