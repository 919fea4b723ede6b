/*
 * A runtime plugin's table of processes (Python, Ruby, PHP): which are
 * known, their identity across scans (a reused PID or an exec is a new
 * process), where each stands, and when one may be forgotten.  Each
 * plugin's own entry begins with a struct langtab_proc.
 */
#ifndef GP_LANGTAB_H
#define GP_LANGTAB_H

#include <sys/stat.h>
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

#define LANGTAB_NEW	0	/* young, attach failed: try again */
#define LANGTAB_ACTIVE	1
#define LANGTAB_SKIPPED	2	/* report "[Profiling skipped: reason]" */
#define LANGTAB_ERROR	3	/* report "[Profiling error: reason]" */
#define LANGTAB_IGNORED	4	/* not this runtime: remember, say nothing */
#define LANGTAB_GONE	5

#define LANGTAB_MAX	4096
/*
 * A process this young may be in the middle of its execve (the new image
 * with the old comm, or its shared libraries -- libpython, libruby -- not
 * yet mapped by the dynamic linker) or its interpreter not yet set up: a
 * failed attach is tried again every LANGTAB_RETRY_MS (the system
 * profiler names a process once a cycle: too late) and becomes final only
 * once the process is older.
 */
#define LANGTAB_SETTLE_S 2.0
#define LANGTAB_RETRY_MS 250
/*
 * A process found not to be this runtime's may map it later: by dlopen
 * (uWSGI's Python plugin, an interpreter embedded in an application), or
 * it was looked at between the dynamic linker's work and its own first
 * mapping.  Reported again (its first sample of a cycle) with another
 * virtual size, it is looked at again -- at most LANGTAB_RECHECK_MIN_S
 * after the last look, the wait doubling to LANGTAB_RECHECK_MAX_S: a
 * process whose heap keeps changing costs one read of its maps a minute.
 */
#define LANGTAB_RECHECK_MIN_S	1.0
#define LANGTAB_RECHECK_MAX_S	60.0

struct langtab_proc {
	pid_t pid;
	uint64_t starttime;	/* clock ticks since boot */
	uint64_t exe_id;	/* changes on exec, unlike the PID */
	int state;
	int seen;		/* at the last scan */
	uint64_t samples;	/* stacks awaiting a snapshot */
	uint64_t vsize;		/* at the last look */
	double recheck_at;	/* uptime: not looked at again before */
	double recheck_s;	/* the wait after the next look */
};

struct langtab {
	struct langtab_proc **procs;	/* LANGTAB_MAX slots */
	uint32_t n;
	/* frees an entry (the plugin's whole struct) */
	void (*release)(void *, struct langtab_proc *);
	void *arg;
	struct gp_timer *retry;	/* while any entry is LANGTAB_NEW */
};

int langtab_init(struct langtab *,
	    void (*)(void *, struct langtab_proc *), void *);
/* Every entry released, the table freed. */
void langtab_free(struct langtab *);
/* The entry of pid: a live one first (a gone one may await a snapshot
 * with its stacks while the PID already runs something else). */
struct langtab_proc *langtab_find(const struct langtab *, pid_t);
/* Adds pr (a new entry, state and identity set): -ENOSPC when full. */
int langtab_add(struct langtab *, struct langtab_proc *);
/* A new entry of size bytes (the plugin's struct, beginning with its
 * langtab_proc), zeroed, its identity set, added; NULL if out of memory
 * or the table is full of entries that are not LANGTAB_IGNORED (one of
 * those, due for a recheck soonest, gives its place). */
struct langtab_proc *langtab_new(struct langtab *, size_t size, pid_t,
	    uint64_t start, uint64_t exe_id);
void langtab_remove(struct langtab *, struct langtab_proc *);
/*
 * pid's identity now is (start, exe_id): whether pr (its entry, or NULL)
 * is still that process.  If not, pr is marked gone and dropped unless
 * stacks await a snapshot; *prp is then NULL.
 */
int langtab_same(struct langtab *, struct langtab_proc **prp,
	    uint64_t start, uint64_t exe_id);
/* The identity of a process's executable, st of its /proc/PID/exe
 * (inline: the readers' langproc.c is linked without this table). */
static inline uint64_t
langtab_exe_id(const struct stat *st)
{
	return ((uint64_t)st->st_dev << 40 ^ (uint64_t)st->st_ino);
}
/* The entry is about to be examined, its virtual size vsize, at uptime. */
void langtab_looked(struct langtab_proc *, uint64_t vsize, double uptime);
/* Whether an ignored entry is to be examined again (LANGTAB_RECHECK_MIN_S):
 * if so, recorded as looked at. */
int langtab_recheck(struct langtab_proc *, uint64_t vsize, double uptime);
/* Whether a known entry is to be examined now: new, or rechecked (said
 * at DEBUG through api, "pid N: its mappings changed"). */
int langtab_due(struct langtab_proc *, uint64_t vsize, double uptime,
	    const struct gp_host_api *, struct gp_plugin_ctx *);
/* The state after a failed attach: final, or LANGTAB_NEW while young. */
int langtab_settle(int state, double age);
/*
 * The state after a reader's attach returned rc for a process age seconds
 * old: 0 active; -ESRCH gone; -ENOENT not this runtime; -EAGAIN not yet
 * (the dynamic linker at work), -ENOTSUP skipped, else an error -- each
 * of these three final only once the process is settled.
 */
int langtab_attach_state(int rc, double age);
/* The log line for an entry whose attach failed (its state set). */
void langtab_attach_log(const struct gp_host_api *, struct gp_plugin_ctx *,
	    const struct langtab_proc *, double age, const char *comm,
	    const char *reason);
/*
 * A read of an attached process returned rc, *fails its failures in a
 * row (reset by one that worked): it is gone (-ESRCH), or an error after
 * limit in a row or at once when the read was refused (-EPERM; -EREMOTE,
 * the memory guard's): then 1; else it stays attached (a torn read while
 * the stack changes is normal).
 */
int langtab_read_done(struct langtab_proc *, int rc, uint32_t *fails,
	    uint32_t limit);
/* An entry made an error by a read: its reason written (the guard's
 * refused_why for -EREMOTE) and said once at INFO. */
void langtab_read_error(const struct gp_host_api *, struct gp_plugin_ctx *,
	    const struct langtab_proc *, int rc, const char *refused_why,
	    char *reason, size_t len);
/* How many entries are in this state. */
uint32_t langtab_count(const struct langtab *, int state);
/* The retry timer (every LANGTAB_RETRY_MS, calling fn) armed while an
 * entry is LANGTAB_NEW, else removed. */
void langtab_retry_sync(struct langtab *, const struct gp_host_api *,
	    struct gp_plugin_ctx *, void (*fn)(void *), void *);
void langtab_retry_stop(struct langtab *, const struct gp_host_api *);
/* Before a scan: no entry seen yet. */
void langtab_unsee(struct langtab *);
/* After a scan: the unseen are gone; the gone without stacks dropped. */
void langtab_prune(struct langtab *);
/* Calls fn for each process in /proc, with the uptime: -errno if
 * /proc cannot be read. */
int langtab_walk_proc(void (*fn)(void *, pid_t, double), void *);
/* Seconds since boot (/proc/uptime's clock); -1 if unknown. */
double langtab_uptime(void);
/* The age in seconds of a process started start ticks after boot; -1 if
 * unknown. */
double langtab_age(uint64_t start, double uptime);

#endif
