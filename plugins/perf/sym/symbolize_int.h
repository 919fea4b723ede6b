/*
 * The symbolizer's internal header: shared by symbolize.c (API, processes,
 * frames), symbin.c (the binary symbol-table cache), symjit.c (perf map
 * files) and symutil.c (per-cycle strings, file reading, logging).
 */
#ifndef PERF_SYMBOLIZE_INT_H
#define PERF_SYMBOLIZE_INT_H

/* The top of user space: x86-64's 47 bits, arm64's 48 (52 with large
 * virtual addresses). */
#if defined(__aarch64__)
#define SYM_USER_TOP	(1ull << 52)
#else
#define SYM_USER_TOP	(1ull << 47)
#endif

#include <sys/types.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "elfsym.h"
#include "kallsyms.h"
#include "perfmap.h"
#include "procmaps.h"
#include "ratelim.h"
#include "symbolize.h"

#include <gprofiler/plugin.h>

#define SYM_PROC_BUCKETS	1024
#define SYM_BIN_KEEP_CYCLES	3	/* unused tables live this long */
/*
 * The symbol tables' byte budget: elfsym_bytes of every parsed table,
 * counted once per file identity (aliases by build-id share one), and the
 * JIT perf maps' entries and names.  Over it, the tables no sample used
 * in this cycle or the last are evicted, least recently used first, and
 * reloaded (in steps, as at first) when a sample lands in them again;
 * then the perf maps no sample looked at, read again when one does.
 * 24 MiB: the agent's bound is 64 MiB of peak RSS, and the rest of it
 * (code and libraries, BPF maps, stack tables, one cycle's strings, a
 * table being loaded, heap slack) came to 25-30 MiB on a busy 2-CPU host
 * (docs/PERFORMANCE.md); a cycle's working set is kept whatever it costs.
 */
#define SYM_TABLE_BUDGET	(24u << 20)
#define SYM_HOT_CYCLES		2	/* used this recently: kept */
#define SYM_PROC_IDLE_CYCLES	10	/* unused live processes too */
#define SYM_RECHECK_NS		1000000000ull	/* maps, exe, perf map */
/* A young image maps its libraries after its first sample (ld.so): its
 * maps are re-read on a miss this often, this many times, before the
 * once-a-second pace applies. */
#define SYM_YOUNG_REREAD_NS	5000000ull
#define SYM_YOUNG_REREADS	8
/* Maps re-read on a miss and found unchanged this many times in a row:
 * the next re-read waits 2^this seconds (16). */
#define SYM_REREAD_BACKOFF	4
/* A child forked this recently resolves its image from before its exec
 * in its parent's address space, which it copied at fork. */
#define SYM_FORK_YOUNG_S	10
#define SYM_LOG_BURST		5	/* warnings per cycle */
#define SYM_MAX_PROC_FILE	(64u << 20)	/* maps, kallsyms */
#define SYM_MAX_OPEN_BINS	256	/* fds held for unparsed binaries */
#define SYM_MAX_BINARY		(4ull << 30)	/* binaries, debug files */
#define SYM_JIT_CYCLE_BYTES	(256u << 20)	/* perf maps read per cycle */
#define SYM_JIT_MAX_ENTRIES	(4u << 20)	/* perf map entries, in all */
#define SYM_JIT_TURN_MOVES	(16u * 1024)	/* sort steps per turn */
#define SYM_JIT_SMALL_MAP	(16u * 1024)	/* entries: sorted at once */
#define SYM_JIT_SMALL_FILE	(64u * 1024)	/* bytes: read at once */
/* Symbol tables load in steps of this many units (elfsym_load_step),
 * on the work timer for up to this long a turn. */
#define SYM_LOAD_STEP		2048
#define SYM_LOAD_TURN_NS	1500000ull

/*
 * One binary's symbols, shared by every mapping of it.  Opened at first
 * sight (the fd keeps a deleted or namespaced file readable after its
 * process exits) but parsed only when a sampled address falls in it.
 */
struct sym_binary {
	struct elfsym_table *t;		/* NULL: not parsed or unreadable */
	struct sym_binary *alias;	/* same build-id: its table */
	int fd;				/* until parsed; -1 */
	int loaded;			/* parse attempted */
	/* Its table being loaded in steps since a sample landed in it;
	 * finished at once when a frame needs it first. */
	struct elfsym_load *ld;
	char *path;	/* as mapped, for logs/debuglink */
	int32_t pid;	/* a process mapping it */
	dev_t dev;
	ino_t ino;
	int64_t uid;		/* owner: its debug files' too */
	int64_t reader;		/* euid of pid: reads them */
	unsigned refs;		/* live snapshots using it */
	uint64_t unused_since;	/* cycle refs dropped to 0 */
	uint64_t used_cycle;	/* a lookup or sample's last */
	/* A table without an fd of its own (names copied: Go, or too many
	 * fds): the file kept to reload it after an eviction; -1. */
	int rfd;
	int evicted;	/* its table was, and not reloaded */
	int permanent;	/* the vdso */
	struct sym_binary *next;
};

