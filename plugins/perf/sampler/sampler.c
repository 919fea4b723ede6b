/*
 * The sampler: one of its backends, chosen by --perf-backend.  "auto"
 * takes the BPF program (sampler_bpf.c: stacks, generations and filters in
 * the kernel) and, when this kernel cannot load it, perf events alone
 * (sampler_pev.c: what `perf record` does, on every kernel perf runs on),
 * saying why and what that costs.  Everything else is the backend's.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sampler_int.h"

static const struct sampler_ops *const sampler_backends[] = {
	&sampler_bpf_ops,
	&sampler_pev_ops,
};
#define NBACKENDS (sizeof(sampler_backends) / sizeof(sampler_backends[0]))

int
sampler_backend_parse(const char *name)
{
	size_t i;

	if (name == NULL || strcmp(name, "auto") == 0)
		return (SAMPLER_AUTO);
	for (i = 0; i < NBACKENDS; i++)
		if (strcmp(name, sampler_backends[i]->name) == 0)
			return ((int)i);
	return (-EINVAL);
}

struct sampler *
sampler_open(const struct sampler_opts *o, char *err, size_t errlen)
{
	struct sampler *s;
	char why[1024], msg[1400];

	if (o->backend >= 0 && (size_t)o->backend < NBACKENDS)
		return (sampler_backends[o->backend]->open(o, err, errlen));
	if ((s = sampler_bpf_ops.open(o, why, sizeof(why))) != NULL)
		return (s);
	/* A named event that cannot be opened fails either way. */
	if ((s = sampler_pev_ops.open(o, err, errlen)) == NULL) {
		snprintf(msg, sizeof(msg), "%s; %s", why, err);
		snprintf(err, errlen, "%s", msg);
		return (NULL);
	}
	if (o->log != NULL) {
		snprintf(msg, sizeof(msg), "%s; sampling through perf events "
		    "instead (--perf-backend perf-events): %s", why,
		    sampler_pev_costs(o));
		o->log(o->arg, 1, msg);
	}
	return (s);
}

const char *
sampler_backend_name(const struct sampler *s)
{
	return (s->ops->name);
}

void
sampler_close(struct sampler *s)
{
	if (s != NULL)
		s->ops->close(s);
}

void
sampler_resume(struct sampler *s)
{
	s->ops->resume(s);
}

int
sampler_drain(struct sampler *s)
{
	return (s->ops->drain(s));
}

int
sampler_wakeup_fd(const struct sampler *s)
{
	return (s->ops->wakeup_fd(s));
}

int
sampler_sync_cpus(struct sampler *s)
{
	return (s->ops->sync_cpus(s));
}

int
sampler_set_period(struct sampler *s, uint64_t period)
{
	return (s->ops->set_period(s, period));
}

void
sampler_stats(struct sampler *s, uint64_t out[STAT_NSTATS])
{
	s->ops->stats(s, out);
}

int
sampler_ksym_resolve(struct sampler *s, const uint64_t *addrs, size_t n,
    char *names, size_t name_len)
{
	if (s == NULL)
		return (-ENOTSUP);
	return (s->ops->ksym_resolve(s, addrs, n, names, name_len));
}

int
sampler_exec_gen(struct sampler *s, int32_t pid, uint32_t *gen)
{
	*gen = 0;
	if (s == NULL)
		return (-ENOENT);
	return (s->ops->exec_gen(s, pid, gen));
}

int
sampler_watch(struct sampler *s, int32_t pid, int on)
{
	return (s->ops->watch(s, pid, on));
}

int
sampler_cgroups_set(struct sampler *s, const uint64_t *ids, size_t n)
{
	if (n > SAMPLER_MAX_CGROUPS)
		return (-E2BIG);
	return (s->ops->cgroups_set(s, ids, n));
}

int
sampler_follows_exec(const struct sampler *s)
{
	return (s->ops->follows_exec(s));
}

const char *
sampler_event_name(const struct sampler *s)
{
	return (s->ops->event_name(s));
}
