/*
 * The daemon's internal header (tmux style): shared types and the
 * prototypes modules call across file boundaries, under one banner per file.
 * Private to core/; plugins include <gprofiler/plugin.h> only.
 */
#ifndef GPROFILER_INTERNAL_H
#define GPROFILER_INTERNAL_H

#ifdef GP_PLUGIN_BUILD
#error "plugins include <gprofiler/plugin.h> only, never the daemon's core/gprofiler.h"
#endif

#include <sys/queue.h>
#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <gprofiler/plugin.h>

#include "log.h"
#include "xmalloc.h"

struct event_base;
struct json_object;

#define GP_AGENT_VERSION	PACKAGE_VERSION

/* Magic numbers of objects that travel as void * (Varnish miniobj). */
#define PLUGIN_MAGIC		0x504c5547u
#define PLUGIN_CTX_MAGIC	0x50435458u
#define SNAPSHOT_MAGIC		0x534e4150u
#define TIMER_MAGIC		0x54494d52u
#define WATCH_MAGIC		0x57415443u
#define CHILD_MAGIC		0x4348494cu
#define JSON_MAGIC		0x4a534f4eu

/* Asserts stay on in release builds: a bad magic is memory corruption. */
#define CHECK_OBJ(ptr, m) do {						\
	if ((ptr) == NULL || (ptr)->magic != (m))			\
		fatalx("%s:%d: bad object %p (magic %s)", __FILE__,	\
		    __LINE__, (void *)(ptr), #m);			\
} while (0)

/* Profiling modes; the names are the --mode values. */
#define MODE_NONE	0u
#define MODE_CPU	GP_MODE_CPU
#define MODE_ALLOCATION	GP_MODE_ALLOCATION
#define MODE_GPU	GP_MODE_GPU

/* Exit statuses. */
#define EXIT_USAGE	2

/* Where a setting came from (higher wins). */
#define SRC_DEFAULT	0
#define SRC_FILE	1
#define SRC_ENV		2
#define SRC_CLI		3
#define SRC_COMMAND	4	/* a heartbeat command's combined_config */

/* config.c */
/*
 * An effective set of option values, core and plugin, as text, each with
 * where it came from.  Owned by whoever created it; runs keep their own copy.
 */
struct config;
struct config	*config_new(void);
struct config	*config_clone(const struct config *);
void		 config_free(struct config *);
/* Effective value as text (the default when not set); NULL if none. */
const char	*config_get(const struct config *, const char *name);
int64_t		 config_get_int(const struct config *, const char *name,
		    int64_t dflt);
int		 config_get_bool(const struct config *, const char *name);
int		 config_is_set(const struct config *, const char *name);
/* Set a value; -EINVAL with a message in err naming origin and fix. */
int		 config_set(struct config *, const char *name,
		    const char *value, int source, const char *origin,
		    char *err, size_t errlen);
unsigned	 config_mode(const struct config *);	/* MODE_* */
const char	*config_mode_name(unsigned mode);
/* The effective settings for metadata.run_arguments, secrets removed.
 * Caller owns the result. */
struct json_object *config_run_arguments(const struct config *);

/* plugin.c */
struct manifest {
	char		*name;
	unsigned	 kind;		/* GP_KIND_* */
	unsigned	 modes;		/* GP_MODE_* */
	unsigned	 abi_major;
	char	       **options;	/* option names, NULL-terminated */
};

struct plugin {
	unsigned		 magic;		/* PLUGIN_MAGIC */
	char			*path;		/* the .so */
	struct manifest		 manifest;
	void			*dl;		/* NULL until loaded */
	const struct gp_plugin	*desc;		/* NULL until loaded */
	void			*priv;
	struct gp_plugin_ctx	*ctx;
	int			 started;
	TAILQ_ENTRY(plugin)	 entry;
};
TAILQ_HEAD(plugin_list, plugin);

/* The plugins that serve `mode` among those found in the plugin dirs,
 * dlopen()ed, checked and initialised.  Fatal for a missing or broken
 * system profiler that the mode requires. */
int		 plugins_load_for_mode(struct plugin_list *,
		    struct event_base *, struct config *, unsigned mode,
		    char *err, size_t errlen);
void		 plugins_unload(struct plugin_list *);
struct plugin	*plugins_system(struct plugin_list *);

/* host_api.c */
const struct gp_host_api *host_api(void);
struct gp_plugin_ctx *host_ctx_new(struct plugin *, struct event_base *);
void		 host_ctx_free(struct gp_plugin_ctx *);
/* The configuration plugins see through option_get (the current run's). */
void		 host_ctx_set_config(struct gp_plugin_ctx *,
		    const struct config *);

