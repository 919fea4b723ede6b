/*
 * JIT perf map files (/tmp/perf-PID.map): "START SIZE name" lines, START
 * and SIZE hexadecimal with or without 0x, name = rest of the line.  Fed
 * incrementally as the file grows; later entries win over earlier
 * overlapping ones (code reuse).  Feeding is linear: lines are appended
 * and perfmap_sort, called once after a batch of feeds, sorts the new tail
 * and merges it in (never the whole table again).  A line longer than
 * PERFMAP_MAX_NAME is skipped to its end, whatever the feeds' boundaries.
 * Names are stored with the "_[j]" suffix
 * in chunks that never move, so a returned name stays valid while the
 * file grows; perfmap_detach_names hands them over on a reset.
 */
#ifndef PERF_PERFMAP_H
#define PERF_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

#define PERFMAP_SUFFIX		"_[j]"
#define PERFMAP_MAX_NAME	4096
#define PERFMAP_MAX_ENTRIES	(1u * 1024 * 1024)	/* per map */

struct perfmap_entry {
	uint64_t start;
	uint64_t end;
	const char *name;	/* in a chunk */
	uint64_t seq;		/* line order: higher wins */
};

struct perfmap_chunk {
	struct perfmap_chunk *next;
	size_t used;
	size_t size;
	char data[];
};

struct perfmap {
	struct perfmap_entry *v;
	size_t n;
	size_t sorted;	/* v[0..sorted) is in order: what lookups see */
	int skipping;	/* inside an over-long line */
	/* Sorting v[sorted..ig_end) in slices (perfmap_sort.c): chunks
	 * sorted, runs merged pass by pass, then merged with v[0..sorted)
	 * into a new table.  Lines fed meanwhile wait for the next round. */
	size_t ig_end;	/* 0: nothing in progress */
	int ig_phase;
	int ig_in_tmp;			/* the runs are in ig_tmp */
	size_t ig_width;		/* run width of this pass */
	size_t ig_lo;			/* pair (or chunk) in progress */
	size_t ig_a, ig_b, ig_o;	/* merge cursors */
	struct perfmap_entry *ig_tmp;	/* runs, then the new table */
	struct perfmap_entry *ig_new;
	size_t ig_new_cap;
	/* Kept from round to round (the previous table, the runs): a
	 * large table's buffers are not unmapped and faulted in again
	 * every round. */
	struct perfmap_entry *ig_spare;
	size_t ig_spare_cap;
	size_t ig_tmp_cap;
	size_t cap;
	struct perfmap_chunk *names;	/* newest first */
	size_t names_len;
	uint64_t seq;
	size_t bad_lines;
	size_t dropped;	/* over PERFMAP_MAX_ENTRIES */
};

/*
 * Parse the complete lines of buf (a trailing partial line is left for
 * the next call: *consumed says how far we got; one longer than any valid
 * line is consumed, counted bad, and the rest of it skipped in the next
 * feeds).  0 or -ENOMEM.  With `final` set a last line without '\n' is
 * parsed too.  Lookups see the new lines after perfmap_sort.
 */
int perfmap_feed(struct perfmap *, const char *, size_t, int,
		    size_t *);
/* Sort everything fed so far into what lookups see, now. */
int perfmap_sort(struct perfmap *);
/*
 * The same in slices: at most about `budget` entry moves per call (a
 * merge sort whose every step can stop and resume), the moves made in
 * *used (may be NULL).  1 while work remains, 0 when lookups see every
 * line fed, -ENOMEM.
 */
int perfmap_sort_step(struct perfmap *, size_t budget,
		    size_t *used);
/* Room for n entries (at most PERFMAP_MAX_ENTRIES) before they come, so
 * the table is not copied as it grows; 0 or -ENOMEM. */
int perfmap_reserve(struct perfmap *, size_t);
/* Entries v[0..sorted) are ordered by (start, seq). */
int perfmap_cmp(const void *, const void *);
const char *perfmap_lookup(const struct perfmap *, uint64_t);
void perfmap_free(struct perfmap *);
/* Empty pm but keep its names alive: the caller frees the returned list
 * with perfmap_chunks_free (returned names stay valid until then). */
struct perfmap_chunk *perfmap_detach_names(struct perfmap *);
void perfmap_chunks_free(struct perfmap_chunk *);

#endif
