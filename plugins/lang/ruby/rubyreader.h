/*
 * The Ruby stack reader: version facts, per-version struct offsets, the
 * ELF facts of the object holding the Ruby VM (libruby or a static ruby),
 * and the walk of the running thread's control frames over a read
 * callback (a live process through process_vm_readv, or a memory image
 * in tests and fuzzers).
 */
#ifndef GP_RUBYREADER_H
#define GP_RUBYREADER_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#define RUBY_MAX_FRAMES		256	/* deeper: cut at the root */
#define RUBY_MAX_NAME		256	/* labels: longer are cut */
#define RUBY_MAX_FILE		1024	/* paths: longer are cut */
#define RUBY_MAX_FRAME_TEXT	(RUBY_MAX_NAME + RUBY_MAX_FILE + 32)
/* A VM stack larger than this (in VALUEs) is not a real one. */
#define RUBY_MAX_STACK_VALUES	(64u << 20)

struct ruby_version {
	int major, minor, patch;
};

/* Offsets into the VM's structs (x86-64), see ruby_offsets.c. */
struct ruby_offsets {
	/* how the running execution context is found */
	int ec_direct;			/* 2.x: the symbol is the ec's */
	uint32_t vm_main_ractor;	/* rb_vm_t.ractor.main_ractor */
	uint32_t ractor_running_ec;	/* threads.running_ec */
	/* rb_execution_context_t */
	uint32_t ec_vm_stack;
	uint32_t ec_vm_stack_size;
	uint32_t ec_cfp;
	/* rb_control_frame_t */
	uint32_t cfp_pc;
	uint32_t cfp_iseq;
	uint32_t cfp_ep;
	uint32_t cfp_size;
	/* rb_iseq_t, rb_iseq_constant_body, rb_iseq_location_t */
	uint32_t iseq_body;
	uint32_t body_type;
	uint32_t body_iseq_encoded;
	uint32_t body_location;
	uint32_t loc_pathobj;
	uint32_t loc_label;
	uint32_t loc_first_lineno;
	int lineno_fixnum;	/* first_lineno a Fixnum */
	/* line table (iseq.c): insns_info.{body,size,succ_index_table} */
	uint32_t body_insn_info_body;
	uint32_t body_insn_info_size;
	uint32_t body_succ_index_table;
	uint32_t insn_info_entry_size;
	/* RString, RArray */
	uint32_t rstring_len;	/* heap, 3.2+ embedded */
	uint32_t rstring_heap_ptr;
	uint32_t rstring_embed;		/* embedded bytes */
	int rstring_len_in_flags;	/* <= 3.1 */
	uint32_t rarray_embed;
	uint32_t rarray_heap_ptr;
	/*
	 * Not offsets but this target's facts (ruby_ids.c): where the
	 * global symbol table is in the target (0: not found, C function
	 * frames are left out) and its tLAST_OP_ID.
	 */
	uint64_t global_symbols;
	uint32_t last_op_id;
};

/* Reads len bytes at addr of the target; 0 or -errno (-ESRCH: gone). */
typedef int (*ruby_read_fn)(void *, uint64_t, void *, size_t);

struct ruby_mem {
	ruby_read_fn read;
	void *arg;
};

/* --- ruby_offsets.c --------------------------------------------------- */
int ruby_version_parse(const char *, size_t, struct ruby_version *);
int ruby_offsets_for(const struct ruby_version *, struct ruby_offsets *,
	    char *, size_t);

/* --- ruby_elf.c ------------------------------------------------------- */
struct ruby_elf {
	uint64_t current_vm_ptr;	/* ruby_current_vm_ptr (3.x) */
	uint64_t current_ec_ptr;	/* ruby_current_execution_
					 * context_ptr (2.5-2.7) */
	uint64_t version_sym;		/* &ruby_version[] */
	uint64_t description_sym;	/* &ruby_description[] */
	uint64_t first_load_vaddr;
	uint64_t id2str_sym;		/* &rb_id2str */
	uint64_t global_symbols;	/* &ruby_global_symbols, 0 */
	uint32_t last_op_id;		/* tLAST_OP_ID, 0 */
	/* 3.x: ruby_current_ec's offset in the object's TLS block, and the
	 * GOT slot holding the block's module ID (0: none, ruby_elf.c) */
	uint64_t tls_ec;
	uint64_t tls_module_got;
	int has_tls_ec;
	int has_pt_tls;
	struct ruby_version ver;
	int has_ver;
	char description[128];	/* "ruby 3.1.2p20 ..." */
	uint8_t build_id[64];
	size_t build_id_len;
};

int ruby_elf_read_fd(int, struct ruby_elf *);
int ruby_elf_read_mem(const void *, size_t, struct ruby_elf *);
void ruby_elf_buildid_text(const struct ruby_elf *, char *, size_t);

