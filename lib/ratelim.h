/*
 * The one rule the plugins keep for lines a local user can cause again and
 * again (a bad file, a malformed record, a pid that cannot be watched): at
 * most `burst` lines a window, the others held back and counted, the count
 * owned up to by the next line that goes out, or by the owner's summary
 * when it ends a window itself (a cycle's).  Pure: the caller gives the
 * time.  The core has its own (log_complain, core/base/log.c), whose
 * backoff keeps one line alive for conditions that last.
 */
#ifndef GP_LIB_RATELIM_H
#define GP_LIB_RATELIM_H

#include <stdint.h>

struct ratelim {
	uint64_t window_ms;	/* 0: until ratelim_end */
	unsigned burst;
	uint64_t start_ms;	/* 0: no window open */
	unsigned n;		/* lines out in this window */
	unsigned held;		/* held back since the last out */
};

#define RATELIM_INIT(burst, window_ms)	{ (window_ms), (burst), 0, 0, 0 }

/* Whether a line may go out at now_ms: 1, *held then the lines held back
 * since the last one out (to say so); 0, the line held back. */
static inline int
ratelim_admit(struct ratelim *r, uint64_t now_ms, unsigned *held)
{
	if (r->start_ms == 0 || (r->window_ms != 0 &&
	    now_ms - r->start_ms >= r->window_ms)) {
		r->start_ms = now_ms != 0 ? now_ms : 1;
		r->n = 0;
	}
	if (r->n >= r->burst) {
		r->held++;
		return (0);
	}
	r->n++;
	*held = r->held;
	r->held = 0;
	return (1);
}

/* Open a new window at the next line (the clock jumped: tests), the
 * lines held back still to be owned up to. */
static inline void
ratelim_next(struct ratelim *r)
{
	r->start_ms = 0;
}

/* End the window: the lines held back and not yet owned up to. */
static inline unsigned
ratelim_end(struct ratelim *r)
{
	unsigned held = r->held;

	r->start_ms = 0;
	r->n = r->held = 0;
	return (held);
}

#endif
