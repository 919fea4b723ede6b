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

/* fileio.c */
#define FILE_TMP_PREFIX	".tmp-"		/* temporaries: never a real name */
int		 file_write_atomic(int dirfd, const char *name,
		    const void *buf, size_t len, mode_t mode);
int		 file_create_tmp(int dirfd, const char *name, mode_t mode,
		    char *tmp, size_t tmplen);

/* trust.c */
#define TRUST_OWNER_EUID 0x1u	/* the daemon's own user may own it too */
struct stat;
int		 trust_check_stat(const char *what, const struct stat *,
		    int leaf, unsigned flags, char *err, size_t errlen);
int		 trust_open_dir(const char *path, unsigned flags, char *err,
		    size_t errlen);

/* gzip.c */
unsigned char	*gzip_compress(const void *buf, size_t len, size_t *outlen);

/* options.c */
#define OPTF_SECRET	 GP_OPTF_SECRET	/* never logged or in run_arguments */
#define OPTF_MULTI	 0x100u	/* repeatable: values are joined with ',' */
#define OPTF_CLIONLY	 0x200u	/* command line and environment only */
#define OPTF_MODEDEFAULT 0x400u	/* default depends on the mode */
#define OPTF_SECRETPATH	 0x800u	/* a file holding a secret: mode checked */

struct option_def {
	const char	*od_name;
	char		 od_short;
	uint32_t	 od_type;	/* GP_OPT_* */
	uint32_t	 od_flags;	/* OPTF_* */
	const char	*od_default;
	int64_t		 od_min;	/* both 0: unbounded */
	int64_t		 od_max;
	const char	*od_choices;
	const char	*od_dest;	/* run_arguments key (gProfiler's dest) */
	const char	*od_help;
};
const struct option_def *options_find(const char *);
const struct option_def *options_find_short(int);
const struct option_def *options_get(size_t);
size_t		 options_count(void);

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
const char	*config_origin(const struct config *, const char *name);
int		 config_source(const struct config *, const char *name);
void		 config_declare_plugin_option(struct config *, const char *name,
		    const char *plugin, unsigned modes);
const char	*config_option_plugin(const struct config *, const char *name,
		    unsigned *modes);
int		 config_register_plugin(struct config *, const char *plugin,
		    const struct gp_option *rows, size_t nrows, size_t rowsize,
		    char *err, size_t errlen);
int		 config_check_value(uint32_t type, const char *value,
		    int64_t min, int64_t max, const char *choices, char *out,
		    size_t outlen, char *err, size_t errlen);
int		 config_choice_ok(const char *choices, const char *value);
int		 config_parse_size(const char *, unsigned long long *);
void		 config_json_add(struct json_object *, const char *key,
		    uint32_t type, const char *value);
void		 config_foreach_set(const struct config *,
		    void (*)(const char *name, const char *value,
		    const char *origin, int source, void *arg), void *arg);
void		 config_unset(struct config *, const char *name);

/* config_parse.c */
int		 config_parse_buf(const char *buf, size_t len,
		    const char *fname, int (*cb)(void *arg, const char *section,
		    const char *key, const char *value, const char *origin),
		    void *arg, char *err, size_t errlen);

/* config_load.c */
struct settings;
struct cmdline {
	struct settings	*cl_cli;	/* options as given, in order */
	char		*cl_subcommand;	/* "flamegraph", "upload-file" */
	int		 cl_subargc;
	char	       **cl_subargv;	/* from the subcommand's name on */
	int		 cl_help;
	int		 cl_version;
	int		 cl_check;	/* -n: check the configuration only */
};
struct plugin_list;
int		 cmdline_parse(struct cmdline *, int argc, char **argv,
		    const struct plugin_list *, char *err, size_t errlen);
void		 cmdline_free(struct cmdline *);
char	       **cmdline_plugin_dirs(const struct cmdline *);
int		 config_load(struct config **, const struct cmdline *,
		    const struct plugin_list *, char *err, size_t errlen);
int		 config_set_user(struct config *, const char *name,
		    const char *value, int source, const char *origin,
		    char *err, size_t errlen);
int		 config_env_one(struct config *, const char *name, char *err,
		    size_t errlen);

/* config_check.c */
int		 config_validate(const struct config *, char *err,
		    size_t errlen);

