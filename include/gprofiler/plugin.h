/*
 * gprofiler plugin ABI: the only header a plugin includes.
 *
 * A plugin is a shared object exporting exactly one data symbol,
 * `gprofiler_plugin` (a const struct gp_plugin), beside a manifest
 * `<name>.plugin` that lets the daemon decide whether to load it without
 * dlopen()ing it (see docs/PLUGINS.md).  The daemon never exports symbols to
 * plugins: everything a plugin may call is in the struct gp_host_api table
 * handed to init().
 *
 * Versioning (Varnish vrt.h / Apache MMN style):
 *   - append a field to gp_plugin or gp_host_api, or a new option type:
 *     GP_ABI_MINOR + 1;
 *   - remove, reorder, retype or change the meaning of anything:
 *     GP_ABI_MAJOR + 1, GP_ABI_MINOR = 0.
 * The host loads a plugin when its major equals the host's and its minor is
 * <= the host's.  Plugins call host functions added after 1.0 only after
 * GP_API_HAS(api, member).
 * The 1.0 sizes are frozen (GP_*_SIZE_1_0): the host accepts any struct at
 * least that large and reads only what the plugin's sizes cover.  Snapshot
 * pointers are handles checked by generation, never addresses, and a child
 * spec without envp gets a minimal environment, not the daemon's (both
 * spelled out 2026-12-01, no layout change).
 *
 * ABI log:
 *   1.0 (2026-11-30)  first version.
 *   1.1 (2026-12-01)  gp_host_api.file_open, file_read (untrusted files).
 *   1.2 (2026-12-01)  gp_host_api.sample_watch, sample_subscribe,
 *                     sample_source, sample_report (sampled threads).
 *   1.3 (2026-12-02)  gp_host_api.sample_report_stack,
 *                     sample_subscribe_stack, struct gp_sample_stack
 *                     (the sample's native and kernel frames).
 *   1.4 (2026-12-02)  gp_host_api.process_source, process_report,
 *                     process_subscribe (processes found from samples).
 *   1.5 (2026-12-03)  gp_open_spec.reader (a file read on a process's
 *                     behalf must be one its user could read).
 *   1.6 (2026-12-04)  gp_host_api.sample_walk, sample_walk_thread,
 *                     sample_walker, struct gp_frame_walk and
 *                     gp_sample_stack's walk fields (interpreter frames
 *                     walked in the sample).
 *   1.7 (2026-12-06)  gp_frame_walk's array walk (frame_stride), code
 *                     word behind a pointer (frame_alt) and roots in
 *                     the thread's TLS (root_tls).
 *   1.8 (2026-12-07)  gp_host_api.maps_read (a process's maps under the
 *                     host's budget).
 *
 * Types: fixed-width integers, double, const char *, pointers to ABI structs
 * and function pointers only; no bool, enum, long, time_t or structs by value.
 *
 * Threading: everything happens on the daemon's single event loop thread.
 * A plugin never blocks (no sleep, no synchronous waitpid, no blocking I/O on
 * pipes or sockets) and never creates threads without saying so in its docs.
 *
 * Ownership: strings and buffers the host passes are borrowed for the
 * duration of the call.  Strings a plugin passes to the host are copied by
 * the host.  Objects handed over with "takes ownership" belong to the host
 * from that call on, even when the call fails.
 */
#ifndef GPROFILER_PLUGIN_H
#define GPROFILER_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GP_PLUGIN_MAGIC		0x47504c47u	/* "GPLG" */
#define GP_ABI_MAJOR		1
#define GP_ABI_MINOR		8
#define GP_PLUGIN_SYMBOL	"gprofiler_plugin"

/*
 * The host's defaults for the options every plugin reads: -f in cpu mode
 * (Hz) and -d (seconds).  The host's option table is built from these, so
 * a plugin's option_get_int fallback for them is the same number.
 */
#define GP_DEFAULT_FREQUENCY	11
#define GP_DEFAULT_DURATION	60

/*
 * The sizes of the ABI structs as released in 1.0, frozen: the host accepts
 * any descriptor and option row at least this large and reads only what the
 * plugin's struct_size / option_size cover.  sizeof() would grow with every
 * appended field and turn away every older plugin.
 */
