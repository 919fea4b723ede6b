/*
 * A runtime plugin's process table: a flat array (a few hundred entries
 * on a busy host, looked up once per report), entries identified by PID,
 * start time and executable.
 */
#include "config.h"

#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "langtab.h"

int
langtab_init(struct langtab *tab, void (*release)(void *,
    struct langtab_proc *), void *arg)
{
	tab->n = 0;
	tab->retry = NULL;
	tab->release = release;
	tab->arg = arg;
	if ((tab->procs = calloc(LANGTAB_MAX, sizeof(*tab->procs))) == NULL)
		return (-ENOMEM);
	return (0);
}

void
langtab_free(struct langtab *tab)
{
	while (tab->procs != NULL && tab->n > 0)
		langtab_remove(tab, tab->procs[tab->n - 1]);
	free(tab->procs);
	tab->procs = NULL;
}

struct langtab_proc *
langtab_find(const struct langtab *tab, pid_t pid)
{
	struct langtab_proc *gone = NULL;
	uint32_t i;

	for (i = 0; i < tab->n; i++)
		if (tab->procs[i]->pid == pid) {
			if (tab->procs[i]->state != LANGTAB_GONE)
				return (tab->procs[i]);
			gone = tab->procs[i];
		}
	return (gone);
}

int
langtab_add(struct langtab *tab, struct langtab_proc *pr)
{
	if (tab->n >= LANGTAB_MAX)
		return (-ENOSPC);
	tab->procs[tab->n++] = pr;
	return (0);
}

/*
 * The table is full: the process of another runtime due for a recheck
 * soonest gives its place.  Forgetting it costs at most one more look if
 * it is sampled again (its maps read on its own user's budget); without
 * this a user who keeps 4096 processes alive, each sampled once, would
 * keep every later interpreter or JVM out.  -ENOSPC when every entry is
 * one of ours.
 */
static int
langtab_make_room(struct langtab *tab)
{
	struct langtab_proc *old = NULL, *lp;
	uint32_t i;

	for (i = 0; i < tab->n; i++) {
		lp = tab->procs[i];
		if (lp->state == LANGTAB_IGNORED &&
		    (old == NULL || lp->recheck_at < old->recheck_at))
			old = lp;
	}
	if (old == NULL)
		return (-ENOSPC);
	langtab_remove(tab, old);
	return (0);
}

struct langtab_proc *
langtab_new(struct langtab *tab, size_t size, pid_t pid, uint64_t start,
    uint64_t exe_id)
{
	struct langtab_proc *lp;

	if (size < sizeof(*lp) || (tab->n >= LANGTAB_MAX &&
	    langtab_make_room(tab) != 0) || (lp = calloc(1, size)) == NULL)
		return (NULL);
	lp->pid = pid;
	lp->starttime = start;
	lp->exe_id = exe_id;
	lp->seen = 1;
	(void)langtab_add(tab, lp);
	return (lp);
}

void
langtab_remove(struct langtab *tab, struct langtab_proc *pr)
{
	uint32_t i;

	for (i = 0; i < tab->n; i++)
		if (tab->procs[i] == pr)
			break;
	if (i == tab->n)
		return;
	tab->procs[i] = tab->procs[--tab->n];
	tab->release(tab->arg, pr);
}

int
langtab_same(struct langtab *tab, struct langtab_proc **prp, uint64_t start,
    uint64_t exe_id)
{
	struct langtab_proc *pr = *prp;

	if (pr == NULL)
		return (0);
	if (pr->starttime == start && pr->exe_id == exe_id) {
		pr->seen = 1;
		return (1);
	}
	/* PID reused or exec'd: the old process is gone. */
	pr->state = LANGTAB_GONE;
	if (pr->samples == 0) {
		langtab_remove(tab, pr);
		*prp = NULL;
	}
	return (0);
}

void
langtab_looked(struct langtab_proc *lp, uint64_t vsize, double uptime)
{
	if (lp->recheck_s < LANGTAB_RECHECK_MIN_S)
		lp->recheck_s = LANGTAB_RECHECK_MIN_S;
	lp->vsize = vsize;
	lp->recheck_at = uptime + lp->recheck_s;
	lp->recheck_s = lp->recheck_s * 2 < LANGTAB_RECHECK_MAX_S ?
	    lp->recheck_s * 2 : LANGTAB_RECHECK_MAX_S;
}

int
langtab_recheck(struct langtab_proc *lp, uint64_t vsize, double uptime)
{
	if (lp->state != LANGTAB_IGNORED || vsize == lp->vsize ||
	    uptime < lp->recheck_at)
		return (0);
	langtab_looked(lp, vsize, uptime);
	return (1);
}

int
langtab_due(struct langtab_proc *lp, uint64_t vsize, double uptime,
    const struct gp_host_api *api, struct gp_plugin_ctx *ctx)
{
	if (lp->state == LANGTAB_NEW)
		return (1);
	if (!langtab_recheck(lp, vsize, uptime))
		return (0);
	api->log(ctx, GP_LOG_DEBUG, "pid %d: its mappings changed: looked at "
	    "again", (int)lp->pid);
	return (1);
}

int
langtab_settle(int state, double age)
{
	if (state == LANGTAB_ACTIVE || state == LANGTAB_GONE)
		return (state);
	return (age >= 0 && age < LANGTAB_SETTLE_S ? LANGTAB_NEW : state);
}

