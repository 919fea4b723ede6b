/*
 * The symbolizer room (plugins/perf/sym/): this header and the files
 * behind it (symbolize.c, sym*.c; symbolize_int.h their shared state),
 * over the parsers they stand on: /proc files (procmaps.h), ELF symbol
 * tables (elfsym*.c), Go's tables (gopclntab.c, gobuildinfo.c), JIT perf
 * maps (perfmap*.c) and the kernel's (kallsyms.c).  It includes no header
 * of the sampler (plugins/perf/sampler/) nor of the plugin glue, which
 * includes this header as "sym/symbolize.h".
 *
 * The perf plugin's symbolizer: turns sampled instruction pointers into
 * gProfiler frame names (docs/specs/gprofiler-compat.md §4.3).
 *
 *   user    "func" (demangled), "name_[j]" from a JIT perf map,
 *           "(dso path)" when only the mapping is known, "[unknown]"
 *   kernel  "func_[k]", "[unknown]"
 *
 * Processes are snapshotted on first sight (maps, comm, start time, and
 * the symbol tables of the binaries they map, opened through
 * /proc/PID/map_files so deleted binaries and other mount namespaces
 * work), so a process that exits before the cycle ends still resolves.
 * Symbol tables are shared by every process mapping the same binary
 * (cached by build-id, or dev/inode/mtime/size).  Single-threaded.
 */
#ifndef PERF_SYMBOLIZE_H
#define PERF_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

struct symbolizer;
struct gp_open_spec;
struct gp_file_info;

/* How the symbolizer opens files: the host's file_open (plugin.h). */
typedef int (*sym_open_fn)(void *, const struct gp_open_spec *,
		    struct gp_file_info *);

struct sym_mapping {
	const char *path;	/* openable: /proc/PID/map_files/START-END */
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
};

struct symbolizer_stats {
	uint64_t user_frames;
	uint64_t user_resolved;
	uint64_t kernel_frames;
	uint64_t kernel_resolved;
	/* Additions (not in the original API). */
	uint64_t perfmap_bad_lines;	/* skipped perf map lines */
	uint64_t elf_failures;		/* binaries we could not read */
	uint64_t processes;		/* known now */
	uint64_t binaries;		/* symbol tables cached now */
	uint64_t table_bytes;		/* heap held by those + kallsyms */
	/* Names of superseded perf maps kept until the cycle ends (only
	 * maps whose names were returned this cycle). */
	uint64_t perfmap_retired_bytes;
	/* Mappings taken from the kernel's records (images /proc had
	 * lost, or had not shown yet). */
	uint64_t logged_maps;
	/* /proc/PID/maps read again for an address no mapping held (its
	 * cost grows with the process's mappings: thousands of lines). */
	uint64_t maps_rereads;
	/* The tables' byte budget (tables, perf maps, kallsyms) and how
	 * many tables it evicted, in all. */
	uint64_t perfmap_bytes;	/* every process's perf map */
	uint64_t table_budget;
	uint64_t table_evictions;
};

/* log(arg, GP_LOG_*, msg); log may be NULL. */
struct symbolizer *symbolizer_new(void (*)(void *, int, const char *),
			    void *);
void symbolizer_free(struct symbolizer *);

/*
 * First sight (or exec) of a process: snapshot it.  Cheap when known and
 * unchanged (checked at most once a second).  -ESRCH if gone; a process
 * known before it went away still resolves until symbolizer_cycle_end.
 */
int symbolizer_process_seen(struct symbolizer *, int32_t);
/* Exec comm (Name: of /proc/PID/status) at first sight; NULL if unknown. */
const char *symbolizer_comm(struct symbolizer *, int32_t);
/* Borrowed strings, valid until symbolizer_cycle_end. */
const char *symbolizer_user_frame(struct symbolizer *, int32_t, uint64_t);
const char *symbolizer_kernel_frame(struct symbolizer *, uint64_t);
/* The mapping holding addr (for DWARF unwinding); 0 or -ENOENT.  The path
 * is valid until symbolizer_cycle_end. */
int symbolizer_mapping(struct symbolizer *, int32_t, uint64_t,
		    struct sym_mapping *);
/*
 * A loop turn begins: until the next call, read at most `bytes` of perf
 * maps (0: no limit, the default), and load symbol tables for at most
 * SYM_LOAD_TURN_NS.  What a budget cut short is read by symbolizer_work
 * or at the next lookup.
 */
void symbolizer_turn(struct symbolizer *, size_t bytes);
/* Do pending reads within the turn's budget; 1 if work remains. */
int symbolizer_work(struct symbolizer *);
/* Whether a lookup or symbolizer_cover_gen left a perf map half read
 * or a symbol table loading (then symbolizer_work has something to do). */
int symbolizer_work_pending(const struct symbolizer *);
/* Whether symbol tables are loading (their binaries were sampled): a
 * snapshot emitted now would load the rest in its callback. */
int symbolizer_loading(const struct symbolizer *);
/* The file of a mapping (symbolizer_mapping), opened as the symbolizer
 * opens binaries (regular files only, through the host's safe open): an
 * fd or -errno. */
int symbolizer_open_mapping(struct symbolizer *,
		    const struct sym_mapping *);
/*
 * Exec generations (the perf plugin's BPF program counts each PID's
 * execs): a process image is a (PID, generation) pair, snapshotted on its
 * own and kept, with its comm, until the cycle ends after it was left, so
 * samples taken before an exec resolve against the program that was
 * running.  cur_gen(arg, pid, &gen) says which generation pid is in now;
 * maps read while it says another are not the image's and are dropped.
 * Without it every process is generation 0 (the calls without _gen).
 */
void symbolizer_set_gen_resolver(struct symbolizer *,
		    int (*cur_gen)(void *, int32_t, uint32_t *), void *);
