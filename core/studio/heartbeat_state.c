/*
 * Heartbeat answers (docs/specs/studio-api.md §5) and the command ids acted on,
 * persisted atomically: "executed" once a command's outcome is known (its
 * completion sent, or nothing owed), "started" with an attempt count
 * before it runs.  A restart does not replay an executed command; one the
 * agent died in (crash, SIGKILL, power loss) is run once more, and after
 * a second death reported failed instead of crashing the agent for good.
 * The parser is a pure function over bytes (fuzzed).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "studio/studio.h"

#define HB_MAX_IDS	1000

struct hb_started {
	char *id;
	unsigned attempts;	/* runs begun, this process's too */
	int here;		/* begun by this process */
};

static struct {
	char **seen;	/* executed ids, oldest first */
	size_t nseen;
	struct hb_started *started;	/* begun, outcome unknown */
	size_t nstarted;
} hb;

static void
hb_state_clear(void)
{
	size_t i;

	for (i = 0; i < hb.nseen; i++)
		free(hb.seen[i]);
	free(hb.seen);
	for (i = 0; i < hb.nstarted; i++)
		free(hb.started[i].id);
	free(hb.started);
	memset(&hb, 0, sizeof(hb));
}

void
hb_command_clear(struct hb_command *c)
{
	json_object_put(c->combined_config);
	memset(c, 0, sizeof(*c));
}

static int
hb_err(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return (-EINVAL);
}

/*
 * A heartbeat answer: 1 with *c filled when it carries a command, 0 when
 * it does not, -EINVAL (err set) when it is not what §5 promises.  The
 * command_id is read first: when a malformed command has one,
 * c->command_id is set on -EINVAL too, so the command can be reported
 * `failed` instead of being ignored on every heartbeat.
 */
int
heartbeat_parse_response(const char *body, size_t len, struct hb_command *c,
    char *err, size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *o, *v, *pc, *ct, *cc, *id;
	int rc;

	memset(c, 0, sizeof(*c));
	tok = json_tokener_new();
	o = json_tokener_parse_ex(tok, body, (int)len);
	json_tokener_free(tok);
	if (o == NULL || !json_object_is_type(o, json_type_object)) {
		rc = hb_err(err, errlen, "the answer is not a JSON object");
		goto out;
	}
	if (!json_object_object_get_ex(o, "success", &v) ||
	    !json_object_is_type(v, json_type_boolean)) {
		rc = hb_err(err, errlen, "\"success\" is missing or not a "
		    "boolean");
		goto out;
	}
	if (!json_object_get_boolean(v) ||
	    !json_object_object_get_ex(o, "profiling_command", &pc) ||
	    pc == NULL) {
		rc = 0;
		goto out;
	}
	if (!json_object_object_get_ex(o, "command_id", &id) ||
	    !json_object_is_type(id, json_type_string) ||
	    json_object_get_string_len(id) == 0 ||
	    json_object_get_string_len(id) >= (int)sizeof(c->command_id) ||
	    strlen(json_object_get_string(id)) !=
	    (size_t)json_object_get_string_len(id)) {
		rc = hb_err(err, errlen, "command_id is missing or not a "
		    "string");
		goto out;
	}
	snprintf(c->command_id, sizeof(c->command_id), "%s",
	    json_object_get_string(id));
	if (!json_object_is_type(pc, json_type_object) ||
	    !json_object_object_get_ex(pc, "command_type", &ct) ||
	    !json_object_is_type(ct, json_type_string)) {
		rc = hb_err(err, errlen, "profiling_command has no "
		    "command_type string");
		goto out;
	}
	if (strlen(json_object_get_string(ct)) !=
	    (size_t)json_object_get_string_len(ct)) {
		rc = hb_err(err, errlen, "command_type holds a NUL byte");
		goto out;
	}
	snprintf(c->command_type, sizeof(c->command_type), "%.15s",
	    json_object_get_string(ct));
	if (json_object_object_get_ex(pc, "combined_config", &cc) &&
	    cc != NULL) {
		if (!json_object_is_type(cc, json_type_object)) {
			rc = hb_err(err, errlen, "combined_config is not an "
			    "object");
			goto out;
		}
		c->combined_config = json_object_get(cc);
	}
	rc = 1;
out:
	json_object_put(o);
	return (rc);
}

/* The persisted command ids: executed, and started with their attempts. */
int
hb_state_load(const char *path)
{
	struct json_object *o, *ids, *v;
	size_t i, n;

	hb_state_clear();
	if ((o = json_object_from_file(path)) == NULL)
		return (access(path, F_OK) == 0 ? -EINVAL : 0);
	if (json_object_object_get_ex(o, "executed_command_ids", &ids) &&
	    json_object_is_type(ids, json_type_array)) {
		n = json_object_array_length(ids);
		hb.seen = xreallocarray(NULL, n + 1, sizeof(*hb.seen));
		for (i = 0; i < n; i++) {
			v = json_object_array_get_idx(ids, i);
			if (json_object_is_type(v, json_type_string))
				hb.seen[hb.nseen++] =
				    xstrdup(json_object_get_string(v));
		}
	}
	if (json_object_object_get_ex(o, "started_command_ids", &ids) &&
	    json_object_is_type(ids, json_type_object)) {
		n = (size_t)json_object_object_length(ids);
		hb.started = xreallocarray(NULL, n + 1, sizeof(*hb.started));
		json_object_object_foreach(ids, k, a) {
			if (!json_object_is_type(a, json_type_int) ||
			    json_object_get_int64(a) <= 0 || hb.nstarted >= n)
				continue;
			hb.started[hb.nstarted].id = xstrdup(k);
			hb.started[hb.nstarted].attempts =
			    json_object_get_int64(a) > 100 ? 100 :
			    (unsigned)json_object_get_int64(a);
			hb.started[hb.nstarted++].here = 0;
		}
	}
	json_object_put(o);
	return (0);
}

