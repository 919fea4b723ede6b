/*
 * The folded-stack counts of one snapshot (private to the iaprof plugin):
 * kernel prefixes (pid and frames up to the symbol) interned once, then
 * (prefix, instruction, stall, offset) keys summed.  Everything lives in an
 * arena dropped at each take, so memory follows distinct stacks only.
 */
#ifndef IAPROF_STACKS_H
#define IAPROF_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "parse.h"

#define STACKS_NONE	UINT32_MAX

struct stacks;

struct stacks *stacks_new(uint32_t max_stacks, size_t max_bytes);
void stacks_free(struct stacks *);
void stacks_clear(struct stacks *);

/* Intern a prefix: frames joined by ';' (none contains ';').  Returns its
 * index or STACKS_NONE when the limits are reached. */
uint32_t stacks_prefix(struct stacks *, int32_t pid, const char *joined,
		    size_t len);
/* Add the ten stall counts of prefix;insn_[g];<stall>_[g];off_[g].
 * -1 when the limits drop them. */
int stacks_add(struct stacks *, uint32_t prefix, const char *insn,
		    size_t insnlen, const char *off, size_t offlen,
		    const uint64_t *cnt);
int stacks_foreach(struct stacks *, iaprof_stack_cb, void *arg);
/* Distinct (kernel, instruction, offset) keys, each up to ten stacks. */
uint32_t stacks_count(const struct stacks *);
size_t stacks_memory(const struct stacks *);

#endif
