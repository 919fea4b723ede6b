/*
 * --perf-event names as perf(1) spells them (tools/perf's event tables:
 * `perf list` sections "Hardware event", "Software event", "Hardware cache
 * event", "Raw hardware event descriptor" and "Tracepoint event"), which is
 * what gProfiler hands to `perf record -e`.  Modifiers (":u", ":p") are not
 * taken: gProfiler takes the bare name and adds its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/perf_event.h>

#include "perfevent.h"

struct perfevent_sym {
	const char *name;
	const char *alias;
	uint32_t type;
	uint64_t config;
};

static const struct perfevent_sym perfevent_syms[] = {
	{ "cpu-cycles", "cycles", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", "branches", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", "idle-cycles-frontend",
	  PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", "idle-cycles-backend",
	  PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", NULL, PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_EMULATION_FAULTS },
	/* 11: PERF_COUNT_SW_CGROUP_SWITCHES (Linux 5.13), by number so
	 * older headers build */
	{ "cgroup-switches", NULL, PERF_TYPE_SOFTWARE, 11 },
};

/* perf's cache names and their spellings (parse-events.c). */
static const struct {
	const char *name;
	uint64_t id;
} perfevent_caches[] = {
	{ "L1-dcache", PERF_COUNT_HW_CACHE_L1D },
	{ "L1-icache", PERF_COUNT_HW_CACHE_L1I },
	{ "LLC", PERF_COUNT_HW_CACHE_LL },
	{ "dTLB", PERF_COUNT_HW_CACHE_DTLB },
	{ "iTLB", PERF_COUNT_HW_CACHE_ITLB },
	{ "branch", PERF_COUNT_HW_CACHE_BPU },
	{ "node", PERF_COUNT_HW_CACHE_NODE },
};

