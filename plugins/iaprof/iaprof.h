/*
 * The iaprof plugin's private state (gpu mode's system profiler), shared
 * by iaprof.c (descriptor, options, snapshots, metadata) and run.c (the
 * iaprof process: version gate, launch, readiness, restarts, stop).
 */
#ifndef IAPROF_PLUGIN_H
#define IAPROF_PLUGIN_H

#include <limits.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

#include "parse.h"

#define IAPROF_MAGIC		0x49415046u	/* "IAPF" */
#define IAPROF_STDERR_KEEP	200		/* iaprof.md §6.3 */

/* Where the iaprof process is in its life. */
enum iaprof_state {
	IAP_IDLE,	/* not started, or stopped */
	IAP_VERSION,	/* `iaprof --version` running */
	IAP_STARTING,	/* launched, waiting for the first interval */
	IAP_RUNNING,	/* ticking */
	IAP_KILLING,	/* SIGKILLed after a timeout, waiting for the reap */
	IAP_DOWN,	/* not running; err says why, restart pending */
	IAP_FAILED,	/* the version gate failed: for the whole run */
	IAP_STOPPING	/* stop(): SIGINT sent, waiting for the reap */
};

struct iaprof {
	uint32_t magic;
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;

	/* This run's settings. */
	char path[PATH_MAX];
	int64_t interval_ms;
	int64_t subsample;
	uint32_t version_ms, start_ms, snapshot_ms, stop_ms;
	char version[64];	/* normalised, "" if unknown */

	enum iaprof_state state;
	struct gp_child *child;	/* version or profiling child */
	struct gp_timer *timer;	/* the state's deadline */
	struct gp_timer *restart_timer;
	char vout[256], verr[512];	/* --version output */
	int vtimedout;

	struct iaprof_parser *parser;
	struct gp_snapshot *snap;	/* waiting for the next tick */
	char err[4096];			/* failure not yet reported */
	uint32_t failures;		/* in a row: the backoff */
	int warned_restart;
	uint64_t last_malformed;	/* for metadata */
	uint64_t launches;
};

/* iaprof.c */
int64_t iaprof_interval_ms(int64_t freq);
void iaprof_snapshot_fulfil(struct iaprof *);
void iaprof_snapshot_fail(struct iaprof *, int status, const char *msg);

/* run.c */
int iaprof_run_start(struct iaprof *);
void iaprof_run_snapshot(struct iaprof *);
void iaprof_run_stop(struct iaprof *);
void iaprof_run_destroy(struct iaprof *);
int iaprof_find_path(const char *name, char *out, size_t outsz);

#endif