/* A file identity, resolving to a binary (several may share one). */
struct sym_filekey {
	dev_t dev;
	ino_t ino;
	int64_t mtime_ns;
	off_t size;
	struct sym_binary *bin;
};

/* One look at a process's executable mappings. */
struct sym_snap {
	struct procmaps maps;
	/* when /proc was read (sym_now_ns, taken before): the maps are
	 * the image's as of then */
	uint64_t read_ns;
	struct sym_binary **bins;	/* parallel to maps.v */
	char **dso;			/* "(path)", made on demand */
	struct sym_snap *next;		/* retired list */
};

/* A JIT perf map file followed as it grows. */
struct sym_jit {
	struct perfmap pm;
	off_t off;	/* bytes consumed */
	dev_t dev;
	ino_t ino;
	char head[32];	/* detects rewrites */
	size_t head_len;
	uint64_t checked_ns;
	int stale;		/* older than the process */
	int more;		/* budget ran out: unread */
	uint64_t turn;		/* last refreshed in this turn */
	int refused;		/* -errno said once */
	int lent;		/* a name returned this cycle */
	uint64_t used_cycle;	/* looked at for a sample */
};

/* One image of a process: a PID and an exec generation (sampler/sampler.h). */
struct sym_proc {
	int32_t pid;
	uint32_t gen;
	uint32_t rereads;	/* maps re-read on a miss */
	uint32_t stable;	/* of them in a row unchanged */
	int32_t nspid;
	int64_t euid;		/* owns its perf map; -1 */
	uint64_t starttime;	/* ticks since boot */
	dev_t exe_dev;
	ino_t exe_ino;
	char comm[64];
	struct sym_snap *snap;
	struct sym_jit jit;
	uint64_t checked_ns;	/* process_seen */
	uint64_t reread_ns;	/* maps re-read on a miss */
	uint64_t used_cycle;
	int gone;
	/* A forked child first seen after its exec: the image before it
	 * was a copy of this parent's (sym_proc_forked_from); 0 none. */
	int32_t parent;
	struct sym_proc *hnext;
};

/* Per-cycle strings: a bump arena plus a pointer-keyed derived cache. */
struct sym_arena_chunk {
	struct sym_arena_chunk *next;
	size_t used;
	size_t size;
	char data[];
};

struct sym_derived {
	const void *key;
	const char *val;
};

struct symbolizer {
	void (*log)(void *, int, const char *);
	void *log_arg;
	sym_open_fn open;	/* the host's file_open */
	void *open_arg;
	sym_maps_fn read_maps;	/* the host's maps_read, or NULL */
	void *read_maps_arg;
	char *debug_root;
	char *kallsyms_path;
	int insert_dso;	/* --insert-dso-name */

	struct sym_proc *procs[SYM_PROC_BUCKETS];
	struct sym_proc *last_proc;
	size_t nprocs;
	/* The exec generation a PID is in now (NULL: always 0). */
	int (*cur_gen)(void *, int32_t, uint32_t *);
	void *cur_gen_arg;
	/* The kernel's mapping records (NULL: not followed). */
	int (*map_log)(void *, int32_t, uint32_t,
				    uint64_t, struct procmaps_entry *,
				    const char **, int32_t *);
	int (*map_quiet)(void *, int32_t, uint32_t, uint64_t);
	void *map_log_arg;

	struct sym_binary *bins;
	struct sym_filekey *keys;
	size_t nkeys;
	size_t keys_cap;
	size_t open_bins;	/* fds held */
	size_t loading;		/* binaries with a load */
	uint64_t load_until;	/* this turn's, in ns */
	struct sym_binary *vdso;
	int vdso_tried;
	size_t vdso_size;

	struct kallsyms ksyms;
	int ksyms_state;	/* 0 not tried, 1 ok, -1 no */
	/* Kernel names by a resolver (the kernel's own lookup through BPF):
	 * pending addresses are resolved in one batch, results cached for
	 * the cycle in "derived" keyed by the address. */
	int (*kresolve)(void *, const uint64_t *, size_t,
				    char *, size_t);
	void *kresolve_arg;
	uint64_t *kpend;
	size_t nkpend;
	size_t kpend_cap;

	struct sym_snap *retired;
	struct perfmap_chunk *jit_retired;	/* names handed out */
	size_t jit_retired_bytes;
	size_t jit_entries;	/* of every process's map */
	size_t jit_cycle_bytes;	/* read this cycle */
	size_t jit_turn_bytes;	/* budget per turn; 0: none */
	size_t jit_turn_used;
	size_t jit_turn_moves;	/* sorting, this turn */
	uint64_t turn_id;	/* symbolizer_turn calls */
	int jit_capped;		/* said this cycle */
	int jit_pending;	/* a map left to the work timer */
	struct sym_arena_chunk *arena;
	struct sym_derived *derived;
	size_t nderived;
	size_t derived_cap;