/* compat.c: gProfiler flags without an implementation here */
int		 compat_known(const char *name);
int		 compat_is_flag(const char *name, const char *next);
const char	*compat_bare_value(const char *name);
void		 compat_declare(struct config *);
int		 compat_apply_env(struct config *, char *err, size_t errlen);
int		 compat_validate(const struct config *, char *err,
		    size_t errlen);
void		 compat_log_inert(const struct config *);
/* extmeta.c: --external-metadata */
int		 extmeta_parse(const char *buf, size_t len,
		    struct json_object **staticp, char *err, size_t errlen);
int		 extmeta_load(const char *path, char *err, size_t errlen);
void		 extmeta_add(struct json_object *md);
void		 extmeta_free(void);
/* compat_usage.c: --log-usage and --diagnostics */
int		 compat_usage_start(struct event_base *, const struct config *);
void		 compat_usage_stop(void);

/* logship.c: agent logs to the Studio (POST /api/v1/logs) */
int		 logship_wanted(const struct config *);
void		 logship_prepare(const struct config *);
int		 logship_start(struct event_base *, const struct config *);
void		 logship_stop(void);
void		 logship_stats(size_t *queued, uint64_t *lost);

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
/* The minimal environment of children (see child.c); extra: --child-env. */
void		 child_env_set(const char *extra);
void		 child_env_free(void);
char *const	*child_env(void);

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

/* tick.c: slow periodic timers fire together (one wake-up). */
int		 tick_aligned(uint64_t period_ms);
void		 tick_next(uint64_t period_ms, struct timeval *);

/* metrics.c */
/* cpu_avg/mem_avg of specs/gprofiler-compat.md §7 (5 s memory timer). */
struct metrics;
struct metrics	*metrics_new(struct event_base *);
void		 metrics_free(struct metrics *);
/* {"cpu_avg", "mem_avg"} since the last call; NULL m: both null. */
struct json_object *metrics_cycle(struct metrics *);
double		 metrics_cpu_percent(const struct cpu_times *,
		    const struct cpu_times *);
double		 metrics_mem_percent(uint64_t total_kb, uint64_t avail_kb);

/* metadata.c */
/* The header's "metadata" (§6): static keys once, per-cycle keys added. */
void		 metadata_collect(int minimal);
struct json_object *metadata_build(const struct config *, unsigned mode,
		    int64_t freq, const struct timespec *at);
void		 metadata_add_sampling(struct json_object *, unsigned mode,
		    int64_t freq);
/* For the cloud probe: provider "aws"/"gcp"/"azure"; takes info. */
void		 metadata_set_cloud(const char *provider,
		    struct json_object *info);
void		 metadata_iso_time(const struct timespec *, char *, size_t);
const char	*metadata_arch_codename(int family, int model);
void		 metadata_free(void);

/* appmeta.c */
/* {exe, execfn, arch} of a PID (NULL: gone), merged with plugin keys;
 * appmeta_index dedups into the header list (entry 0 null), taking md. */
struct json_object *appmeta_base(int32_t pid);
struct json_object *appmeta_for_pid(int32_t pid, struct json_object *extra);
uint32_t	 appmeta_index(struct json_object *list,
		    struct json_object *md);

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
/* Whether the --output-format comma list (default "col") names fmt. */
int		 output_format_has(const struct config *, const char *fmt);
/* Ad-hoc runs (co->adhoc, flamegraph on): set header["flamegraph_html"]
 * to the cycle's page before the upload's col_render.  1 if set. */
int		 output_embed_flamegraph(const struct cycle_output *);

/* flamegraph.c */
/* Self-contained HTML flame graph of a .col text (its header gives times,
 * host, mode).  Caller frees. */
char		*flamegraph_render(const char *col, size_t collen, size_t *lenp);
/* The same with the cycle's times for the page header (NULL: from the
 * .col header's start_time/end_time or metadata.current_time). */
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
const char	*run_error(const struct run *);

/* http.c */
/*
 * Asynchronous HTTP driven by the loop (libcurl multi).  A request's done
 * callback runs later from the loop, exactly once, unless cancelled; the
 * result and its body are borrowed for the duration of the callback.
 */
