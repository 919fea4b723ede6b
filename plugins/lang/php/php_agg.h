/*
 * Per-PID aggregation of folded PHP stacks between two snapshots:
 * identical stacks of one PID are counted once.
 */
#ifndef GP_PHP_AGG_H
#define GP_PHP_AGG_H

#include <stdint.h>

struct php_agg;

typedef void	(*php_agg_fn)(void *, int32_t, const char *const *, uint32_t,
		    uint64_t);

struct php_agg	*php_agg_new(void);
void		 php_agg_free(struct php_agg *);
int		 php_agg_add(struct php_agg *, int32_t, const char *const *,
		    uint32_t, uint64_t);
void		 php_agg_foreach(struct php_agg *, php_agg_fn, void *);
uint64_t	 php_agg_pid_total(struct php_agg *, int32_t);
uint32_t	 php_agg_count(const struct php_agg *);
void		 php_agg_clear(struct php_agg *);

#endif
