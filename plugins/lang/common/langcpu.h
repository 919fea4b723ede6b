/*
 * A process's CPU use between two scans of a runtime plugin, to sample
 * the busiest --max-processes: CPU ticks a second since the scan before,
 * or over its whole life until a second scan.
 */
#ifndef GP_LANGCPU_H
#define GP_LANGCPU_H

#include <stdint.h>

struct langcpu {
	uint64_t ticks;	/* utime + stime at the last scan */
	double at;	/* the process's age then, seconds */
	double rate;	/* ticks a second */
};

/* First sight: its average over its life. */
static inline void
langcpu_first(struct langcpu *c, double age, uint64_t ticks)
{
	c->ticks = ticks;
	c->at = age;
	c->rate = age > 0 ? (double)ticks / age : 0;
}

/*
 * A rate over less than LANGCPU_MIN_S is the clock tick's noise (CPU time
 * counts in 10 ms ticks: a scan right after another gave one process a
 * tick and the next none, and --max-processes chose a light process over
 * a busy one): the last rate stays, measured on from the same point.
 */
#define LANGCPU_MIN_S	0.5

static inline void
langcpu_update(struct langcpu *c, double age, uint64_t ticks)
{
	if (age < c->at + LANGCPU_MIN_S && ticks >= c->ticks)
		return;
	if (age > c->at && ticks >= c->ticks)
		c->rate = (double)(ticks - c->ticks) / (age - c->at);
	c->ticks = ticks;
	c->at = age;
}

#endif /* GP_LANGCPU_H */
