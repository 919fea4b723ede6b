/*
 * The run supervisor (supervisor.c): the one owner of plugin loading and
 * of run start and stop, for every entry point (the command line, SIGHUP,
 * Studio commands).  One per process.
 */
#ifndef GP_RUN_SUPERVISOR_H
#define GP_RUN_SUPERVISOR_H

#include <stddef.h>

#include "gprofiler.h"
#include "run/run.h"

struct config;
struct event_base;

void supervisor_init(struct event_base *, struct plugin_list *,
	    const struct config *);
int supervisor_plugins(struct config *, int reload, const char *why,
	    char *err, size_t errlen);
int supervisor_start(struct config *, const struct run_hooks *,
	    const char *why, struct run **, char *err, size_t errlen);
void supervisor_stop(struct run *, const char *why, void (*done)(void *),
	    void *);
void supervisor_unload(void);

#endif