	size_t table_budget;	/* SYM_TABLE_BUDGET */
	uint64_t evictions;	/* tables evicted, in all */
	int evict_said;		/* the first eviction logged */
	int remote_said;	/* a /proc read refused, logged */

	uint64_t cycle;
	uint64_t btime;	/* boot time, epoch seconds */
	long clk_tck;
	struct ratelim log_limit;	/* SYM_LOG_BURST a cycle */
	struct symbolizer_stats st;
};

/* symutil.c */
void sym_log(struct symbolizer *, int, const char *, ...)
		    __attribute__((format(printf, 3, 4)));
uint64_t sym_now_ns(void);		/* coarse: the tick */
uint64_t sym_clock_ns(void);
int sym_open(struct symbolizer *, const char *, const char *,
		    uint32_t, uint64_t, int64_t, struct gp_file_info *);
int sym_open_for(struct symbolizer *, const char *,
		    const char *, uint32_t, uint64_t, int64_t, int64_t,
		    struct gp_file_info *);
int sym_read_file(struct symbolizer *, const char *, size_t,
		    char **, size_t *);
/* Why sym_open refused (errno text for the rest). */
const char *sym_open_strerror(int, const struct gp_file_info *);
int sym_read_fd(int, size_t, char **, size_t *);
const char *sym_strdup(struct symbolizer *, const char *, size_t);
const char *sym_derived_get(struct symbolizer *, const void *);
const char *sym_derived_put(struct symbolizer *, const void *,
		    const char *);
void sym_cycle_strings_free(struct symbolizer *);
const char *sym_demangle(struct symbolizer *, const char *);

/* symbolize.c */
extern const char sym_unknown[];	/* "[unknown]", compared by address */
#define SYM_UNKNOWN	sym_unknown

/* symproc.c */
/* An image, snapshotted now if it was not and is current; NULL if not. */
struct sym_proc *sym_proc_get(struct symbolizer *, int32_t, uint32_t);
struct sym_proc *sym_proc_find(struct symbolizer *, int32_t, uint32_t);
uint32_t sym_gen_now(struct symbolizer *, int32_t);
long sym_proc_mapping(struct symbolizer *, struct sym_proc *,
		    uint64_t);
int sym_proc_alive(struct symbolizer *, struct sym_proc *);
void sym_proc_free(struct symbolizer *, struct sym_proc *);
void sym_snap_free(struct symbolizer *, struct sym_snap *);

/* symbin.c */
struct sym_binary *sym_binary_for_mapping(struct symbolizer *,
		    struct sym_proc *, const struct procmaps_entry *,
		    const char *);
struct sym_binary *sym_binary_ref(struct sym_binary *);
void sym_binary_unref(struct symbolizer *, struct sym_binary *);
/* The binary's table, parsed now if it was not; NULL if unreadable. */
const struct elfsym_table *sym_binary_table(struct symbolizer *,
		    struct sym_binary *);
void sym_binaries_expire(struct symbolizer *, int);
/* Heap bytes of the parsed tables, each counted once. */
size_t sym_binaries_bytes(const struct symbolizer *);
/* Evict tables not used in SYM_HOT_CYCLES, the least recently used
 * first, until the symbolizer is within SYM_TABLE_BUDGET. */
void sym_binaries_budget(struct symbolizer *);
/* Whether its table (or the one it shares) is parsed: not evicted. */
int sym_binary_ready(const struct sym_binary *);
/* A live process maps it: its evicted table is reloaded as that one
 * sees its debug files (the process that mapped it first may be gone). */
void sym_binary_user(struct sym_binary *, const struct sym_proc *);
/* A sample landed in it: its table starts loading, in steps. */
void sym_binary_touch(struct symbolizer *, struct sym_binary *);
/* Loads stepped until the turn's time is up; 1 while some remain. */
int sym_binaries_work(struct symbolizer *);

/* symdebug.c: merges b's separate debug info into t, if any is found */
void sym_debug_find(struct symbolizer *, struct sym_binary *,
		    struct elfsym_table *);

/* symjit.c */
const char *sym_jit_lookup(struct symbolizer *, struct sym_proc *,
		    uint64_t);
void sym_jit_reset(struct symbolizer *, struct sym_jit *);
/* Continue a perf map a budget cut short; 1 while more remains. */
int sym_jit_work(struct symbolizer *, struct sym_proc *);
int sym_jit_due(struct symbolizer *, const struct sym_proc *);
void sym_jit_touch(struct symbolizer *, struct sym_proc *);
/* Heap bytes of every process's perf map. */
size_t sym_jit_bytes(const struct symbolizer *);
/* Free the perf maps no sample looked at in SYM_HOT_CYCLES (read again
 * from the start when one does) until `over` bytes are; those freed. */
size_t sym_jit_evict(struct symbolizer *, size_t);

#endif
