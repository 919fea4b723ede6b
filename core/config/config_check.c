/*
 * Cross-option rules of the core (docs/specs/gprofiler-compat.md §1.4).  Rules
 * about a plugin's own options live in that plugin's check() callback.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "config/configuration.h"
#include "gprofiler.h"

/* Where an option was set, for messages. */
static const char *
where(const struct config *cfg, const char *name)
{
	const char *o = config_origin(cfg, name);

	return (o != NULL ? o : name);
}

static int
config_check_pids(const struct config *cfg, char *err, size_t errlen)
{
	const char *p = config_get(cfg, "pids");
	char *end;
	long n;

	if (p == NULL)
		return (0);
	while (*p != '\0') {
		n = strtol(p, &end, 10);
		if (end == p || n <= 0 || (*end != ',' && *end != '\0')) {
			snprintf(err, errlen, "%s: --pids takes positive "
			    "process IDs separated by commas, e.g. 12,345",
			    where(cfg, "pids"));
			return (-EINVAL);
		}
		p = *end == ',' ? end + 1 : end;
	}
	return (0);
}

/* 0, or -EINVAL with one line naming the option and the fix (exit 2). */
int
config_validate(const struct config *cfg, char *err, size_t errlen)
{
	unsigned mode = config_mode(cfg);
	int upload = config_get_bool(cfg, "upload-results");
	int rc;

	if (!upload && config_get(cfg, "output-dir") == NULL) {
		snprintf(err, errlen, "Must pass at least one output method "
		    "(--upload-results / --output-dir), e.g. "
		    "-o ./gprofiler-output");
		return (-EINVAL);
	}
	if (upload && ((config_get(cfg, "token") == NULL &&
	    config_get(cfg, "token-file") == NULL) ||
	    config_get(cfg, "service-name") == NULL)) {
		snprintf(err, errlen, "--upload-results needs --token (or "
		    "--token-file) and --service-name");
		return (-EINVAL);
	}
	if (config_get_bool(cfg, "enable-heartbeat-server") && !upload) {
		snprintf(err, errlen, "--enable-heartbeat-server needs "
		    "--upload-results, --token and --service-name");
		return (-EINVAL);
	}
	if (config_is_set(cfg, "alloc-interval") && mode != MODE_ALLOCATION) {
		snprintf(err, errlen, "%s: --alloc-interval is only for "
		    "--mode allocation", where(cfg, "alloc-interval"));
		return (-EINVAL);
	}
	if (config_is_set(cfg, "profiling-frequency") && mode != MODE_CPU &&
	    mode != MODE_GPU) {
		snprintf(err, errlen, "%s: -f/--profiling-frequency is only "
		    "for --mode cpu or gpu", where(cfg, "profiling-frequency"));
		return (-EINVAL);
	}
	if (config_get_bool(cfg, "rootless") && config_get(cfg, "pids") ==
	    NULL)
		log_warnx("--rootless without --pids: only processes of this "
		    "user can be profiled");
	if ((rc = config_check_pids(cfg, err, errlen)) != 0)
		return (rc);
	if ((rc = compat_validate(cfg, err, errlen)) != 0)
		return (rc);
	return (0);
}
