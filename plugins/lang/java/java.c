/*
 * The Java process plugin.  It emits no stacks: perf samples the JVMs and
 * names JIT frames `_[j]` from /tmp/perf-<nspid>.map, and this plugin makes
 * each JVM (re)write that map once per cycle (`jattach PID jcmd
 * Compiler.perfmap`), a few seconds before the cycle ends so that methods
 * compiled during the cycle resolve when perf symbolizes at the snapshot.
 * It also sets the Java appid (VM.command_line) and application metadata
 * (VM.version, VM.flags), and reports JVMs it could not attach to as
 * "[Profiling skipped: ...]" / "[Profiling error: ...]".
 *
 * Safety: one jattach at a time per JVM, one attempt per cycle, every run
 * bounded (--java-jattach-timeout, then SIGTERM/SIGKILL of jattach), no
 * attach to a JVM that would die of SIGQUIT or that disabled attaching
 * (jv_proc.c), and a JVM that keeps failing is left alone for the rest of
 * the run.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "jv_plugin.h"
#include "langfile.h"
#include "langplug.h"

static const struct gp_option jv_options[] = {
	{ "java-mode", GP_OPT_ENUM, 0, "perfmap", 0, 0,
	    "perfmap|ap|disabled|none",
	    "Java: perfmap (ask each JVM for its JIT perf map every cycle so "
	    "perf names Java frames; 'ap' is accepted as a synonym) or "
	    "disabled" },
	/* gProfiler's positive_integer: no upper bound (clamped to a day) */
	{ "java-jattach-timeout", GP_OPT_INT, 0, "30", 1,
	    0x7fffffffffffffffLL, NULL,
	    "seconds one jattach run may take before it is killed and the "
	    "JVM reported (gProfiler's default, 30)" },
};

static const char *const jv_jattach_paths[] = {
	"/usr/bin/jattach", "/usr/local/bin/jattach",
	"/usr/lib/gprofiler/jattach", NULL,
};

static void
jv_deliver(struct jv *p, struct gp_snapshot *snap, struct jv_jvm *j)
{
	const struct gp_host_api *api = p->api;
	struct gp_json *md;

	if (j->appid[0] != '\0')
		api->snapshot_set_appid(snap, j->pid, j->appid);
	if ((j->done & (JV_OP_VERSION | JV_OP_FLAGS)) != 0 &&
	    (md = api->json_new()) != NULL) {
		if (j->version[0] != '\0')
			api->json_set_string(md, "java_version", j->version);
		else
			api->json_set_null(md, "java_version");
		api->json_set_null(md, "libjvm_elfid");
		if (j->flags[0] != '\0')
			api->json_set_string(md, "jvm_flags", j->flags);
		else
			api->json_set_null(md, "jvm_flags");
		api->snapshot_set_app_metadata(snap, j->pid, md);
	}
	if (j->rkind != JV_NO_REPORT)
		api->snapshot_pid_error(snap, j->pid, j->comm, j->rkind,
		    j->reason);
}

static int
jv_snapshot(void *priv, struct gp_snapshot *snap)
{
	struct jv *p = priv;
	uint32_t i;

	if (!p->enabled) {
		p->api->snapshot_done(snap, 0, NULL);
		return (0);
	}
	jv_scan(p);
	for (i = 0; i < p->njvms; i++) {
		struct jv_jvm *j = p->jvms[i];

		/* Never wait for a JVM: what is still running is late. */
		if (j->job != NULL && !j->gone) {
			jv_job_cancel(j->job, "jattach still running when the "
			    "cycle ended");
			jv_report(j, GP_PID_ERROR, "jattach still running "
			    "when the cycle ended");
		}
		j->ops = 0;
		j->sampled = 0;
		j->needmap = 0;
		j->reports = 0;
		j->judged = j->watched;
		if (!j->gone)
			jv_deliver(p, snap, j);
		if (!j->skip)
			j->rkind = JV_NO_REPORT;
	}
	p->api->log(p->ctx, GP_LOG_DEBUG, "snapshot: %u JVMs, %llu perf maps "
	    "written in %llu rounds, %llu not asked for (every frame named); "
	    "%u other processes known, %llu reads of their maps spared",
	    p->njvms, (unsigned long long)p->perfmaps,
	    (unsigned long long)p->rounds, (unsigned long long)p->spared,
	    langtab_count(&p->tab, LANGTAB_IGNORED),
	    (unsigned long long)p->find.spared);
	jv_arm(p);
	p->api->snapshot_done(snap, 0, NULL);
	return (0);
}

