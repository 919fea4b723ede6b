/*
 * A clock's time as one integer of nanoseconds, for the core and the
 * plugins alike: each had its own copy of these lines, per unit and clock.
 * 0 if the clock cannot be read (never, for the monotonic clocks), so a
 * caller that keeps 0 for "not yet" sees no time rather than garbage.
 */
#ifndef GP_LIB_CLOCKNS_H
#define GP_LIB_CLOCKNS_H

#include <stdint.h>
#include <time.h>

static inline uint64_t
clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return (0);
	return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
}

#endif
