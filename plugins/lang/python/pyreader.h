/*
 * The Python plugin's internal header: the CPython stack reader (pure
 * decoders over a "remote memory" read callback), the /proc and ELF helpers
 * and the appid rules.  Nothing here includes core/ headers;
 * docs/specs/cpython.md is the contract for every offset and rule.
 */
#ifndef GP_PYREADER_H
#define GP_PYREADER_H

#include <stddef.h>
#include <stdint.h>

/* Bounds applied to everything read from a target (hostile data). */
#define PY_MAX_FRAMES		2048	/* > CPython's default recursion limit */
#define PY_MAX_THREADS		4096
#define PY_MAX_STR		4096	/* code points in a name or path */
#define PY_MAX_LINETABLE	(256 * 1024)
#define PY_MAX_INTERPS		64

/* --- py_mem.c: remote memory ------------------------------------------ */

struct py_iov {
	uint64_t addr;
	void *buf;
	size_t len;
};

/*
 * Reads every element of iov or fails: 0, -ESRCH (process gone), -EFAULT
 * (unmapped or short), -EPERM.  Implementations: the target process
 * (process_vm_readv) and, in tests and fuzzers, a memory image.
 */
struct py_page;

#define PY_MEM_HINTS	16

struct py_mem {
	int (*readv)(void *arg, const struct py_iov *iov,
			    uint32_t n);
	void *arg;
	uint64_t nreads;	/* calls, for the benchmark */
	/*
	 * Optional page cache valid for one sample (py_mem_cache_begin):
	 * frames of one thread share a few pages (3.11+ data-stack chunks,
	 * 3.8-3.10 frame free lists), so one read per page replaces one
	 * read per frame.
	 */
	struct py_page *pages;
	uint32_t gen;
	/* The pages the last sample read, fetched together by the next
	 * (py_mem_cache_prefetch): one call instead of one a page. */
	uint64_t hint[PY_MEM_HINTS];
	uint32_t nhint;
	uint64_t seen[PY_MEM_HINTS];
	uint32_t nseen;
	uint64_t prefetched, prefetch_failed;	/* for the tests */
};

int py_mem_read(struct py_mem *, uint64_t, void *, size_t);
int py_mem_readv(struct py_mem *, const struct py_iov *, uint32_t);
int py_mem_read_ptr(struct py_mem *, uint64_t, uint64_t *);
int py_mem_cache_init(struct py_mem *);
void py_mem_cache_begin(struct py_mem *);
void py_mem_cache_prefetch(struct py_mem *);
void py_mem_cache_free(struct py_mem *);
/*
 * The process_vm_readv implementation; arg is the target's struct langguard
 * (langguard.h), which says which ranges may be read: -EREMOTE for one it
 * refuses, the reason in its why.
 */
int py_mem_proc_readv(void *, const struct py_iov *, uint32_t);

/* Little-endian field extraction from a buffer read from the target. */
static inline uint64_t
py_u64(const uint8_t *b, size_t off)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | b[off + i];
	return (v);
}

static inline uint32_t
py_u32(const uint8_t *b, size_t off)
{
	return ((uint32_t)b[off] | (uint32_t)b[off + 1] << 8 |
	    (uint32_t)b[off + 2] << 16 | (uint32_t)b[off + 3] << 24);
}

/* The top of user space: x86-64's 47 bits (4-level page tables), arm64's
 * 48, or 52 with large virtual addresses (glibc maps near the top). */
#if defined(__aarch64__)
#define PY_USER_TOP	(1ull << 52)
#else
#define PY_USER_TOP	(1ull << 47)
#endif

/* A plausible user-space object pointer: non-NULL, 8-aligned, canonical. */
static inline int
py_ptr_ok(uint64_t p)
{
	return (p >= 4096 && (p & 7) == 0 && p < PY_USER_TOP);
}

/* --- py_offsets.c: per-version layouts --------------------------------- */

#define PY_POS_LASTI_BYTES	1	/* 3.8, 3.9: f_lasti in bytes */
#define PY_POS_LASTI_UNITS	2	/* 3.10: f_lasti in code units */
#define PY_POS_PTR		3	/* 3.11+: pointer into co_code_adaptive */

#define PY_LINE_LNOTAB		1	/* 3.8, 3.9 */
#define PY_LINE_310		2	/* 3.10 */
#define PY_LINE_PEP657		3	/* 3.11+ */

struct py_offsets {
	int major, minor;
	uint32_t rt_interp_head;
	uint32_t is_next, is_tstate_head;
	uint32_t ts_next, ts_interp;
	uint32_t ts_frame;	/* frame, cframe or current_frame */
	int32_t cf_frame;	/* -1: ts_frame is the frame itself */
	uint32_t ts_thread_id;
	int32_t ts_native_tid;	/* -1: none (<= 3.10) */
	uint32_t ts_size;	/* prefix read in one call */
	uint32_t fr_back, fr_code, fr_pos;
	int32_t fr_owner;	/* -1: none (<= 3.10) */
	uint32_t fr_size;
	int pos_kind;
	int owner_cstack;	/* owner value of shim frames, or -1 */
	uint32_t co_filename, co_name;
	int32_t co_qualname;	/* -1: none (<= 3.10) */
	uint32_t co_firstlineno, co_linetable;
	int32_t co_code_adaptive;	/* -1: none (<= 3.10) */
	uint32_t co_size;
	int line_kind;
	uint32_t ob_type;
	uint32_t str_length, str_state, str_ascii_size, str_compact_size;
	uint32_t bytes_size, bytes_sval;
};

