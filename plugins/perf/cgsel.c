/*
 * The pure parts of --perf-use-cgroups: a cgroup's CPU usage from its
 * cpu.stat text, docker containers recognised by their cgroup names (as
 * the core's container metadata does), and gProfiler's choice of which
 * cgroups perf samples.  No I/O here: cgwalk.c reads the files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgroups.h"

#define DOCKER_ID_LEN	64

int
cgstat_parse_usage(const char *buf, size_t len, uint64_t *usec)
{
	static const char key[] = "usage_usec ";
	const size_t klen = sizeof(key) - 1;
	size_t i = 0, j;
	uint64_t v, d;
	int digits;

	/* one "key value" per line; the key must start a line */
	while (i < len) {
		if (len - i > klen && memcmp(buf + i, key, klen) == 0) {
			v = 0;
			digits = 0;
			for (j = i + klen; j < len && buf[j] >= '0' &&
			    buf[j] <= '9'; j++) {
				d = (uint64_t)(buf[j] - '0');
				if (v > UINT64_MAX / 10 || (v == UINT64_MAX /
				    10 && d > UINT64_MAX % 10))
					return (-EINVAL);
				v = v * 10 + d;
				digits++;
			}
			if (digits == 0 || (j < len && buf[j] != '\n'))
				return (-EINVAL);
			*usec = v;
			return (0);
		}
		while (i < len && buf[i] != '\n')
			i++;
		i++;
	}
	return (-EINVAL);
}

static int
cgsel_is_hex64(const char *s, size_t n)
{
	size_t i;

	if (n != DOCKER_ID_LEN)
		return (0);
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return (0);
	return (1);
}

int
cgsel_is_docker(const char *name, const char *parent)
{
	static const char pre[] = "docker-", suf[] = ".scope";
	size_t n = strlen(name), p = sizeof(pre) - 1, s = sizeof(suf) - 1;

	if (n == p + DOCKER_ID_LEN + s && memcmp(name, pre, p) == 0 &&
	    memcmp(name + n - s, suf, s) == 0)
		return (cgsel_is_hex64(name + p, DOCKER_ID_LEN));
	return (parent != NULL && strcmp(parent, "docker") == 0 &&
	    cgsel_is_hex64(name, n));
}

/* Busiest first; the same usage in id order, so a choice is repeatable. */
static int
cgsel_cmp(const void *a, const void *b)
{
	const struct cg_entry *x = a, *y = b;

	if (x->delta != y->delta)
		return (x->delta > y->delta ? -1 : 1);
	if (x->id != y->id)
		return (x->id < y->id ? -1 : 1);
	return (0);
}

/* Move e[i] to e[k] (k <= i), keeping the order of e[k..i). */
static void
cgsel_take(struct cg_entry *e, size_t k, size_t i)
{
	struct cg_entry t;

	if (k == i)
		return;
	t = e[i];
	memmove(&e[k + 1], &e[k], (i - k) * sizeof(*e));
	e[k] = t;
}

size_t
cgsel_choose(struct cg_entry *e, size_t n, uint64_t max_cgroups,
    uint64_t max_docker)
{
	size_t i, k = 0;

	if (n == 0)
		return (0);
	qsort(e, n, sizeof(*e), cgsel_cmp);
	if (max_docker == 0)
		return (n < max_cgroups ? n : (size_t)max_cgroups);
	/* Docker containers first, each one alone (gProfiler's
	 * --perf-max-docker-containers), busiest first. */
	for (i = 0; i < n && k < max_docker; i++)
		if (e[i].docker)
			cgsel_take(e, k++, i);
	/* Then other cgroups, not docker ones, while the total is below
	 * --perf-max-cgroups. */
	for (i = k; i < n && k < max_cgroups; i++)
		if (!e[i].docker)
			cgsel_take(e, k++, i);
	return (k);
}
