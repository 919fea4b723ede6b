/*
 * Unit tests for plugins/perf/sampler/perfevent.c: --perf-event names as
 * perf(1) spells them, and tracefs tracepoint ids.
 */
#include <errno.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "testing.h"
#include "sampler/perfevent.h"

static struct perfevent ev;
static char err[512];

static int
parse(const char *s)
{
	err[0] = '\0';
	return (perfevent_parse(s, &ev, err, sizeof(err)));
}

/* s parses to (type, config). */
static int
is(const char *s, uint32_t type, uint64_t config)
{
	return (parse(s) == 0 && ev.type == type && ev.config == config &&
	    strcmp(ev.name, s) == 0);
}

static int
tp_id(const char *s, uint64_t *id)
{
	return (perfevent_tp_id(s, strlen(s), id));
}

int
main(void)
{
	uint64_t id = 7;

	/* hardware, with perf's aliases */
	CHECK(is("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES),
	    "cycles");
	CHECK(is("cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES),
	    "cpu-cycles");
	CHECK(is("instructions", PERF_TYPE_HARDWARE,
	    PERF_COUNT_HW_INSTRUCTIONS), "instructions");
	CHECK(is("cache-misses", PERF_TYPE_HARDWARE,
	    PERF_COUNT_HW_CACHE_MISSES), "cache-misses");
	CHECK(is("branch-misses", PERF_TYPE_HARDWARE,
	    PERF_COUNT_HW_BRANCH_MISSES), "branch-misses");
	CHECK(is("branches", PERF_TYPE_HARDWARE,
	    PERF_COUNT_HW_BRANCH_INSTRUCTIONS), "branches (alias)");
	CHECK(is("idle-cycles-backend", PERF_TYPE_HARDWARE,
	    PERF_COUNT_HW_STALLED_CYCLES_BACKEND), "idle-cycles-backend");
	CHECK(is("ref-cycles", PERF_TYPE_HARDWARE,
	    PERF_COUNT_HW_REF_CPU_CYCLES), "ref-cycles");
	CHECK_STREQ(perfevent_kind(&ev), "hardware", "kind: hardware");
	/* software */
	CHECK(is("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK),
	    "cpu-clock");
	CHECK(is("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK),
	    "task-clock");
	CHECK(is("page-faults", PERF_TYPE_SOFTWARE,
	    PERF_COUNT_SW_PAGE_FAULTS), "page-faults");
	CHECK(is("faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS),
	    "faults (alias)");
	CHECK(is("context-switches", PERF_TYPE_SOFTWARE,
	    PERF_COUNT_SW_CONTEXT_SWITCHES), "context-switches");
	CHECK(is("cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES),
	    "cs (alias)");
	CHECK(is("migrations", PERF_TYPE_SOFTWARE,
	    PERF_COUNT_SW_CPU_MIGRATIONS), "migrations");
	CHECK(is("major-faults", PERF_TYPE_SOFTWARE,
	    PERF_COUNT_SW_PAGE_FAULTS_MAJ), "major-faults");
	CHECK_STREQ(perfevent_kind(&ev), "software", "kind: software");
	/* hardware cache: id | op << 8 | result << 16 */
	CHECK(is("L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
	    PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
	    (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
	    "L1-dcache-load-misses");
	CHECK(is("LLC-stores", PERF_TYPE_HW_CACHE,
	    PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_WRITE << 8 |
	    (uint64_t)PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16), "LLC-stores");
	CHECK(is("dTLB-prefetch-misses", PERF_TYPE_HW_CACHE,
	    PERF_COUNT_HW_CACHE_DTLB | PERF_COUNT_HW_CACHE_OP_PREFETCH << 8 |
	    (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
	    "dTLB-prefetch-misses");
	CHECK(is("branch-loads", PERF_TYPE_HW_CACHE,
	    PERF_COUNT_HW_CACHE_BPU | PERF_COUNT_HW_CACHE_OP_READ << 8),
	    "branch-loads (cache, not branch-instructions)");
	CHECK_INTEQ(parse("LLC-load-miss"), -EINVAL, "LLC-load-miss refused");
	CHECK_INTEQ(parse("L1-dcache"), -EINVAL, "a cache alone refused");
	/* raw */
	CHECK(is("r1a8", PERF_TYPE_RAW, 0x1a8), "raw r1a8");
	CHECK(is("rFFFFFFFFFFFFFFFF", PERF_TYPE_RAW, UINT64_MAX),
	    "raw 64 bits");
	CHECK_INTEQ(parse("r"), -EINVAL, "r alone refused");
	CHECK_INTEQ(parse("r1g"), -EINVAL, "raw not hex refused");
	CHECK_INTEQ(parse("r1FFFFFFFFFFFFFFFF"), -EINVAL,
	    "raw over 64 bits refused");
	/* tracepoints: named, the id comes from tracefs */
	CHECK(is("sched:sched_switch", PERF_TYPE_TRACEPOINT, 0),
	    "tracepoint");
	CHECK_STREQ(ev.tp_sys, "sched", "tracepoint subsystem");
	CHECK_STREQ(ev.tp_name, "sched_switch", "tracepoint name");
	CHECK_STREQ(perfevent_kind(&ev), "tracepoint", "kind: tracepoint");
	CHECK_INTEQ(parse("sched:*"), -EINVAL, "wildcard refused");
	CHECK_INTEQ(parse("../../x:y"), -EINVAL, "path in subsystem refused");
	CHECK_INTEQ(parse("sched:../id"), -EINVAL, "path in name refused");
	CHECK_INTEQ(parse("a:b:c"), -EINVAL, "two colons refused");
	CHECK_INTEQ(parse(":x"), -EINVAL, "empty subsystem refused");
	CHECK_INTEQ(parse("sched:"), -EINVAL, "empty name refused");
	/* what perf takes but gProfiler's bare names do not */
	CHECK_INTEQ(parse("cycles:u"), -EINVAL, "modifier refused");
	CHECK(strstr(err, "--perf-event 'cycles:u'") != NULL &&
	    strstr(err, "modifiers") != NULL, "... naming the flag and why");
	CHECK_INTEQ(parse("cpu/event=0x3c/"), -EINVAL, "PMU syntax refused");
	CHECK(strstr(err, "rNNNN") != NULL, "... pointing at raw codes");
	CHECK_INTEQ(parse("dummy"), -EINVAL, "dummy refused");
	CHECK(strstr(err, "not a sampling event") != NULL, "... as such");
	CHECK_INTEQ(parse("bpf-output"), -EINVAL, "bpf-output refused");
	CHECK_INTEQ(parse("cyc1es"), -EINVAL, "unknown refused");
	CHECK(strstr(err, "unknown event") != NULL &&
	    strstr(err, "page-faults") != NULL, "... listing what is taken");
	CHECK_INTEQ(parse(""), -EINVAL, "empty refused");
	CHECK_INTEQ(perfevent_parse(NULL, &ev, err, sizeof(err)), -EINVAL,
	    "NULL refused");
	CHECK_INTEQ(parse("Cycles"), -EINVAL, "names are case-sensitive");
	/* tracefs id files */
	CHECK(tp_id("316\n", &id) == 0 && id == 316, "id with newline");
	CHECK(tp_id("7", &id) == 0 && id == 7, "id without newline");
	CHECK_INTEQ(tp_id("", &id), -EINVAL, "empty id");
	CHECK_INTEQ(tp_id("\n", &id), -EINVAL, "newline only");
	CHECK_INTEQ(tp_id("12x\n", &id), -EINVAL, "junk after digits");
	CHECK_INTEQ(tp_id("12\n\n", &id), -EINVAL, "two newlines");
	CHECK_INTEQ(tp_id("-1\n", &id), -EINVAL, "negative");
	CHECK_INTEQ(tp_id("99999999999999999999\n", &id), -EINVAL,
	    "over 64 bits");
	CHECK_INTEQ(perfevent_tp_id("12\n", 1, &id), 0, "length respected");
	CHECK(id == 1, "... reads only its bytes");
	return (testing_done());
}
