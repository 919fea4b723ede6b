/*
 * pprof export: the cycle as a gzip'd perftools.profiles.Profile (the
 * format Pyroscope, Parca, Grafana and `go tool pprof` read).  One sample
 * per folded stack, locations leaf first; each distinct frame text is one
 * function and one location.  pid, comm, container, appid and (gpu mode)
 * the EU stall type travel as labels rather than frames, so pprof tools can
 * filter on them.  Strings go through the one text rule (textesc.c):
 * proto3 decoders refuse invalid UTF-8.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "base/gzip.h"
#include "base/log.h"
#include "base/textesc.h"
#include "base/xmalloc.h"
#include "core/output/profile.pb-c.h"
#include "gprofiler.h"
#include "meta/meta.h"
#include "output/col_parse.h"
#include "output/output.h"
#include "profile/profile.h"

#define PP_NONE		UINT32_MAX


/* The stall names in iaprof's `<stall>_[g]` frames (docs/specs/iaprof.md §5) */
static const char *const pp_stalls[] = { "active", "control", "pipestall",
    "send", "dist_acc", "sbid", "sync", "inst_fetch", "other", "tdr" };

struct pp_state {
	Perftools__Profiles__Profile prof;
	size_t capstr, capsample, capfunc;
	uint32_t *strhash;	/* string index, PP_NONE empty */
	uint32_t hashcap;
	uint32_t *func_of_str;	/* string index -> function id or 0 */
	unsigned mode;
	int64_t period;
	int64_t k_pid, k_comm, k_container, k_appid, k_stall;
};

/* A NUL-terminated copy under the one text rule (textesc.c): valid
 * UTF-8, as proto3 decoders require, and no control characters. */
static char *
pp_utf8_dup(const char *s)
{
	size_t n = strlen(s);
	char *d;

	d = xmalloc(textesc_len(s, n, 0) + 1);
	textesc_write(d, s, n, 0);
	return (d);
}

static uint32_t
pp_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (h ^ (h >> 15));
}

static void
pp_strhash_grow(struct pp_state *st)
{
	uint32_t cap = st->hashcap ? st->hashcap * 2 : 1024, i, h;

	free(st->strhash);
	st->strhash = xreallocarray(NULL, cap, sizeof(*st->strhash));
	memset(st->strhash, 0xff, (size_t)cap * sizeof(*st->strhash));
	st->hashcap = cap;
	for (i = 0; i < st->prof.n_string_table; i++) {
		h = pp_hash(st->prof.string_table[i]);
		while (st->strhash[h & (cap - 1)] != PP_NONE)
			h++;
		st->strhash[h & (cap - 1)] = i;
	}
}

/* The string table index of s (interned; index 0 is ""). */
static int64_t
pp_str(struct pp_state *st, const char *s)
{
	Perftools__Profiles__Profile *pr = &st->prof;
	uint32_t h, id;
	char *u;

	if ((pr->n_string_table + 1) * 2 > st->hashcap)
		pp_strhash_grow(st);
	u = pp_utf8_dup(s);
	for (h = pp_hash(u);; h++) {
		id = st->strhash[h & (st->hashcap - 1)];
		if (id == PP_NONE)
			break;
		if (strcmp(pr->string_table[id], u) == 0) {
			free(u);
			return (id);
		}
	}
	if (pr->n_string_table == st->capstr) {
		st->capstr = st->capstr ? st->capstr * 2 : 256;
		pr->string_table = xreallocarray(pr->string_table,
		    st->capstr, sizeof(*pr->string_table));
		st->func_of_str = xreallocarray(st->func_of_str, st->capstr,
		    sizeof(*st->func_of_str));
	}
	id = (uint32_t)pr->n_string_table++;
	pr->string_table[id] = u;
	st->func_of_str[id] = 0;
	st->strhash[h & (st->hashcap - 1)] = id;
	return (id);
}

