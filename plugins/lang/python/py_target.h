/*
 * One profiled Python process: what was discovered once at attach (the
 * interpreter object, _PyRuntime, version, offsets) and the sampling of its
 * running threads into folded frames.
 */
#ifndef GP_PY_TARGET_H
#define GP_PY_TARGET_H

#include <sys/types.h>

#include <gprofiler/plugin.h>

#include "langguard.h"
#include "langproc.h"
#include "pyreader.h"

#define PY_LINE_FIRST	0	/* co_firstlineno, as gProfiler (py-spy -F) */
#define PY_LINE_CURRENT	1	/* the line being executed */

struct py_tid_cache {
	uint64_t thread_id;
	int32_t tid;
};

/*
 * The thread state last found for a kernel thread: a sample of that
 * thread reads it directly, checked by its interpreter, pthread id and
 * native TID, instead of walking _PyRuntime -> interpreter -> the list.
 */
struct py_ts_slot {
	uint64_t tstate;
	uint64_t thread_id;
	int32_t tid;
};

#define PY_TS_SLOTS	16

/* A sample's scratch (py_sample.c): the frames read, leaf first, then
 * their texts and pointers to them, root first. */
struct py_scratch {
	struct py_frame *frames;
	char *text;
	size_t textcap;
	const char **ptrs;
};

struct py_target {
	pid_t pid;
	uint64_t starttime;
	struct py_mem mem;
	struct langguard guard;	/* where mem may read (its arg) */
	struct py_offsets off;
	struct py_version ver;
	uint64_t runtime;
	uint64_t code_type;
	char object[512];	/* maps path of the interpreter object */
	int in_lib;	/* libpython, not the executable */
	uint64_t code_lo, code_hi;	/* its executable mappings */
	char exe_buildid[160];
	char lib_buildid[160];
	struct py_code_cache *codes;
	struct py_tid_cache tids[64];
	uint32_t ntids;
	struct py_ts_slot ts_slots[PY_TS_SLOTS];
	uint64_t ts_interp;		/* the interpreter of ts_slots */
	uint32_t ts_next;		/* the slot replaced next */
	uint64_t ts_hits, ts_walks;	/* samples served each way */
	struct py_scratch scratch;
	int line_mode;
	int tid_fallback;	/* TIDs not established: all threads */
	/* The thread state py_target_sample_tid last read, for the system
	 * profiler's walk (walk_tid 0: none): its address and pthread id. */
	int32_t walk_tid;
	uint64_t walk_root, walk_check;
	uint64_t walked;	/* samples served from walked frames */
};

/* emit: one thread's stack, root first. */
typedef void (*py_emit_fn)(void *, struct py_target *, int32_t,
		    const char *const *, uint32_t);

int py_target_attach(pid_t, struct py_target *, char *, size_t);
int py_target_attach_maps(pid_t, struct py_target *, const char *, size_t,
	    char *, size_t);
/* The caches and scratch a sample needs, made if they are not: 0 or
 * -ENOMEM. */
int py_target_caches(struct py_target *);
/* Those let go (a process not sampled for a cycle): made again at its
 * next sample. */
void py_target_idle(struct py_target *);
void py_scratch_free(struct py_scratch *);
void py_target_release(struct py_target *);
int py_target_sample(struct py_target *, py_emit_fn, void *, uint32_t *);
int py_target_sample_tid(struct py_target *, int32_t, py_emit_fn, void *);
/*
 * The frame layout for a system profiler that walks frames in the sample
 * (plugin.h's gp_frame_walk): 0, or -ENOTSUP when it cannot be said in
 * those terms (then stacks are read here, as before).
 */
int py_target_walk_layout(const struct py_target *, struct gp_frame_walk *);
/* One sample from frames walked in it (gp_sample_stack.walk: nwalk
 * pairs, root first): only code objects not yet cached are read. */
int py_target_sample_walked(struct py_target *, int32_t, const uint64_t *,
	    uint32_t, py_emit_fn, void *);
int py_task_state(pid_t, int32_t, char *);

/*
 * Every file is opened through the host's safe open (gp_host_api
 * file_open, or safeopen_open_cb in tests), langproc's: set once before
 * anything else; until then nothing opens (-ENOSYS).
 */
void py_set_opener(langproc_open_fn, void *);

#endif
