/*
 * Per-PID aggregation of folded PHP stacks between two snapshots:
 * identical stacks of one PID are counted once.
 */
#ifndef GP_RUBY_AGG_H
#define GP_RUBY_AGG_H

#include <stdint.h>

struct ruby_agg;

typedef void	(*ruby_agg_fn)(void *, int32_t, const char *const *,
		    uint32_t, uint64_t);

struct ruby_agg	*ruby_agg_new(void);
void		 ruby_agg_free(struct ruby_agg *);
int		 ruby_agg_add(struct ruby_agg *, int32_t,
		    const char *const *, uint32_t, uint64_t);
void		 ruby_agg_foreach(struct ruby_agg *, ruby_agg_fn, void *);
uint64_t	 ruby_agg_pid_total(struct ruby_agg *, int32_t);
uint32_t	 ruby_agg_count(const struct ruby_agg *);
void		 ruby_agg_clear(struct ruby_agg *);

#endif
