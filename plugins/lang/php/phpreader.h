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
	int		 major, minor, patch;
};

/* Offsets into the engine's structs (x86-64, non-ZTS), see php_offsets.c. */
struct php_offsets {
	uint32_t	 eg_current_execute_data;
	uint32_t	 ed_func;
	uint32_t	 ed_prev;
	uint32_t	 fn_type;
	uint32_t	 fn_name;
	uint32_t	 fn_scope;
	uint32_t	 op_filename;
	uint32_t	 op_line_start;
	uint32_t	 ce_name;
	uint32_t	 zs_len;
	uint32_t	 zs_val;
};

/* Reads len bytes at addr of the target; 0 or -errno (-ESRCH: gone). */
typedef int	(*php_read_fn)(void *, uint64_t, void *, size_t);

struct php_mem {
	php_read_fn	 read;
	void		*arg;
};

/* --- php_offsets.c ---------------------------------------------------- */
int	php_version_parse(const char *, size_t, struct php_version *);
int	php_version_find(const uint8_t *, size_t, struct php_version *);
int	php_offsets_for(const struct php_version *, struct php_offsets *,
	    char *, size_t);

/* --- php_elf.c -------------------------------------------------------- */
struct php_elf {
	uint64_t	 executor_globals;	/* st_value; 0: none */
	int		 zts;			/* executor_globals_offset */
	uint64_t	 first_load_vaddr;
	struct php_version ver;
	int		 has_ver;
};

int	php_elf_read_fd(int, struct php_elf *);
int	php_elf_read_mem(const void *, size_t, struct php_elf *);

/* --- php_walk.c ------------------------------------------------------- */
/*
 * Calls fn once per frame, leaf first, with the frame text as phpspy
 * writes it ("Class::function /file.php:line", "fn <internal>:-1",
 * "<main> /file.php:0"), the line being the function's first (phpspy's);
 * stops after max execute_data or at one seen before (a loop).  fc, if
 * not NULL, keeps frame texts between calls.  0 (the execute_data visited
 * in *n), -errno of the first failed read, or fn's non-zero return.
 */
typedef int	(*php_frame_fn)(void *, const char *);

/*
 * Frame texts by function, so a sample reads each function's strings
 * once: an entry is used only while the function still has the same type,
 * name, class, file and line pointers (a function freed and another
 * compiled at its address differs in them).  Direct-mapped.
 */
#define PHP_FCACHE	32

struct php_fcache {
	struct {
		uint64_t	 func, zname, scope, zfile;
		uint32_t	 line;
		uint8_t		 type, valid;
		char		 text[PHP_MAX_FRAME_TEXT];
	} e[PHP_FCACHE];
	uint64_t	 hits, misses;
};

int	php_walk_stack(const struct php_mem *, const struct php_offsets *,
	    uint64_t, uint32_t, struct php_fcache *, php_frame_fn, void *,
	    uint32_t *);
int	php_read_zstring(const struct php_mem *, const struct php_offsets *,
	    uint64_t, char *, size_t);

/* --- php_maps.c ------------------------------------------------------- */
struct php_object {
	uint64_t	 start, end;	/* the mapping at file offset 0 */
	char		 path[512];
	int		 found;
};

int	php_maps_find(const char *, size_t, uint64_t, struct php_object *);

#endif