/* --- ruby_walk.c ------------------------------------------------------ */
/*
 * Calls fn once per frame, leaf first, with the frame text as gProfiler
 * writes rbspy's ("label (path:line)"); C function frames as rbspy names
 * them ("name [c function] ((unknown):0)") where the target's symbol table
 * was found, else skipped.
 * The line is the one executing, from the iseq's line table, or the
 * method's first line when the table cannot be read.  Walks at most max
 * control frames.  0 (the control frames visited in *n), -errno of the
 * first failed read, or fn's non-zero return.  root is the address the
 * symbol of ruby_elf points at, in the target.
 */
typedef int (*ruby_frame_fn)(void *, const char *);

/*
 * Frame texts by iseq body, so a sample reads each method's strings once:
 * an entry is used only while the body still has the same label and
 * path pointers (a method freed and another compiled at its address
 * differs in them).  Lines by body and pc, apart: a hot method's samples
 * land on many pcs (a compiled body's line table does not change).
 * Direct-mapped.  The main ractor's address is kept too: it is set at
 * boot and never moves.
 */
#define RUBY_FCACHE	64
#define RUBY_LCACHE	1024

struct ruby_fentry {
	uint64_t body, label, pathobj;
	uint8_t valid;
	char text[RUBY_MAX_FRAME_TEXT];	/* last */
};

struct ruby_lentry {
	uint64_t body, pc;	/* pc 0: none */
	uint32_t line;
	uint32_t pad;
};

/* C function names by method entry (and ID, should the entry be reused). */
#define RUBY_CCACHE	32

struct ruby_centry {
	uint64_t me, id;
	char name[RUBY_MAX_NAME];
};

/*
 * Iseqs the system profiler walked (ruby_walked_frame), by address: the
 * body they had when first read and its frame text's entry, so a walked
 * sample of known code reads nothing.  Emptied with the rest at each
 * snapshot, when the walk's own record of known code words is too.
 */
#define RUBY_WCACHE	256

struct ruby_wentry {
	uint64_t iseq, body;
	uint32_t slot;	/* in e[] */
	uint32_t pad;
};

struct ruby_fcache {
	struct ruby_fentry e[RUBY_FCACHE];
	struct ruby_centry c[RUBY_CCACHE];
	struct ruby_wentry w[RUBY_WCACHE];
	struct ruby_lentry l[RUBY_LCACHE];
	uint64_t ractor;	/* the main ractor, once read */
	uint64_t hits, misses;
};

int ruby_walk_stack(const struct ruby_mem *, const struct ruby_offsets *,
	    uint64_t, uint32_t, struct ruby_fcache *, ruby_frame_fn, void *,
	    uint32_t *);
/*
 * One frame the system profiler walked in a sample: its code word (an
 * iseq; for a C function's frame, whose pc is 0, its method entry) and
 * pc, as text into out.  Code seen since fc was cleared costs no read
 * (a pc new to it, its line's).  0, 1 (not a frame to show) or -errno.
 */
int ruby_walked_frame(const struct ruby_mem *, const struct ruby_offsets *,
	    struct ruby_fcache *, uint64_t, uint64_t, char *, size_t);
int ruby_read_u64(const struct ruby_mem *, uint64_t, uint64_t *);
int ruby_array_elems(const struct ruby_mem *, const struct ruby_offsets *,
	    uint64_t, uint64_t, uint64_t *);
int ruby_read_string(const struct ruby_mem *,
	    const struct ruby_offsets *, uint64_t, char *, size_t);
int ruby_line_of(const struct ruby_mem *, const struct ruby_offsets *,
	    uint64_t, uint64_t, uint32_t *);

/* --- ruby_ids.c ------------------------------------------------------ */
/* Up to len bytes of the object's code at vaddr: the count, or <= 0. */
typedef int64_t (*ruby_code_fn)(void *, uint64_t, uint8_t *, size_t);
int ruby_ids_locate(ruby_code_fn, void *, uint64_t, uint64_t *,
	    uint32_t *);
int ruby_id_name(const struct ruby_mem *, const struct ruby_offsets *,
	    uint64_t, char *, size_t);
int ruby_cfunc_frame(const struct ruby_mem *, const struct ruby_offsets *,
	    uint64_t, struct ruby_fcache *, char *, size_t);
int ruby_cfunc_me(const struct ruby_mem *, const struct ruby_offsets *,
	    uint64_t, struct ruby_fcache *, char *, size_t);
/* The C function name cache's slot for a method entry. */
static inline struct ruby_centry *
ruby_centry_of(struct ruby_fcache *fc, uint64_t me)
{
	return (&fc->c[((me >> 3) * 0x9e3779b97f4a7c15ull) >> 59 &
	    (RUBY_CCACHE - 1)]);
}

/* --- ruby_appid.c ----------------------------------------------------- */
int ruby_appid(const char *const *, int, const char *, char *, size_t);

/* --- ruby_maps.c ------------------------------------------------------ */
struct ruby_object {
	uint64_t start, end;	/* the mapping at file offset 0 */
	char path[512];
	int found;
};

int ruby_maps_find(const char *, size_t, uint64_t, struct ruby_object *,
	    struct ruby_object *);

#endif
