/*
 * The run room (core/run/): one profiling run (run.c) and its cycles
 * (cycle.c); run_int.h is the two files' shared state.
 */
#ifndef GP_RUN_RUN_H
#define GP_RUN_RUN_H

#include <stddef.h>
#include <stdint.h>

struct config;
struct cycle_output;
struct event_base;
struct plugin_list;

/* run.c */
/*
 * One profiling run: a configuration, the active plugins, cycles every
 * profiling-duration seconds (or one cycle without --continuous).
 */
struct run;
struct run_hooks {
	/* After a cycle's local files are written (e.g. queue the upload). */
	void (*on_cycle)(const struct cycle_output *,
			    const char *col, size_t collen, void *arg);
	/* The run ended by itself (single cycle done) or failed. */
	void (*on_finished)(struct run *, int status,
			    const char *err, void *arg);
	/* Container name of a PID, "" for none; NULL: names disabled. */
	const char *(*container_name)(int32_t pid, void *arg);
	void *arg;
};
struct run *run_new(struct event_base *, const struct config *,
		    struct plugin_list *, const struct run_hooks *);
int run_start(struct run *);
/* Finish or abandon the current cycle, stop the plugins (bounded), then
 * call done. */
void run_stop(struct run *, void (*done)(void *), void *);
void run_free(struct run *);
const char *run_error(const struct run *);
/* Milliseconds of samples in the cycle in progress; -1: none. */
int64_t run_window_ms(const struct run *);
int64_t run_duration(const struct run *);

#endif
