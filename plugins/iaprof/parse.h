/*
 * The iaprof stdout stream parser (docs/specs/iaprof.md §4, §5): a pure
 * function over bytes.  Bytes arrive in arbitrary chunks; complete lines are
 * folded into per-PID collapsed stacks, ticks (valid `interval` lines) are
 * reported through a callback so a snapshot can be cut exactly at a block
 * boundary. Memory is bounded by the limits below, never by the stream's
 * length.
 */
#ifndef IAPROF_PARSE_H
#define IAPROF_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* How many malformed lines a snapshot keeps for its warning (spec §5). */
#define IAPROF_MALFORMED_KEEP	8
/* A kept malformed line is cut to this many bytes. */
#define IAPROF_MALFORMED_LEN	512

struct iaprof_limits {
	size_t max_line;	/* longer lines are malformed */
	uint32_t max_strings;	/* string table entries */
	size_t max_string_bytes;
	uint32_t max_stacks;	/* distinct stacks between takes */
	size_t max_stack_bytes;
};

struct iaprof_parser;

/* Called for each valid `interval` line, after the current kernel was
 * cleared and before any later byte is parsed. */
typedef void (*iaprof_tick_cb)(void *arg, uint64_t n);

/*
 * One folded stack: frames[0] is the comm, frames[1..] the rest, root
 * first.  The frames are borrowed for the duration of the call.  A non-zero
 * return stops the walk and is returned by iaprof_parser_take().
 */
typedef int (*iaprof_stack_cb)(void *arg, int32_t pid,
		    const char *const *frames, uint32_t nframes,
		    uint64_t count);

/* NULL limits: the defaults.  Caller frees with iaprof_parser_free. */
struct iaprof_parser *iaprof_parser_new(const struct iaprof_limits *,
		    iaprof_tick_cb, void *arg);
void iaprof_parser_free(struct iaprof_parser *);
void iaprof_limits_default(struct iaprof_limits *);

/* Parse a chunk; a line split across chunks is reassembled. */
void iaprof_parser_feed(struct iaprof_parser *, const char *buf,
		    size_t len);
/* EOF: parse the last line even without its LF. */
void iaprof_parser_finish(struct iaprof_parser *);
/*
 * Forget everything that belongs to one iaprof process: string table,
 * partial line, current kernel, counts and malformed lines.  For a restart.
 */
void iaprof_parser_reset(struct iaprof_parser *);

/*
 * Visit every stack counted since the previous take, in first-seen order,
 * then clear the counts and the malformed lines (the string table stays).
 */
int iaprof_parser_take(struct iaprof_parser *, iaprof_stack_cb,
		    void *arg);

/* Malformed lines since the last take: the count, and up to 8 of them
 * (NUL-terminated, valid UTF-8, borrowed until the next feed/take). */
uint64_t iaprof_parser_malformed(const struct iaprof_parser *);
const char *iaprof_parser_malformed_line(const struct iaprof_parser *,
		    unsigned i);
/* Samples dropped because max_stacks/max_stack_bytes was reached. */
uint64_t iaprof_parser_dropped(const struct iaprof_parser *);
/* Valid `interval` lines seen since the last reset. */
uint64_t iaprof_parser_ticks(const struct iaprof_parser *);
/* Distinct stacks held and bytes they use (for the benchmark). */
uint32_t iaprof_parser_nstacks(const struct iaprof_parser *);
size_t iaprof_parser_memory(const struct iaprof_parser *);

/* text.c: field helpers shared by the parser (pure, no allocation). */
/* Python int(): optional ASCII whitespace around, optional sign; with
 * allow_hex, "0x..." too.  0 on success with *neg and *mag set. */
int iaprof_parse_int(const char *s, size_t n, int allow_hex,
		    int *neg, uint64_t *mag);
/* Python float() over ASCII: 0 when s parses. */
int iaprof_parse_float(const char *s, size_t n);
/*
 * Copy s to dst (capacity cap >= 3 * n + 1) replacing every maximal
 * invalid UTF-8 subpart with U+FFFD; returns the length written.
 */
size_t iaprof_utf8_sanitize(char *dst, const char *s, size_t n);
/* Whether s is valid UTF-8 (the fast path). */
int iaprof_utf8_valid(const char *s, size_t n);
/* Trim Python whitespace (str.strip()) from both ends of valid UTF-8:
 * sets *start and returns the trimmed length. */
size_t iaprof_text_strip(const char *s, size_t n, size_t *start);

#endif