struct http_req;
struct http_result {
	int		 rc;		/* 0, -ETIMEDOUT, -EFBIG, -EIO */
	long		 status;	/* HTTP status; 0 without a response */
	const char	*body;		/* NUL-terminated */
	size_t		 bodylen;
	const char	*err;		/* transport error when rc != 0 */
	int		 timed_out;
};
struct http_req_opts {
	const char	*method;	/* GET (default), POST, PUT */
	const char	*url;
	const char *const *headers;	/* "Name: value", NULL-terminated */
	const void	*body;		/* copied; sent with Content-Length */
	size_t		 bodylen;
	const char	*unix_socket;	/* e.g. the Docker socket */
	const char	*userpwd;	/* Basic auth "user:password" */
	unsigned	 timeout_ms;	/* 0: 30 s */
	unsigned	 connect_timeout_ms; /* 0: 10 s */
	size_t		 max_body;	/* response cap; 0: 8 MiB */
	int		 no_proxy;	/* link-local and unix sockets */
	int		 download;	/* write the response into fd */
	int		 fd;
	int		 https_only;	/* HTTPS, redirects (<= 5) to HTTPS only,
					   TLS verified despite --no-verify */
	void		(*done)(void *arg, const struct http_result *);
	void		*arg;
	int		 http2;		/* HTTP/2 without upgrade (gRPC) */
};
int		 http_init(struct event_base *);
void		 http_set_tls(int verify, const char *ca_bundle,
		    const char *client_cert, const char *client_key);
struct http_req	*http_request(const struct http_req_opts *);
void		 http_cancel(struct http_req *);
unsigned	 http_pending(void);
void		 http_fini(void);
/* Whether v may be an HTTP header value (no CR, LF or other controls). */
int		 http_header_value_ok(const char *v);
/* Percent-encode for a URL query without libcurl; the caller frees. */
char		*http_escape(const char *);
/* Cancel the downloads a plugin started (it is being unloaded). */
void		 http_download_cancel(struct gp_plugin_ctx *);
/* The host API's http_download (wire with host_set_http_download). */
int		 http_download(struct gp_plugin_ctx *, const char *url,
		    int32_t fd, uint32_t timeout_ms, void (*done)(void *,
		    int32_t, int32_t, const char *), void *arg);

/* studio.c */
/*
 * Performance Studio: what main.c calls.  studio_init (with -u or
 * --enable-heartbeat-server) reads the token, sets up HTTP with the TLS
 * options, starts the health check and the spool drain; it returns
 * -EINVAL (exit 2) for a bad token file.  The health check is retried
 * with backoff; only a 400 "Invalid API key" is fatal (exit 1, from the
 * loop).  studio_upload_hook is a run_hooks.on_cycle.  studio_shutdown
 * flushes the queue for at most a few seconds, then calls done (the
 * spool keeps what was not sent).
 */
int		 studio_init(struct event_base *, const struct config *);
void		 studio_upload_hook(const struct cycle_output *,
		    const char *col, size_t collen, void *arg);
void		 studio_shutdown(void (*done)(void *), void *arg);

/* studio_ident.c: who the agent is to the Studio; borrowed strings. */
int		 studio_ident_init(const struct config *);
const char	*studio_token(void);
const char	*studio_service(void);
const char	*studio_hostname(void);
/* "GPROFILER-API-KEY: …" style header lines, NULL-terminated. */
const char *const *studio_headers(void);
/* Load the token from --token or --token-file; caller frees. */
int		 studio_token_load(const struct config *, char **tokenp,
		    char *err, size_t errlen);
/* UTC ISO-8601 without zone, seconds (us != 0: with microseconds). */
void		 studio_iso_time(time_t, long usec, int us, char *buf,
		    size_t len);

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

/* upload.c */
/* Queue the cycle's profile for upload (spooled until accepted). */
int		 upload_enqueue(const struct cycle_output *, const char *col,
		    size_t collen);
#define UPLOAD_MAX_COMPRESSED	(4u << 20)	/* the backend's limit */
struct upload_body_args {
	const char	*col;
	size_t		 collen;
	const char	*start_time;	/* naive UTC ISO */
	const char	*end_time;
	const char	*hostname;
	const char	*spawn_time;	/* NULL: omitted */
	const char	*gpid;		/* "" first */
	double		 cpu_avg;	/* NaN: null */
	double		 mem_avg;
};
/* The gzip'd JSON body (spec §4.2), truncating the lowest-count stacks
 * when over the limit (*truncated = stacks dropped).  Caller frees. */
unsigned char	*upload_build_body(const struct upload_body_args *,
		    size_t limit, size_t *lenp, unsigned *truncated);
/* The gzip'd body with its "gpid" replaced; NULL if unreadable. */
unsigned char	*upload_body_set_gpid(const unsigned char *gz, size_t len,
		    const char *gpid, size_t *lenp);
