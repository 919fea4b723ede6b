/*
 * The perfspect plugin: hardware metrics from Intel PerfSpect in every
 * cycle's header (`hwmetrics`, `htmlblob`), spec docs/specs/perfspect.md.  This
 * file is the descriptor and the glue: options, enablement, the choice between
 * a given binary and the auto-installer.  The work is in collect.c and
 * install.c.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/utsname.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "collect.h"
#include "install.h"
#include "perfspect.h"

#define PS_MAGIC	0x50535043u

struct perfspect {
	uint32_t magic;
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	struct ps_collector *col;
	struct ps_install *inst;
	int active;	/* enabled this run */
};

static const struct gp_option perfspect_options[] = {
	{ "enable-hw-metrics-collection", GP_OPT_BOOL, 0, "false", 0, 0, NULL,
	    "collect hardware metrics with Intel PerfSpect (x86_64 only)" },
	{ "perfspect-path", GP_OPT_PATH, 0, NULL, 0, 0, NULL,
	    "the perfspect binary; when unset it is installed under "
	    PS_INSTALL_DIR },
	{ "perfspect-duration", GP_OPT_INT, 0, NULL, 1, 86400, NULL,
	    "seconds of collection per cycle (default and most: the cycle "
	    "duration)" },
	{ "perfspect-url", GP_OPT_STRING, 0, PS_INSTALL_URL, 0, 0, NULL,
	    "where the installer downloads perfspect.tgz from" },
	{ "perfspect-sha256", GP_OPT_STRING, 0, NULL, 0, 0, NULL,
	    "expected SHA-256 of the downloaded tarball (refused on mismatch); "
	    "without it only a release pinned in " PS_PINS_FILE " is run" },
	{ "perfspect-install-timeout", GP_OPT_INT, 0, NULL, 1, 86400, NULL,
	    "seconds before the installer gives up (default "
	    "$PERFSPECT_INSTALL_TIMEOUT, else 300)" },
};

static int
perfspect_arch_ok(char *machine, size_t len)
{
	struct utsname u;

	if (uname(&u) != 0)
		return (0);
	snprintf(machine, len, "%s", u.machine);
	return (strcmp(u.machine, "x86_64") == 0);
}

static int
perfspect_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	struct perfspect *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (-ENOMEM);
	p->magic = PS_MAGIC;
	p->ctx = ctx;
	p->api = api;
	if ((p->col = ps_collector_new(ctx, api)) == NULL) {
		free(p);
		return (-ENOMEM);
	}
	*privp = p;
	return (0);
}

static int
perfspect_check(void *priv, char *err, uint32_t errlen)
{
	struct perfspect *p = priv;
	const char *path, *sha, *url;
	char machine[80];
	struct stat st;

	if (!p->api->option_get_bool(p->ctx, "enable-hw-metrics-collection"))
		return (0);
	if (!perfspect_arch_ok(machine, sizeof(machine))) {
		snprintf(err, errlen, "--enable-hw-metrics-collection: "
		    "PerfSpect hardware metrics need an x86_64 host, this is "
		    "%s; remove the option", machine);
		return (-EINVAL);
	}
	path = p->api->option_get(p->ctx, "perfspect-path");
	if (path != NULL && (stat(path, &st) != 0 || !S_ISREG(st.st_mode))) {
		snprintf(err, errlen, "PerfSpect tool %s does not exist!",
		    path);
		return (-EINVAL);
	}
	url = p->api->option_get(p->ctx, "perfspect-url");
	if (path == NULL && url != NULL &&
	    strncasecmp(url, "https://", 8) != 0) {
		snprintf(err, errlen, "--perfspect-url %s: PerfSpect is "
		    "downloaded over HTTPS only (it runs as root); give an "
		    "https:// URL, or install it yourself and give "
		    "--perfspect-path", url);
		return (-EINVAL);
	}
	sha = p->api->option_get(p->ctx, "perfspect-sha256");
	if (sha != NULL && ps_sha256_match("", sha) == -EINVAL) {
		snprintf(err, errlen, "--perfspect-sha256: \"%s\" is not 64 "
		    "hex digits", sha);
		return (-EINVAL);
	}
	return (0);
}

static unsigned
perfspect_install_timeout(struct perfspect *p)
{
	const char *env;
	long v;

	if (p->api->option_get(p->ctx, "perfspect-install-timeout") != NULL)
		return (p->api->option_get_int(p->ctx,
		    "perfspect-install-timeout", PS_INSTALL_TIMEOUT));
	if ((env = getenv("PERFSPECT_INSTALL_TIMEOUT")) != NULL &&
	    (v = strtol(env, NULL, 10)) > 0 && v <= 86400)
		return ((unsigned)v);
	return (PS_INSTALL_TIMEOUT);
}

static void
perfspect_installed(void *arg, const char *binary, const char *why)
{
	struct perfspect *p = arg;

	p->inst = NULL;
	if (binary != NULL)
		ps_collector_use(p->col, binary);
	else
		ps_collector_hold(p->col, "install_failed", why);
}