/* The location id of a frame: one function and one location per name. */
static uint64_t
pp_location(struct pp_state *st, const char *frame)
{
	Perftools__Profiles__Profile *pr = &st->prof;
	Perftools__Profiles__Function *fn;
	Perftools__Profiles__Location *loc;
	Perftools__Profiles__Line *line;
	int64_t name = pp_str(st, frame);
	uint64_t id;

	if (st->func_of_str[name] != 0)
		return (st->func_of_str[name]);
	if (pr->n_function == st->capfunc) {
		st->capfunc = st->capfunc ? st->capfunc * 2 : 256;
		pr->function = xreallocarray(pr->function, st->capfunc,
		    sizeof(*pr->function));
		pr->location = xreallocarray(pr->location, st->capfunc,
		    sizeof(*pr->location));
	}
	id = pr->n_function + 1;
	fn = xmalloc(sizeof(*fn));
	perftools__profiles__function__init(fn);
	fn->id = id;
	fn->name = fn->system_name = name;
	pr->function[pr->n_function++] = fn;
	line = xmalloc(sizeof(*line));
	perftools__profiles__line__init(line);
	line->function_id = id;
	loc = xmalloc(sizeof(*loc));
	perftools__profiles__location__init(loc);
	loc->id = id;
	loc->n_line = 1;
	loc->line = xmalloc(sizeof(*loc->line));
	loc->line[0] = line;
	pr->location[pr->n_location++] = loc;
	st->func_of_str[name] = (uint32_t)id;
	return (id);
}

static Perftools__Profiles__Label *
pp_label(int64_t key, int64_t str, int64_t num)
{
	Perftools__Profiles__Label *l = xmalloc(sizeof(*l));

	perftools__profiles__label__init(l);
	l->key = key;
	l->str = str;
	l->num = num;
	return (l);
}

/* The stall type of a gpu stack: its `<stall>_[g]` frame, or NULL. */
static const char *
pp_stall(const struct profile_stack *s, size_t *lenp)
{
	const char *f;
	size_t n, i;
	uint32_t j;

	for (j = s->nframes; j > 0; j--) {
		f = s->frames[j - 1];
		n = strlen(f);
		if (n < 5 || strcmp(f + n - 4, "_[g]") != 0)
			continue;
		for (i = 0; i < sizeof(pp_stalls) / sizeof(pp_stalls[0]); i++)
			if (strlen(pp_stalls[i]) == n - 4 &&
			    strncmp(f, pp_stalls[i], n - 4) == 0) {
				*lenp = n - 4;
				return (f);
			}
	}
	return (NULL);
}

static int
pp_add_stack(const struct profile_stack *s, void *arg)
{
	struct pp_state *st = arg;
	Perftools__Profiles__Profile *pr = &st->prof;
	Perftools__Profiles__Sample *sm;
	const char *stall;
	char *tmp, pod[256], ns[256];
	size_t stlen;
	uint32_t i;

	if (s->count == 0)
		return (0);
	sm = xmalloc(sizeof(*sm));
	perftools__profiles__sample__init(sm);
	sm->n_location_id = s->nframes;
	sm->location_id = xreallocarray(NULL, s->nframes ? s->nframes : 1,
	    sizeof(*sm->location_id));
	for (i = 0; i < s->nframes; i++)	/* pprof wants the leaf first */
		sm->location_id[i] = pp_location(st, s->frames[s->nframes - 1 -
		    i]);
	sm->n_value = 2;
	sm->value = xreallocarray(NULL, 2, sizeof(*sm->value));
	sm->value[0] = (int64_t)s->count;
	sm->value[1] = st->period > 0 && (int64_t)s->count > INT64_MAX /
	    st->period ? INT64_MAX : (int64_t)s->count * st->period;
	sm->label = xreallocarray(NULL, 7, sizeof(*sm->label));
	sm->label[sm->n_label++] = pp_label(st->k_pid, 0, s->pid);
	sm->label[sm->n_label++] = pp_label(st->k_comm, pp_str(st,
	    s->comm != NULL ? s->comm : ""), 0);
	if (s->container != NULL && *s->container != '\0')
		sm->label[sm->n_label++] = pp_label(st->k_container,
		    pp_str(st, s->container), 0);
	/* Kubernetes: the pod and namespace inside a k8s_ name as labels. */
	if (s->container != NULL && container_k8s_split(s->container, pod,
	    sizeof(pod), ns, sizeof(ns)) == 0) {
		sm->label[sm->n_label++] = pp_label(pp_str(st, "pod"),
		    pp_str(st, pod), 0);
		sm->label[sm->n_label++] = pp_label(pp_str(st, "namespace"),
		    pp_str(st, ns), 0);
	}
	if (s->appid != NULL)
		sm->label[sm->n_label++] = pp_label(st->k_appid,
		    pp_str(st, s->appid), 0);
	if (st->mode == MODE_GPU && (stall = pp_stall(s, &stlen)) != NULL) {
		tmp = xstrndup(stall, stlen);
		sm->label[sm->n_label++] = pp_label(st->k_stall,
		    pp_str(st, tmp), 0);
		free(tmp);
	}
	if (pr->n_sample == st->capsample) {
		st->capsample = st->capsample ? st->capsample * 2 : 256;
		pr->sample = xreallocarray(pr->sample, st->capsample,
		    sizeof(*pr->sample));
	}
	pr->sample[pr->n_sample++] = sm;
	return (0);
}

