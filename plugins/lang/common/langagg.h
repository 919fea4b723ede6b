/*
 * Per-PID aggregation of a runtime plugin's folded stacks between two
 * snapshots: identical stacks of one PID are counted once.  Shared by the
 * plugins under plugins/lang/ (linked into each, not exported).
 */
#ifndef GP_LANGAGG_H
#define GP_LANGAGG_H

#include <stdint.h>

struct gp_snapshot;
struct langagg;

/* One stack of pid, counted count times, for the snapshot. */
typedef void (*langagg_fn)(void *, struct gp_snapshot *, int32_t,
		    const char *const *, uint32_t, uint64_t);

/* Empty stacks and those deeper than max_frames are refused (-EINVAL). */
struct langagg *langagg_new(uint32_t max_frames);
void langagg_free(struct langagg *);
int langagg_add(struct langagg *, int32_t, const char *const *,
		    uint32_t, uint64_t);
/* Each stack counted since the last clear, handed to fn for snap. */
void langagg_foreach(struct langagg *, struct gp_snapshot *, langagg_fn,
	    void *);
uint64_t langagg_pid_total(struct langagg *, int32_t);
uint32_t langagg_count(const struct langagg *);
void langagg_clear(struct langagg *);

#endif
