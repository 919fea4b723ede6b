/*
 * Retry delays: exponential backoff with "equal jitter", so many agents
 * that lost the backend together do not come back in lock step.
 */
#include "config.h"

#include <stdlib.h>

#include "studio/studio.h"

/* The delay before retry `attempt` (0-based): half fixed, half random. */
unsigned
backoff_delay_ms(unsigned attempt, unsigned base_ms, unsigned max_ms)
{
	unsigned long long d = base_ms;
	unsigned half;

	while (attempt-- > 0 && d < max_ms)
		d *= 2;
	if (d > max_ms)
		d = max_ms;
	half = (unsigned)(d / 2);
	return (half + (half > 0 ? (unsigned)(random() % (half + 1)) : 0));
}
