/*
 * Performance Studio (core/studio/): who the agent is to the Studio, uploads and their spool, heartbeats and commands, agent
 * logs.
 */
#ifndef GP_STUDIO_STUDIO_H
#define GP_STUDIO_STUDIO_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct config;
struct cycle_output;
struct event_base;
struct json_object;
struct plugin_list;
struct run_hooks;

/* logship.c: agent logs to the Studio (POST /api/v1/logs) */
int logship_wanted(const struct config *);
void logship_prepare(const struct config *);
int logship_start(struct event_base *, const struct config *);
void logship_stop(void);
void logship_stats(size_t *queued, uint64_t *lost);

/* studio.c */
/*
 * Performance Studio: what main.c calls.  studio_init (with -u or
 * --enable-heartbeat-server) reads the token, sets up HTTP with the TLS
 * options, starts the health check and the spool drain; it returns
 * -EINVAL (exit 2) for a bad token file.  The health check is retried
 * with backoff; only a 400 "Invalid API key" is fatal (exit 1, from the
 * loop).  studio_upload_hook is a run_hooks.on_cycle.  studio_shutdown
 * flushes the queue for at most a few seconds, then calls done (the
 * spool keeps what was not sent).
 */
int studio_init(struct event_base *, const struct config *);
int studio_http_init(struct event_base *, const struct config *);
void studio_upload_hook(const struct cycle_output *,
		    const char *col, size_t collen, void *arg);
void studio_shutdown(void (*done)(void *), void *arg);

/* studio_ident.c: who the agent is to the Studio; borrowed strings. */
int studio_ident_init(const struct config *);
const char *studio_token(void);
const char *studio_service(void);
const char *studio_hostname(void);
/* "GPROFILER-API-KEY: …" style header lines, NULL-terminated. */
const char *const *studio_headers(void);
/* Load the token from --token or --token-file; caller frees. */
int studio_token_load(const struct config *, char **tokenp,
		    char *err, size_t errlen);
/* UTC ISO-8601 without zone, seconds (us != 0: with microseconds). */
void studio_iso_time(time_t, long usec, int us, char *buf,
		    size_t len);

/* upload_file.c: the upload-file subcommand */
int upload_file_main(int argc, char **argv, struct config *);

/* upload.c */
/* Queue the cycle's profile for upload (spooled until accepted). */
int upload_enqueue(const struct cycle_output *, const char *col,
		    size_t collen);
#define UPLOAD_MAX_COMPRESSED	(4u << 20)	/* the backend's limit */
struct upload_body_args {
	const char *col;
	size_t collen;
	const char *start_time;	/* naive UTC ISO */
	const char *end_time;
	const char *hostname;
	const char *spawn_time;	/* NULL: omitted */
	const char *gpid;	/* "" first */
	double cpu_avg;		/* NaN: null */
	double mem_avg;
};
/* The gzip'd JSON body (docs/specs/studio-api.md §4.2), truncating the
 * lowest-count stacks when over the limit (*truncated = stacks dropped).
 * Caller frees. */
unsigned char *upload_build_body(const struct upload_body_args *,
		    size_t limit, size_t *lenp, unsigned *truncated);
/* The gzip'd body with its "gpid" replaced; NULL if unreadable. */
unsigned char *upload_body_set_gpid(const unsigned char *gz, size_t len,
		    const char *gpid, size_t *lenp);
/* {"message","gpid"} of a 200 answer; gpid copied into buf.  0/-EINVAL. */
int upload_parse_response(const char *body, size_t len,
		    char *gpid, size_t gpidlen);
/* The message of an error body ({"message"}, a bare string or a 422
 * detail list), for the log.  Writes into buf. */
void upload_error_message(const char *body, size_t len, char *buf,
		    size_t buflen);
int upload_init(struct event_base *, const struct config *);
void upload_kick(void);
/* Send what is queued for at most UPLOAD_FLUSH_MS, then done(arg). */
void upload_flush(void (*done)(void *), void *arg);
void upload_fini(void);
/* "100mb" style sizes (binary units) as bytes; -EINVAL. */
int upload_parse_size(const char *, uint64_t *);
const char *upload_gpid(void);
void upload_set_memory_only(int);
uint64_t upload_sent_count(void);