int
langtab_attach_state(int rc, double age)
{
	switch (rc) {
	case 0:
		return (LANGTAB_ACTIVE);
	case -ESRCH:
		return (LANGTAB_GONE);
	case -ENOENT:
		return (LANGTAB_IGNORED);
	case -EAGAIN:
		return (langtab_settle(LANGTAB_IGNORED, age));
	case -EINPROGRESS:
		/* the ELF reader's turn spent: tried again, whatever its
		 * age (elfread.h) */
		return (LANGTAB_NEW);
	case -ENOTSUP:
		return (langtab_settle(LANGTAB_SKIPPED, age));
	default:
		return (langtab_settle(LANGTAB_ERROR, age));
	}
}

void
langtab_attach_log(const struct gp_host_api *api, struct gp_plugin_ctx *ctx,
    const struct langtab_proc *lp, double age, const char *comm,
    const char *reason)
{
	if (lp->state == LANGTAB_NEW)
		api->log(ctx, GP_LOG_DEBUG, "pid %d (%.1f s old): %s; trying "
		    "again", (int)lp->pid, age, reason);
	else if (lp->state == LANGTAB_SKIPPED || lp->state == LANGTAB_ERROR)
		api->log(ctx, GP_LOG_INFO, "pid %d (%s)%s: %s", (int)lp->pid,
		    comm, lp->state == LANGTAB_SKIPPED ? " skipped" : "",
		    reason);
	else if (lp->state == LANGTAB_IGNORED)
		api->log(ctx, GP_LOG_DEBUG, "pid %d (%s, %.1f s old): %s",
		    (int)lp->pid, comm, age, reason);
}

int
langtab_read_done(struct langtab_proc *lp, int rc, uint32_t *fails,
    uint32_t limit)
{
	if (rc == 0) {
		*fails = 0;
		return (0);
	}
	if (rc == -ESRCH) {
		lp->state = LANGTAB_GONE;
		return (0);
	}
	/* Torn reads while the stack changes are normal; a run is not.
	 * A read refused (the guard's, or the kernel's) would be refused
	 * again. */
	if (++*fails < limit && rc != -EPERM && rc != -EREMOTE)
		return (0);
	lp->state = LANGTAB_ERROR;
	return (1);
}

void
langtab_read_error(const struct gp_host_api *api, struct gp_plugin_ctx *ctx,
    const struct langtab_proc *lp, int rc, const char *refused_why,
    char *reason, size_t len)
{
	if (rc == -EREMOTE && refused_why != NULL)
		snprintf(reason, len, "%s", refused_why);
	else
		snprintf(reason, len, "cannot read process memory: %s",
		    strerror(-rc));
	api->log(ctx, GP_LOG_INFO, "pid %d: %s", (int)lp->pid, reason);
}

uint32_t
langtab_count(const struct langtab *tab, int state)
{
	uint32_t i, n = 0;

	for (i = 0; i < tab->n; i++)
		n += tab->procs[i]->state == state;
	return (n);
}

void
langtab_retry_sync(struct langtab *tab, const struct gp_host_api *api,
    struct gp_plugin_ctx *ctx, void (*fn)(void *), void *arg)
{
	int young = langtab_count(tab, LANGTAB_NEW) > 0;

	if (!young)
		langtab_retry_stop(tab, api);
	else if (tab->retry == NULL)
		tab->retry = api->timer_add(ctx, LANGTAB_RETRY_MS, 1, fn, arg);
}

void
langtab_retry_stop(struct langtab *tab, const struct gp_host_api *api)
{
	if (tab->retry != NULL)
		api->timer_del(tab->retry);
	tab->retry = NULL;
}

void
langtab_unsee(struct langtab *tab)
{
	uint32_t i;

	for (i = 0; i < tab->n; i++)
		tab->procs[i]->seen = 0;
}

void
langtab_prune(struct langtab *tab)
{
	struct langtab_proc *pr;
	uint32_t i;

	for (i = 0; i < tab->n;) {
		pr = tab->procs[i];
		if (!pr->seen)
			pr->state = LANGTAB_GONE;
		if (pr->state == LANGTAB_GONE && pr->samples == 0)
			langtab_remove(tab, pr);	/* the last moves to i */
		else
			i++;
	}
}

int
langtab_walk_proc(void (*fn)(void *, pid_t, double), void *arg)
{
	struct dirent *de;
	DIR *d;
	char *end;
	long pid;
	double uptime = langtab_uptime();	/* once, not per PID */

	if ((d = opendir("/proc")) == NULL)
		return (-errno);
	while ((de = readdir(d)) != NULL) {
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0)
			continue;
		fn(arg, (pid_t)pid, uptime);
	}
	closedir(d);
	return (0);
}

double
langtab_uptime(void)
{
	struct timespec ts;

	/* /proc/uptime's clock, without opening it: this runs for each
	 * process the system profiler reports (ABI 1.4). */
	if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
		return (-1);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

double
langtab_age(uint64_t start, double uptime)
{
	long hz = sysconf(_SC_CLK_TCK);
	double age;

	if (uptime < 0 || hz <= 0)
		return (-1);
	age = uptime - (double)start / (double)hz;
	return (age < 0 ? 0 : age);
}
