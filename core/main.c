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

#include "gprofiler.h"

static void __attribute__((noreturn))
main_usage_error(const char *msg)
{
	log_msg(LOG_LEVEL_ERR, NULL, "%s", msg);
	exit(EXIT_USAGE);
}

/* The log file's directory (/var/log/gprofiler) on first start. */
static void
main_make_parent(const char *path)
{
	char	*dir, *slash;

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
	char	*argv[4];
	int	 rc;

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

int
main(int argc, char **argv)
{
	struct plugin_list	 plugins;
	struct cmdline		 cl;
	struct config		*cfg = NULL;
	struct event_base	*base;
	const char		*logfile;
	char			 err[2048], **dirs;
	int			 rc;

	log_init(0, "gprofiler");
	/* A first pass only to find --plugin-dir: the full parse needs to
	 * know the plugins' options. */
	if (cmdline_parse(&cl, argc, argv, NULL, err, sizeof(err)) != 0)
		main_usage_error(err);
	dirs = cmdline_plugin_dirs(&cl);
	cmdline_free(&cl);
	plugins_scan(&plugins, dirs, err, sizeof(err));
	for (rc = 0; dirs[rc] != NULL; rc++)
		free(dirs[rc]);
	free(dirs);
	if (cmdline_parse(&cl, argc, argv, &plugins, err, sizeof(err)) != 0)
		main_usage_error(err);
	if (cl.cl_help) {
		usage_print(stdout, &plugins);
		return (0);
	}
	if (cl.cl_version) {
		printf("gprofiler %s (plugin ABI %d.%d)\n", PACKAGE_VERSION,
		    GP_ABI_MAJOR, GP_ABI_MINOR);
		return (0);
	}
	if (cl.cl_subcommand != NULL &&
	    strcmp(cl.cl_subcommand, "flamegraph") == 0)
		return (flamegraph_main(cl.cl_subargc, cl.cl_subargv));
	if (config_load(&cfg, &cl, &plugins, err, sizeof(err)) != 0)
		main_usage_error(err);
	if (cl.cl_subcommand != NULL)
		return (main_subcommand(&cl, cfg));
	if (config_validate(cfg, err, sizeof(err)) != 0)
		main_usage_error(err);
	log_setverbose(config_get_bool(cfg, "verbose"));
	metadata_collect(config_get_bool(cfg, "disable-metadata-collection"));
	if ((base = event_base_new()) == NULL)
		fatalx("cannot create the event loop");
	rc = plugins_load_for_mode(&plugins, base, cfg, config_mode(cfg), err,
	    sizeof(err));
	if (rc == 0)
		rc = plugins_check(&plugins, err, sizeof(err));
	if (rc == -EINVAL)
		main_usage_error(err);
	if (rc != 0)
		fatalx("%s", err);
	if (cl.cl_check) {
		printf("configuration OK\n");
		return (0);
	}
	if (daemon_check_environment(cfg, err, sizeof(err)) != 0 ||
	    output_check_dir(cfg, err, sizeof(err)) != 0)
		fatalx("%s", err);
	if (daemon_lock(err, sizeof(err)) != 0)
		fatalx("%s", err);
	if ((logfile = config_get(cfg, "log-file")) != NULL)
		main_make_parent(logfile);
	if (logfile != NULL && (rc = log_open_file(logfile, config_get_int(cfg,
	    "log-rotate-max-size", 0), (int)config_get_int(cfg,
	    "log-rotate-backup-count", 1))) != 0)
		log_msg(rc == -ENOENT ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARN, NULL,
		    "log file %s: %s", logfile, strerror(-rc));
	daemon_write_pidfile(config_get(cfg, "pid-file"));
	log_info("gprofiler %s starting: mode %s", PACKAGE_VERSION,
	    config_mode_name(config_mode(cfg)));
	rc = agent_main(base, &cl, &plugins, cfg);
	plugins_free(&plugins);
	cmdline_free(&cl);
	event_base_free(base);
	daemon_cleanup();
	log_close_file();
	return (rc);
}
