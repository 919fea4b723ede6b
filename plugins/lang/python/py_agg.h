/*
 * Per-PID aggregation of folded Python stacks between two snapshots:
 * identical stacks of one PID are counted once.
 */
#ifndef GP_PY_AGG_H
#define GP_PY_AGG_H

#include <stdint.h>

struct py_agg;

typedef void	(*py_agg_fn)(void *, int32_t, const char *const *, uint32_t,
		    uint64_t);

struct py_agg	*py_agg_new(void);
void		 py_agg_free(struct py_agg *);
int		 py_agg_add(struct py_agg *, int32_t, const char *const *,
		    uint32_t, uint64_t);
void		 py_agg_foreach(struct py_agg *, py_agg_fn, void *);
uint64_t	 py_agg_pid_total(struct py_agg *, int32_t);
uint32_t	 py_agg_count(const struct py_agg *);
void		 py_agg_clear(struct py_agg *);

#endif
