/*
 * col_header.c: the time window a .col file's header line states, for
 * upload-file (a pure function over bytes, fuzzed).
 */
#ifndef GP_COL_HEADER_H
#define GP_COL_HEADER_H

#include <stddef.h>
#include <time.h>

/*
 * The window of the profile in buf (a whole .col, or just its first
 * line): the header's "start_time" and "end_time".  0 with both set; 1
 * when only an end is known (metadata.current_time, or end_time alone:
 * *start = *end); -EINVAL with err saying what is missing or bad.
 */
int col_header_window(const char *buf, size_t len, struct timespec *start,
	    struct timespec *end, char *err, size_t errlen);
/* "2025-01-08T11:00:00[.ffffff][Z|+HH:MM|-HH:MM]" (naive = UTC); 0 or
 * -EINVAL. */
int col_time_parse(const char *s, size_t len, struct timespec *ts);

#endif
