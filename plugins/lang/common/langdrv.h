/*
 * The driver of a sampling runtime plugin (PHP, Ruby): which processes it
 * knows (a langtab), how it finds them (langfind.h: the system profiler's
 * reports, or a walk of /proc each second without one), how their stacks are sampled
 * (walked in the system profiler's samples when it walks them and the
 * plugin gives a layout, langdrv_walk.c; else the -f Hz timer, running
 * only while a process needs it); their stacks until the snapshot
 * (langdrv_stack.c); and the plugin's entry points but start
 * (langdrv_plugin.c).  The plugin says what examining a process and
 * reading its frames mean; everything about when, and what becomes of
 * the frames, is here, once.
 */
#ifndef GP_LANGDRV_H
#define GP_LANGDRV_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

#include "langfind.h"
#include "langtab.h"

struct langagg;

/*
 * What every sampled process carries, first in the plugin's entry (whose
 * size is ops->proc_size): the table's part, and what the driver says
 * of it.
 */
struct langdrv_proc {
	struct langtab_proc lp;
	int reported;	/* its skip/error went out once */
	uint32_t fails;	/* failed samples in a row */
	char comm[64];
	char reason[256];	/* why skipped, or the error */
	/* reported by the system profiler this cycle or the last (2, 1):
	 * with reports, the timer samples only these, so a process asleep
	 * is not read (a busy one is reported each cycle, at the latest by
	 * the system profiler's own snapshot) */
	int ran;
	/* walked in the system profiler's samples (langdrv_walk.c): the
	 * thread that runs the interpreter, its root and check value */
	int walking;
	int32_t walk_tid;
	uint64_t walk_root, walk_check;
};

struct langdrv_ops {
	size_t proc_size;	/* the plugin's entry, a langdrv_proc first */
	/* A process forgotten: its entry freed. */
	void (*release)(void *, struct langtab_proc *);
	/* The plugin's own state dropped with the driver's (optional):
	 * at each start, at stop and at destroy (langdrv_reset). */
	void (*reset)(void *);
	/* A new or re-exec'd process, or one whose attach is due again:
	 * sets lp->state (langtab_attach_state). */
	void (*examine)(void *, struct langtab_proc *, double age);
	/* A sample of an attached (LANGTAB_ACTIVE) process begins: its
	 * reader's caches made, its memory's begun; 0 or -errno.  *why:
	 * where the reason a remote read is refused (-EREMOTE) will be. */
	int (*wake)(void *, struct langtab_proc *, const char **why);
	/* One sample read now (on the timer, or one the walk did not
	 * finish): its frames from the leaf, each through langdrv_frame
	 * (arg: the driver); 0 or -errno. */
	int (*read)(void *, struct langtab_proc *);
	/* How processes are found is known (optional): its log line. */
	void (*started)(void *);
	/* Walk /proc at start when no system profiler reports processes
	 * yet, rather than a second later. */
	int scan_at_start;
	uint32_t rescan_ms;	/* the walk's period without reports */
	/* A snapshot is taken: the process's own metadata, its caches
	 * reset (optional; lp->samples says whether it gave stacks). */
	void (*cycle_end)(void *, struct langdrv_proc *,
		    struct gp_snapshot *);
	/* Its stacks (langdrv_stack.c): frames a sample, each frame's
	 * text size and gProfiler's suffix ("_[php]"); the language as
	 * logs name it and the comm of a process already forgotten. */
	uint32_t max_frames;
	size_t text_size;
	const char *suffix;
	const char *lang;
	const char *comm;
	uint32_t max_freq;	/* -f is capped here */
	uint32_t fail_limit;	/* failed samples in a row: an error */
	/*
	 * Frames walked in the system profiler's samples (optional,
	 * langdrv_walk.c).  walk_layout: an attached process's frame
	 * layout, the thread that runs its interpreter and that thread's
	 * root and check value (plugin.h's gp_frame_walk; root 0 with
	 * GP_WALK_F_TLS: every thread's is in its TLS); 0 or -errno (then
	 * it is sampled on the timer).  walked_frame: one frame of a walked
	 * sample, its code word and position, named: 0 with *text (in buf,
	 * len bytes, or the plugin's own), 1 for no frame, or -errno (the
	 * sample fails as a read one would).
	 */
	int (*walk_layout)(void *, struct langtab_proc *,
		    struct gp_frame_walk *, int32_t *tid, uint64_t *root,
		    uint64_t *check);
	int (*walked_frame)(void *, struct langtab_proc *, uint64_t code,
		    uint64_t pos, char *buf, size_t len, const char **text);
};