#define GP_PLUGIN_SIZE_1_0	208u	/* struct gp_plugin */
#define GP_OPTION_SIZE_1_0	56u	/* struct gp_option */
#define GP_HOST_API_SIZE_1_0	240u	/* struct gp_host_api */
#define GP_CHILD_SPEC_SIZE_1_0	80u	/* struct gp_child_spec */
#define GP_OPEN_SPEC_SIZE_1_1	40u	/* struct gp_open_spec, as in 1.1 */
#define GP_SAMPLE_STACK_SIZE_1_3 40u	/* struct gp_sample_stack, as in 1.3 */
#define GP_FRAME_WALK_SIZE_1_6	40u	/* struct gp_frame_walk, as in 1.6 */

/* Put on the descriptor; plugins are built with -fvisibility=hidden. */
#define GP_PLUGIN_EXPORT	__attribute__((visibility("default")))

/* Plugin kinds (gp_plugin.kind). */
#define GP_KIND_SYSTEM		1u	/* exclusive system slot: perf, iaprof */
#define GP_KIND_PROCESS		2u	/* per-runtime profiler: python, java */
#define GP_KIND_METRICS		3u	/* header data only: perfspect */

/* Profiling modes a plugin serves (gp_plugin.modes, a bit set). */
#define GP_MODE_CPU		0x1u
#define GP_MODE_ALLOCATION	0x2u
#define GP_MODE_GPU		0x4u

/* Option value types (gp_option.type). */
#define GP_OPT_BOOL		1u	/* true/false; a bare flag sets true */
#define GP_OPT_INT		2u	/* signed 64-bit, min..max */
#define GP_OPT_STRING		3u
#define GP_OPT_ENUM		4u	/* one of `choices`, '|'-separated */
#define GP_OPT_PATH		5u	/* a string naming a file or directory */
#define GP_OPT_SIZE		6u	/* "2mb" style, binary units, as bytes */

/* Option flags (gp_option.flags). */
#define GP_OPTF_SECRET		0x1u	/* never logged, never in run_arguments */

/* Log levels for gp_host_api.log. */
#define GP_LOG_ERR		0
#define GP_LOG_WARN		1
#define GP_LOG_INFO		2
#define GP_LOG_DEBUG		3

/* fd watch events. */
#define GP_EV_READ		0x1u
#define GP_EV_WRITE		0x2u

/* Result kinds for gp_host_api.snapshot_pid_error. */
#define GP_PID_ERROR		0	/* "[Profiling error: reason]" */
#define GP_PID_SKIPPED		1	/* "[Profiling skipped: reason]" */

/*
 * Rules for gp_host_api.file_open/file_read (ABI 1.1), for every file a
 * monitored process or a local user controls: perf maps, binaries, debug
 * files, config files named on command lines, anything under
 * /proc/PID/root.  FIFOs, devices, sockets and directories are always
 * refused (they are never opened for reading, so a FIFO cannot block and
 * a device sees no open()); magic links (/proc/PID/root inside a path)
 * are refused unless GP_OPEN_PROC_LINK.
 */
#define GP_OPEN_NO_SYMLINKS	0x1u	/* refuse any symlink below root */
#define GP_OPEN_PROC_LINK	0x2u	/* path is a /proc/PID/exe or
					 * map_files link, followed (root
					 * must be NULL) */
#define GP_OPEN_OWNER_OR_ROOT	0x4u	/* owned by `owner` or by root */
#define GP_OPEN_READABLE_BY	0x8u	/* `owner` could read it (mode bits:
					 * owner's, else others') */

/*
 * One sample's native stack as the system profiler resolved it (1.3),
 * borrowed for the duration of the report: kernel frames as the profile
 * writes them ("name_[k]"), user frames by name with their addresses in
 * the process, both root first.  A process profiler places them around
 * its own frames (mixed stacks).
 */
struct gp_sample_stack {
	uint32_t size;	/* sizeof(struct gp_sample_stack) */
	uint32_t nkernel;
	const char *const	*kernel;
	uint32_t nuser;
	uint32_t pad;
	const char *const	*user;
	const uint64_t *user_ips;
	/*
	 * 1.6 (read only when size covers them): the interpreter frames the
	 * sampler walked in this very sample (sample_walk), root first,
	 * two words each: walk[2i] the frame's code word, walk[2i + 1] its
	 * position, when walk_state is GP_WALK_DONE.  Otherwise read the
	 * thread's stack yourself, as before; GP_WALK_NO_ROOT says the
	 * thread's root is unknown or stale (name it: sample_walk_thread).
	 */
	uint32_t walk_state;	/* GP_WALK_* */
	uint32_t nwalk;
	const uint64_t *walk;
};

