/*
 * The Java plugin's state, shared by its three parts: java.c (the plugin:
 * options, start, stop, snapshots), jv_watch.c (which JVMs: found from the
 * system profiler's reports or a walk of /proc, and the sample reports
 * that tell which need a new perf map) and jv_round.c (the round: what
 * each JVM is asked through jattach, when, and what its answers set).
 */
#ifndef JV_PLUGIN_H
#define JV_PLUGIN_H

#include <sys/types.h>

#include <limits.h>
#include <regex.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

#include "langcpu.h"
#include "langfind.h"
#include "langtab.h"
#include "jv_parse.h"
#include "jv_proc.h"

/* The round starts this long before the cycle ends: a JVM's usual answer
 * (well under a second) lands in the cycle's profile, and a run up to
 * JV_LEAD_CAP_MS too; a longer --java-jattach-timeout lets a slow JVM
 * answer for the next cycle rather than move every round earlier. */
#define JV_LEAD_CAP_MS	5000
#define JV_LEAD_MS	(JV_LEAD_CAP_MS + 1000)
#define JV_MAX_JOBS	4	/* jattach children at once */
#define JV_MAX_JVMS	1024
#define JV_MAX_FAILS	3	/* consecutive failed cycles: give up */
#define JV_MAX_FILTERS	16
#define JV_WATCH_MAX	64	/* sample reports judged a cycle, per JVM */
#define JV_IDLE_RATE	1.0	/* CPU ticks a second (1% of a CPU) */
#define JV_PENDING_MAX	4096	/* reported processes not yet examined */
#define JV_PENDING_MS	1000

/*
 * What to ask a JVM, in this order.  JV_OP_ALLINFO asks the three INFO
 * commands in one jattach run (jv_split_info): a run costs the agent a
 * fork and jattach an exec, a few milliseconds of CPU each, and a JVM met
 * for the first time took three; the commands one by one are the
 * fallback when the combined answer is refused or not understood.
 */
#define JV_OP_ALLINFO	0x1u
#define JV_OP_CMDLINE	0x2u
#define JV_OP_VERSION	0x4u
#define JV_OP_FLAGS	0x8u
#define JV_OP_PERFMAP	0x10u
#define JV_OP_INFO	(JV_OP_CMDLINE | JV_OP_VERSION | JV_OP_FLAGS)

#define JV_NO_REPORT	(-1)

struct jv;

struct jv_jvm {
	struct jv *p;
	pid_t pid;
	struct langcpu cpu;
	int gone;		/* its process went: freed after its run */
	int sampled;	/* reported by the system profiler this cycle */
	int watched;		/* sample reports on (sample_watch) */
	int judged;		/* watched during this cycle */
	int needmap;		/* a sample with an unnamed frame */
	uint32_t reports;	/* sample reports this cycle */
	int skip;		/* for good: report reason each cycle */
	char comm[64];
	char reason[256];	/* reported at the next snapshot */
	int rkind;		/* GP_PID_* or JV_NO_REPORT */
	char logged[256];	/* last reason logged at INFO */
	uint32_t ops;		/* still to run this cycle */
	uint32_t done;		/* JV_OP_INFO answered (or refused) */
	struct jv_job *job;
	uint32_t job_op;
	uint32_t fails;
	int perfmap_unsupported;
	int no_allinfo;	/* ask the INFO commands one by one */
	int fp;		/* -XX:+PreserveFramePointer */
	char appid[JV_APPID_MAX];
	char version[256];
	char flags[JV_FLAGS_MAX];
};

/* An entry of the table of processes: a JVM's, or one known not to be
 * (LANGTAB_IGNORED; LANGTAB_NEW: asked again). */
struct jv_proc {
	struct langtab_proc lp;
	struct jv_jvm *jvm;	/* a JVM's record, or NULL */
	uint64_t ticks;		/* CPU time at the last look */
};

struct jv {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	int enabled, stopping;
	int stacks;	/* sample reports subscribed */
	char jattach[PATH_MAX];
	regex_t filters[JV_MAX_FILTERS];
	size_t nfilters;
	uint32_t max_procs;	/* top N by CPU; 0: all */
	uint32_t timeout_ms;	/* one jattach run */
	uint64_t round_ms;
	struct gp_timer *round_timer;
	struct jv_jvm **jvms;
	uint32_t njvms;
	/* Reported processes examined a second later: most of those a
	 * busy host starts (compilers, shells) are gone by then, and an
	 * exited process costs one failed open instead of its stat and
	 * maps. */
	pid_t *pending;
	uint32_t npending;
	struct gp_timer *pending_timer;
	/* The processes seen: JVMs and the others (jv_watch.c), found
	 * from the host's reports or walks of /proc. */
	struct langtab tab;
	struct langfind find;
	uint32_t running;
	uint64_t rounds, perfmaps, spared;
};

/* jv_round.c */
void jv_report(struct jv_jvm *, int, const char *);
void jv_arm(struct jv *);

/* jv_watch.c */
int jv_find_init(struct jv *);
void jv_pending_flush(struct jv *);
void jv_prune(struct jv *);
void jv_scan(struct jv *);
void jv_sample_cb(void *, int32_t, int32_t, uint64_t,
	    const struct gp_sample_stack *);

#endif /* JV_PLUGIN_H */
