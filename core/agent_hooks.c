/*
 * The seams between the agent and the subsystems that hang off its runs:
 * HTTP, Performance Studio (uploads, dynamic profiling), container names
 * and cloud metadata.  Kept apart so the agent's control flow reads on its
 * own.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <event2/event.h>

#include "agent.h"
#include "base/http.h"
#include "base/log.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "host/host.h"
#include "meta/meta.h"
#include "profile/profile.h"
#include "run/run.h"
#include "studio/studio.h"

/* At exit, requests still on their way (command completions) get this
 * long, polled, after the uploads' own bounded flush. */
#define HOOK_DRAIN_POLL_MS	50
#define HOOK_DRAIN_POLLS	60

static struct {
	struct event_base *base;
	struct event *drain_ev;
	int drain_left;
	int studio;	/* studio_init done */
	int heartbeat;	/* heartbeat_start done */
	int containers;
	void (*done)(void *);
	void *done_arg;
} hooks;

static const char *
agent_hook_container(int32_t pid, void *arg)
{
	return (container_name_for_pid(pid, arg));
}

/*
 * Before the first run: 0, or -errno (logged; -EINVAL is a usage error).
 * HTTP is always set up: plugins download through it (PerfSpect's
 * installer) and cloud probes and Docker use it.
 */
int
agent_hook_start(struct event_base *base, const struct config *cfg,
    struct plugin_list *plugins)
{
	struct run_hooks rh;
	int upload, rc;

	memset(&hooks, 0, sizeof(hooks));
	hooks.base = base;
	if ((rc = studio_http_init(base, cfg)) != 0)
		return (rc);
	if ((rc = compat_usage_start(base, cfg)) != 0)
		return (rc);
	if (!config_get_bool(cfg, "disable-container-names") &&
	    container_init(base, NULL) == 0)
		hooks.containers = 1;
	if (!config_get_bool(cfg, "disable-metadata-collection"))
		cloud_probe_start(base);
	upload = config_get_bool(cfg, "upload-results");
	if (upload || config_get_bool(cfg, "enable-heartbeat-server")) {
		if ((rc = studio_init(base, cfg)) != 0)
			return (rc);
		hooks.studio = 1;
		if ((rc = logship_start(base, cfg)) != 0)
			return (rc);
	}
	if (agent_hook_owns_runs(cfg)) {
		memset(&rh, 0, sizeof(rh));
		rh.on_cycle = studio_upload_hook;
		if (hooks.containers)
			rh.container_name = agent_hook_container;
		if ((rc = heartbeat_start(base, cfg, plugins, &rh)) != 0)
			return (rc);
		hooks.heartbeat = 1;
	}
	return (0);
}

/* Whether dynamic profiling (heartbeat commands) owns the runs. */
int
agent_hook_owns_runs(const struct config *cfg)
{
	return (config_get_bool(cfg, "enable-heartbeat-server"));
}

/* Stop the runs dynamic profiling started, then done. */
void
agent_hook_stop_runs(void (*done)(void *), void *arg)
{
	if (hooks.heartbeat) {
		hooks.heartbeat = 0;
		heartbeat_stop(done, arg);
	} else
		done(arg);
}

void
agent_hook_cycle(const struct config *cfg, const struct cycle_output *co,
    const char *col, size_t collen)
{
	if (hooks.studio && config_get_bool(cfg, "upload-results"))
		studio_upload_hook(co, col, collen, NULL);
}

const char *
agent_hook_container_name(int32_t pid)
{
	return (hooks.containers ? container_name_for_pid(pid, NULL) : "");
}

static void
agent_hook_closed(void)
{
	if (hooks.drain_ev != NULL)
		event_free(hooks.drain_ev);
	hooks.drain_ev = NULL;
	if (hooks.containers)
		container_fini();
	hooks.containers = 0;
	if (http_pending() > 0)
		log_warnx("exiting with %u request(s) to the backend not "
		    "answered (command completions are not retried)",
		    http_pending());
	http_fini();
	heartbeat_fini();
	hooks.done(hooks.done_arg);
}

static void
agent_hook_drain(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	(void)arg;
	if (http_pending() == 0 || --hooks.drain_left <= 0)
		agent_hook_closed();
}

/* Uploads flushed: let the last completions go out (bounded), then close. */
static void
agent_hook_flushed(void *arg)
{
	struct timeval tv = { 0, HOOK_DRAIN_POLL_MS * 1000 };

	(void)arg;
	if (http_pending() == 0 || hooks.base == NULL || (hooks.drain_ev =
	    event_new(hooks.base, -1, EV_PERSIST, agent_hook_drain,
	    NULL)) == NULL) {
		agent_hook_closed();
		return;
	}
	hooks.drain_left = HOOK_DRAIN_POLLS;
	event_add(hooks.drain_ev, &tv);
}

/* Flush uploads (bounded) and close HTTP, then done. */
void
agent_hook_shutdown(void (*done)(void *), void *arg)
{
	hooks.done = done;
	hooks.done_arg = arg;
	logship_stop();
	compat_usage_stop();
	if (hooks.studio) {
		hooks.studio = 0;
		studio_shutdown(agent_hook_flushed, NULL);
	} else
		agent_hook_flushed(NULL);
}
