/*
 * JVM discovery and pre-attach safety checks over /proc (jv_proc.c), and
 * bounded jattach runs through the host's child helper (jv_job.c).
 */
#ifndef JV_PROC_H
#define JV_PROC_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

#include "jv_parse.h"

/* Files are opened through langfile_set_opener's (gp_host_api.file_open);
 * until it is set nothing opens. */
/* 1 a JVM (libjvm mapped), 0 not, -EAGAIN its maps read deferred by
 * the host's budget (not an answer: ask at a later snapshot). */
int jv_proc_is_jvm(pid_t pid);
int jv_proc_attach_safe(pid_t pid, char *why, size_t whylen,
	    int *permanent);

/* One jattach run: the JVM's answer or why there is none. */
struct jv_result {
	int ok;			/* the JVM answered with code 0 */
	int permanent;		/* !ok: do not try this JVM again */
	const char *body;	/* ok: the answer (borrowed) */
	size_t bodylen;
	char reason[256];	/* !ok */
};

struct jv_job;
typedef void (*jv_job_done_fn)(void *arg, const struct jv_result *r);

struct jv_job *jv_job_start(struct gp_plugin_ctx *ctx,
		    const struct gp_host_api *api, const char *jattach,
		    pid_t pid, const char *const *cmd, uint32_t timeout_ms,
		    jv_job_done_fn done, void *arg);
void jv_job_cancel(struct jv_job *j, const char *why);
/* The plugin goes away with the job's jattach still running: the host
 * reaps it without calling back, and the job is freed now.  NULL: none. */
void jv_job_forget(struct jv_job *j);

#endif /* JV_PROC_H */