/* gp_sample_stack.walk_state (1.6) */
#define GP_WALK_NONE		0u	/* no walk asked for this process */
#define GP_WALK_DONE		1u	/* walk holds the whole chain */
#define GP_WALK_NO_ROOT		2u	/* no valid root for the thread */
#define GP_WALK_FAULT		3u	/* a frame's page was not resident */
#define GP_WALK_DEEP		4u	/* more frames than the sampler walks */

/* sample_walk_thread's root for a thread without interpreter frames (a
 * C library's worker in a Python process): it needs no wake-up either. */
#define GP_WALK_ROOT_NONE	1u

/*
 * How an interpreter links its frames (1.6), for a system profiler that
 * follows the chain in the sample itself: from a thread's root (the
 * address sample_walk_thread names, CPython's thread state), the top
 * frame is *(root + root_frame), or with holder_frame >= 0 *(*(root +
 * root_frame) + holder_frame) (CPython 3.11-3.12's cframe); each frame
 * gives its code word (8 bytes at frame_code), its position (pos_size
 * bytes at frame_pos, zero-extended) and its caller (*(frame +
 * frame_next), 0 at the bottom).  A frame whose byte at frame_owner
 * (>= 0) equals owner_skip is passed over (CPython 3.12's C-stack shims).
 * The 8 bytes at root + root_check must equal the thread's check value,
 * else the root is stale (freed, or another thread's) and not walked.
 * All offsets are below 256.
 *
 * 1.7, read only when size covers them (zero: as in 1.6):
 * - frame_stride > 0: the frames are an array that grows down (Ruby's
 *   control frames), not a chain: the top frame is found as above, each
 *   caller lies frame_stride bytes above the frame it called, and the
 *   array ends at *(root + stack_base) + 8 * *(root + stack_words) (a
 *   stack's base and its size in 8-byte words), whose last end_skip
 *   frames are the interpreter's own and not walked.  frame_next is
 *   then unused.
 * - flags GP_WALK_F_ALT: a frame whose code word is 0 (Ruby: a C
 *   function's, no instruction sequence) gives as its code word the 8
 *   bytes at *(frame + frame_alt) + alt_off (Ruby: the method entry
 *   below the frame's ep), 0 when they cannot be read.
 * - flags GP_WALK_F_TLS: the root is no value told per thread but
 *   the sampled thread's own thread-local variable, read from its thread
 *   pointer through its dynamic thread vector: *(*(*(tp + tls_dtv) +
 *   tls_dtv_entry * tls_module) + tls_offset) (glibc: tls_dtv 8 on
 *   x86-64, 0 on arm64, entries of 16 bytes).  A thread whose variable
 *   is 0 (or not allocated yet) runs no interpreter code: its samples
 *   come walked with no frame.  root_check is not used; sample_walk_thread
 *   is not needed.
 * - flags GP_WALK_F_POS_NEW: a code word at a position not seen with it
 *   wakes you as a new code word does (Ruby reads a pc's line from its
 *   iseq's table: it must do so while the iseq lives).
 */
struct gp_frame_walk {
	uint32_t size;	/* sizeof(struct gp_frame_walk) */
	uint32_t root_check;
	uint32_t root_frame;
	int32_t holder_frame;	/* -1: none */
	uint32_t frame_next;
	uint32_t frame_code;
	uint32_t frame_pos;
	uint32_t pos_size;	/* 4 or 8 */
	int32_t frame_owner;	/* -1: none */
	int32_t owner_skip;
	/* 1.7 */
	uint32_t flags;		/* GP_WALK_F_* */
	uint32_t frame_stride;	/* 0: a chain through frame_next */
	uint32_t stack_base;
	uint32_t stack_words;
	uint32_t end_skip;
	uint32_t frame_alt;
	int32_t alt_off;	/* -256 .. 255 */
	uint32_t tls_dtv;
	uint32_t tls_dtv_entry;
	uint32_t tls_module;
	uint64_t tls_offset;
};