static const struct {
	const char *name;
	uint64_t id;
} perfevent_cache_ops[] = {
	{ "load", PERF_COUNT_HW_CACHE_OP_READ },
	{ "store", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "prefetch", PERF_COUNT_HW_CACHE_OP_PREFETCH },
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static const char PERFEVENT_HELP[] = "expected a perf event name as `perf "
    "list` shows it: cycles, instructions, cache-misses, branch-misses, "
    "cpu-clock, task-clock, page-faults, context-switches, ..., a cache "
    "event (L1-dcache-load-misses), a raw event (r1a8) or a tracepoint "
    "(sched:sched_switch)";

/* "L1-dcache-load-misses", "LLC-loads": 0 and *config, or -EINVAL. */
static int
perfevent_cache(const char *s, uint64_t *config)
{
	const char *rest, *op;
	size_t i, j, n, k;

	for (i = 0; i < NELEM(perfevent_caches); i++) {
		n = strlen(perfevent_caches[i].name);
		if (strncasecmp(s, perfevent_caches[i].name, n) != 0 ||
		    s[n] != '-')
			continue;
		rest = s + n + 1;
		for (j = 0; j < NELEM(perfevent_cache_ops); j++) {
			op = perfevent_cache_ops[j].name;
			k = strlen(op);
			if (strncasecmp(rest, op, k) != 0)
				continue;
			/* "loads": every access; "load-misses": misses */
			if (strcasecmp(rest + k, "s") == 0)
				*config = perfevent_caches[i].id |
				    perfevent_cache_ops[j].id << 8 |
				    (uint64_t)PERF_COUNT_HW_CACHE_RESULT_ACCESS
				    << 16;
			else if (strcasecmp(rest + k, "-misses") == 0)
				*config = perfevent_caches[i].id |
				    perfevent_cache_ops[j].id << 8 |
				    (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS
				    << 16;
			else
				continue;
			return (0);
		}
	}
	return (-EINVAL);
}

/* [A-Za-z0-9_]+, at most max-1 bytes. */
static int
perfevent_ident(const char *s, size_t n, char *out, size_t max)
{
	size_t i;

	if (n == 0 || n >= max)
		return (-EINVAL);
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return (-EINVAL);
	memcpy(out, s, n);
	out[n] = '\0';
	return (0);
}

/* Whether the n bytes at s name a symbolic (non-tracepoint) event. */
static int
perfevent_known(const char *s, size_t n)
{
	struct perfevent ev;
	char buf[PERFEVENT_NAME_LEN], err[8];

	if (n >= sizeof(buf))
		return (0);
	memcpy(buf, s, n);
	buf[n] = '\0';
	return (strchr(buf, ':') == NULL && perfevent_parse(buf, &ev, err,
	    sizeof(err)) == 0);
}

int
perfevent_parse(const char *s, struct perfevent *ev, char *err,
    size_t errlen)
{
	const char *colon;
	char *end;
	size_t i, n;

	memset(ev, 0, sizeof(*ev));
	n = s != NULL ? strlen(s) : 0;
	if (n == 0 || n >= sizeof(ev->name)) {
		snprintf(err, errlen, "--perf-event '%.64s': %s", s != NULL ?
		    s : "", PERFEVENT_HELP);
		return (-EINVAL);
	}
	memcpy(ev->name, s, n + 1);
	for (i = 0; i < NELEM(perfevent_syms); i++)
		if (strcmp(s, perfevent_syms[i].name) == 0 ||
		    (perfevent_syms[i].alias != NULL &&
		    strcmp(s, perfevent_syms[i].alias) == 0)) {
			ev->type = perfevent_syms[i].type;
			ev->config = perfevent_syms[i].config;
			return (0);
		}
	if (strcmp(s, "dummy") == 0 || strcmp(s, "bpf-output") == 0) {
		snprintf(err, errlen, "--perf-event %s: not a sampling event "
		    "(it never overflows); use cpu-clock, page-faults, "
		    "cycles, ...", s);
		return (-EINVAL);
	}
	if (perfevent_cache(s, &ev->config) == 0) {
		ev->type = PERF_TYPE_HW_CACHE;
		return (0);
	}
	/* rNNNN: a raw PMU event code, in hex */
	if (s[0] == 'r' && n >= 2 && n <= 17 &&
	    strspn(s + 1, "0123456789abcdefABCDEF") == n - 1) {
		ev->type = PERF_TYPE_RAW;
		ev->config = strtoull(s + 1, &end, 16);
		return (0);
	}
	/* "cycles:u": an event with perf's modifiers, not a tracepoint */
	if ((colon = strchr(s, ':')) != NULL && perfevent_known(s,
	    (size_t)(colon - s)))
		goto bad;
	if (colon != NULL && strchr(colon + 1, ':') ==
	    NULL && perfevent_ident(s, (size_t)(colon - s), ev->tp_sys,
	    sizeof(ev->tp_sys)) == 0 && perfevent_ident(colon + 1,
	    strlen(colon + 1), ev->tp_name, sizeof(ev->tp_name)) == 0) {
		ev->type = PERF_TYPE_TRACEPOINT;
		return (0);
	}
bad:
	if (colon != NULL)
		snprintf(err, errlen, "--perf-event '%s': not an event name "
		    "(modifiers such as :u or :p and wildcards are not "
		    "taken; a tracepoint is subsystem:name): %s", s,
		    PERFEVENT_HELP);
	else if (strchr(s, '/') != NULL || strchr(s, '.') != NULL)
		snprintf(err, errlen, "--perf-event '%s': PMU-specific events "
		    "(pmu/.../, vendor JSON names) are not known here: give "
		    "its raw code as rNNNN (perf list -v shows it), or %s", s,
		    PERFEVENT_HELP);
	else
		snprintf(err, errlen, "--perf-event '%s': unknown event: %s",
		    s, PERFEVENT_HELP);
	memset(ev, 0, sizeof(*ev));
	return (-EINVAL);
}

const char *
perfevent_kind(const struct perfevent *ev)
{
	switch (ev->type) {
	case PERF_TYPE_HARDWARE:
		return ("hardware");
	case PERF_TYPE_SOFTWARE:
		return ("software");
	case PERF_TYPE_HW_CACHE:
		return ("hardware cache");
	case PERF_TYPE_RAW:
		return ("raw hardware");
	case PERF_TYPE_TRACEPOINT:
		return ("tracepoint");
	}
	return ("unknown");
}

int
perfevent_tp_id(const char *buf, size_t len, uint64_t *id)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return (-EINVAL);
		v = v * 10 + (uint64_t)(buf[i] - '0');
	}
	if (i == 0 || (i < len && !(buf[i] == '\n' && i + 1 == len)))
		return (-EINVAL);
	*id = v;
	return (0);
}
