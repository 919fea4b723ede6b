/*
 * The PHP stack reader: version facts, per-version struct offsets, the
 * ELF facts of the object holding the Zend engine, and the walk of the
 * executor's frame chain over a read callback (a live process through
 * process_vm_readv, or a memory image in tests and fuzzers).
 */
#ifndef GP_PHPREADER_H
#define GP_PHPREADER_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#define PHP_MAX_FRAMES		256	/* deeper stacks are cut at the root */
#define PHP_MAX_NAME		256	/* class, function: longer are cut */
#define PHP_MAX_FILE		1024	/* file names: longer are cut */
#define PHP_MAX_FRAME_TEXT	(2 * PHP_MAX_NAME + PHP_MAX_FILE + 32)

struct php_version {
	int major, minor, patch;
};

/* Offsets into the engine's structs (x86-64, non-ZTS), see php_offsets.c. */
struct php_offsets {
	uint32_t eg_current_execute_data;
	uint32_t eg_fake_scope;	/* the pointer after it */
	uint32_t ed_opline;
	uint32_t ed_func;
	uint32_t ed_prev;
	uint32_t fn_type;
	uint32_t fn_name;
	uint32_t fn_scope;
	uint32_t op_filename;
	uint32_t op_line_start;
	uint32_t op_last;	/* opcodes in the function */
	uint32_t op_opcodes;	/* its zend_op array */
	uint32_t ce_name;
	uint32_t zs_len;
	uint32_t zs_val;
};

/* Reads len bytes at addr of the target; 0 or -errno (-ESRCH: gone). */
typedef int (*php_read_fn)(void *, uint64_t, void *, size_t);

struct php_mem {
	php_read_fn read;
	void *arg;
};

/* --- php_offsets.c ---------------------------------------------------- */
int php_version_parse(const char *, size_t, struct php_version *);
int php_version_find(const uint8_t *, size_t, struct php_version *);
int php_offsets_for(const struct php_version *, struct php_offsets *,
	    char *, size_t);

/* --- php_elf.c -------------------------------------------------------- */
struct php_elf {
	uint64_t executor_globals;	/* st_value; 0: none */
	int zts;			/* executor_globals_offset */
	uint64_t first_load_vaddr;
	struct php_version ver;
	int has_ver;
};

int php_elf_read_fd(int, struct php_elf *);
int php_elf_read_mem(const void *, size_t, struct php_elf *);

/* --- php_walk.c ------------------------------------------------------- */
/*
 * Calls fn once per frame, leaf first, with the frame text as phpspy
 * writes it ("Class::function /file.php:line", "fn <internal>:-1",
 * "<main> /file.php:0"), the line being the function's first (phpspy's);
 * stops after max execute_data or at one seen before (a loop).  fc, if
 * not NULL, keeps frame texts between calls.  0 (the execute_data visited
 * in *n), -errno of the first failed read, or fn's non-zero return.
 */
typedef int (*php_frame_fn)(void *, const char *);

/*
 * Frame texts by function, so a sample reads each function's strings
 * once: an entry is used only while the function still has the same type,
 * name, class, file and line pointers (a function freed and another
 * compiled at its address differs in them).  Direct-mapped; the texts
 * share one arena, emptied with the entries when full, so a process costs
 * sizeof(struct php_fcache) whatever its names.
 */
#define PHP_FCACHE	256
#define PHP_FCACHE_TEXT	(32u << 10)
#define PHP_ZEND_OP	32	/* sizeof(zend_op), 7.4-8.4 */
/* The executor globals' bytes: code there is __call's trampoline, whose
 * one opcode serves every method called through it (named per call). */
#define PHP_EG_SPAN	8192

struct php_fcache {
	struct {
		uint64_t func, zname, scope, zfile;
		uint64_t opcodes;	/* user code: its zend_op array */
		uint32_t nops, line;
		uint32_t text;	/* offset in texts */
		uint8_t type, valid;
	} e[PHP_FCACHE];
	uint32_t used;	/* bytes of texts */
	uint64_t eg;	/* &executor_globals: see PHP_EG_SPAN */
	uint64_t hits, misses;
	char texts[PHP_FCACHE_TEXT];
};

int php_walk_stack(const struct php_mem *, const struct php_offsets *,
	    uint64_t, uint32_t, struct php_fcache *, php_frame_fn, void *,
	    uint32_t *);
/*
 * A frame the sampler walked (its function and opline) as text, from fc
 * without a read when it holds func and, for user code, opline lies in
 * the function's opcodes (another function compiled at a freed one's
 * address has other opcodes) and those are not the trampoline's; else
 * read as php_walk_stack does, into
 * out when it cannot be kept.  0 or -errno.
 */
int php_walked_frame(const struct php_mem *, const struct php_offsets *,
	    struct php_fcache *, uint64_t func, uint64_t opline, char *out,
	    size_t outlen, const char **text);
int php_read_zstring(const struct php_mem *, const struct php_offsets *,
	    uint64_t, char *, size_t);

/* --- php_maps.c ------------------------------------------------------- */
struct php_object {
	uint64_t start, end;	/* the mapping at file offset 0 */
	char path[512];
	int found;
};

int php_maps_find(const char *, size_t, uint64_t, struct php_object *);

#endif