static struct hb_started *
hb_state_find_started(const char *id)
{
	size_t i;

	for (i = 0; i < hb.nstarted; i++)
		if (strcmp(hb.started[i].id, id) == 0)
			return (&hb.started[i]);
	return (NULL);
}

/* Runs of id begun and never settled (by earlier processes, or this). */
unsigned
hb_state_attempts(const char *id)
{
	struct hb_started *st = hb_state_find_started(id);

	return (st != NULL ? st->attempts : 0);
}

/* Whether this process is executing id (begun, outcome not yet known). */
int
hb_state_running(const char *id)
{
	struct hb_started *st = hb_state_find_started(id);

	return (st != NULL && st->here);
}

int
hb_state_seen(const char *id)
{
	size_t i;

	for (i = 0; i < hb.nseen; i++)
		if (strcmp(hb.seen[i], id) == 0)
			return (1);
	return (0);
}

/*
 * Whether id has the UUID shape the backend stores (8-4-4-4-12 hex).  One
 * non-UUID in a heartbeat's id lists or last_command_id makes the backend
 * answer every heartbeat with "failed to check for commands" (§5), which
 * would make the agent deaf for good once such an id is persisted.
 */
int
hb_id_is_uuid(const char *id)
{
	size_t i;

	if (strlen(id) != 36)
		return (0);
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (id[i] != '-')
				return (0);
		} else if (strchr("0123456789abcdefABCDEF", id[i]) == NULL ||
		    id[i] == '\0')
			return (0);
	}
	return (1);
}

/*
 * The ids for a heartbeat body, UUID-shaped ones only: executed, or
 * (received) executed and those in progress.
 */
struct json_object *
hb_state_ids_json(int received)
{
	struct json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < hb.nseen; i++)
		if (hb_id_is_uuid(hb.seen[i]))
			json_object_array_add(a,
			    json_object_new_string(hb.seen[i]));
	for (i = 0; received && i < hb.nstarted; i++)
		if (hb_id_is_uuid(hb.started[i].id))
			json_object_array_add(a,
			    json_object_new_string(hb.started[i].id));
	return (a);
}

/* Every remembered id, for the state file. */
static struct json_object *
hb_state_all_json(void)
{
	struct json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < hb.nseen; i++)
		json_object_array_add(a, json_object_new_string(hb.seen[i]));
	return (a);
}

static int
hb_state_save(const char *path, const char *id)
{
	struct json_object *o, *st;
	const char *txt;
	size_t i;
	int rc;

	if (path == NULL)
		return (0);
	o = json_object_new_object();
	json_object_object_add(o, "executed_command_ids", hb_state_all_json());
	st = json_object_new_object();
	for (i = 0; i < hb.nstarted; i++)
		json_object_object_add(st, hb.started[i].id,
		    json_object_new_int64(hb.started[i].attempts));
	json_object_object_add(o, "started_command_ids", st);
	txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	rc = file_write_atomic(AT_FDCWD, path, txt, strlen(txt), 0600);
	if (rc != 0)
		log_warnx("heartbeat: cannot save %s: %s; a restart may "
		    "repeat or skip command %s", path, strerror(-rc), id);
	json_object_put(o);
	return (rc);
}

/*
 * A run of id begins: count the attempt and save it before anything can
 * crash.  Returns the attempt's number (1 for the first).
 */
unsigned
hb_state_begin(const char *path, const char *id)
{
	struct hb_started *st;

	if ((st = hb_state_find_started(id)) == NULL) {
		if (hb.nstarted == HB_MAX_IDS) {
			free(hb.started[0].id);
			memmove(hb.started, hb.started + 1,
			    (hb.nstarted - 1) * sizeof(*hb.started));
			hb.nstarted--;
		}
		hb.started = xreallocarray(hb.started, hb.nstarted + 1,
		    sizeof(*hb.started));
		st = &hb.started[hb.nstarted++];
		st->id = xstrdup(id);
		st->attempts = 0;
	}
	st->attempts++;
	st->here = 1;
	(void)hb_state_save(path, id);
	return (st->attempts);
}

/*
 * id is settled (its outcome reported, or nothing owed): remember it as
 * executed (the oldest beyond 1000 forgotten), saved atomically.
 */
int
hb_state_add(const char *path, const char *id)
{
	struct hb_started *st;

	if ((st = hb_state_find_started(id)) != NULL) {
		free(st->id);
		memmove(st, st + 1, (size_t)(&hb.started[hb.nstarted] -
		    (st + 1)) * sizeof(*st));
		hb.nstarted--;
	}
	if (hb_state_seen(id))
		return (hb_state_save(path, id));
	if (hb.nseen == HB_MAX_IDS) {
		free(hb.seen[0]);
		memmove(hb.seen, hb.seen + 1, (hb.nseen - 1) *
		    sizeof(*hb.seen));
		hb.nseen--;
	}
	hb.seen = xreallocarray(hb.seen, hb.nseen + 1, sizeof(*hb.seen));
	hb.seen[hb.nseen++] = xstrdup(id);
	return (hb_state_save(path, id));
}

void
hb_state_free(void)
{
	hb_state_clear();
}