/* child.c */
/*
 * Child processes for the core and for plugins (through host_api.c):
 * struct gp_child is defined in child.c.  Reaped via SIGCHLD on the base
 * given to the first child_spawn (one base per process).
 */
struct gp_child	*child_spawn(struct event_base *,
		    const struct gp_child_spec *, void *owner);
int		 child_stop(struct gp_child *, int sig, unsigned grace_ms);
pid_t		 child_pid(const struct gp_child *);
size_t		 child_stderr_tail(const struct gp_child *, char *, size_t);
void		 child_abandon(struct gp_child *);
void		 child_abandon_owner(void *owner);
void		 child_reap(void);
unsigned	 child_count(void);
void		 child_fini(void);

/* profile.c */
/*
 * A cycle's folded stacks: interned frames, one table per PID, adding a
 * sample is O(depth).  Stack views are borrowed from the profile.
 */
struct profile;
struct profile_stack {
	int32_t		 pid;
	const char	*comm;
	const char	*container;	/* "" when none */
	const char	*appid;		/* NULL when none */
	uint32_t	 appmeta_idx;	/* index into application_metadata */
	const char *const *frames;	/* root first, without the prefixes */
	uint32_t	 nframes;
	uint64_t	 count;
};
struct profile	*profile_new(void);
void		 profile_free(struct profile *);
int		 profile_add_stack(struct profile *, int32_t pid,
		    const char *comm, const char *const *frames,
		    uint32_t nframes, uint64_t count);
/* Visit every stack; a non-zero return from cb stops and is returned. */
int		 profile_foreach(const struct profile *,
		    int (*cb)(const struct profile_stack *, void *), void *);
uint64_t	 profile_total(const struct profile *);
/* The stacks of one PID; every PID (with stacks, an error or attributes). */
int		 profile_foreach_in_pid(const struct profile *, int32_t pid,
		    int (*cb)(const struct profile_stack *, void *), void *);
int		 profile_foreach_pid(const struct profile *,
		    int (*cb)(int32_t pid, void *), void *);
uint64_t	 profile_pid_total(const struct profile *, int32_t pid);
size_t		 profile_npids(const struct profile *);
int		 profile_has_pid(const struct profile *, int32_t pid);
/* Per-PID attributes; strings are copied, getters return borrowed text. */
void		 profile_set_error(struct profile *, int32_t pid,
		    const char *comm, int kind, const char *reason);
const char	*profile_pid_error(const struct profile *, int32_t pid);
const char	*profile_pid_comm(const struct profile *, int32_t pid);
void		 profile_set_container(struct profile *, int32_t pid,
		    const char *);
const char	*profile_pid_container(const struct profile *, int32_t pid);
void		 profile_set_appid(struct profile *, int32_t pid,
		    const char *);
const char	*profile_pid_appid(const struct profile *, int32_t pid);
/* Takes ownership of md; the getter's result is borrowed. */
void		 profile_set_appmeta(struct profile *, int32_t pid,
		    struct json_object *md);
struct json_object *profile_pid_appmeta(const struct profile *, int32_t pid);
void		 profile_set_appmeta_idx(struct profile *, int32_t pid,
		    uint32_t idx);

/* procfs.c */
/* Pure parsers of /proc, os-release, auxv and ELF header bytes. */
struct cpu_times {
	uint64_t	 total;		/* without guest time */
	uint64_t	 idle;		/* idle + iowait */
};
struct os_release {
	char		 name[128];
	char		 release[64];
	char		 codename[64];
};
struct cpu_info {
	char		 model_name[256];
	char		 flags[4096];
	int		 family;	/* -1: unknown */
	int		 model;
};
int		 procfs_stat_ppid(const char *, size_t, int32_t *ppid);
int		 procfs_cpu_times(const char *, size_t, struct cpu_times *);
int		 procfs_meminfo(const char *, size_t, uint64_t *total_kb,
		    uint64_t *avail_kb);
int		 procfs_os_release(const char *, size_t, struct os_release *);
int		 procfs_cpuinfo(const char *, size_t, struct cpu_info *);
int		 procfs_auxv_execfn(const unsigned char *, size_t,
		    uint64_t *addr);
const char	*procfs_elf_arch(const unsigned char *, size_t);
/* Read a small file whole (NUL-terminated); caller frees.  -errno. */
int		 procfs_read(const char *path, char **bufp, size_t *lenp,
		    size_t max);

