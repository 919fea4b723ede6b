/* The fake iaprof's shared state: the command line and output side
 * (fake_iaprof.c) and the stream model (fake_iaprof_model.c). */
#ifndef FAKE_IAPROF_H
#define FAKE_IAPROF_H

#include <stddef.h>
#include <stdint.h>

enum {
	MODE_NORMAL, MODE_CHUNKED, MODE_BYTEWISE, MODE_MIDBLOCK, MODE_NOGPU,
	MODE_IGNOREINT, MODE_DIES, MODE_NOINTERVAL, MODE_MALFORMED,
	MODE_STALL, MODE_OLDGRAMMAR, MODE_FLOOD, MODE_GARBAGE, MODE_NOTROOT
};

enum { FLUSH_BLOCK, FLUSH_NEVER, FLUSH_BYTE };

struct fake {
	long interval_ms, subsample;
	int run, mode, flush;
	int blocks_max;
	uint64_t block;		/* next interval number */
	uint64_t next_id;	/* next string id */
	uint64_t ids[64];	/* model text index -> id, 0 undefined */
	char buf[4096];		/* stdio-sized output buffer */
	size_t buflen;
};

void out_bytes(const char *, size_t);
void out_printf(const char *, ...) __attribute__((format(printf, 1, 2)));
void out_flush(void);
void fake_log(const char *, ...) __attribute__((format(printf, 1, 2)));
void model_tick(struct fake *);

#endif
