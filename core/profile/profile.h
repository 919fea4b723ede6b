/*
 * The profile room (core/profile/): a cycle's folded stacks (profile.c),
 * gProfiler's merge of runtime stacks into the system profiler's
 * (merge.c), and the result of a cycle as the writers and the uploader
 * get it.
 */
#ifndef GP_PROFILE_PROFILE_H
#define GP_PROFILE_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct config;
struct json_object;

/* profile.c */
/*
 * A cycle's folded stacks: interned frames, one table per PID, adding a
 * sample is O(depth).  Stack views are borrowed from the profile.
 */
struct profile;
struct profile_stack {
	int32_t pid;
	const char *comm;
	const char *container;		/* "" when none */
	const char *appid;		/* NULL when none */
	uint32_t appmeta_idx;		/* index into application_metadata */
	const char *const *frames;	/* root first, without the prefixes */
	uint32_t nframes;
	uint64_t count;
};
struct profile *profile_new(void);
void profile_free(struct profile *);
int profile_add_stack(struct profile *, int32_t pid,
		    const char *comm, const char *const *frames,
		    uint32_t nframes, uint64_t count);
/* Visit every stack; a non-zero return from cb stops and is returned. */
int profile_foreach(const struct profile *,
		    int (*cb)(const struct profile_stack *, void *), void *);
uint64_t profile_total(const struct profile *);
/* The stacks of one PID; every PID (with stacks, an error or attributes). */
int profile_foreach_in_pid(const struct profile *, int32_t pid,
		    int (*cb)(const struct profile_stack *, void *), void *);
int profile_foreach_pid(const struct profile *,
		    int (*cb)(int32_t pid, void *), void *);
uint64_t profile_pid_total(const struct profile *, int32_t pid);
size_t profile_npids(const struct profile *);
int profile_has_pid(const struct profile *, int32_t pid);
/* Per-PID attributes; strings are copied, getters return borrowed text. */
void profile_set_error(struct profile *, int32_t pid,
		    const char *comm, int kind, const char *reason);
const char *profile_pid_error(const struct profile *, int32_t pid);
const char *profile_pid_comm(const struct profile *, int32_t pid);
void profile_set_container(struct profile *, int32_t pid,
		    const char *);
const char *profile_pid_container(const struct profile *, int32_t pid);
void profile_set_appid(struct profile *, int32_t pid,
		    const char *);
const char *profile_pid_appid(const struct profile *, int32_t pid);
/* Takes ownership of md; the getter's result is borrowed. */
void profile_set_appmeta(struct profile *, int32_t pid,
		    struct json_object *md);
struct json_object *profile_pid_appmeta(const struct profile *, int32_t pid);
void profile_set_appmeta_idx(struct profile *, int32_t pid,
		    uint32_t idx);

/* merge.c */
/*
 * docs/specs/gprofiler-compat.md §3.  sys: the system profiler's result (NULL:
 * none); rt: the process profilers' results.  rng returns uniform [0, 1)
 * (injected for tests).  Caller frees the returned profile.
 */
struct profile *merge_profiles(const struct profile *sys,
		    const struct profile *const *rt, size_t nrt,
		    double (*rng)(void *), void *rngarg);
uint64_t merge_scale(uint64_t count, double ratio,
		    double (*rng)(void *), void *rngarg);
double merge_rng_default(void *);

/*
 * The result of one cycle, handed to the writers (col.c, output.c,
 * flamegraph.c, pprof.c) and the uploader.
 */
struct cycle_output {
	const struct config *cfg;
	const struct profile *profile;	/* merged and enriched */
	struct json_object *header;	/* the .col header object */
	struct timespec start;		/* CLOCK_REALTIME */
	struct timespec end;
	unsigned mode;
	int64_t frequency;
	int adhoc;	/* a non-continuous command run */
};

#endif
