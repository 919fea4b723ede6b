/*
 * /proc/PID/stat, which the core and every plugin read (lib/procstat.c):
 * its fields are counted from the last ')', since the comm (field 2) is
 * the process's to name and may hold spaces, ')' and any other byte.
 * Pure functions over bytes.
 */
#ifndef GP_PROCSTAT_H
#define GP_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>

/* Field want (3 or more, numbered as proc(5) numbers them): 0 with *at
 * the offset of its first byte, or -EINVAL. */
int procstat_at(const char *, size_t, int want, size_t *at);
/* The same field as a decimal number: 0, or -EINVAL (no digit, or past
 * UINT64_MAX). */
int procstat_u64(const char *, size_t, int want, uint64_t *);
/* The state (field 3: R, S, D, ...): 0, or -EINVAL. */
int procstat_state(const char *, size_t, char *);
/* The CPU it used, utime + stime (fields 14 and 15), in clock ticks: 0,
 * or -EINVAL. */
int procstat_cpu(const char *, size_t, uint64_t *);

#endif