/* gp_frame_walk.flags (1.7) */
#define GP_WALK_F_ALT		1u	/* frame_alt, alt_off are used */
#define GP_WALK_F_TLS		2u	/* the root is in the thread's TLS */
#define GP_WALK_F_POS_NEW	4u	/* a new position wakes, as new code */

struct gp_open_spec {
	uint32_t size;	/* sizeof(struct gp_open_spec) */
	uint32_t flags;	/* GP_OPEN_* */
	/* Resolve `path` inside this directory ("/proc/PID/root"): absolute
	 * symlinks and ".." stay inside it.  NULL: the host's "/". */
	const char *root;
	const char *path;
	uint64_t max_size;	/* larger files: -EFBIG; 0: no limit */
	/* The uid of GP_OPEN_OWNER_OR_ROOT and GP_OPEN_READABLE_BY; without
	 * either flag, >= 0 means the file must belong to this uid. */
	int64_t owner;	/* -1: any owner */
	/*
	 * 1.5: the euid of the process the file is read for.  What the agent
	 * reads on a process's behalf ends up in that process's profile, so
	 * it must be a file that user could read itself, by its mode bits
	 * (the owner's if it owns the file, else the others'): a root-only
	 * file mounted at a perf map's or debug file's path in the process's
	 * own mount namespace is refused (-EACCES).  0 (root, or a spec of
	 * 1.1 size): no such rule; < 0 (user unknown): others' bits.
	 */
	int64_t reader;
};

/* What file_open found (also on a refusal, when it found a file: mode
 * then says what it was). */
struct gp_file_info {
	uint64_t dev;
	uint64_t ino;
	uint64_t size;
	int64_t mtime_ns;
	uint32_t mode;	/* st_mode; 0: nothing found */
	uint32_t uid;
};

/* Opaque host objects; every one is magic-checked by the host. */
struct gp_host_api;
struct gp_plugin_ctx;	/* one per loaded plugin */
struct gp_snapshot;	/* one cycle's request to one plugin */
struct gp_timer;
struct gp_watch;
struct gp_child;
struct gp_json;		/* a JSON object under construction */

/*
 * One configuration option.  `name` is the long option without "--" and is
 * also the config key (in the plugin's [section] or at top level) and, upper
 * cased with '-' turned to '_' and prefixed GPROFILER_, the environment
 * variable.  Names are unique among all plugins and the core options; start
 * them with the plugin's name ("perf-mode") unless compatibility with
 * gProfiler's flags says otherwise.
 */
struct gp_option {
	const char *name;
	uint32_t type;		/* GP_OPT_* */
	uint32_t flags;		/* GP_OPTF_* */
	const char *defval;	/* default as text; NULL = unset */
	int64_t min;		/* GP_OPT_INT: inclusive bounds, */
	int64_t max;		/* both 0 = unbounded */
	const char *choices;	/* GP_OPT_ENUM: "fp|dwarf|smart|disabled" */
	const char *help;
};

/*
 * The descriptor.  Fields up to `reserved` are ABI 1.0; later minors append
 * after it and the host reads only what lies within struct_size.
 *
 * Callbacks (all run on the loop thread; 0 or -errno):
 *   init(ctx, api, &priv)   load time: allocate state, check the host.  Must
 *                           not start work: the plugin may be loaded for
 *                           --help or --tryload only.
 *   check(priv, err, len)   validate the effective options (this plugin's
 *                           and the core's, through option_get) before a
 *                           run; on a usage error write one line naming
 *                           the option and the fix into err and return
 *                           -EINVAL (the daemon exits 2).  Optional.
 *   start(priv)             a profiling run begins; read options now (they
 *                           change between runs: SIGHUP, heartbeat commands).
 *   snapshot(priv, snap)    the cycle ends: deliver what was collected since
 *                           the previous snapshot through the stack sink,
 *                           then call api->snapshot_done(snap, ...), now or
 *                           later.  Never called again before that happens.
 *   abandon(priv, snap)     the host gave up waiting: forget `snap` (it is
 *                           invalid after this returns) and reset whatever
 *                           state the pending snapshot had.  Optional.
 *   metadata(priv, md, hdr) add keys to the profile header: `md` is this
 *                           plugin's own object inside "metadata", `hdr` the
 *                           top-level header (metrics collectors set
 *                           "hwmetrics", "htmlblob" there).  Optional.
 *   stop(priv)              the run ends: stop children, then call
 *                           api->stop_done(ctx), now or later.  The host
 *                           bounds the wait and calls destroy regardless.
 *   destroy(priv)           free everything.  Optional.
 */