static void
jv_abandon(void *priv, struct gp_snapshot *snap)
{
	/* snapshot() answers before returning: nothing is pending. */
	(void)priv;
	(void)snap;
}

static void
jv_filters_free(struct jv *p)
{
	while (p->nfilters > 0)
		regfree(&p->filters[--p->nfilters]);
}

/*
 * --app-id-args-filter values arrive ','-joined (a repeatable option).
 * Compile them; on error write why into err.
 */
static int
jv_filters_compile(struct jv *p, char *err, size_t errlen)
{
	const char *v = p->api->option_get(p->ctx, "app-id-args-filter");
	char *copy, *s, *tok, msg[128];
	int rc = 0, e;

	jv_filters_free(p);
	if (v == NULL || *v == '\0')
		return (0);
	if ((copy = strdup(v)) == NULL)
		return (-ENOMEM);
	for (s = copy; (tok = strsep(&s, ",")) != NULL;) {
		if (*tok == '\0')
			continue;
		if (p->nfilters == JV_MAX_FILTERS) {
			snprintf(err, errlen, "--app-id-args-filter: at most "
			    "%d filters", JV_MAX_FILTERS);
			rc = -EINVAL;
			break;
		}
		if ((e = regcomp(&p->filters[p->nfilters], tok,
		    REG_EXTENDED | REG_NOSUB)) != 0) {
			regerror(e, &p->filters[p->nfilters], msg, sizeof(msg));
			snprintf(err, errlen, "--app-id-args-filter: \"%s\" is "
			    "not a valid regular expression: %s", tok, msg);
			rc = -EINVAL;
			break;
		}
		p->nfilters++;
	}
	free(copy);
	if (rc != 0)
		jv_filters_free(p);
	return (rc);
}

static int
jv_check(void *priv, char *err, uint32_t errlen)
{
	struct jv *p = priv;
	int rc = jv_filters_compile(p, err, errlen);

	jv_filters_free(p);
	return (rc);
}

static void
jv_find_jattach(struct jv *p)
{
	const char *env = getenv("GP_JATTACH");
	size_t i;

	p->jattach[0] = '\0';
	/* A packaging and test override; must be absolute. */
	if (env != NULL && env[0] == '/' && access(env, X_OK) == 0) {
		snprintf(p->jattach, sizeof(p->jattach), "%s", env);
		return;
	}
	for (i = 0; jv_jattach_paths[i] != NULL; i++)
		if (access(jv_jattach_paths[i], X_OK) == 0) {
			snprintf(p->jattach, sizeof(p->jattach), "%s",
			    jv_jattach_paths[i]);
			return;
		}
}

/* No round ahead, and the reported processes not yet examined dropped. */
static void
jv_timers_off(struct jv *p)
{
	p->api->timer_del(p->round_timer);
	p->round_timer = NULL;
	p->api->timer_del(p->pending_timer);
	p->pending_timer = NULL;
	p->npending = 0;
}

static void
jv_reset(struct jv *p)
{
	jv_timers_off(p);
	langfind_stop(&p->find);
	/* every entry released: their JVMs gone, freed once not running */
	langtab_unsee(&p->tab);
	langtab_prune(&p->tab);
	jv_prune(p);
	if (p->stacks)
		(void)p->api->sample_subscribe_stack(p->ctx, NULL, NULL);
	p->stacks = 0;
}

