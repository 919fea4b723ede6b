/*
 * col_parse.c: the .col collapsed-stack format (docs/specs/gprofiler-compat.md
 * §4) as a pure parser over bytes, shared by the flame graph renderer, the
 * `flamegraph` subcommand and the fuzz target.
 */
#ifndef GP_COL_PARSE_H
#define GP_COL_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* A byte range inside the parsed buffer (not NUL-terminated). */
struct col_span {
	const char *p;
	size_t len;
};

/* One stack line: frames root first, as written (prefix frames included). */
struct col_line {
	unsigned lineno;	/* 1-based */
	const struct col_span *frames;
	uint32_t nframes;
	uint64_t count;
};

#define COL_BAD_KEEP	5	/* bad lines remembered for the report */
#define COL_BAD_TEXT	80	/* bytes of each remembered bad line */

struct col_bad {
	unsigned lineno;
	const char *why;		/* static string */
	char text[COL_BAD_TEXT + 1];	/* raw bytes, cut */
};

struct col_result {
	struct col_span header;	/* JSON after "# ", {NULL,0} if none */
	uint64_t nstacks;	/* lines handed to the callback */
	uint64_t total;		/* sum of counts, saturating */
	uint64_t nbad;
	struct col_bad bad[COL_BAD_KEEP];
	unsigned nkept;	/* entries of bad[] in use */
};

/*
 * Parse buf: the optional "# {json}" header on line 1, then one
 * "f1;f2;...;fn COUNT" per line.  Blank lines and zero counts are skipped
 * silently; malformed lines are counted in res and skipped.  cb sees each
 * good line (its frames array is valid only during the call); a non-zero
 * return from cb stops parsing and is returned.  Never fails otherwise.
 */
int col_parse(const char *buf, size_t len,
	    int (*cb)(const struct col_line *, void *), void *arg,
	    struct col_result *res);

/* Length (1..4) of the valid UTF-8 sequence at p, n > 0 bytes; 0 when
 * invalid (overlong, surrogate, truncated, > U+10FFFF). */
size_t col_utf8_len(const unsigned char *p, size_t n);

#endif
