/*
 * The kernel's text symbols from /proc/kallsyms, address-sorted, for
 * "func_[k]" frames.  Parsed from bytes (the caller reads the file).
 */
#ifndef PERF_KALLSYMS_H
#define PERF_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

/* An address further than this past the last symbol start is unknown. */
#define KALLSYMS_MAX_FUNC	(1024 * 1024)

struct kallsyms {
	uint64_t *addr;	/* sorted */
	uint32_t *name;	/* offsets into names */
	size_t n;
	char *names;
	size_t names_len;
	size_t bad_lines;
	int zeroed;	/* every address was 0 (kptr_restrict) */
};

/* 0, -ENOMEM, or -ENOENT when nothing usable was found. */
int kallsyms_parse(const char *, size_t, struct kallsyms *);
void kallsyms_free(struct kallsyms *);
const char *kallsyms_lookup(const struct kallsyms *, uint64_t);

#endif