static Perftools__Profiles__ValueType *
pp_value_type(struct pp_state *st, const char *type, const char *unit)
{
	Perftools__Profiles__ValueType *vt = xmalloc(sizeof(*vt));

	perftools__profiles__value_type__init(vt);
	vt->type = pp_str(st, type);
	vt->unit = pp_str(st, unit);
	return (vt);
}

/* Sample types, period and times of the cycle. */
static void
pp_setup(struct pp_state *st, const struct cycle_output *co)
{
	Perftools__Profiles__Profile *pr = &st->prof;
	int64_t d;
	int alloc = co->mode == MODE_ALLOCATION;

	pp_str(st, "");
	st->mode = co->mode;
	if (alloc)	/* the frequency is the sampling interval in bytes */
		st->period = co->frequency > 0 ? co->frequency : 0;
	else
		st->period = co->frequency > 0 ?
		    (int64_t)(1000000000 / co->frequency) : 0;
	pr->n_sample_type = 2;
	pr->sample_type = xreallocarray(NULL, 2, sizeof(*pr->sample_type));
	pr->sample_type[0] = pp_value_type(st, "samples", "count");
	pr->sample_type[1] = alloc ? pp_value_type(st, "alloc_space",
	    "bytes") : pp_value_type(st, "cpu", "nanoseconds");
	pr->period_type = alloc ? pp_value_type(st, "alloc_space", "bytes") :
	    pp_value_type(st, "cpu", "nanoseconds");
	pr->period = st->period;
	pr->default_sample_type = pr->sample_type[1]->type;
	pr->time_nanos = (int64_t)co->start.tv_sec * 1000000000 +
	    co->start.tv_nsec;
	d = ((int64_t)co->end.tv_sec - co->start.tv_sec) * 1000000000 +
	    (co->end.tv_nsec - co->start.tv_nsec);
	pr->duration_nanos = d > 0 ? d : 0;
	st->k_pid = pp_str(st, "pid");
	st->k_comm = pp_str(st, "comm");
	st->k_container = pp_str(st, "container");
	st->k_appid = pp_str(st, "appid");
	st->k_stall = pp_str(st, "stall");
}

static void
pp_free(struct pp_state *st)
{
	Perftools__Profiles__Profile *pr = &st->prof;
	size_t i, j;

	for (i = 0; i < pr->n_sample; i++) {
		for (j = 0; j < pr->sample[i]->n_label; j++)
			free(pr->sample[i]->label[j]);
		free(pr->sample[i]->label);
		free(pr->sample[i]->value);
		free(pr->sample[i]->location_id);
		free(pr->sample[i]);
	}
	for (i = 0; i < pr->n_location; i++) {
		free(pr->location[i]->line[0]);
		free(pr->location[i]->line);
		free(pr->location[i]);
		free(pr->function[i]);
	}
	for (i = 0; i < pr->n_sample_type; i++)
		free(pr->sample_type[i]);
	for (i = 0; i < pr->n_string_table; i++)
		free(pr->string_table[i]);
	free(pr->sample);
	free(pr->location);
	free(pr->function);
	free(pr->sample_type);
	free(pr->period_type);
	free(pr->string_table);
	free(st->strhash);
	free(st->func_of_str);
}

unsigned char *
pprof_render(const struct cycle_output *co, size_t *lenp)
{
	struct pp_state st;
	unsigned char *raw, *gz;
	size_t rawlen;

	memset(&st, 0, sizeof(st));
	perftools__profiles__profile__init(&st.prof);
	pp_setup(&st, co);
	if (co->profile != NULL)
		profile_foreach(co->profile, pp_add_stack, &st);
	rawlen = perftools__profiles__profile__get_packed_size(&st.prof);
	raw = xmalloc(rawlen ? rawlen : 1);
	perftools__profiles__profile__pack(&st.prof, raw);
	pp_free(&st);
	gz = gzip_compress(raw, rawlen, lenp);
	if (gz == NULL)
		log_warnx("pprof: gzip failed");
	free(raw);
	return (gz);
}
