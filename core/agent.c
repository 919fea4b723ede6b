/*
 * The agent inside the loop: runs the profiling run the configuration asks
 * for, and reacts to signals (TERM/INT stop cleanly, HUP reloads the
 * configuration from the next cycle on).  One module owns the reactor's
 * signal events (tmux proc.c).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "agent.h"
#include "base/log.h"
#include "base/stopguard.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "host/host.h"
#include "output/output.h"
#include "profile/profile.h"
#include "run/run.h"
#include "run/supervisor.h"
#include "studio/studio.h"

#define AGENT_MAGIC		0x4147454eu
#define AGENT_STOP_BOUND_S	30	/* then exit regardless */

struct agent {
	unsigned magic;
	struct event_base *base;
	const struct cmdline *cl;
	struct plugin_list *plugins;
	struct config *cfg;
	struct config *pending;		/* SIGHUP: the next config */
	int reload_queued;		/* restart after this cycle */
	struct config **retired;	/* replaced configs (may be */
	size_t nretired;		/* referenced until exit) */
	struct run *run;
	struct event *ev_watchdog;
	struct event *ev_controller;	/* --controller-pid poll */
	int stopping;
	int status;
};

static void agent_stopped(void *);

/* --heartbeat-file: a watchdog outside tells we are alive by its mtime. */
static void
agent_touch_heartbeat_file(const char *path)
{
	int fd;

	if (path == NULL)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd == -1 || futimens(fd, NULL) == -1)
		log_warn("heartbeat file %s", path);
	if (fd != -1)
		close(fd);
}

/* --controller-pid: exit when the process that started us is gone. */
static void
agent_check_controller(evutil_socket_t fd, short ev, void *arg)
{
	struct agent *a = arg;
	pid_t pid;

	(void)fd;
	(void)ev;
	CHECK_OBJ(a, AGENT_MAGIC);
	pid = (pid_t)config_get_int(a->cfg, "controller-pid", 0);
	if (pid > 0 && kill(pid, 0) == -1 && errno == ESRCH) {
		log_info("controller process %d is gone: stopping", (int)pid);
		agent_shutdown(a);
	}
}
static int agent_start_run(struct agent *, const char *);
static void agent_restarted(void *);

/* A reload waits for the cycle in progress: restart between cycles. */
static void
agent_reload_now(evutil_socket_t fd, short ev, void *arg)
{
	struct agent *a = arg;

	CHECK_OBJ(a, AGENT_MAGIC);
	a->reload_queued = 0;
	if (a->stopping || a->run == NULL || a->pending == NULL)
		return;
	supervisor_stop(a->run, NULL, agent_restarted, a);
}

static void
agent_on_cycle(const struct cycle_output *co, const char *col, size_t collen,
    void *arg)
{
	struct agent *a = arg;
	struct timeval now = { 0, 0 };

	CHECK_OBJ(a, AGENT_MAGIC);
	agent_touch_heartbeat_file(config_get(a->cfg, "heartbeat-file"));
	agent_hook_cycle(a->cfg, co, col, collen);
	/* Out of the run's callback before stopping it. */
	if (a->pending != NULL && !a->reload_queued) {
		a->reload_queued = 1;
		event_base_once(a->base, -1, EV_TIMEOUT, agent_reload_now, a,
		    &now);
	}
}

static void
agent_on_finished(struct run *run, int status, const char *err, void *arg)
{
	struct agent *a = arg;

	CHECK_OBJ(a, AGENT_MAGIC);
	(void)run;
	if (status != 0) {
		log_msg(LOG_LEVEL_ERR, NULL, "profiling run failed: %s",
		    err != NULL ? err : strerror(-status));
		a->status = 1;
	}
	agent_shutdown(a);
}

static const char *
agent_container_name(int32_t pid, void *arg)
{
	(void)arg;
	return (agent_hook_container_name(pid));
}

static int
agent_start_run(struct agent *a, const char *why)
{
	struct run_hooks hooks;
	char err[1024];
	int rc;

	memset(&hooks, 0, sizeof(hooks));
	hooks.on_cycle = agent_on_cycle;
	hooks.on_finished = agent_on_finished;
	if (!config_get_bool(a->cfg, "disable-container-names"))
		hooks.container_name = agent_container_name;
	hooks.arg = a;
	if ((rc = supervisor_start(a->cfg, &hooks, why, &a->run, err,
	    sizeof(err))) != 0)
		log_msg(LOG_LEVEL_ERR, NULL, "cannot start profiling: %s", err);
	return (rc);
}