struct langdrv {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	const struct langdrv_ops *ops;
	void *arg;	/* the plugin's, for its ops */
	int enabled;	/* its mode option says so */
	uint32_t freq;
	struct gp_timer *sample_timer;
	struct gp_timer *first_timer;	/* once all plugins started */
	struct langtab tab;
	struct langfind find;		/* how its processes are found */
	struct langfind_ops find_ops;	/* ops' part for it */
	/* the stacks since the last snapshot, and the one being read
	 * (root last) */
	struct langagg *agg;
	char *texts;
	const char **frames;	/* the texts, root first */
	char *named;		/* a walked frame's text, text_size bytes */
	uint32_t ntexts;
	uint64_t nsamples, nfailed, nwalked;
	int subscribed;	/* to walked samples' reports */
	int walks;	/* a system profiler walks */
};

/* The table, and the readers' files opened and their ELF complaints
 * logged through the host (langproc, elfread). */
int langdrv_init(struct langdrv *, struct gp_plugin_ctx *,
	    const struct gp_host_api *, const struct langdrv_ops *, void *arg);
void langdrv_free(struct langdrv *);
/* Sampling at -f Hz (capped) from now, processes younger than
 * --min-duration left for later: 0, or -ENOMEM (everything reset). */
int langdrv_start(struct langdrv *);
/* Timers off, reports unsubscribed, every process forgotten. */
void langdrv_reset(struct langdrv *);
/* The sample timer on while a process is attached, the retry timer while
 * one waits to be. */
void langdrv_timer_sync(struct langdrv *);

/* (langdrv_stack.c) One sample of an attached process read now (ops
 * wake, read), or one walked in the system profiler's sample, its n
 * frames root first, two words each (ops wake, walked_frame): its stack
 * counted count times, or its failure (an error after fail_limit in a
 * row, at once for a refused read). */
void langdrv_sample(struct langdrv *, struct langdrv_proc *);
void langdrv_walked(struct langdrv *, struct langdrv_proc *,
	    const uint64_t *walk, uint32_t n, uint64_t count);
/* Each frame from the leaf, a reader's callback (arg: the driver): 0, or
 * -E2BIG past max_frames. */
int langdrv_frame(void *, const char *text);
/* The snapshot: the processes checked, the stacks delivered, each
 * process that could not be read named once. */
int langdrv_snapshot(struct langdrv *, struct gp_snapshot *);
void langdrv_abandon(struct langdrv *);

/* (langdrv_walk.c) Walked samples' reports subscribed to, or no more;
 * a process walked or not as it and the system profiler are now; at each
 * snapshot, every process (the caches emptied: their walks told again). */
void langdrv_walk_start(struct langdrv *);
void langdrv_walk_stop(struct langdrv *);
void langdrv_walk_sync(struct langdrv *, struct langdrv_proc *);
void langdrv_walk_off(struct langdrv *, struct langdrv_proc *);
void langdrv_walk_cycle(struct langdrv *);

/*
 * (langdrv_plugin.c) The gp_plugin entry points of a plugin whose state,
 * size bytes, begins with its struct langdrv (the state is then its ops'
 * arg).  init: the host checked (langplug_new), the state allocated and
 * its driver set up; 0 or -errno.
 */
int langdrv_plugin_init(struct gp_plugin_ctx *, const struct gp_host_api *,
	    size_t size, const struct langdrv_ops *, void **privp);
void langdrv_plugin_destroy(void *);
int langdrv_plugin_stop(void *);
int langdrv_plugin_snapshot(void *, struct gp_snapshot *);
void langdrv_plugin_abandon(void *, struct gp_snapshot *);
/* The plugin's start begins here: everything reset, then enabled when
 * --option is value; whether it is. */
int langdrv_plugin_enable(struct langdrv *, const char *option,
	    const char *value);

#endif
