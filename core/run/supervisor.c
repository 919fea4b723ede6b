/*
 * The run supervisor: the one place that loads and unloads plugins and
 * starts and stops runs, whatever asked for the run (the command line's
 * start, a SIGHUP reload, a heartbeat command).  One owner, so that a run
 * gets the same plugins and the same effective options whichever way it
 * was asked for: a host sent back to its defaults by a command runs what a
 * fresh start with the equivalent flags runs.
 *
 * The plugins are shared by every run (a run uses the active ones), so the
 * supervisor is one per process, like the loop.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "base/log.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "host/host.h"
#include "run/run.h"
#include "run/supervisor.h"

static struct {
	struct event_base *base;
	struct plugin_list *plugins;
	char loaded[512];	/* plugins_selection, "": none */
} sv;

/* "perf, java, nodejs" after the mode: what is loaded now, for the log. */
static void
sv_log_loaded(const char *why, unsigned mode)
{
	struct plugin *p;
	char names[512];
	size_t n;

	names[0] = '\0';
	TAILQ_FOREACH(p, sv.plugins, entry) {
		if (!p->active)
			continue;
		n = strlen(names);
		snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
		    p->manifest.name);
	}
	log_info("%s: plugins loaded for mode %s: %s", why,
	    config_mode_name(mode), names[0] != '\0' ? names : "none");
}

/*
 * The plugins main() loaded for cfg at start-up (they had to be, to check
 * the options before daemonizing) become the supervisor's.
 */
void
supervisor_init(struct event_base *base, struct plugin_list *plugins,
    const struct config *cfg)
{
	memset(&sv, 0, sizeof(sv));
	sv.base = base;
	sv.plugins = plugins;
	plugins_selection(plugins, cfg, config_mode(cfg), sv.loaded,
	    sizeof(sv.loaded));
	sv_log_loaded("start", config_mode(cfg));
}

/*
 * Make the loaded plugins those a run of cfg needs and check cfg's options
 * with them, as at start-up.  The same selection keeps the loaded plugins
 * (cfg learns their option rows and they read cfg from their next start);
 * another selection, or `reload`, unloads and loads.  On failure nothing
 * is loaded: the caller starts a run it trusts again, which reloads.
 * 0, or -errno with err (-EINVAL: the options are wrong).
 */
int
supervisor_plugins(struct config *cfg, int reload, const char *why,
    char *err, size_t errlen)
{
	struct plugin *p;
	unsigned mode = config_mode(cfg);
	char want[512];
	int rc;

	/* cfg may be a copy of a configuration that learnt the rows of
	 * other plugins: it learns those of its own run's below. */
	config_forget_plugin_rows(cfg);
	plugins_selection(sv.plugins, cfg, mode, want, sizeof(want));
	if (!reload && sv.loaded[0] != '\0' && strcmp(want, sv.loaded) == 0) {
		TAILQ_FOREACH(p, sv.plugins, entry) {
			if (!p->active)
				continue;
			if ((rc = config_register_plugin(cfg, p->manifest.name,
			    p->desc->options, p->desc->option_count,
			    p->desc->option_size, err, errlen)) != 0)
				return (rc);
			host_ctx_set_config(p->ctx, cfg);
		}
		return (plugins_check(sv.plugins, err, errlen));
	}
	if (!reload)
		log_info("%s: loading plugins %s (were %s)", why, want,
		    sv.loaded[0] != '\0' ? sv.loaded : "none");
	plugins_unload(sv.plugins);
	sv.loaded[0] = '\0';
	if ((rc = plugins_load_for_mode(sv.plugins, sv.base, cfg, mode, err,
	    errlen)) == 0)
		rc = plugins_check(sv.plugins, err, errlen);
	if (rc != 0) {
		plugins_unload(sv.plugins);
		return (rc);
	}
	snprintf(sv.loaded, sizeof(sv.loaded), "%s", want);
	sv_log_loaded(why, mode);
	return (0);
}

/*
 * A run of cfg (the run copies it) on the plugins it needs: *runp, or
 * NULL and -errno with err saying why.
 */
int
supervisor_start(struct config *cfg, const struct run_hooks *hooks,
    const char *why, struct run **runp, char *err, size_t errlen)
{
	struct run *r;
	int rc;

	*runp = NULL;
	if ((rc = supervisor_plugins(cfg, 0, why, err, errlen)) != 0)
		return (rc);
	r = run_new(sv.base, cfg, sv.plugins, hooks);
	if ((rc = run_start(r)) != 0) {
		snprintf(err, errlen, "%s", run_error(r) != NULL ?
		    run_error(r) : strerror(-rc));
		run_free(r);
		return (rc);
	}
	*runp = r;
	return (0);
}

/*
 * Stop run r (done(arg) once its plugins stopped, see run_stop).  `why`
 * (NULL: say nothing) names what replaces or ends it: the samples of the
 * cycle in progress are dropped, not uploaded (a cycle's profile is one
 * window of the run that asked for it; the next run starts its own), and
 * the log says so, with how much was collected.
 */
void
supervisor_stop(struct run *r, const char *why, void (*done)(void *),
    void *arg)
{
	int64_t ms;

	if (why != NULL && (ms = run_window_ms(r)) >= 0)
		log_info("%s: the cycle in progress (%lld.%01lld s of %lld s "
		    "collected) is dropped, not uploaded", why,
		    (long long)(ms / 1000), (long long)(ms % 1000 / 100),
		    (long long)run_duration(r));
	run_stop(r, done, arg);
}

/* Every plugin unloaded (the agent stops). */
void
supervisor_unload(void)
{
	if (sv.plugins != NULL)
		plugins_unload(sv.plugins);
	sv.loaded[0] = '\0';
}
