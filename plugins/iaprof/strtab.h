/*
 * The string table of one iaprof process (docs/specs/iaprof.md §4.2): id ->
 * text, with the cleaned form (§5: trimmed, ';' -> '|') computed once at
 * definition.
 */
#ifndef IAPROF_STRTAB_H
#define IAPROF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab_entry {
	uint64_t id;
	char *raw;	/* valid UTF-8, NUL-terminated */
	char *clean;	/* inside the same allocation */
	uint32_t rawlen, cleanlen;
};

struct strtab;

struct strtab *strtab_new(uint32_t max_entries, size_t max_bytes);
void strtab_free(struct strtab *);
void strtab_clear(struct strtab *);
/* Define or redefine id (the last definition wins); text must be valid
 * UTF-8.  -ENOSPC when the limits are reached, -ENOMEM. */
int strtab_set(struct strtab *, uint64_t id, const char *text,
		    size_t len);
/* The entry, or NULL if id is undefined; valid until the next set/clear. */
const struct strtab_entry *strtab_get(const struct strtab *, uint64_t id);
uint32_t strtab_count(const struct strtab *);
size_t strtab_memory(const struct strtab *);

#endif