struct gp_plugin {
	uint32_t magic;		/* GP_PLUGIN_MAGIC */
	uint16_t abi_major;	/* GP_ABI_MAJOR */
	uint16_t abi_minor;	/* GP_ABI_MINOR */
	uint32_t struct_size;	/* sizeof(struct gp_plugin) */
	uint32_t flags;		/* none defined: must be 0 */

	const char *name;	/* equals the file's basename */
	const char *version;
	const char *build;		/* free form, for diagnostics */
	const char *description;	/* one line, for --help */

	uint32_t kind;	/* GP_KIND_* */
	uint32_t modes;	/* GP_MODE_* bits */

	const struct gp_option *options;
	uint32_t option_size;	/* sizeof(struct gp_option) */
	uint32_t option_count;
	/* Core options (long names) that cannot be used with this plugin,
	 * NULL-terminated; NULL for none. */
	const char *const *incompatible;

	int (*init)(struct gp_plugin_ctx *ctx,
			    const struct gp_host_api *api, void **privp);
	int (*check)(void *priv, char *err, uint32_t errlen);
	int (*start)(void *priv);
	int (*snapshot)(void *priv, struct gp_snapshot *snap);
	void (*abandon)(void *priv, struct gp_snapshot *snap);
	int (*metadata)(void *priv, struct gp_json *md,
			    struct gp_json *hdr);
	int (*stop)(void *priv);
	void (*destroy)(void *priv);

	uintptr_t reserved[8];	/* must be zero */
};

/* Arguments for child_spawn.  Zero what you do not use. */
struct gp_child_spec {
	uint32_t size;			/* sizeof(struct gp_child_spec) */
	uint32_t flags;			/* none defined: must be 0 */
	const char *const *argv;	/* argv[0] is an absolute path */
	/* NULL: a minimal environment (PATH, LANG, LC_*, TZ, HOME, TMPDIR
	 * and the operator's --child-env), never the daemon's whole one,
	 * which may hold secrets. */
	const char *const *envp;
	const char *cwd;	/* NULL: "/" */
	/*
	 * stdout: either whole lines (without the newline; a line longer
	 * than max_line is delivered in pieces of max_line bytes) or, when
	 * on_stdout_data is set, the raw bytes as they arrive.
	 */
	void (*on_stdout_line)(void *arg, const char *line,
			    size_t len);
	void (*on_stdout_data)(void *arg, const char *buf,
			    size_t len);
	void (*on_stderr_line)(void *arg, const char *line,
			    size_t len);
	/* The child was reaped; `status` as from waitpid().  Called after
	 * every stdout/stderr byte has been delivered.  The gp_child is
	 * freed by the host when this returns. */
	void (*on_exit)(void *arg, int status);
	void *arg;
	uint32_t stderr_keep;	/* stderr lines kept for child_stderr_tail
				 * (0: 50) */
	uint32_t max_line;	/* 0: 64 KiB */
};

/*
 * What the host offers.  Append-only; check GP_API_HAS before calling a
 * member added after the plugin's minor.
 */
struct gp_host_api {
	uint32_t size;	/* sizeof(struct gp_host_api) in the host */
	uint16_t abi_major;
	uint16_t abi_minor;

	/* Logging, prefixed with the plugin's name. */
	void (*log)(struct gp_plugin_ctx *ctx, int level,
			    const char *fmt, ...)
			    __attribute__((format(printf, 3, 4)));

	/*
	 * Options: the effective value of one of this plugin's options or of
	 * a core option ("profiling-frequency", "profiling-duration", "pids",
	 * "mode", "output-dir", ...), as text; NULL when unset.  Valid until
	 * the next call to start().
	 */
	const char *(*option_get)(struct gp_plugin_ctx *ctx,
			    const char *name);
	int64_t (*option_get_int)(struct gp_plugin_ctx *ctx,
			    const char *name, int64_t dflt);
	int32_t (*option_get_bool)(struct gp_plugin_ctx *ctx,
			    const char *name);