static int
jv_start(void *priv)
{
	struct jv *p = priv;
	const char *mode = p->api->option_get(p->ctx, "java-mode");
	char err[256];
	int64_t d;

	jv_reset(p);
	p->stopping = 0;
	p->enabled = mode == NULL || (strcmp(mode, "disabled") != 0 &&
	    strcmp(mode, "none") != 0);
	if (!p->enabled)
		return (0);
	if (jv_filters_compile(p, err, sizeof(err)) != 0)
		p->api->log(p->ctx, GP_LOG_WARN, "%s; no filters used", err);
	p->find.min_duration = (double)p->api->option_get_int(p->ctx,
	    "min-duration", 0);
	d = p->api->option_get_int(p->ctx, "max-processes-runtime-profiler",
	    0);
	p->max_procs = d < 0 ? 0 : d > JV_MAX_JVMS ? JV_MAX_JVMS : (uint32_t)d;
	d = p->api->option_get_int(p->ctx, "java-jattach-timeout", 30);
	p->timeout_ms = d < 1 ? 1000 : d > 86400 ? 86400000u :
	    (uint32_t)d * 1000;
	d = p->api->option_get_int(p->ctx, "profiling-duration",
	    GP_DEFAULT_DURATION) * 1000;
	p->round_ms = d > 2 * JV_LEAD_MS ? (uint64_t)(d - JV_LEAD_MS) :
	    (uint64_t)(d > 2 ? d / 2 : 1);
	jv_find_jattach(p);
	if (p->jattach[0] == '\0')
		p->api->log(p->ctx, GP_LOG_WARN, "jattach not found (looked "
		    "in /usr/bin, /usr/local/bin, /usr/lib/gprofiler): Java "
		    "JIT frames stay unnamed");
	langfind_discover_sync(&p->find);
	if (GP_API_HAS(p->api, sample_subscribe_stack))
		p->stacks = p->api->sample_subscribe_stack(p->ctx,
		    jv_sample_cb, p) == 0;
	jv_arm(p);
	if (p->round_timer == NULL)
		return (-ENOMEM);
	p->api->log(p->ctx, GP_LOG_INFO, "JIT perf maps through %s, %llu ms "
	    "into each cycle, each run bounded at %u s",
	    p->jattach[0] != '\0' ? p->jattach : "(none)",
	    (unsigned long long)p->round_ms, p->timeout_ms / 1000);
	return (0);
}

static int
jv_stop(void *priv)
{
	struct jv *p = priv;
	uint32_t i;

	jv_timers_off(p);
	p->stopping = 1;
	for (i = 0; i < p->njvms; i++) {
		p->jvms[i]->ops = 0;
		jv_job_cancel(p->jvms[i]->job, "the run is stopping");
	}
	if (p->running == 0)
		p->api->stop_done(p->ctx);
	return (0);
}

static int
jv_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	struct jv *p;
	int rc;

	if ((p = langplug_new(api, sizeof(*p), &rc)) == NULL)
		return (rc);
	p->ctx = ctx;
	p->api = api;
	if ((p->jvms = calloc(JV_MAX_JVMS, sizeof(*p->jvms))) == NULL ||
	    jv_find_init(p) != 0) {
		free(p->jvms);
		free(p);
		return (-ENOMEM);
	}
	/* without it, reported processes are examined at once */
	p->pending = calloc(JV_PENDING_MAX, sizeof(*p->pending));
	/* /proc reads of jv_proc.c, through the host's safe open */
	langfile_set_opener(langplug_open, ctx);
	langfile_set_maps_reader(langplug_maps, ctx);
	*privp = p;
	return (0);
}

static void
jv_destroy(void *priv)
{
	struct jv *p = priv;
	uint32_t i;

	if (p == NULL)
		return;
	p->api->timer_del(p->round_timer);
	p->api->timer_del(p->pending_timer);
	langtab_free(&p->tab);	/* before the JVMs its entries point at */
	/* The host reaps children we leave behind without calling us. */
	for (i = 0; i < p->njvms; i++) {
		jv_job_forget(p->jvms[i]->job);
		free(p->jvms[i]);
	}
	jv_filters_free(p);
	free(p->jvms);
	free(p->pending);
	free(p);
}

GP_PLUGIN_EXPORT const struct gp_plugin gprofiler_plugin = {
	GP_PLUGIN_HEADER,
	.name = "java",
	.version = "0.1.0",
	.build = "HotSpot perf maps through jattach",
	.description = "Java JIT frame names (JVM perf maps), appids and "
	    "JVM metadata",
	.kind = GP_KIND_PROCESS,
	.modes = GP_MODE_CPU,
	.options = jv_options,
	.option_size = sizeof(struct gp_option),
	.option_count = sizeof(jv_options) / sizeof(jv_options[0]),
	.init = jv_init,
	.check = jv_check,
	.start = jv_start,
	.snapshot = jv_snapshot,
	.abandon = jv_abandon,
	.stop = jv_stop,
	.destroy = jv_destroy,
};