/* merge.c */
/*
 * specs/gprofiler-compat.md §3.  sys: the system profiler's result (NULL:
 * none); rt: the process profilers' results.  rng returns uniform [0, 1)
 * (injected for tests).  Caller frees the returned profile.
 */
struct profile	*merge_profiles(const struct profile *sys,
		    const struct profile *const *rt, size_t nrt,
		    double (*rng)(void *), void *rngarg);
uint64_t	 merge_scale(uint64_t count, double ratio,
		    double (*rng)(void *), void *rngarg);
double		 merge_rng_default(void *);

/*
 * The result of one cycle, handed to the writers (col.c, output.c,
 * flamegraph.c, pprof.c) and the uploader.
 */
struct cycle_output {
	const struct config	*cfg;
	const struct profile	*profile;	/* merged and enriched */
	struct json_object	*header;	/* the .col header object */
	struct timespec		 start;		/* CLOCK_REALTIME */
	struct timespec		 end;
	unsigned		 mode;
	int64_t			 frequency;
	int			 adhoc;		/* a non-continuous command run */
};

/* col.c */
/* The .col text (header line, stacks, no trailing newline). Caller frees. */
char		*col_render(const struct cycle_output *, size_t *lenp);

/* output.c */
/* Local files for one cycle under --output-dir: .col, .html, .pb.gz,
 * last_* symlinks, rotation.  0 / -errno (logged). */
int		 output_write_cycle(const struct cycle_output *);
/* Create --output-dir (0755) and check it is writable, at start-up: a bad
 * one is one line in err naming the dir and the fix.  0 / -errno. */
int		 output_check_dir(const struct config *, char *err,
		    size_t errlen);
/* Write dirfd/name via a temporary name, fsync and rename.  0 / -errno. */
int		 output_write_atomic(int dirfd, const char *name,
		    const void *buf, size_t len);
/* Whether the --output-format comma list (default "col") names fmt. */
int		 output_format_has(const struct config *, const char *fmt);

/* flamegraph.c */
/* Self-contained HTML flame graph of a .col text (its header gives times,
 * host, mode).  Caller frees. */
char		*flamegraph_render(const char *col, size_t collen, size_t *lenp);
/* The same with the cycle's times for the page header (NULL: from the
 * .col header's start_time/end_time or metadata.current_time).
 *
 * Ad-hoc uploads (co->adhoc, spec §4.1 and §12 #10): unless config
 * "flamegraph" is false, the uploader sets header["flamegraph_html"] to
 *	flamegraph_render_times(col, collen, &co->start, &co->end, &len)
 * of the cycle's .col and renders the .col again; continuous runs keep
 * flamegraph_html null. */
char		*flamegraph_render_times(const char *col, size_t collen,
		    const struct timespec *start, const struct timespec *end,
		    size_t *lenp);
/* Just the page's JSON ({"meta", "tree"}), for tests and the fuzzer. */
char		*flamegraph_json(const char *col, size_t collen,
		    const struct timespec *start, const struct timespec *end,
		    size_t *lenp);

/* flamegraph_main.c */
/* `gprofiler flamegraph FILE.col [-o out.html]`: exit status. */
int		 flamegraph_main(int argc, char **argv);

/* pprof.c */
/* gzip'd perftools.profiles.Profile of the cycle.  Caller frees. */
unsigned char	*pprof_render(const struct cycle_output *, size_t *lenp);

/* run.c */
/*
 * One profiling run: a configuration, the active plugins, cycles every
 * profiling-duration seconds (or one cycle without --continuous).
 */
struct run;
struct run_hooks {
	/* After a cycle's local files are written (e.g. queue the upload). */
	void		(*on_cycle)(const struct cycle_output *,
			    const char *col, size_t collen, void *arg);
	/* The run ended by itself (single cycle done) or failed. */
	void		(*on_finished)(struct run *, int status,
			    const char *err, void *arg);
	/* Container name of a PID, "" for none; NULL: names disabled. */
	const char	*(*container_name)(int32_t pid, void *arg);
	void		*arg;
};
struct run	*run_new(struct event_base *, const struct config *,
		    struct plugin_list *, const struct run_hooks *);
int		 run_start(struct run *);
/* Finish or abandon the current cycle, stop the plugins (bounded), then
 * call done. */
void		 run_stop(struct run *, void (*done)(void *), void *);
void		 run_free(struct run *);

/* upload.c */
/* Queue the cycle's profile for upload (spooled until accepted). */
int		 upload_enqueue(const struct cycle_output *, const char *col,
		    size_t collen);

#endif /* GPROFILER_INTERNAL_H */
