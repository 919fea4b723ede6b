/*
 * Periodic timers on a shared grid: a period of whole seconds fires at the
 * multiples of that period on the monotonic clock, so the agent's slow
 * timers (memory sampling, the perf drain backstop) fire together and the
 * agent wakes once for all of them.  Waking is what an idle agent pays
 * for: on a busy (virtual) machine each wake-up costs far more CPU than
 * the work it does.
 */
#include "config.h"

#include <sys/time.h>

#include <time.h>

#include "base/tick.h"

/* Tolerate a timer that fires this early without firing twice. */
#define TICK_EARLY_MS	50

/* 1 if period_ms is aligned to the grid (whole seconds). */
int
tick_aligned(uint64_t period_ms)
{
	return (period_ms >= 1000 && period_ms % 1000 == 0);
}

/* The delay until the next grid point of period_ms after now. */
void
tick_next(uint64_t period_ms, struct timeval *tv)
{
	struct timespec ts;
	uint64_t now, next;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	next = ((now + TICK_EARLY_MS) / period_ms + 1) * period_ms;
	tv->tv_sec = (time_t)((next - now) / 1000);
	tv->tv_usec = (suseconds_t)((next - now) % 1000 * 1000);
}
