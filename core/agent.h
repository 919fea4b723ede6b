/*
 * The agent room (the core's root folder): start-up (main.c, daemon.c,
 * usage.c) and the agent inside the loop (agent.c, agent_hooks.c).  The
 * top of the core: it includes any room, no room includes it.
 */
#ifndef GP_AGENT_H
#define GP_AGENT_H

#include <stdint.h>
#include <stdio.h>

struct cmdline;
struct config;
struct cycle_output;
struct event_base;
struct plugin_list;

/* daemon.c */
int daemon_lock(char *err, size_t errlen);
void daemon_write_pidfile(const char *);
void daemon_cleanup(void);
int daemon_check_environment(const struct config *, char *err,
		    size_t errlen);

/* agent.c */
struct agent;
int agent_main(struct event_base *, const struct cmdline *,
		    struct plugin_list *, struct config *);
void agent_shutdown(struct agent *);

/* agent_hooks.c */
int agent_hook_start(struct event_base *, const struct config *,
		    struct plugin_list *);
int agent_hook_owns_runs(const struct config *);
void agent_hook_cycle(const struct config *,
		    const struct cycle_output *, const char *col, size_t collen);
const char *agent_hook_container_name(int32_t pid);
void agent_hook_stop_runs(void (*done)(void *), void *arg);
void agent_hook_shutdown(void (*done)(void *), void *arg);

/* usage.c */
void usage_print(FILE *, struct plugin_list *);

#endif
