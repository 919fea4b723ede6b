/*
 * A small host for plugin tests while the daemon is not needed: a poll()
 * loop with real timers and real child processes, options from a table,
 * snapshots recorded as text.  Implements what the iaprof plugin calls.
 */
#ifndef IAPROF_HOST_MOCK_H
#define IAPROF_HOST_MOCK_H

#include <gprofiler/plugin.h>

struct gp_snapshot {
	int done;
	int status;
	char err[8192];
	char *stacks;	/* "pid comm;frame;... count\n" lines */
	size_t len, cap;
};

struct gp_json {
	char text[4096];	/* "key=value\n" lines */
};

extern const struct gp_host_api mock_api;
extern struct gp_plugin_ctx *mock_ctx;
extern int mock_stop_done;
extern char mock_log[65536];	/* every log line */

void mock_option(const char *name, const char *value);
void mock_options_clear(void);
/* Run the loop until *flag is non-zero or ms passed; 0 if flag was set. */
int mock_run(const int *flag, unsigned ms);
struct gp_snapshot *mock_snapshot_new(void);
void mock_snapshot_free(struct gp_snapshot *);
unsigned mock_children(void);	/* children not yet reaped */
/* Zombie children of this process (state Z in /proc). */
unsigned mock_zombies(void);

#endif