static void
perfspect_install(struct perfspect *p)
{
	struct ps_install_config ic;
	const char *dir = getenv("PERFSPECT_INSTALL_DIR");

	memset(&ic, 0, sizeof(ic));
	/* The override is for packagers and tests; the daemon's
	 * environment is root's. */
	ic.dir = dir != NULL && dir[0] == '/' ? dir : PS_INSTALL_DIR;
	ic.url = p->api->option_get(p->ctx, "perfspect-url");
	if (ic.url == NULL)
		ic.url = PS_INSTALL_URL;
	ic.sha256 = p->api->option_get(p->ctx, "perfspect-sha256");
	ic.timeout_s = perfspect_install_timeout(p);
	ps_collector_hold(p->col, "installing", "PerfSpect is being "
	    "installed; no hardware metrics yet");
	p->inst = ps_install_begin(p->ctx, p->api, &ic, perfspect_installed,
	    p);
}

static void
perfspect_run_config(struct perfspect *p, struct ps_run_config *rc)
{
	int64_t cycle;

	memset(rc, 0, sizeof(*rc));
	cycle = p->api->option_get_int(p->ctx, "profiling-duration",
	    GP_DEFAULT_DURATION);
	rc->duration = (int)p->api->option_get_int(p->ctx,
	    "perfspect-duration", cycle);
	if (rc->duration > cycle)
		rc->duration = (int)cycle;
	if (rc->duration < 1)
		rc->duration = 1;
	/* PerfSpect refuses an interval over the duration (§3.1); the
	 * collector shortens it further for short cycles. */
	rc->interval = rc->duration < 5 ? rc->duration : 5;
	rc->cycle = (int)cycle;
	rc->grace_ms = cycle * 1000 / 4;
	if (rc->grace_ms > PS_STOP_GRACE_MS)
		rc->grace_ms = PS_STOP_GRACE_MS;
	if (rc->grace_ms < PS_STOP_GRACE_MIN_MS)
		rc->grace_ms = PS_STOP_GRACE_MIN_MS;
	rc->debug = p->api->option_get_bool(p->ctx, "verbose") > 0;
	rc->tmpdir = getenv("TMPDIR");
	if (rc->tmpdir == NULL || rc->tmpdir[0] != '/')
		rc->tmpdir = "/tmp";
}

static int
perfspect_start(void *priv)
{
	struct perfspect *p = priv;
	struct ps_run_config rc;
	const char *path;
	char machine[80];
	int err;

	p->active = p->api->option_get_bool(p->ctx,
	    "enable-hw-metrics-collection") > 0;
	if (!p->active)
		return (0);
	if (!perfspect_arch_ok(machine, sizeof(machine))) {
		p->api->log(p->ctx, GP_LOG_WARN, "hardware metrics need an "
		    "x86_64 host, this is %s: disabled", machine);
		p->active = 0;
		return (0);
	}
	perfspect_run_config(p, &rc);
	path = p->api->option_get(p->ctx, "perfspect-path");
	if (path != NULL && access(path, X_OK) == 0)
		snprintf(rc.binary, sizeof(rc.binary), "%s", path);
	if ((err = ps_collector_start(p->col, &rc)) != 0) {
		p->active = 0;
		return (0);	/* logged; CPU profiling goes on */
	}
	if (path == NULL)
		perfspect_install(p);
	else if (rc.binary[0] == '\0') {
		p->api->log(p->ctx, GP_LOG_DEBUG, "PerfSpect not available - "
		    "path not found or not executable");
		ps_collector_hold(p->col, "unavailable", "PerfSpect not "
		    "available - path not found or not executable");
	}
	return (0);
}

static int
perfspect_snapshot(void *priv, struct gp_snapshot *snap)
{
	struct perfspect *p = priv;

	if (!p->active)
		p->api->snapshot_done(snap, 0, NULL);
	else
		ps_collector_snapshot(p->col, snap);
	return (0);
}

static void
perfspect_abandon(void *priv, struct gp_snapshot *snap)
{
	struct perfspect *p = priv;

	if (p->active)
		ps_collector_abandon(p->col, snap);
}

static int
perfspect_metadata(void *priv, struct gp_json *md, struct gp_json *hdr)
{
	struct perfspect *p = priv;

	if (p->active)
		ps_collector_metadata(p->col, md, hdr);
	return (0);
}

static int
perfspect_stop(void *priv)
{
	struct perfspect *p = priv;

	ps_install_cancel(p->inst);
	p->inst = NULL;
	if (!p->active) {
		p->api->stop_done(p->ctx);
		return (0);
	}
	p->active = 0;
	ps_collector_stop(p->col);
	return (0);
}

static void
perfspect_destroy(void *priv)
{
	struct perfspect *p = priv;

	if (p == NULL)
		return;
	ps_install_cancel(p->inst);
	(void)ps_install_reap();
	ps_collector_free(p->col);
	free(p);
}

GP_PLUGIN_EXPORT const struct gp_plugin gprofiler_plugin = {
	GP_PLUGIN_HEADER,
	.name = "perfspect",
	.version = PACKAGE_VERSION,
	.build = __DATE__,
	.description = "hardware metrics (hwmetrics, htmlblob) from Intel "
	    "PerfSpect",
	.kind = GP_KIND_METRICS,
	.modes = GP_MODE_CPU,
	.options = perfspect_options,
	.option_size = sizeof(struct gp_option),
	.option_count = sizeof(perfspect_options) /
	    sizeof(perfspect_options[0]),
	.init = perfspect_init,
	.check = perfspect_check,
	.start = perfspect_start,
	.snapshot = perfspect_snapshot,
	.abandon = perfspect_abandon,
	.metadata = perfspect_metadata,
	.stop = perfspect_stop,
	.destroy = perfspect_destroy,
};
