/*
 * Sampled threads, from the system profiler to process profilers: the
 * gp_host_api sample_* entries (host_sample.c), for host_api.c's table.
 */
#ifndef GP_HOST_SAMPLE_H
#define GP_HOST_SAMPLE_H

#include <stdint.h>

#include <gprofiler/plugin.h>

int32_t host_sample_watch(struct gp_plugin_ctx *, int32_t, int32_t);
int32_t host_sample_subscribe(struct gp_plugin_ctx *,
		    void (*)(void *, int32_t, int32_t, uint64_t), void *);
int32_t host_sample_subscribe_stack(struct gp_plugin_ctx *,
		    void (*)(void *, int32_t, int32_t, uint64_t,
		    const struct gp_sample_stack *), void *);
int32_t host_sample_source(struct gp_plugin_ctx *,
		    void (*)(void *, int32_t, int32_t), void *);
void host_sample_report(struct gp_plugin_ctx *, int32_t, int32_t,
		    uint64_t);
void host_sample_report_stack(struct gp_plugin_ctx *, int32_t,
		    int32_t, uint64_t, const struct gp_sample_stack *);
int32_t host_sample_walk(struct gp_plugin_ctx *, int32_t,
		    const struct gp_frame_walk *);
int32_t host_sample_walk_thread(struct gp_plugin_ctx *, int32_t,
		    int32_t, uint64_t, uint64_t);
int32_t host_sample_walker(struct gp_plugin_ctx *,
		    int32_t (*)(void *, int32_t, const struct gp_frame_walk *),
		    int32_t (*)(void *, int32_t, int32_t, uint64_t, uint64_t),
		    void *);
int32_t host_process_source(struct gp_plugin_ctx *, int32_t);
void host_process_report(struct gp_plugin_ctx *, int32_t);
int32_t host_process_subscribe(struct gp_plugin_ctx *,
		    void (*)(void *, int32_t), void *);
/* What a context registered goes with it. */
void host_sample_forget(struct gp_plugin_ctx *);

#endif
