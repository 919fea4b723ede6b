/*
 * Private to run.c and cycle.c: a run's state and the cycle's entry points.
 */
#ifndef GP_RUN_H
#define GP_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <gprofiler/plugin.h>

#include "run/run.h"

struct config;
struct event;
struct event_base;
struct metrics;
struct plugin;
struct plugin_list;
struct profile;
struct run_hooks;

#define RUN_MAGIC		0x52554e21u
#define RUN_PLUG_MAGIC		0x52504c47u
#define RUN_STOP_BOUND_S	10	/* plugins' stop() */
/*
 * How long a cycle waits for snapshots: half the duration, at least 10 s.
 * iaprof alone may take 5 s to answer (docs/specs/iaprof.md §6.4), and a first
 * cycle's symbolization takes seconds; a shorter wait would abandon healthy
 * plugins, a longer one would let a hung plugin delay every cycle.
 */
#define RUN_SNAP_MIN_S		10
extern int run_snap_min_s;		/* RUN_SNAP_MIN_S; tests lower it */

struct run;

/* One active plugin in a run. */
struct run_plug {
	unsigned magic;	/* RUN_PLUG_MAGIC */
	struct run *run;
	struct plugin *plugin;
	int started;
	int stopping;
	struct gp_snapshot *snap;	/* pending request */
	struct profile *result;		/* this cycle's answer */
	int answered;
	int failed;
};

struct run {
	unsigned magic;	/* RUN_MAGIC */
	struct event_base *base;
	struct config *cfg;	/* our own copy */
	struct plugin_list *plugins;
	struct run_hooks hooks;
	struct run_plug *plugs;
	size_t nplugs;
	struct run_plug *sys;	/* NULL: no system profiler */
	struct metrics *metrics;
	unsigned mode;
	int64_t frequency;
	int64_t duration;	/* seconds */
	int continuous;
	struct event *cycle_ev;		/* next cycle */
	struct event *wait_ev;		/* snapshot bound */
	struct event *stop_ev;		/* stop bound */
	struct event *deliver_ev;	/* stop's done, next turn */
	int stop_scheduled;		/* done() is queued */
	struct timespec win_start;	/* CLOCK_REALTIME */
	struct timespec win_mono;	/* CLOCK_MONOTONIC */
	struct timespec req_start;	/* snapshots requested */
	struct timespec req_mono;
	struct timespec sys_end;	/* system result arrived */
	struct timespec last_end;	/* previous cycle's end */
	struct timespec next_mono;	/* next cycle, on the grid */
	int in_cycle;
	int pending;	/* snapshots outstanding */
	int stopping;
	int finished;
	int finish_status;
	char *finish_err;
	struct event *finish_ev;
	unsigned ncycles;
	void (*stop_done)(void *);
	void *stop_arg;
	/* How cycle.c ends the run (run.c's; cycle.c calls no run.c
	 * function, run.c drives cycle.c). */
	void (*finish)(struct run *, int status,
				    const char *err);
};

/* cycle.c */
void cycle_schedule(struct run *);
int64_t cycle_next_deadline(const struct timespec *prev, int64_t duration_s,
	    const struct timespec *now, struct timespec *next);
void cycle_abandon(struct run *);

#endif
