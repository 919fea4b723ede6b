/*
 * The daemon's internal header (tmux style): shared types and the
 * prototypes modules call across file boundaries, under one banner per file;
 * each subsystem with a directory of its own keeps its part there
 * (config/configuration.h, output/output.h, studio/studio.h, meta/meta.h),
 * included here.
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

#include "base/child.h"
#include "base/fileio.h"
#include "base/gzip.h"
#include "base/http.h"
#include "base/log.h"
#include "base/procfs.h"
#include "base/textesc.h"
#include "base/tick.h"
#include "base/trust.h"
#include "base/xmalloc.h"

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

#include "config/configuration.h"

/* manifest.c */
struct manifest {
	char		*name;
	unsigned	 kind;		/* GP_KIND_* */
	unsigned	 modes;		/* GP_MODE_* */
	unsigned	 abi_major;
	char	       **options;	/* option names, NULL-terminated */
	int		*bool_opts;	/* per option: typed ":bool" */
	char		*enabled_by;	/* bool option that switches it on */
};
int		 manifest_parse(const char *buf, size_t len, const char *fname,
		    struct manifest *, char *err, size_t errlen);
void		 manifest_clear(struct manifest *);
int		 manifest_has_option(const struct manifest *, const char *name,
		    int *is_bool);

/* plugin.c */

struct plugin {
	unsigned		 magic;		/* PLUGIN_MAGIC */
	char			*path;		/* the .so */
	struct manifest		 manifest;
	void			*dl;		/* NULL until loaded */
	const struct gp_plugin	*desc;		/* NULL until loaded */
	void			*priv;
	struct gp_plugin_ctx	*ctx;
	int			 active;	/* loaded for the current mode */
	int			 started;
	TAILQ_ENTRY(plugin)	 entry;
	int			 so_fd;		/* the checked .so, while dl */
};
TAILQ_HEAD(plugin_list, plugin);

/*
 * The list holds every plugin found (manifest only); those serving the
 * run's mode are loaded and marked `active`.  Runs use active ones only.
 */
int		 plugins_scan(struct plugin_list *, char **dirs, char *err,
		    size_t errlen);
/* dlopen() without init, for --help. */
int		 plugin_open(struct plugin *, char *err, size_t errlen);
/* Load, check and init the plugins serving `mode`; register their options
 * with the config and enforce their incompatible core options.  -EINVAL
 * (usage error, exit 2) or other -errno (exit 1) with one line in err. */
int		 plugins_load_for_mode(struct plugin_list *,
		    struct event_base *, struct config *, unsigned mode,
		    char *err, size_t errlen);
void		 plugins_unload(struct plugin_list *);
void		 plugins_free(struct plugin_list *);
/* The active system profiler, or NULL. */
struct plugin	*plugins_system(struct plugin_list *);
/* The names of the plugins a run of `mode` with cfg would load, in
 * order ("perf,python"): runs with equal selections share loaded plugins. */
void		 plugins_selection(struct plugin_list *, const struct config *,
		    unsigned mode, char *buf, size_t len);
/* Run every active plugin's check(); -EINVAL with the message. */
int		 plugins_check(struct plugin_list *, char *err, size_t errlen);

/* host_api.c, host_snapshot.c, host_json.c */
const struct gp_host_api *host_api(void);
/* Abort on a context that is not one (it came back from a plugin). */
void		 host_ctx_check(struct gp_plugin_ctx *);

struct gp_plugin_ctx *host_ctx_new(struct plugin *, struct event_base *);
void		 host_ctx_free(struct gp_plugin_ctx *);
/* The configuration plugins see through option_get (the current run's). */
void		 host_ctx_set_config(struct gp_plugin_ctx *,
		    const struct config *);
/* What the cycle and run use (host_api.c, runtime engineer). */
void		 host_ctx_on_stop(struct gp_plugin_ctx *, void (*)(void *),
		    void *);
const char	*host_ctx_name(const struct gp_plugin_ctx *);
struct gp_snapshot *snapshot_new(struct gp_plugin_ctx *,
		    void (*done)(void *, struct gp_snapshot *, int status,
		    const char *err), void *);
struct profile	*snapshot_take_profile(struct gp_snapshot *);
void		 snapshot_free(struct gp_snapshot *);
/* A gp_json view of o for a plugin (takes a reference); release drops it. */
struct gp_json	*host_json_wrap(struct json_object *o);
void		 host_json_release(struct gp_json *);
/* The HTTP engineer's implementation of api->http_download. */
void		 host_set_http_download(int (*)(struct gp_plugin_ctx *,
		    const char *, int32_t, uint32_t, void (*)(void *, int32_t,
		    int32_t, const char *), void *));

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

/* merge.c */
/*
 * docs/specs/gprofiler-compat.md §3.  sys: the system profiler's result (NULL:
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

#include "output/output.h"

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
const char	*run_error(const struct run *);

/* daemon.c */
int		 daemon_lock(char *err, size_t errlen);
void		 daemon_write_pidfile(const char *);
void		 daemon_cleanup(void);
int		 daemon_check_environment(const struct config *, char *err,
		    size_t errlen);

/* agent.c */
struct agent;
int		 agent_main(struct event_base *, const struct cmdline *,
		    struct plugin_list *, struct config *);
void		 agent_shutdown(struct agent *);

/* agent_hooks.c */
int		 agent_hook_start(struct event_base *, const struct config *,
		    struct plugin_list *);
int		 agent_hook_owns_runs(const struct config *);
void		 agent_hook_cycle(const struct config *,
		    const struct cycle_output *, const char *col, size_t collen);
const char	*agent_hook_container_name(int32_t pid);
void		 agent_hook_stop_runs(void (*done)(void *), void *arg);
void		 agent_hook_shutdown(void (*done)(void *), void *arg);

/* Subcommands (flamegraph_main.c, upload_file.c). */
int		 flamegraph_main(int argc, char **argv);
int		 upload_file_main(int argc, char **argv, struct config *);

/* usage.c */
void		 usage_print(FILE *, struct plugin_list *);

#include "studio/studio.h"

#include "meta/meta.h"

/*
 * The highest sampling frequency (-f, and a heartbeat command's
 * "frequency"): what the BPF sampler honours on every CPU without taking
 * the host from its workload (measured in docs/PERFORMANCE.md).
 * perf's DWARF and smart modes stop at 100 Hz (docs/specs/gprofiler-compat.md
 * §1.4), the gpu mode (iaprof) at the same 1000 Hz.
 */
#define GP_FREQUENCY_MAX	1000

#endif /* GPROFILER_INTERNAL_H */
