/*
 * The iaprof plugin: gpu mode's system profiler (docs/specs/iaprof.md).
 * Intel's iaprof runs as one long-lived child; its stream is folded into
 * per-PID stacks of EU stalls, and each cycle's snapshot is cut at the next
 * `interval` line so it covers whole intervals.  This file holds the
 * descriptor, option checks, snapshot delivery and metadata; run.c runs the
 * process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gprofiler/plugin.h>

#include "iaprof.h"
#include "parse.h"

#define FREQ_DEFAULT	100
#define FREQ_MIN	1
#define FREQ_MAX	1000

static const struct gp_option iaprof_options[] = {
	/* "disabled" (or --no-iaprof) keeps the plugin unloaded: the core's
	 * rule for every <name>-mode option. */
	{ .name = "iaprof-mode", .type = GP_OPT_ENUM, .defval = "enabled",
	  .choices = "enabled|disabled",
	  .help = "GPU profiling with iaprof (--no-iaprof: disabled)" },
	{ .name = "iaprof-path", .type = GP_OPT_PATH, .defval = "iaprof",
	  .help = "the iaprof executable (searched in PATH without a '/')" },
	{ .name = "iaprof-eu-stall-subsample", .type = GP_OPT_INT,
	  .defval = "100", .min = 1, .max = INT32_MAX,
	  .help = "iaprof keeps one of every N EU stall samples" },
};

/* Core options that make no sense with iaprof (spec §6.1). */
static const char *const iaprof_incompatible[] = {
	"rootless", "alloc-interval", "perf-event", "perf-mode",
	"perf-dwarf-stack-size", NULL
};

/* interval_ms = round(1000 / f), halves to even as Python's round(). */
int64_t
iaprof_interval_ms(int64_t freq)
{
	int64_t q = 1000 / freq, r = 1000 % freq;

	if (2 * r > freq || (2 * r == freq && (q & 1)))
		q++;
	return (q);
}

/* -f in gpu mode: the output frequency, 1..1000 Hz, default 100. */
static int
iaprof_frequency(struct iaprof *ia, int64_t *freq)
{
	const char *v = ia->api->option_get(ia->ctx, "profiling-frequency");
	char *end;

	if (v == NULL) {
		*freq = FREQ_DEFAULT;
		return (0);
	}
	errno = 0;
	*freq = strtoll(v, &end, 10);
	if (end == v || *end != '\0' || errno != 0 || *freq < FREQ_MIN ||
	    *freq > FREQ_MAX)
		return (-EINVAL);
	return (0);
}

static int
iaprof_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	struct iaprof *ia;

	if ((ia = calloc(1, sizeof(*ia))) == NULL)
		return (-ENOMEM);
	ia->magic = IAPROF_MAGIC;
	ia->ctx = ctx;
	ia->api = api;
	*privp = ia;
	return (0);
}

static int
iaprof_check(void *priv, char *err, uint32_t errlen)
{
	struct iaprof *ia = priv;
	const char *path;
	int64_t freq;

	if (iaprof_frequency(ia, &freq) != 0) {
		snprintf(err, errlen, "--profiling-frequency (-f) must be an "
		    "integer between %d and %d in gpu mode (got '%s')",
		    FREQ_MIN, FREQ_MAX,
		    ia->api->option_get(ia->ctx, "profiling-frequency"));
		return (-EINVAL);
	}
	if (ia->api->option_get_int(ia->ctx, "iaprof-eu-stall-subsample",
	    100) <= 0) {
		snprintf(err, errlen, "--iaprof-eu-stall-subsample must be a "
		    "positive integer");
		return (-EINVAL);
	}
	path = ia->api->option_get(ia->ctx, "iaprof-path");
	if (path == NULL || *path == '\0') {
		snprintf(err, errlen, "--iaprof-path must name the iaprof "
		    "executable");
		return (-EINVAL);
	}
	return (0);
}

/* A test may shorten the spec's 5/10/5/5 s deadlines (spec §7). */
static uint32_t
iaprof_timeout(const char *env, uint32_t dflt)
{
	const char *v = getenv(env);
	long ms;

	if (v == NULL || (ms = strtol(v, NULL, 10)) <= 0 || ms > 3600000)
		return (dflt);
	return ((uint32_t)ms);
}

static int
iaprof_start(void *priv)
{
	struct iaprof *ia = priv;
	const char *path;
	int64_t freq;

	if (iaprof_frequency(ia, &freq) != 0)
		freq = FREQ_DEFAULT;	/* check() already refused it */
	ia->interval_ms = iaprof_interval_ms(freq);
	ia->subsample = ia->api->option_get_int(ia->ctx,
	    "iaprof-eu-stall-subsample", 100);
	path = ia->api->option_get(ia->ctx, "iaprof-path");
	snprintf(ia->path, sizeof(ia->path), "%s", path != NULL ? path :
	    "iaprof");
	ia->version_ms = iaprof_timeout("GP_IAPROF_VERSION_TIMEOUT_MS", 5000);
	ia->start_ms = iaprof_timeout("GP_IAPROF_START_TIMEOUT_MS", 10000);
	ia->snapshot_ms = iaprof_timeout("GP_IAPROF_SNAPSHOT_TIMEOUT_MS",
	    5000);
	ia->stop_ms = iaprof_timeout("GP_IAPROF_STOP_TIMEOUT_MS", 5000);
	return (iaprof_run_start(ia));
}

