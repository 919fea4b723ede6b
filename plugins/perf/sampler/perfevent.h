/*
 * --perf-event: the event names perf(1) lists (`perf list`), as gProfiler
 * passes them to `perf record -e`, turned into a perf_event_attr type and
 * config.  Pure functions over strings (perfevent.c); the tracepoint id is
 * read from tracefs by the caller and parsed here.
 */
#ifndef GP_PERF_PERFEVENT_H
#define GP_PERF_PERFEVENT_H

#include <stddef.h>
#include <stdint.h>

#define PERFEVENT_NAME_LEN	128

struct perfevent {
	uint32_t type;		/* PERF_TYPE_* */
	uint64_t config;	/* tracepoints: set by perfevent_tp_id */
	char name[PERFEVENT_NAME_LEN];	/* canonical name */
	/* tracepoints: "sys:name" split, each [A-Za-z0-9_] only */
	char tp_sys[64];
	char tp_name[PERFEVENT_NAME_LEN];
};

/*
 * One event name into ev: hardware ("cycles", "instructions", ...),
 * software ("cpu-clock", "page-faults", ...), hardware cache
 * ("L1-dcache-load-misses", ...), raw ("r1a8") or tracepoint
 * ("sched:sched_switch", config left 0).  0, or -EINVAL with one line in
 * err saying what is accepted.
 */
int perfevent_parse(const char *s, struct perfevent *ev, char *err,
		    size_t errlen);
/* The name of the kind of event: "hardware", "software", ... */
const char *perfevent_kind(const struct perfevent *ev);
/* A tracefs "id" file's bytes into *id: 0, or -EINVAL. */
int perfevent_tp_id(const char *buf, size_t len, uint64_t *id);

#endif