#define PY_DEBUG_OFFSETS_SIZE	584	/* 3.13: 73 uint64 */

int py_offsets_for_version(int, int, struct py_offsets *);
int py_offsets_from_debug(const uint8_t *, size_t, int, struct py_offsets *,
	    char *, size_t);

/* --- py_version.c: which interpreter ----------------------------------- */

struct py_version {
	int major, minor, micro;
	int free_threaded, debug;
};

int py_version_from_hex(uint64_t, struct py_version *);
int py_version_from_string(const char *, size_t, struct py_version *);
int py_version_from_filename(const char *, struct py_version *);
int py_version_supported(const struct py_version *, char *, size_t);

/* --- py_elf.c: symbols of the interpreter object ----------------------- */

struct py_elf {
	int is_exec;			/* ET_EXEC: bias 0 */
	uint64_t first_load_vaddr;	/* rounded down to p_align */
	uint64_t runtime;		/* _PyRuntime st_value, or .PyRuntime */
	uint64_t py_version;		/* Py_Version st_value (3.11+) */
	uint64_t code_type;		/* PyCode_Type */
	uint64_t version_buf;		/* Py_GetVersion.version (.symtab) */
	uint8_t build_id[64];
	uint32_t build_id_len;
	/* Py_Version read from the file when it lies in PROGBITS data. */
	uint64_t py_version_value;
	int has_py_version_value;
};

int py_elf_read_fd(int, struct py_elf *);
int py_elf_read_mem(const void *, size_t, struct py_elf *);

/* --- py_line.c: line tables -------------------------------------------- */

int py_line_lnotab(const uint8_t *, size_t, int, int);
int py_line_310(const uint8_t *, size_t, int, int);
int py_line_pep657(const uint8_t *, size_t, int, int64_t);

/* --- py_string.c: str objects ------------------------------------------ */

int py_str_decode(const struct py_offsets *, const uint8_t *, size_t,
	    uint64_t, uint64_t *, size_t *, int *);
int py_str_to_utf8(const uint8_t *, size_t, int, char *, size_t);

/* --- py_code.c: decoded code objects, cached by address ---------------- */

struct py_code {
	uint64_t addr;
	char *name;	/* qualname from 3.11 */
	char *file;
	int firstlineno;
	uint8_t *linetable;
	uint32_t linetable_len;
	/* The frame texts made so far, by position (py_code_text). */
	struct py_code_text *texts;
	uint8_t ntexts, textcap, textnext;
};

/* "name (file:line)_[p]" at one position; PY_TEXT_FIRST: at the first
 * line, whatever the position. */
struct py_code_text {
	int64_t pos;
	char *text;
};
#define PY_CODE_TEXTS	16	/* positions kept per code object */
#define PY_TEXT_FIRST	INT64_MIN

struct py_code_cache;

struct py_code_cache *py_code_cache_new(void);
void py_code_cache_free(struct py_code_cache *);
void py_code_cache_clear(struct py_code_cache *);
size_t py_code_cache_bytes(const struct py_code_cache *);
int py_code_get(struct py_code_cache *, struct py_mem *,
	    const struct py_offsets *, uint64_t, uint64_t,
	    struct py_code **);
int py_code_line(const struct py_offsets *, const struct py_code *,
	    int64_t);
const char *py_code_text(struct py_code_cache *, const struct py_offsets *,
	    struct py_code *, int64_t);

/* --- py_walk.c: thread states and frames ------------------------------- */

struct py_frame {
	uint64_t code;
	int64_t pos;	/* f_lasti, or the instruction pointer */
};

struct py_tstate {
	uint64_t addr;
	uint64_t interp;
	uint64_t top;	/* frame or cframe pointer */
	uint64_t thread_id;
	int32_t native_tid;	/* -1 when the layout has none */
};

int py_walk_tstate(struct py_mem *, const struct py_offsets *, uint64_t,
	    struct py_tstate *, uint64_t *);
int py_walk_first_tstate(struct py_mem *, const struct py_offsets *,
	    uint64_t, uint64_t *, uint64_t *);
int py_walk_frames(struct py_mem *, const struct py_offsets *,
	    const struct py_tstate *, struct py_frame *, uint32_t, uint32_t *);
int py_walk_pthread_tid(struct py_mem *, uint64_t, int32_t *);

/* --- py_proc.c: /proc parsing (pure over bytes) ------------------------ */

struct py_map {
	uint64_t start, end, offset;
	uint64_t inode;
	char perms[5];
	const char *path;	/* into the parsed line; NULL: anonymous */
	size_t pathlen;
};

int py_proc_parse_map_line(const char *, size_t, struct py_map *);
int py_proc_map_is_python(const char *, size_t);
int py_proc_stat_state(const char *, size_t, char *, uint64_t *);
int py_proc_status_name(const char *, size_t, char *, size_t);
int py_proc_cmdline_excluded(const char *, size_t);

/* --- py_appid.c: application identifiers ------------------------------- */

/*
 * Resolve `path` (absolute, in the target's namespace) into out; return 0
 * or -errno (the caller then keeps the unresolved path).
 */
struct py_appid_env {
	const char *cwd;
	int (*resolve)(void *, const char *, char *, size_t);
	/* Read a file (target's namespace) into a NUL-terminated buffer the
	 * caller frees; NULL when unreadable. */
	char *(*read_file)(void *, const char *, size_t *);
	void *arg;
};

int py_appid(const char *const *, int, const struct py_appid_env *,
	    char *, size_t);

#endif