static void
agent_watchdog(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	(void)arg;
	log_warnx("plugins did not stop within %d s; exiting anyway",
	    AGENT_STOP_BOUND_S);
	daemon_cleanup();
	exit(1);
}

/* Stop the run and leave the loop (bounded). */
void
agent_shutdown(struct agent *a)
{
	struct timeval tv = { AGENT_STOP_BOUND_S, 0 };

	if (a->stopping)
		return;
	a->stopping = 1;
	a->ev_watchdog = evtimer_new(a->base, agent_watchdog, a);
	evtimer_add(a->ev_watchdog, &tv);
	if (a->run != NULL)
		supervisor_stop(a->run, NULL, agent_stopped, a);
	else
		agent_hook_stop_runs(agent_stopped, a);
}

static void
agent_flushed(void *arg)
{
	struct agent *a = arg;

	CHECK_OBJ(a, AGENT_MAGIC);
	event_base_loopexit(a->base, NULL);
}

/* Runs are over: unload the plugins, flush uploads, leave the loop. */
static void
agent_stopped(void *arg)
{
	struct agent *a = arg;

	CHECK_OBJ(a, AGENT_MAGIC);
	if (a->run != NULL) {
		run_free(a->run);
		a->run = NULL;
	}
	supervisor_unload();
	agent_hook_shutdown(agent_flushed, a);
}

/* After SIGHUP: the old run has stopped; start again on the new config. */
static void
agent_restarted(void *arg)
{
	struct agent *a = arg;
	struct config *old;
	char err[1024];
	int rc;

	CHECK_OBJ(a, AGENT_MAGIC);
	run_free(a->run);
	a->run = NULL;
	old = a->cfg;
	a->cfg = a->pending;
	a->pending = NULL;
	/* A reload may change what plugins read at init (paths): always
	 * load them again, as a fresh start would. */
	if ((rc = supervisor_plugins(a->cfg, 1, "reload", err,
	    sizeof(err))) != 0) {
		log_warnx("reload: %s; keeping the previous configuration",
		    err);
		config_free(a->cfg);
		a->cfg = old;
		if (supervisor_plugins(a->cfg, 1, "reload", err,
		    sizeof(err)) != 0)
			fatalx("reload: cannot restore the previous "
			    "configuration: %s", err);
	} else {
		config_free(old);
		log_info("configuration reloaded");
	}
	log_setverbose(config_get_bool(a->cfg, "verbose"));
	if (agent_start_run(a, "reload") != 0) {
		a->status = 1;
		agent_shutdown(a);
	}
}

/*
 * Settings read once at start (the backend connection, the spool, the
 * state): a reload keeps their old values and says which changed.  Names
 * only: values may be secrets.
 */
static const char *const agent_restart_keys[] = {
	"enable-heartbeat-server", "upload-results", "server-host", "token",
	"token-file", "service-name", "api-server", "api-server-user",
	"api-server-password", "heartbeat-interval", "server-upload-timeout",
	"spool-dir", "spool-max-size", "state-dir", "no-verify",
	"tls-ca-bundle", "tls-client-cert", "tls-client-key", "log-file",
	"pid-file", NULL
};

static void
agent_keep_restart_keys(const struct config *old, struct config *cfg)
{
	const char *k, *o, *n;
	char changed[512], err[256];
	size_t i;

	changed[0] = '\0';
	for (i = 0; (k = agent_restart_keys[i]) != NULL; i++) {
		o = config_get(old, k);
		n = config_get(cfg, k);
		if ((o == NULL && n == NULL) || (o != NULL && n != NULL &&
		    strcmp(o, n) == 0))
			continue;
		if (o != NULL)
			(void)config_set(cfg, k, o, config_source(old, k),
			    config_origin(old, k) != NULL ? config_origin(old,
			    k) : "the running configuration", err, sizeof(err));
		snprintf(changed + strlen(changed), sizeof(changed) -
		    strlen(changed), "%s%s", changed[0] ? ", " : "", k);
	}
	if (changed[0] != '\0')
		log_warnx("reload: %s changed; that takes a restart of the "
		    "agent (the running values are kept)", changed);
}

