/*
 * Unit tests for plugins/perf/cgsel.c: cpu.stat texts, docker container
 * names, and gProfiler's choice of cgroups for --perf-use-cgroups.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testing.h"
#include "cgroups.h"

#define HEX64 "0123456789abcdef0123456789abcdef" \
	"0123456789abcdef0123456789abcdef"

static int
parse(const char *s, uint64_t *v)
{
	return (cgstat_parse_usage(s, strlen(s), v));
}

static void
ent(struct cg_entry *e, uint64_t id, uint64_t delta, int docker)
{
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->delta = delta;
	e->docker = docker;
	snprintf(e->path, sizeof(e->path), "/cg%llu", (unsigned long long)id);
}

int
main(void)
{
	struct cg_entry e[8];
	uint64_t v = 7;
	size_t k;

	/* cpu.stat */
	CHECK_INTEQ(parse("usage_usec 1234\nuser_usec 1000\n"
	    "system_usec 234\n", &v), 0, "cpu.stat of a kernel 6.x");
	CHECK(v == 1234, "usage_usec read");
	CHECK_INTEQ(parse("user_usec 1\nusage_usec 42\n", &v), 0,
	    "usage_usec not first");
	CHECK(v == 42, "... its value");
	CHECK_INTEQ(parse("usage_usec 99", &v), 0, "no final newline");
	CHECK(v == 99, "... its value");
	CHECK_INTEQ(parse("usage_usec 18446744073709551615\n", &v), 0,
	    "UINT64_MAX");
	CHECK_INTEQ(parse("usage_usec 18446744073709551616\n", &v), -EINVAL,
	    "overflow refused");
	CHECK_INTEQ(parse("xusage_usec 5\n", &v), -EINVAL,
	    "key must start a line");
	CHECK_INTEQ(parse("usage_usec \n", &v), -EINVAL, "no digits");
	CHECK_INTEQ(parse("usage_usec -5\n", &v), -EINVAL, "negative");
	CHECK_INTEQ(parse("usage_usec 5x\n", &v), -EINVAL, "trailing junk");
	CHECK_INTEQ(parse("", &v), -EINVAL, "empty");
	CHECK_INTEQ(parse("usage_usec", &v), -EINVAL, "key only");
	CHECK_INTEQ(cgstat_parse_usage("usage_usec 12", 12, &v), 0,
	    "length respected");
	CHECK(v == 1, "... only the bytes given");

	/* docker names, as core/meta/container_cgroup.c recognises them */
	CHECK(cgsel_is_docker("docker-" HEX64 ".scope", "system.slice"),
	    "systemd driver scope");
	CHECK(cgsel_is_docker(HEX64, "docker"), "cgroupfs driver");
	CHECK(!cgsel_is_docker(HEX64, "kubepods"), "id not under docker");
	CHECK(!cgsel_is_docker("docker-" HEX64 ".slice", "x"), ".slice");
	CHECK(!cgsel_is_docker("docker-0123.scope", "x"), "short id");
	CHECK(!cgsel_is_docker("docker-" "0123456789ABCDEF0123456789abcdef"
	    "0123456789abcdef0123456789abcdef.scope", "x"), "upper case hex");
	CHECK(!cgsel_is_docker("docker", NULL), "the docker parent itself");
	CHECK(!cgsel_is_docker("", NULL), "empty name");

	/* the choice: without docker containers, the busiest N */
	ent(&e[0], 10, 5, 0);
	ent(&e[1], 11, 500, 0);
	ent(&e[2], 12, 50, 1);
	ent(&e[3], 13, 5000, 0);
	k = cgsel_choose(e, 4, 2, 0);
	CHECK(k == 2 && e[0].id == 13 && e[1].id == 11, "top 2 by CPU");
	k = cgsel_choose(e, 4, 50, 0);
	CHECK(k == 4 && e[2].id == 12 && e[3].id == 10, "all when fewer "
	    "than the limit, busiest first");
	k = cgsel_choose(e, 4, 0, 0);
	CHECK(k == 0, "limit 0 and no docker: nothing");
	k = cgsel_choose(e, 0, 5, 5);
	CHECK(k == 0, "no cgroup: nothing");

	/* with --perf-max-docker-containers: containers first, then the
	 * others (not docker ones) up to the total */
	ent(&e[0], 1, 900, 0);
	ent(&e[1], 2, 10, 1);
	ent(&e[2], 3, 800, 0);
	ent(&e[3], 4, 20, 1);
	ent(&e[4], 5, 30, 1);
	ent(&e[5], 6, 1, 0);
	k = cgsel_choose(e, 6, 4, 2);
	CHECK_INTEQ((int)k, 4, "2 containers + 2 others");
	CHECK(e[0].id == 5 && e[1].id == 4, "the 2 busiest containers first");
	CHECK(e[2].id == 1 && e[3].id == 3, "then the busiest others");
	k = cgsel_choose(e, 6, 0, 2);
	CHECK(k == 2 && e[0].docker && e[1].docker, "limit 0: containers "
	    "only");
	k = cgsel_choose(e, 6, 50, 1);
	CHECK_INTEQ((int)k, 4, "1 container + the 3 non-docker cgroups");
	CHECK(e[0].id == 5 && !e[1].docker && !e[2].docker && !e[3].docker,
	    "the other containers are not taken as plain cgroups");
	ent(&e[0], 1, 7, 0);
	ent(&e[1], 2, 7, 0);
	k = cgsel_choose(e, 2, 1, 0);
	CHECK(k == 1 && e[0].id == 1, "ties broken by id");
	return (testing_done());
}
