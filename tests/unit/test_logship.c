/*
 * The agent-log shipper's queue (core/studio/logship.c): records are queued only
 * when gProfiler would send logs (-u, no --dont-send-logs, API v2), DEBUG
 * records never, and the queue stays bounded however much is logged while
 * nothing can be sent, counting what it drops.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "studio/studio.h"
#include "testing.h"

static struct config *
cfg_with(const char *name, const char *value)
{
	struct config *c = config_new();
	char err[256];

	config_set(c, "upload-results", "true", SRC_CLI, "-u", err,
	    sizeof(err));
	if (name != NULL)
		config_set(c, name, value, SRC_CLI, name, err, sizeof(err));
	return (c);
}

int
main(void)
{
	struct config *c;
	char line[200];
	size_t q, q1;
	uint64_t lost;
	int i;

	log_init(0, "test");
	log_setverbose(0);
	c = cfg_with("dont-send-logs", "true");
	CHECK(!logship_wanted(c), "--dont-send-logs: not wanted");
	config_free(c);
	c = cfg_with("profile-api-version", "v1");
	CHECK(!logship_wanted(c), "API v1: not wanted (no logs endpoint)");
	config_free(c);
	c = config_new();
	CHECK(!logship_wanted(c), "without -u: not wanted");
	config_free(c);

	c = cfg_with(NULL, NULL);
	CHECK(logship_wanted(c), "-u: wanted");
	logship_prepare(c);
	logship_stats(&q, &lost);
	CHECK(q == 0 && lost == 0, "empty at first");
	/* stderr would get 20 MB: log at DEBUG (not queued) to a closed
	 * stderr instead, then queue INFO records with stderr closed. */
	freopen("/dev/null", "w", stderr);
	log_debug("a debug line");
	logship_stats(&q, &lost);
	CHECK(q == 0, "DEBUG records are not shipped");
	log_info("one info line");
	logship_stats(&q1, &lost);
	CHECK(q1 > 0 && lost == 0, "an INFO record is queued");
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	for (i = 0; i < 100000; i++)
		log_warnx("%d %s", i, line);
	logship_stats(&q, &lost);
	printf("# queued %zu bytes, dropped %llu records\n", q,
	    (unsigned long long)lost);
	CHECK(q <= 2 * 1024 * 1024 && q > 1024 * 1024,
	    "100000 records (20 MB): the queue stays within 2 MiB");
	CHECK(lost > 80000, "the oldest are dropped and counted");
	logship_stop();
	logship_stats(&q, &lost);
	CHECK(q == 0, "stop frees the queue");
	log_info("after stop");
	logship_stats(&q, &lost);
	CHECK(q == 0, "nothing queued after stop");
	config_free(c);
	return (testing_done());
}