/* One folded stack to the host: comm apart, the rest root first. */
static int
iaprof_deliver(void *arg, int32_t pid, const char *const *frames,
    uint32_t nframes, uint64_t count)
{
	struct iaprof *ia = arg;
	const struct gp_host_api *api = ia->api;

	if (!api->pid_wanted(ia->ctx, pid))
		return (0);
	/* A refused stack (the host's own limits) does not end the walk. */
	(void)api->snapshot_add_stack(ia->snap, pid, frames[0], frames + 1,
	    nframes - 1, count);
	return (0);
}

/* Spec §5: one warning per snapshot, with up to 8 of the lines. */
static void
iaprof_log_malformed(struct iaprof *ia)
{
	uint64_t n = iaprof_parser_malformed(ia->parser);
	const char *line;
	unsigned i;

	ia->last_malformed = n;
	if (n > 0) {
		ia->api->log(ia->ctx, GP_LOG_WARN, "Skipped %llu malformed "
		    "iaprof records (showing up to %d):",
		    (unsigned long long)n, IAPROF_MALFORMED_KEEP);
		for (i = 0; (line = iaprof_parser_malformed_line(ia->parser,
		    i)) != NULL; i++)
			ia->api->log(ia->ctx, GP_LOG_WARN, "%s", line);
	}
	if ((n = iaprof_parser_dropped(ia->parser)) > 0)
		ia->api->log(ia->ctx, GP_LOG_WARN, "dropped %llu EU stall "
		    "samples: too many distinct stacks in one cycle",
		    (unsigned long long)n);
}

/* At a tick: hand over everything counted since the last snapshot. */
void
iaprof_snapshot_fulfil(struct iaprof *ia)
{
	struct gp_snapshot *snap = ia->snap;

	iaprof_log_malformed(ia);
	iaprof_parser_take(ia->parser, iaprof_deliver, ia);	/* to ia->snap */
	ia->snap = NULL;
	ia->failures = 0;
	ia->api->snapshot_done(snap, 0, NULL);
}

/* Fail the pending snapshot, if any; msg is logged by the host. */
void
iaprof_snapshot_fail(struct iaprof *ia, int status, const char *msg)
{
	struct gp_snapshot *snap = ia->snap;

	if (snap == NULL)
		return;
	ia->snap = NULL;
	ia->api->snapshot_done(snap, status, msg);
}

static int
iaprof_snapshot(void *priv, struct gp_snapshot *snap)
{
	struct iaprof *ia = priv;

	if (ia->snap != NULL) {
		ia->api->snapshot_done(snap, -EBUSY,
		    "iaprof snapshot already requested");
		return (0);
	}
	ia->snap = snap;
	iaprof_run_snapshot(ia);
	return (0);
}

static void
iaprof_abandon(void *priv, struct gp_snapshot *snap)
{
	struct iaprof *ia = priv;

	if (ia->snap == snap)
		ia->snap = NULL;
}

static int
iaprof_metadata(void *priv, struct gp_json *md, struct gp_json *hdr)
{
	struct iaprof *ia = priv;
	const struct gp_host_api *api = ia->api;

	if (ia->version[0] != '\0')
		api->json_set_string(md, "iaprof_version", ia->version);
	else
		api->json_set_null(md, "iaprof_version");
	api->json_set_int(md, "iaprof_output_interval_ms", ia->interval_ms);
	api->json_set_int(md, "iaprof_eu_stall_subsample", ia->subsample);
	api->json_set_int(md, "iaprof_malformed_records",
	    (int64_t)ia->last_malformed);
	return (0);
}

static int
iaprof_stop(void *priv)
{
	iaprof_run_stop(priv);
	return (0);
}

static void
iaprof_destroy(void *priv)
{
	struct iaprof *ia = priv;

	if (ia == NULL)
		return;
	iaprof_run_destroy(ia);
	iaprof_parser_free(ia->parser);
	free(ia);
}

GP_PLUGIN_EXPORT const struct gp_plugin gprofiler_plugin = {
	GP_PLUGIN_HEADER,
	.name = "iaprof",
	.version = "1.0",
	.build = "bundled with gprofiler",
	.description = "Intel GPU EU-stall profiles through iaprof "
	    "(--mode gpu)",
	.kind = GP_KIND_SYSTEM,
	.modes = GP_MODE_GPU,
	.options = iaprof_options,
	.option_size = sizeof(struct gp_option),
	.option_count = sizeof(iaprof_options) / sizeof(iaprof_options[0]),
	.incompatible = iaprof_incompatible,
	.init = iaprof_init,
	.check = iaprof_check,
	.start = iaprof_start,
	.snapshot = iaprof_snapshot,
	.abandon = iaprof_abandon,
	.metadata = iaprof_metadata,
	.stop = iaprof_stop,
	.destroy = iaprof_destroy,
};