/* Heartbeat mode: commands build their runs on the new configuration. */
static void
agent_rebase(struct agent *a, struct config *cfg)
{
	a->retired = xreallocarray(a->retired, a->nretired + 1,
	    sizeof(*a->retired));
	a->retired[a->nretired++] = a->cfg;
	a->cfg = cfg;
	log_setverbose(config_get_bool(cfg, "verbose"));
	command_rebase(cfg);
	log_info("configuration reloaded: later commands build on it, and "
	    "the continuous run in force restarts on it after its current "
	    "cycle");
}

static void
agent_reload(struct agent *a)
{
	struct config *cfg = NULL;
	char err[1024];

	if (a->stopping)
		return;
	if (config_load(&cfg, a->cl, a->plugins, err, sizeof(err)) != 0 ||
	    config_validate(cfg, err, sizeof(err)) != 0 ||
	    output_check_formats(cfg, err, sizeof(err)) != 0) {
		log_warnx("reload: %s; keeping the previous configuration",
		    err);
		config_free(cfg);
		return;
	}
	agent_keep_restart_keys(a->cfg, cfg);
	if (agent_hook_owns_runs(a->cfg)) {
		agent_rebase(a, cfg);
		return;
	}
	config_free(a->pending);	/* a newer SIGHUP wins */
	a->pending = cfg;
	if (a->run == NULL) {
		agent_restarted(a);
		return;
	}
	log_info("reloading the configuration: the new one applies once the "
	    "current cycle is out");
}

/* SIGHUP, SIGINT and SIGTERM, as the stop guard hands them over. */
static void
agent_signal(int sig, void *arg)
{
	struct agent *a = arg;

	CHECK_OBJ(a, AGENT_MAGIC);
	switch (sig) {
	case SIGHUP:
		agent_reload(a);
		break;
	case SIGINT:
	case SIGTERM:
		if (a->stopping) {
			log_warnx("second signal: exiting now");
			daemon_cleanup();
			exit(1);
		}
		log_info("%s: stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
		agent_shutdown(a);
		break;
	}
}

/*
 * Run the agent until it stops; the exit status.  Plugins for the mode
 * are loaded and checked already.  Takes ownership of cfg.
 */
int
agent_main(struct event_base *base, const struct cmdline *cl,
    struct plugin_list *plugins, struct config *cfg)
{
	struct agent a;
	size_t i;
	int rc;

	memset(&a, 0, sizeof(a));
	a.magic = AGENT_MAGIC;
	a.base = base;
	a.cl = cl;
	a.plugins = plugins;
	a.cfg = cfg;
	signal(SIGPIPE, SIG_IGN);
	if ((rc = stopguard_start(base, agent_signal, &a)) != 0) {
		log_msg(LOG_LEVEL_ERR, NULL, "cannot take signals: %s",
		    strerror(-rc));
		a.status = 1;
	}
	if (config_get(cfg, "controller-pid") != NULL) {
		struct timeval one = { 1, 0 };

		a.ev_controller = event_new(base, -1, EV_PERSIST,
		    agent_check_controller, &a);
		evtimer_add(a.ev_controller, &one);
	}
	supervisor_init(base, plugins, a.cfg);
	if (a.status != 0)
		;	/* without its signals the agent does not start */
	else if ((rc = agent_hook_start(base, a.cfg, plugins)) != 0)
		a.status = rc == -EINVAL ? EXIT_USAGE : 1;
	else if (agent_hook_owns_runs(a.cfg))
		;	/* dynamic profiling: the heartbeat starts runs */
	else if (agent_start_run(&a, "start") != 0)
		a.status = 1;
	if (a.status == 0)
		event_base_dispatch(base);
	stopguard_stop();
	if (a.ev_watchdog != NULL)
		event_free(a.ev_watchdog);
	if (a.ev_controller != NULL)
		event_free(a.ev_controller);
	config_free(a.pending);
	config_free(a.cfg);
	for (i = 0; i < a.nretired; i++)
		config_free(a.retired[i]);
	free(a.retired);
	a.cfg = NULL;
	a.magic = 0;
	return (a.status);
}
