/*
 * The driver of a sampling runtime plugin (PHP, Ruby): which processes it
 * knows (a langtab), how it finds them (the system profiler's reports, or
 * a walk of /proc each second without one), and the -f Hz timer that
 * samples the attached ones, running only while there is one.  The
 * plugin says what examining a process and sampling it mean; everything
 * about when is here, once.
 */
#ifndef GP_LANGDRV_H
#define GP_LANGDRV_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

#include "langtab.h"

struct langdrv_ops {
	size_t	 proc_size;	/* the plugin's entry, a langtab_proc first */
	/* A new or re-exec'd process, or one whose attach is due again:
	 * sets lp->state (langtab_attach_state). */
	void	 (*examine)(void *, struct langtab_proc *, double age);
	/* One sample of an attached (LANGTAB_ACTIVE) process. */
	void	 (*sample)(void *, struct langtab_proc *);
	/* How processes are found is known (optional): its log line. */
	void	 (*started)(void *);
	/* Walk /proc at start when no system profiler reports processes
	 * yet, rather than a second later. */
	int	 scan_at_start;
	uint32_t rescan_ms;	/* the walk's period without reports */
};

struct langdrv {
	struct gp_plugin_ctx	*ctx;
	const struct gp_host_api *api;
	const struct langdrv_ops *ops;
	void			*arg;	/* the plugin's, for its ops */
	uint32_t		 freq;
	double			 min_duration;
	struct gp_timer		*sample_timer;
	struct gp_timer		*scan_timer;
	struct gp_timer		*first_timer;	/* once all plugins started */
	int			 discover;	/* from the host's reports */
	int			 walk_once;	/* reports began: what came before */
	struct langtab		 tab;
};

/* The table, and the readers' files opened and their ELF complaints
 * logged through the host (langproc, elfread). */
int	langdrv_init(struct langdrv *, struct gp_plugin_ctx *,
	    const struct gp_host_api *, const struct langdrv_ops *, void *arg,
	    void (*release)(void *, struct langtab_proc *));
void	langdrv_free(struct langdrv *);
/* Sampling at freq Hz from now: 0, or -ENOMEM (everything reset). */
int	langdrv_start(struct langdrv *, uint32_t freq, double min_duration);
/* Timers off, reports unsubscribed, every process forgotten. */
void	langdrv_reset(struct langdrv *);
/* The known processes checked, or /proc walked; the vanished pruned. */
void	langdrv_scan(struct langdrv *);
/* The sample timer on while a process is attached, the retry timer while
 * one waits to be. */
void	langdrv_timer_sync(struct langdrv *);

#endif
