/* Unit tests of container ids from cgroup text and Docker's list. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "gprofiler.h"
#include "testing.h"

#define ID1 "0c1dabcdef0123456789abcdef0123456789abcdef0123456789abcdef012345"
#define ID2 "ffffabcdef0123456789abcdef0123456789abcdef0123456789abcdef0123aa"

static int
idof(const char *s, char *id)
{
	return (container_id_parse(s, strlen(s), id));
}

int
main(void)
{
	char	 id[65];
	const char *docker;

	CHECK(idof("12:pids:/docker/" ID1 "\n", id) == 0 &&
	    strcmp(id, ID1) == 0, "docker v1 path");
	CHECK(idof("0::/system.slice/docker-" ID1 ".scope\n", id) == 0 &&
	    strcmp(id, ID1) == 0, "systemd scope");
	CHECK(idof("0::/kubepods/burstable/pod0c1d/cri-containerd-" ID1
	    ".scope", id) == 0 && strcmp(id, ID1) == 0, "cri-containerd");
	CHECK(idof("1:cpu:/ecs/" ID2 "/" ID1 "\n", id) == 0 &&
	    strcmp(id, ID1) == 0, "ecs: the last run wins");
	CHECK(idof("0::/user.slice/user-0.slice/session-3.scope\n", id) ==
	    -ENOENT, "host process: no id");
	CHECK(idof("0::/docker/" ID1 "a\n", id) == -ENOENT,
	    "65 hex chars is not an id");
	CHECK(idof("", id) == -ENOENT, "empty");
	CHECK(idof("2:x:/a\n1:y:/docker/" ID2 "\n", id) == 0 &&
	    strcmp(id, ID2) == 0, "later line");

	docker = "[{\"Id\": \"" ID1 "\", \"Names\": [\"/web\"]}, "
	    "{\"Id\": \"short\", \"Names\": [\"/x\"]}, "
	    "{\"Id\": \"" ID2 "\", \"Names\": []}]";
	CHECK_INTEQ(container_parse_docker(docker, strlen(docker)), 2,
	    "two valid containers");
	CHECK_STREQ(container_name_for_id(ID1), "web", "name without /");
	CHECK_STREQ(container_name_for_id(ID2), "", "no names: empty");
	CHECK_INTEQ(container_parse_docker("{}", 2), -EINVAL, "not a list");
	CHECK_INTEQ(container_parse_docker("[", 1), -EINVAL, "truncated");
	CHECK_STREQ(container_name_for_id("nope"), "",
	    "unknown id without Docker: empty, no crash");
	container_fini();
	return (testing_done());
}
