/*
 * The seams between the agent and the optional subsystems that hang off a
 * run: uploads and dynamic profiling (Performance Studio) and container
 * names.  Kept apart so the agent's control flow reads on its own.
 */
#include "config.h"

#include "gprofiler.h"

/* Before the first run: 0, or -errno (startup failure, logged). */
int
agent_hook_start(struct event_base *base, const struct config *cfg,
    struct plugin_list *plugins)
{
	(void)base;
	(void)plugins;
	if (config_get_bool(cfg, "upload-results"))
		log_warnx("--upload-results: uploading is not available in "
		    "this build yet; profiles are only written locally");
	return (0);
}

/* Whether dynamic profiling (heartbeat commands) owns the runs. */
int
agent_hook_owns_runs(const struct config *cfg)
{
	(void)cfg;
	return (0);
}

void
agent_hook_cycle(const struct config *cfg, const struct cycle_output *co,
    const char *col, size_t collen)
{
	(void)cfg;
	(void)co;
	(void)col;
	(void)collen;
}

const char *
agent_hook_container_name(int32_t pid)
{
	(void)pid;
	return ("");
}

void
agent_hook_shutdown(struct event_base *base)
{
	(void)base;
}
