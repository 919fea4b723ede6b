/*
 * The plugin host (core/host/): the loader (plugin.c) and the host API
 * handed to plugins (host_api.c, host_snapshot.c, host_json.c,
 * host_sample.c).  struct plugin is in gprofiler.h.
 */
#ifndef GP_HOST_HOST_H
#define GP_HOST_HOST_H

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

struct config;
struct event_base;
struct json_object;
struct plugin;
struct plugin_list;
struct profile;

/* plugin.c */
/*
 * The list holds every plugin found (manifest only); those serving the
 * run's mode are loaded and marked `active`.  Runs use active ones only.
 */
int plugins_scan(struct plugin_list *, char **dirs, char *err,
		    size_t errlen);
/* dlopen() without init, for --help. */
int plugin_open(struct plugin *, char *err, size_t errlen);
/* Load, check and init the plugins serving `mode`; register their options
 * with the config and enforce their incompatible core options.  -EINVAL
 * (usage error, exit 2) or other -errno (exit 1) with one line in err. */
int plugins_load_for_mode(struct plugin_list *,
		    struct event_base *, struct config *, unsigned mode,
		    char *err, size_t errlen);
void plugins_unload(struct plugin_list *);
void plugins_free(struct plugin_list *);
/* The active system profiler, or NULL. */
struct plugin *plugins_system(struct plugin_list *);
/* The names of the plugins a run of `mode` with cfg would load, in
 * order ("perf,python"): runs with equal selections share loaded plugins. */
void plugins_selection(struct plugin_list *, const struct config *,
		    unsigned mode, char *buf, size_t len);
/* Run every active plugin's check(); -EINVAL with the message. */
int plugins_check(struct plugin_list *, char *err, size_t errlen);

/* host_api.c, host_snapshot.c, host_json.c */
const struct gp_host_api *host_api(void);
/* Abort on a context that is not one (it came back from a plugin). */
void host_ctx_check(struct gp_plugin_ctx *);

struct gp_plugin_ctx *host_ctx_new(struct plugin *, struct event_base *);
void host_ctx_free(struct gp_plugin_ctx *);
/* The configuration plugins see through option_get (the current run's). */
void host_ctx_set_config(struct gp_plugin_ctx *,
		    const struct config *);
/* What the cycle and run use (host_api.c, runtime engineer). */
void host_ctx_on_stop(struct gp_plugin_ctx *, void (*)(void *),
		    void *);
const char *host_ctx_name(const struct gp_plugin_ctx *);
struct gp_snapshot *snapshot_new(struct gp_plugin_ctx *,
		    void (*done)(void *, struct gp_snapshot *, int status,
		    const char *err), void *);
struct profile *snapshot_take_profile(struct gp_snapshot *);
void snapshot_free(struct gp_snapshot *);
/* A gp_json view of o for a plugin (takes a reference); release drops it. */
struct gp_json *host_json_wrap(struct json_object *o);
void host_json_release(struct gp_json *);
/* The HTTP engineer's implementation of api->http_download. */
void host_set_http_download(int (*)(struct gp_plugin_ctx *,
		    const char *, int32_t, uint32_t, void (*)(void *, int32_t,
		    int32_t, const char *), void *));

#endif
