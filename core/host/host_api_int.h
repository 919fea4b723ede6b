/*
 * The host API's entries implemented outside host_api.c, for its table:
 * snapshots and the stack sink (host_snapshot.c), JSON objects
 * (host_json.c).
 */
#ifndef GP_HOST_API_INT_H
#define GP_HOST_API_INT_H

#include <stdint.h>

#include <gprofiler/plugin.h>

struct json_object;

/* host_snapshot.c */
int host_snapshot_add_stack(struct gp_snapshot *, int32_t,
		    const char *, const char *const *, uint32_t, uint64_t);
int host_snapshot_pid_error(struct gp_snapshot *, int32_t,
		    const char *, int32_t, const char *);
int host_snapshot_set_appid(struct gp_snapshot *, int32_t,
		    const char *);
int host_snapshot_set_app_metadata(struct gp_snapshot *, int32_t,
		    struct gp_json *);
void host_snapshot_done(struct gp_snapshot *, int32_t,
		    const char *);

/* host_json.c */
struct gp_json *host_json_new(void);
void host_json_free(struct gp_json *);
int host_json_set_string(struct gp_json *, const char *,
		    const char *);
int host_json_set_int(struct gp_json *, const char *, int64_t);
int host_json_set_double(struct gp_json *, const char *, double);
int host_json_set_bool(struct gp_json *, const char *, int32_t);
int host_json_set_null(struct gp_json *, const char *);
int host_json_set_object(struct gp_json *, const char *,
		    struct gp_json *);
int host_json_set_raw(struct gp_json *, const char *,
		    const char *);
/* The object of a handle a plugin handed over; the handle is gone. */
struct json_object *host_json_take(struct gp_json *);

#endif