/* spool.c */
/*
 * Profiles waiting for upload, oldest first: atomic 0600 files under
 * --spool-dir (kept across restarts), memory when the directory is not
 * usable; the oldest are dropped above --spool-max-size.
 */
struct spool_entry {
	char *name;	/* file name, or NULL in memory */
	uint64_t seq;
	size_t size;
	unsigned char *data;	/* memory-only entries */
	int busy;		/* being uploaded: never dropped */
	TAILQ_ENTRY(spool_entry) entry;
};
int spool_open(const char *dir, uint64_t max_size);
void spool_close(void);
int spool_put(const void *rec, size_t len);
struct spool_entry *spool_first(void);
/* The record's bytes (caller frees). */
unsigned char *spool_read(const struct spool_entry *, size_t *lenp);
void spool_done(struct spool_entry *);	/* accepted */
void spool_reject(struct spool_entry *);	/* kept aside */
size_t spool_count(void);
uint64_t spool_dropped(void);
/* Record framing: one JSON line (hostname, timestamp…) then the body. */
unsigned char *spool_record_make(const char *meta, const void *body,
		    size_t bodylen, size_t *lenp);
/* On-disk framing with length and CRC-32 (spool_unframe: -EINVAL and why
 * when cut short or damaged; a bare record of an earlier version is
 * accepted). */
unsigned char *spool_frame(const void *rec, size_t len, size_t *lenp);
int spool_unframe(const unsigned char *buf, size_t len,
		    const unsigned char **recp, size_t *reclenp, char *err,
		    size_t errlen);
int spool_record_split(const unsigned char *rec, size_t len,
		    const char **meta, size_t *metalen,
		    const unsigned char **body, size_t *bodylen);

/* backoff.c */
/* Exponential backoff with jitter: the delay before retry n (0-based). */
unsigned backoff_delay_ms(unsigned attempt, unsigned base_ms,
		    unsigned max_ms);

/* heartbeat.c */
/*
 * Dynamic profiling: heartbeats to --api-server; commands de-duplicated
 * by command_id (persisted under --state-dir); runs owned by command.c.
 */
struct hb_command {
	char command_id[64];
	char command_type[16];			/* "start", "stop", other */
	struct json_object *combined_config;	/* owned; may be NULL */
};
/* 1: a command, 0: none, -EINVAL: garbage (err says why). */
int heartbeat_parse_response(const char *body, size_t len,
		    struct hb_command *, char *err, size_t errlen);
void hb_command_clear(struct hb_command *);
int hb_id_is_uuid(const char *);
int heartbeat_start(struct event_base *, const struct config *,
		    struct plugin_list *, const struct run_hooks *);
void heartbeat_stop(void (*done)(void *), void *arg);
/* After http_fini: completions the server never answered are freed. */
void heartbeat_fini(void);
/* Command ids: executed, and started (attempts) before they run; loaded
 * from / saved to state.json atomically. */
int hb_state_load(const char *path);
int hb_state_seen(const char *command_id);
int hb_state_add(const char *path, const char *command_id);
/* Executed ids, or (received) those in progress too; caller owns. */
struct json_object *hb_state_ids_json(int received);
unsigned hb_state_begin(const char *path, const char *command_id);
unsigned hb_state_attempts(const char *command_id);
int hb_state_running(const char *command_id);
void hb_state_free(void);

/* command.c */
/* The run configuration of a start command: combined_config over base. */
int command_build_config(const struct config *base,
		    struct json_object *combined, const char *hostname,
		    struct config **outp, int *skip, char *err, size_t errlen);
struct command_ops {
	/* Report a command's outcome (POST command_completion). */
	void (*complete)(const char *command_id, int ok, const char *err,
		    void *arg);
	void *arg;
	/* A command that needs no completion (another host's) is settled:
	 * not to be executed again.  Appended; may be NULL. */
	void (*settled)(const char *command_id, void *arg);
};
void command_init(struct event_base *, const struct config *,
		    struct plugin_list *, const struct run_hooks *,
		    const struct command_ops *);
void command_execute(const struct hb_command *);
void command_stop_all(void (*done)(void *), void *arg);
void command_rebase(const struct config *);

#endif