	/* Timers: one-shot or periodic (persist != 0).  timer_del accepts
	 * NULL and may be called from the timer's own callback. */
	struct gp_timer *(*timer_add)(struct gp_plugin_ctx *ctx,
			    uint64_t msec, int32_t persist,
			    void (*cb)(void *arg), void *arg);
	void (*timer_del)(struct gp_timer *t);

	/* fd watches (persistent until fd_unwatch).  A BPF ring buffer is
	 * watched through ring_buffer__epoll_fd(). */
	struct gp_watch *(*fd_watch)(struct gp_plugin_ctx *ctx, int32_t fd,
			    uint32_t events,
			    void (*cb)(int32_t fd, uint32_t events, void *arg),
			    void *arg);
	void (*fd_unwatch)(struct gp_watch *w);

	/*
	 * Child processes (never through a shell).  child_spawn returns NULL
	 * and sets errno on failure.  child_stop sends `sig`, then SIGKILL
	 * after grace_ms; on_exit reports the end.  The child dies with the
	 * daemon (PR_SET_PDEATHSIG).
	 */
	struct gp_child *(*child_spawn)(struct gp_plugin_ctx *ctx,
			    const struct gp_child_spec *spec);
	int (*child_stop)(struct gp_child *c, int32_t sig,
			    uint32_t grace_ms);
	int32_t (*child_pid)(struct gp_child *c);
	/* Copies the last kept stderr lines, '\n'-joined, into buf. */
	size_t (*child_stderr_tail)(struct gp_child *c, char *buf,
			    size_t bufsz);

	/*
	 * The stack sink.  frames are root first (the leaf last), without the
	 * comm, container or app-metadata frames, which the host adds.
	 * Identical stacks of one PID are summed.
	 */
	int (*snapshot_add_stack)(struct gp_snapshot *snap,
			    int32_t pid, const char *comm,
			    const char *const *frames, uint32_t nframes,
			    uint64_t count);
	/* The PID's whole result is an error or skip frame (merge rules in
	 * docs/specs/gprofiler-compat.md §3). */
	int (*snapshot_pid_error)(struct gp_snapshot *snap,
			    int32_t pid, const char *comm, int32_t kind,
			    const char *reason);
	/* "appid: <appid>" frame for this PID's stacks. */
	int (*snapshot_set_appid)(struct gp_snapshot *snap,
			    int32_t pid, const char *appid);
	/* Extra application_metadata keys for this PID, merged over the
	 * host's {exe, execfn, arch}.  Takes ownership of md. */
	int (*snapshot_set_app_metadata)(struct gp_snapshot *snap,
			    int32_t pid, struct gp_json *md);
	/* Finish the snapshot; err (status < 0) is logged and reported. */
	void (*snapshot_done)(struct gp_snapshot *snap,
			    int32_t status, const char *err);
	void (*stop_done)(struct gp_plugin_ctx *ctx);

	/* JSON objects (json-c underneath, not exposed). */
	struct gp_json *(*json_new)(void);
	void (*json_free)(struct gp_json *j);
	int (*json_set_string)(struct gp_json *j, const char *key,
			    const char *val);
	int (*json_set_int)(struct gp_json *j, const char *key,
			    int64_t val);
	int (*json_set_double)(struct gp_json *j, const char *key,
			    double val);
	int (*json_set_bool)(struct gp_json *j, const char *key,
			    int32_t val);
	int (*json_set_null)(struct gp_json *j, const char *key);
	/* Takes ownership of child. */
	int (*json_set_object)(struct gp_json *j, const char *key,
			    struct gp_json *child);
	/* Parses `text` (one JSON value) and sets it: -EINVAL if it does
	 * not parse. */
	int (*json_set_raw)(struct gp_json *j, const char *key,
			    const char *text);

	/* Whether the run profiles this PID: --pids, not the agent itself
	 * or one of its children. */
	int32_t (*pid_wanted)(struct gp_plugin_ctx *ctx, int32_t pid);