int symbolizer_process_seen_gen(struct symbolizer *, int32_t,
		    uint32_t);
/*
 * The kernel's own record of an image's mappings (sampler/execmaps.h),
 * asked when /proc cannot tell: the image exec'ed or exited before its
 * maps were read, or mapped code after they were.  map_log(arg, pid, gen,
 * addr, &e, &path, &parent) fills the mapping holding addr (e's path
 * fields unused): 0, or -ENOENT; and, found or not, the parent the image
 * was forked from (0: none known).  map_quiet(arg, pid, gen, since_ns)
 * (optional): 1 when the records prove the image mapped no code since
 * since_ns (sym_now_ns's clock or earlier), so an address outside what
 * /proc showed then is no code, and its maps are not read again for it.
 */
struct procmaps_entry;
void symbolizer_set_map_log(struct symbolizer *,
		    int (*map_log)(void *, int32_t, uint32_t, uint64_t,
		    struct procmaps_entry *, const char **, int32_t *),
		    int (*map_quiet)(void *, int32_t, uint32_t, uint64_t),
		    void *);
/* pid's executable mappings from /proc/PID/maps, read as every /proc
 * file is (the core's guarded open): 0, or -errno. */
struct procmaps;
int symbolizer_read_maps(struct symbolizer *, int32_t,
		    struct procmaps *);
const char *symbolizer_comm_gen(struct symbolizer *, int32_t, uint32_t);
const char *symbolizer_user_frame_gen(struct symbolizer *, int32_t,
		    uint32_t, uint64_t);
/*
 * The functions the compiler inlined into the frame at addr, which
 * symbolizer_user_frame_gen names by the function holding the code: up
 * to max names, the innermost first (a stripped Go binary's .gopclntab
 * records them; other binaries have none: 0).  ret: addr is a return
 * address (every frame but the leaf).  Borrowed as the frame's names.
 */
size_t symbolizer_user_inlined_gen(struct symbolizer *, int32_t,
		    uint32_t, uint64_t, int, const char **, size_t);
/* Re-read the image's maps now, while it lives, if one of the n user
 * addresses lies outside them (libraries mapped after the first look). */
void symbolizer_cover_gen(struct symbolizer *, int32_t, uint32_t,
		    const uint64_t *, size_t);
/*
 * gProfiler's application metadata of a Go image
 * (docs/specs/gprofiler-compat.md §6): from its executable's table, if a
 * sample's symbolizing parsed it, and its mappings as first seen.  0; -ENOENT:
 * not a Go binary with a version this reads (see gobuildinfo.h), or not parsed;
 * -ESRCH: image unknown.
 */
#define SYMBOLIZER_GO_VER_MAX	128
struct symbolizer_go_meta {
	char version[SYMBOLIZER_GO_VER_MAX];	/* "go1.19.8" */
	int stripped;	/* no .symtab section */
	int dynamic;	/* a PT_DYNAMIC segment */
	int musl;		/* an ld-musl interpreter or mapping */
};
/* Whether the image maps a file whose last path component is base: 1,
 * 0, or -1 while its maps are not known. */
int symbolizer_maps_file_gen(struct symbolizer *, int32_t,
		    uint32_t, const char *base);
int symbolizer_go_meta_gen(struct symbolizer *, int32_t,
		    uint32_t, struct symbolizer_go_meta *);
/* Forget exited processes, free per-cycle strings, bound the caches. */
void symbolizer_cycle_end(struct symbolizer *);
void symbolizer_stats(const struct symbolizer *,
		    struct symbolizer_stats *);

/* Additions for tests and configuration. */
/* Open every file through fn(arg, spec, info) (gp_host_api.file_open);
 * until this is called nothing can be opened. */
void symbolizer_set_opener(struct symbolizer *, sym_open_fn,
		    void *);
/*
 * Read a process's maps through fn(arg, pid, max, &text, &len)
 * (gp_host_api.maps_read: the host's budget, 0 whole, 1 cut, -EAGAIN
 * deferred, -errno), instead of opening them.  A deferred read is
 * tried again at a later miss, as a re-read would be.
 */
typedef int (*sym_maps_fn)(void *, int32_t, size_t, char **, size_t *);
void symbolizer_set_maps_reader(struct symbolizer *, sym_maps_fn,
		    void *);
/* Where separate debug info lives (default /usr/lib/debug); copied. */
int symbolizer_set_debug_root(struct symbolizer *, const char *);
/*
 * Kernel names from resolve(arg, addrs, n, names, name_len) instead of
 * /proc/kallsyms: names[i * name_len] gets "name+0xoff/0xsize", maybe
 * followed by " [module]" ("" or "0x..." when unknown); 0 or -errno, after
 * which /proc/kallsyms is used.
 * Not used when symbolizer_set_kallsyms_path named another file.
 */
void symbolizer_set_kernel_resolver(struct symbolizer *,
		    int (*)(void *, const uint64_t *, size_t, char *, size_t),
		    void *);
/* Kernel addresses symbolizer_kernel_frame will be asked for this cycle:
 * resolved together (one batch) on the first such call. */
void symbolizer_kernel_prefetch(struct symbolizer *,
		    const uint64_t *, size_t);
/* Read kernel symbols from this file instead of /proc/kallsyms; copied. */
int symbolizer_set_kallsyms_path(struct symbolizer *, const char *);
/* The symbol tables' byte budget (default SYM_TABLE_BUDGET, 24 MiB). */
void symbolizer_set_table_budget(struct symbolizer *, size_t);
/* gProfiler's --insert-dso-name: "sym (dso)" for resolved user frames. */
void symbolizer_set_insert_dso(struct symbolizer *, int);

#endif
