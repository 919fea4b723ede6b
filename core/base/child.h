/*
 * child.c: every process the daemon or a plugin runs (base room).
 * Child processes for the core and for plugins (through the host API):
 * struct gp_child is defined in child.c.  Reaped via SIGCHLD on the base
 * given to the first child_spawn (one base per process).
 */
#ifndef GP_BASE_CHILD_H
#define GP_BASE_CHILD_H

#include <sys/types.h>

#include <stddef.h>

#include <gprofiler/plugin.h>

struct event_base;

struct gp_child *child_spawn(struct event_base *,
		    const struct gp_child_spec *, void *owner);
int child_stop(struct gp_child *, int sig, unsigned grace_ms);
pid_t child_pid(const struct gp_child *);
size_t child_stderr_tail(const struct gp_child *, char *, size_t);
void child_abandon(struct gp_child *);
void child_abandon_owner(void *owner);
void child_reap(void);
unsigned child_count(void);
void child_fini(void);
/* The minimal environment of children (see child.c); extra: --child-env. */
void child_env_set(const char *extra);
void child_env_free(void);
char *const	*child_env(void);

#endif