	/*
	 * Download `url` into the open file `fd` (GET, TLS verified with the
	 * daemon's TLS settings, proxies from the environment); `done` runs
	 * once, with 0 and the HTTP status, or -errno and a message.
	 */
	int (*http_download)(struct gp_plugin_ctx *ctx,
			    const char *url, int32_t fd, uint32_t timeout_ms,
			    void (*done)(void *arg, int32_t rc,
			    int32_t http_status, const char *err),
			    void *arg);

	/*
	 * Untrusted files (1.1): open `spec` for reading (O_CLOEXEC,
	 * O_NONBLOCK, O_NOCTTY) after the checks of GP_OPEN_*; the fd or
	 * -errno: -ELOOP a symlink or magic link refused, -EINVAL not a
	 * regular file, -EFBIG over max_size, -EPERM owner or mode refused,
	 * -EACCES not readable by `reader` (1.5).
	 * `info` (may be NULL) describes the file.  The caller closes the fd
	 * and reads no more than it means to (the file may grow).
	 */
	int32_t (*file_open)(struct gp_plugin_ctx *ctx,
			    const struct gp_open_spec *spec,
			    struct gp_file_info *info);
	/* The same, then up to bufsz bytes from offset 0 (files under /proc
	 * report size 0: read until EOF): the count or -errno. */
	int64_t (*file_read)(struct gp_plugin_ctx *ctx,
			    const struct gp_open_spec *spec, void *buf,
			    uint64_t bufsz);

	/*
	 * Sampled threads (1.2): the system profiler reports each sample of a
	 * watched process as soon as it has it (it wakes for them), so a
	 * process profiler reads stacks of exactly the threads that were on
	 * CPU, right after they were.
	 *   sample_watch      a process profiler wants reports of pid (on) or
	 *                     no more (!on): 0, or -ENOTSUP while no system
	 *                     profiler reports (then sample on your own; the
	 *                     watch is kept for one that starts later).
	 *   sample_subscribe  cb(arg, pid, tid, count) for each report; a NULL
	 *                     cb unsubscribes.
	 *   sample_source     the system profiler reports samples, and is told
	 *                     of watches through watch(arg, pid, on) (also of
	 *                     those made before); NULL unregisters.
	 *   sample_report     the system profiler saw count samples of tid.
	 */
	int32_t (*sample_watch)(struct gp_plugin_ctx *ctx, int32_t pid,
			    int32_t on);
	int32_t (*sample_subscribe)(struct gp_plugin_ctx *ctx,
			    void (*cb)(void *arg, int32_t pid, int32_t tid,
			    uint64_t count), void *arg);
	int32_t (*sample_source)(struct gp_plugin_ctx *ctx,
			    void (*watch)(void *arg, int32_t pid, int32_t on),
			    void *arg);
	void (*sample_report)(struct gp_plugin_ctx *ctx,
			    int32_t pid, int32_t tid, uint64_t count);

	/*
	 * Sampled threads with their native stacks (1.3):
	 *   sample_report_stack     as sample_report, with the sample's
	 *                           frames (st may be NULL: none resolved).
	 *   sample_subscribe_stack  cb(arg, pid, tid, count, st) for each
	 *                           report, st NULL when the source reported
	 *                           without frames; a NULL cb unsubscribes.
	 *                           Replaces the context's sample_subscribe.
	 */
	void (*sample_report_stack)(struct gp_plugin_ctx *ctx,
			    int32_t pid, int32_t tid, uint64_t count,
			    const struct gp_sample_stack *st);
	int32_t (*sample_subscribe_stack)(struct gp_plugin_ctx *ctx,
			    void (*cb)(void *arg, int32_t pid, int32_t tid,
			    uint64_t count, const struct gp_sample_stack *st),
			    void *arg);

	/*
	 * Processes found from samples (1.4): the system profiler reports a
	 * process the first time it drains a sample of it in a cycle (and
	 * again when it execs), so a process profiler examines the processes
	 * that run, when they run, instead of every process in /proc each
	 * second.  An idle process is never reported: it costs nothing.
	 *   process_source     the system profiler reports (on) or no more.
	 *   process_report     pid had a sample (its first of the cycle, or
	 *                      of a new image), or, sampled, it mapped a
	 *                      file's code since (a runtime dlopened late).
	 *   process_subscribe  cb(arg, pid) for each report; a NULL cb
	 *                      unsubscribes.  0 while a source reports,
	 *                      -ENOTSUP while none does (then find processes
	 *                      on your own and ask again later: the
	 *                      subscription is kept for a source that starts
	 *                      after you).
	 */
	int32_t (*process_source)(struct gp_plugin_ctx *ctx,
			    int32_t on);
	void (*process_report)(struct gp_plugin_ctx *ctx,
			    int32_t pid);
	int32_t (*process_subscribe)(struct gp_plugin_ctx *ctx,
			    void (*cb)(void *arg, int32_t pid), void *arg);