/* {"message","gpid"} of a 200 answer; gpid copied into buf.  0/-EINVAL. */
int		 upload_parse_response(const char *body, size_t len,
		    char *gpid, size_t gpidlen);
/* The message of an error body ({"message"}, a bare string or a 422
 * detail list), for the log.  Writes into buf. */
void		 upload_error_message(const char *body, size_t len, char *buf,
		    size_t buflen);
int		 upload_init(struct event_base *, const struct config *);
void		 upload_kick(void);
/* Send what is queued for at most UPLOAD_FLUSH_MS, then done(arg). */
void		 upload_flush(void (*done)(void *), void *arg);
void		 upload_fini(void);
/* "100mb" style sizes (binary units) as bytes; -EINVAL. */
int		 upload_parse_size(const char *, uint64_t *);
const char	*upload_gpid(void);
void		 upload_set_memory_only(int);
uint64_t	 upload_sent_count(void);

/* spool.c */
/*
 * Profiles waiting for upload, oldest first: atomic 0600 files under
 * --spool-dir (kept across restarts), memory when the directory is not
 * usable; the oldest are dropped above --spool-max-size.
 */
struct spool_entry {
	char		*name;		/* file name, or NULL in memory */
	uint64_t	 seq;
	size_t		 size;
	unsigned char	*data;		/* memory-only entries */
	int		 busy;		/* being uploaded: never dropped */
	TAILQ_ENTRY(spool_entry) entry;
};
int		 spool_open(const char *dir, uint64_t max_size);
void		 spool_close(void);
int		 spool_put(const void *rec, size_t len);
struct spool_entry *spool_first(void);
/* The record's bytes (caller frees). */
unsigned char	*spool_read(const struct spool_entry *, size_t *lenp);
void		 spool_done(struct spool_entry *);	/* accepted */
void		 spool_reject(struct spool_entry *);	/* kept aside */
size_t		 spool_count(void);
uint64_t	 spool_dropped(void);
/* Record framing: one JSON line (hostname, timestamp…) then the body. */
unsigned char	*spool_record_make(const char *meta, const void *body,
		    size_t bodylen, size_t *lenp);
/* On-disk framing with length and CRC-32 (spool_unframe: -EINVAL and why
 * when cut short or damaged; a bare record of an earlier version is
 * accepted). */
unsigned char	*spool_frame(const void *rec, size_t len, size_t *lenp);
int		 spool_unframe(const unsigned char *buf, size_t len,
		    const unsigned char **recp, size_t *reclenp, char *err,
		    size_t errlen);
int		 spool_record_split(const unsigned char *rec, size_t len,
		    const char **meta, size_t *metalen,
		    const unsigned char **body, size_t *bodylen);

/* backoff.c */
/* Exponential backoff with jitter: the delay before retry n (0-based). */
unsigned	 backoff_delay_ms(unsigned attempt, unsigned base_ms,
		    unsigned max_ms);

/* heartbeat.c */
/*
 * Dynamic profiling: heartbeats to --api-server; commands de-duplicated
 * by command_id (persisted under --state-dir); runs owned by command.c.
 */
struct hb_command {
	char		 command_id[64];
	char		 command_type[16];	/* "start", "stop", other */
	struct json_object *combined_config;	/* owned; may be NULL */
};
/* 1: a command, 0: none, -EINVAL: garbage (err says why). */
int		 heartbeat_parse_response(const char *body, size_t len,
		    struct hb_command *, char *err, size_t errlen);
void		 hb_command_clear(struct hb_command *);
int		 hb_id_is_uuid(const char *);
int		 heartbeat_start(struct event_base *, const struct config *,
		    struct plugin_list *, const struct run_hooks *);
void		 heartbeat_stop(void (*done)(void *), void *arg);
/* Command ids: executed, and started (attempts) before they run; loaded
 * from / saved to state.json atomically. */
int		 hb_state_load(const char *path);
int		 hb_state_seen(const char *command_id);
int		 hb_state_add(const char *path, const char *command_id);
/* Executed ids, or (received) those in progress too; caller owns. */
struct json_object *hb_state_ids_json(int received);
unsigned	 hb_state_begin(const char *path, const char *command_id);
unsigned	 hb_state_attempts(const char *command_id);
int		 hb_state_running(const char *command_id);
void		 hb_state_free(void);

/* command.c */
/* The run configuration of a start command: combined_config over base. */
int		 command_build_config(const struct config *base,
		    struct json_object *combined, const char *hostname,
		    struct config **outp, int *skip, char *err, size_t errlen);