	/*
	 * Interpreter frames walked in the sample (1.6): a watched process's
	 * frames are followed by the system profiler at each sample of a
	 * thread whose root it was told, and arrive with the report
	 * (gp_sample_stack.walk_state): no wake-up and no read of the process
	 * per sample.  A sample of a thread without a valid root, or whose
	 * walk faulted or ran past the sampler's depth, is reported at once
	 * without walk frames, as before.
	 *   sample_walk         walk pid's frames as w says (NULL: no more).
	 *                       0, -ENOTSUP (no system profiler walks: read
	 *                       stacks yourself) or -errno.  The system
	 *                       profiler wakes you for a walked sample only
	 *                       when one of its code words is new to pid
	 *                       (so you read it while it lives); calling
	 *                       again makes every word new again: do it when
	 *                       your cache of them is emptied.  A layout
	 *                       using 1.7's fields the profiler cannot walk
	 *                       is refused with -ENOTSUP (the perf plugin
	 *                       walks them where the kernel has bpf_loop,
	 *                       5.17, and a TLS root where its BTF names the
	 *                       task's thread pointer).
	 *   sample_walk_thread  tid's root and check value (root 0: forget
	 *                       it; GP_WALK_ROOT_NONE: tid runs no
	 *                       interpreter code, its samples come walked
	 *                       with no frame until check, a CLOCK_MONOTONIC
	 *                       time in ns).  0, -ENOENT when pid has no walk
	 *                       (the system profiler restarted: sample_walk
	 *                       again), -ENOTSUP or -errno.
	 *   sample_walker       the system profiler walks: walk(arg, pid, w)
	 *                       and thread(arg, pid, tid, root, check) get
	 *                       the calls above (NULL walk: no more).
	 */
	int32_t (*sample_walk)(struct gp_plugin_ctx *ctx, int32_t pid,
			    const struct gp_frame_walk *w);
	int32_t (*sample_walk_thread)(struct gp_plugin_ctx *ctx,
			    int32_t pid, int32_t tid, uint64_t root,
			    uint64_t check);
	int32_t (*sample_walker)(struct gp_plugin_ctx *ctx,
			    int32_t (*walk)(void *arg, int32_t pid,
			    const struct gp_frame_walk *w),
			    int32_t (*thread)(void *arg, int32_t pid,
			    int32_t tid, uint64_t root, uint64_t check),
			    void *arg);

	/*
	 * A process's maps (1.8): /proc/PID/maps, whose length its owner
	 * chooses (up to 65,530 lines, each written by the kernel at every
	 * read), at most max bytes, cut after the last whole line that
	 * fits, NUL-terminated, in *text (the caller free()s it) of *len
	 * bytes: 0 whole, 1 cut, -ESRCH gone, or -errno.  Reads of the maps
	 * of processes not run by root share one budget of the host's
	 * (docs/SECURITY.md): -EAGAIN says it is spent, the read deferred.
	 * Ask again later (it refills within seconds); it is not an answer
	 * about the process.
	 */
	int32_t (*maps_read)(struct gp_plugin_ctx *ctx, int32_t pid,
			    uint64_t max, char **text, uint64_t *len);
};

/* Whether the host's table has `member` (added after ABI 1.0). */
#define GP_API_HAS(api, member)						\
	(offsetof(struct gp_host_api, member) +				\
	    sizeof(((struct gp_host_api *)0)->member) <= (api)->size)

/* Initialiser for the descriptor's fixed block. */
#define GP_PLUGIN_HEADER						\
	.magic = GP_PLUGIN_MAGIC,					\
	.abi_major = GP_ABI_MAJOR,					\
	.abi_minor = GP_ABI_MINOR,					\
	.struct_size = sizeof(struct gp_plugin)

#ifdef __cplusplus
}
#endif

#endif /* GPROFILER_PLUGIN_H */