struct command_ops {
	/* Report a command's outcome (POST command_completion). */
	void	(*complete)(const char *command_id, int ok, const char *err,
		    void *arg);
	void	*arg;
	/* A command that needs no completion (another host's) is settled:
	 * not to be executed again.  Appended; may be NULL. */
	void	(*settled)(const char *command_id, void *arg);
};
void		 command_init(struct event_base *, const struct config *,
		    struct plugin_list *, const struct run_hooks *,
		    const struct command_ops *);
void		 command_execute(const struct hb_command *);
void		 command_stop_all(void (*done)(void *), void *arg);
void		 command_rebase(const struct config *);

/* container.c (the rest in core/meta/container.h) */
/* The container id in /proc/PID/cgroup text (last 64-hex run); 0/-ENOENT */
int		 container_id_parse(const char *cgroup, size_t len,
		    char id[65]);
/* Names from every runtime whose socket exists (docker_sock NULL: host's) */
int		 container_init(struct event_base *, const char *docker_sock);
/* Pod and namespace of a k8s_<c>_<pod>_<ns>_<uid>_<n> name; 0 / -EINVAL */
int		 container_k8s_split(const char *name, char *pod, size_t podsz,
		    char *ns, size_t nssz);
/* run_hooks.container_name: "" when none or not cached yet. */
const char	*container_name_for_pid(int32_t pid, void *arg);
const char	*container_name_for_id(const char *id);
void		 container_fini(void);

/* cloud.c */
/* Probe AWS, GCP and Azure in parallel; the first success is passed to
 * metadata_set_cloud, else nothing (cloud_provider stays "unknown"). */
void		 cloud_detect(void (*done)(const char *provider, void *),
		    void *arg);
/* Parsers of the probes' documents: cloud_info or NULL (caller owns). */
struct json_object *cloud_parse_aws(const char *identity, size_t len,
		    const char *life_cycle);
struct json_object *cloud_parse_gcp(const char *body, size_t len);
struct json_object *cloud_parse_azure(const char *body, size_t len);
/* Which clouds the DMI identity names (NULL: unreadable), a mask of: */
#define CLOUD_AWS	0x1u
#define CLOUD_GCP	0x2u
#define CLOUD_AZURE	0x4u
#define CLOUD_ALL	(CLOUD_AWS | CLOUD_GCP | CLOUD_AZURE)	/* no DMI */
unsigned	 cloud_dmi_clouds(const char *sys_vendor,
		    const char *product_name, const char *bios_vendor,
		    const char *board_vendor, const char *chassis_asset_tag,
		    const char *bios_version);
#define CLOUD_DMI_DIR	"/sys/class/dmi/id"
/* The clouds to probe here (DMI, else Xen's EC2 UUID or ECS metadata). */
unsigned	 cloud_host_clouds(void);
/* cloud_probe.c: the probes in a child ("gprofiler probe-cloud"). */
void		 cloud_probe_start(struct event_base *);
int		 cloud_probe_main(void);
const char	*metadata_cloud(struct json_object **info);
/* cloud_dmi_clouds over the files of a DMI directory (/sys/class/dmi/id). */
unsigned	 cloud_dmi_probe(const char *dir);

/* textesc.c: the one rule for text that reaches a profile (see the file). */
#define TEXTESC_FRAME	0x1	/* ';' becomes '|' (one frame stays one) */
#define TEXTESC_LINES	0x2	/* '\n' is kept (multi-line text) */
int		 textesc_clean(const char *, size_t, int flags);
size_t		 textesc_len(const char *, size_t, int flags);
size_t		 textesc_write(char *dst, const char *, size_t, int flags);
char		*textesc_dup(const char *, size_t, int flags, size_t *lenp);
/* Every string (and key) of a JSON tree under the rule, in place; values
 * of the top-level keys named in skip (NULL-terminated) are left alone. */
void		 textesc_json(struct json_object *, const char *const *skip);

/*
 * The highest sampling frequency (-f, and a heartbeat command's
 * "frequency"): what the BPF sampler honours on every CPU without taking
 * the host from its workload (measured in README.md, "Performance").
 * perf's DWARF and smart modes stop at 100 Hz (gprofiler-compat §1.4), the
 * gpu mode (iaprof) at the same 1000 Hz.
 */
#define GP_FREQUENCY_MAX	1000

#endif /* GPROFILER_INTERNAL_H */
