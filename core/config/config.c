/*
 * An effective configuration: option values as normalised text, each with
 * its source and origin ("gprofiler.conf:12", "--pids", "GPROFILER_PIDS"),
 * validated against the core table or the declaring plugin's option rows.
 * Plugin options are known by name from the manifests before their plugin
 * is loaded; their values are type-checked once the rows are registered.
 * A registered row is copied, never borrowed: a heartbeat command may
 * unload (dlclose) the plugin while configurations that know its options
 * live on, and their defaults and types must stay readable.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"

struct cvalue {
	char *name;
	char *value;
	char *origin;
	int source;
};

struct plugopt {
	char *name;
	char *plugin;
	unsigned modes;
	int typed;	/* 0 until the plugin's row is known */
	int loaded;	/* registered for this run's plugins */
	uint32_t type;	/* GP_OPT_*: a copy of the row */
	uint32_t flags;
	int64_t min, max;
	char *defval;
	char *choices;
};

struct config {
	struct cvalue *values;
	size_t nvalues;
	struct plugopt *popts;
	size_t npopts;
};

struct config *
config_new(void)
{
	return (xcalloc(1, sizeof(struct config)));
}

/* A deep copy (plugin rows included). */
struct config *
config_clone(const struct config *src)
{
	struct config *c;
	size_t i;

	c = config_new();
	c->values = xcalloc(src->nvalues, sizeof(*c->values));
	for (i = 0; i < src->nvalues; i++) {
		c->values[i].name = xstrdup(src->values[i].name);
		c->values[i].value = xstrdup(src->values[i].value);
		c->values[i].origin = xstrdup(src->values[i].origin);
		c->values[i].source = src->values[i].source;
	}
	c->nvalues = src->nvalues;
	c->popts = xcalloc(src->npopts, sizeof(*c->popts));
	for (i = 0; i < src->npopts; i++) {
		c->popts[i] = src->popts[i];
		c->popts[i].name = xstrdup(src->popts[i].name);
		c->popts[i].plugin = xstrdup(src->popts[i].plugin);
		c->popts[i].defval = src->popts[i].defval != NULL ?
		    xstrdup(src->popts[i].defval) : NULL;
		c->popts[i].choices = src->popts[i].choices != NULL ?
		    xstrdup(src->popts[i].choices) : NULL;
	}
	c->npopts = src->npopts;
	return (c);
}

void
config_free(struct config *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nvalues; i++) {
		free(c->values[i].name);
		/* A token may sit here: wipe it. */
		explicit_bzero(c->values[i].value, strlen(c->values[i].value));
		free(c->values[i].value);
		free(c->values[i].origin);
	}
	for (i = 0; i < c->npopts; i++) {
		free(c->popts[i].name);
		free(c->popts[i].plugin);
		free(c->popts[i].defval);
		free(c->popts[i].choices);
	}
	free(c->values);
	free(c->popts);
	free(c);
}

static struct cvalue *
config_find_value(const struct config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nvalues; i++)
		if (strcmp(c->values[i].name, name) == 0)
			return (&c->values[i]);
	return (NULL);
}

static struct plugopt *
config_find_popt(const struct config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->npopts; i++)
		if (strcmp(c->popts[i].name, name) == 0)
			return (&c->popts[i]);
	return (NULL);
}

/* Make `name` a known option of `plugin` (from its manifest). */
void
config_declare_plugin_option(struct config *c, const char *name,
    const char *plugin, unsigned modes)
{
	struct plugopt *p;

	if ((p = config_find_popt(c, name)) != NULL)
		return;
	c->popts = xreallocarray(c->popts, c->npopts + 1, sizeof(*c->popts));
	p = &c->popts[c->npopts++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	p->plugin = xstrdup(plugin);
	p->modes = modes;
}

/* The plugin declaring option `name`, or NULL for core/unknown options. */
const char *
config_option_plugin(const struct config *c, const char *name, unsigned *modes)
{
	struct plugopt *p;

	if ((p = config_find_popt(c, name)) == NULL)
		return (NULL);
	if (modes != NULL)
		*modes = p->modes;
	return (p->plugin);
}

int
config_is_set(const struct config *c, const char *name)
{
	const struct option_def *od;

	if ((od = options_find(name)) != NULL)
		name = od->od_name;
	return (config_find_value(c, name) != NULL);
}

static const char *
config_default(const struct config *c, const char *name)
{
	const struct option_def *od;
	struct plugopt *p;

	if ((od = options_find(name)) != NULL) {
		/* gProfiler: -f defaults to 11 in cpu mode; gpu mode to 100
		 * (iaprof's 10 ms interval). */
		if ((od->od_flags & OPTF_MODEDEFAULT) &&
		    config_mode(c) == MODE_GPU)
			return (OPT_FREQUENCY_GPU);
		return (od->od_default);
	}
	if ((p = config_find_popt(c, name)) != NULL && p->typed)
		return (p->defval);
	return (NULL);
}

const char *
config_get(const struct config *c, const char *name)
{
	const struct option_def *od;
	struct cvalue *v;

	if ((od = options_find(name)) != NULL)
		name = od->od_name;
	/* An empty value turns an option off ("--pid-file="). */
	if ((v = config_find_value(c, name)) != NULL)
		return (*v->value != '\0' ? v->value : NULL);
	return (config_default(c, name));
}

/* Which source set the value (SRC_*); SRC_DEFAULT when not set. */
int
config_source(const struct config *c, const char *name)
{
	struct cvalue *v;

	return ((v = config_find_value(c, name)) != NULL ? v->source :
	    SRC_DEFAULT);
}

/* Where the value came from, for error messages; NULL for defaults. */
const char *
config_origin(const struct config *c, const char *name)
{
	struct cvalue *v;

	if ((v = config_find_value(c, name)) == NULL)
		return (NULL);
	return (v->origin);
}

int64_t
config_get_int(const struct config *c, const char *name, int64_t dflt)
{
	const char *s;
	char *end;
	long long n;

	if ((s = config_get(c, name)) == NULL || *s == '\0')
		return (dflt);
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return (dflt);
	return (n);
}

/*
 * An integer or size option ("2mb") as a number: its value, else its
 * default from the table row (the one place a default is written).  0
 * when there is neither, which the table's bounds rule out for the
 * options read this way.
 */
int64_t
config_get_num(const struct config *c, const char *name)
{
	unsigned long long sz;
	const char *s;
	char *end;
	long long n;

	if ((s = config_get(c, name)) == NULL || *s == '\0')
		return (0);
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno == 0 && *end == '\0')
		return (n);
	if (config_parse_size(s, &sz) == 0 && sz <= INT64_MAX)
		return ((int64_t)sz);
	return (0);
}

int
config_get_bool(const struct config *c, const char *name)
{
	const char *s;

	if ((s = config_get(c, name)) == NULL)
		return (0);
	return (strcmp(s, "true") == 0);
}

unsigned
config_mode(const struct config *c)
{
	struct cvalue *v;
	const char *m;

	/* Not config_get: the mode's default must not recurse. */
	m = (v = config_find_value(c, "mode")) != NULL ? v->value : "cpu";
	if (strcmp(m, "cpu") == 0)
		return (MODE_CPU);
	if (strcmp(m, "allocation") == 0)
		return (MODE_ALLOCATION);
	if (strcmp(m, "gpu") == 0)
		return (MODE_GPU);
	return (MODE_NONE);
}

const char *
config_mode_name(unsigned mode)
{
	switch (mode) {
	case MODE_CPU:
		return ("cpu");
	case MODE_ALLOCATION:
		return ("allocation");
	case MODE_GPU:
		return ("gpu");
	default:
		return ("none");
	}
}

static int
config_store(struct config *c, const char *name, const char *value,
    int source, const char *origin, int multi)
{
	struct cvalue *v;
	char *joined;

	if ((v = config_find_value(c, name)) != NULL) {
		if (v->source > source)
			return (0);	/* a higher source already set it */
		if (multi && v->source == source) {
			xasprintf(&joined, "%s,%s", v->value, value);
			free(v->value);
			v->value = joined;
		} else {
			free(v->value);
			v->value = xstrdup(value);
		}
		free(v->origin);
		v->origin = xstrdup(origin);
		v->source = source;
		return (0);
	}
	c->values = xreallocarray(c->values, c->nvalues + 1,
	    sizeof(*c->values));
	v = &c->values[c->nvalues++];
	v->name = xstrdup(name);
	v->value = xstrdup(value);
	v->origin = xstrdup(origin);
	v->source = source;
	return (0);
}

/*
 * Validate and normalise one value of type `type` into out.  On error, err
 * says what was expected (the caller prefixes origin and option).
 */
int
config_check_value(uint32_t type, const char *value, int64_t min, int64_t max,
    const char *choices, char *out, size_t outlen, char *err, size_t errlen)
{
	static const char *const truthy[] = { "true", "1", "yes", "on" };
	static const char *const falsy[] = { "false", "0", "no", "off" };
	unsigned long long sz;
	long long n;
	size_t i;
	char *end;

	switch (type) {
	case GP_OPT_BOOL:
		for (i = 0; i < 4; i++) {
			if (strcasecmp(value, truthy[i]) == 0)
				return (snprintf(out, outlen, "true"), 0);
			if (strcasecmp(value, falsy[i]) == 0)
				return (snprintf(out, outlen, "false"), 0);
		}
		snprintf(err, errlen, "expected true or false");
		return (-EINVAL);
	case GP_OPT_INT:
		errno = 0;
		n = strtoll(value, &end, 10);
		if (errno != 0 || end == value || *end != '\0' ||
		    ((min != 0 || max != 0) && (n < min || n > max))) {
			if (min != 0 || max != 0)
				snprintf(err, errlen, "expected an integer "
				    "from %" PRId64 " to %" PRId64, min, max);
			else
				snprintf(err, errlen, "expected an integer");
			return (-EINVAL);
		}
		snprintf(out, outlen, "%lld", n);
		return (0);
	case GP_OPT_SIZE:
		if (config_parse_size(value, &sz) != 0 ||
		    (min != 0 && sz < (unsigned long long)min) ||
		    (max != 0 && sz > (unsigned long long)max)) {
			snprintf(err, errlen, "expected a size such as 512kb, "
			    "2mb or 1gb (binary units)%s",
			    min > 1 ? ", not below the minimum" : "");
			return (-EINVAL);
		}
		snprintf(out, outlen, "%llu", sz);
		return (0);
	case GP_OPT_ENUM:
		if (strcmp(value, "none") == 0 && choices != NULL &&
		    config_choice_ok(choices, "disabled"))
			value = "disabled";
		if (choices == NULL || !config_choice_ok(choices, value)) {
			snprintf(err, errlen, "expected one of %s",
			    choices != NULL ? choices : "(none)");
			return (-EINVAL);
		}
		snprintf(out, outlen, "%s", value);
		return (0);
	case GP_OPT_PATH:
	case GP_OPT_STRING:
		if (strlen(value) >= outlen) {
			snprintf(err, errlen, "value too long");
			return (-EINVAL);
		}
		snprintf(out, outlen, "%s", value);
		return (0);
	}
	snprintf(err, errlen, "option of unknown type %u", type);
	return (-EINVAL);
}

/* Whether `value` is one of the '|'-separated `choices`. */
int
config_choice_ok(const char *choices, const char *value)
{
	const char *p = choices, *bar;
	size_t n = strlen(value);

	while (*p != '\0') {
		bar = strchr(p, '|');
		if (bar == NULL)
			bar = p + strlen(p);
		if ((size_t)(bar - p) == n && strncmp(p, value, n) == 0)
			return (1);
		p = *bar == '|' ? bar + 1 : bar;
	}
	return (0);
}

/* "2mb" -> 2097152; binary units, case-insensitive, optional "b"/"ib". */
int
config_parse_size(const char *s, unsigned long long *out)
{
	unsigned long long n, mult = 1;
	char *end;

	if (*s == '-' || *s == '\0')
		return (-EINVAL);
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno != 0 || end == s)
		return (-EINVAL);
	switch (*end) {
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	case 't': case 'T': mult = 1ULL << 40; end++; break;
	}
	if (mult != 1 && (*end == 'i' || *end == 'I'))
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end != '\0' || (n != 0 && mult > ULLONG_MAX / n))
		return (-EINVAL);
	*out = n * mult;
	return (0);
}

int
config_set(struct config *c, const char *name, const char *value, int source,
    const char *origin, char *err, size_t errlen)
{
	const struct option_def *od;
	struct plugopt *p;
	char norm[4096], why[256];

	if ((od = options_find(name)) != NULL) {
		if (config_check_value(od->od_type, value, od->od_min,
		    od->od_max, od->od_choices, norm, sizeof(norm), why,
		    sizeof(why)) != 0) {
			snprintf(err, errlen, "%s: invalid value \"%s\" for "
			    "--%s: %s", origin, (od->od_flags & OPTF_SECRET) ?
			    "(hidden)" : value, od->od_name, why);
			return (-EINVAL);
		}
		return (config_store(c, od->od_name, norm, source, origin,
		    (od->od_flags & OPTF_MULTI) != 0));
	}
	if ((p = config_find_popt(c, name)) != NULL) {
		if (p->typed && config_check_value(p->type, value, p->min,
		    p->max, p->choices, norm, sizeof(norm), why,
		    sizeof(why)) != 0) {
			snprintf(err, errlen, "%s: invalid value \"%s\" for "
			    "--%s (plugin %s): %s", origin,
			    (p->flags & GP_OPTF_SECRET) ? "(hidden)" : value,
			    name, p->plugin, why);
			return (-EINVAL);
		}
		return (config_store(c, name, p->typed ? norm : value,
		    source, origin, 0));
	}
	snprintf(err, errlen, "%s: unknown option \"%s\" (see gprofiler "
	    "--help for the options of the core and of the installed "
	    "plugins)", origin, name);
	return (-ENOENT);
}

/* Keep what the row says, in memory the configuration owns. */
static void
config_copy_row(struct plugopt *p, const struct gp_option *row)
{
	free(p->defval);
	free(p->choices);
	p->typed = 1;
	p->loaded = 1;
	p->type = row->type;
	p->flags = row->flags;
	p->min = row->min;
	p->max = row->max;
	p->defval = row->defval != NULL ? xstrdup(row->defval) : NULL;
	p->choices = row->choices != NULL ? xstrdup(row->choices) : NULL;
}

/*
 * Forget which plugins registered their rows (the rows stay, to check and
 * type values): a run's configuration then learns which plugins are loaded
 * for it, as at a fresh start, and run_arguments holds the defaults of
 * those only, not of plugins an earlier run loaded.
 */
void
config_forget_plugin_rows(struct config *c)
{
	size_t i;

	for (i = 0; i < c->npopts; i++)
		c->popts[i].loaded = 0;
}

/*
 * A plugin was loaded: attach its rows to its declared options and
 * type-check the values given before it was loaded.
 */
int
config_register_plugin(struct config *c, const char *plugin,
    const struct gp_option *rows, size_t nrows, size_t rowsize, char *err,
    size_t errlen)
{
	const struct gp_option *row;
	struct plugopt *p;
	struct cvalue *v;
	char *value, *origin;
	size_t i;
	int rc, source;

	for (i = 0; i < nrows; i++) {
		row = (const struct gp_option *)((const char *)rows +
		    i * rowsize);
		config_declare_plugin_option(c, row->name, plugin, 0);
		p = config_find_popt(c, row->name);
		config_copy_row(p, row);
		if ((v = config_find_value(c, row->name)) == NULL)
			continue;
		/* Re-set through the now typed row. */
		value = xstrdup(v->value);
		origin = xstrdup(v->origin);
		source = v->source;
		v->source = -1;
		rc = config_set(c, row->name, value, source, origin, err,
		    errlen);
		free(value);
		free(origin);
		if (rc != 0)
			return (rc);
	}
	return (0);
}

/* Option p is its plugin's "<name>-mode" and a value was set for it. */
static int
config_plugin_mode_set(const struct config *c, const struct plugopt *p)
{
	size_t n = strlen(p->plugin);

	return (strncmp(p->name, p->plugin, n) == 0 &&
	    strcmp(p->name + n, "-mode") == 0 &&
	    config_find_value(c, p->name) != NULL);
}

/* gProfiler's run_arguments: every effective setting by dest name, with
 * secrets left out (docs/specs/gprofiler-compat.md §12 #1). */
struct json_object *
config_run_arguments(const struct config *c)
{
	const struct option_def *od;
	struct json_object *o;
	const char *v;
	char dest[256], *q;
	size_t i;

	o = json_object_new_object();
	for (i = 0; (od = options_get(i)) != NULL; i++) {
		if ((od->od_flags & OPTF_SECRET) || od->od_dest == NULL)
			continue;
		v = config_get(c, od->od_name);
		config_json_add(o, od->od_dest, od->od_type, v);
	}
	for (i = 0; i < c->npopts; i++) {
		/*
		 * The loaded plugins' options; of the others only the mode
		 * that turned one off ("perf_mode": "disabled"), which
		 * names no secret (an unloaded row's flags may be unknown).
		 */
		if (!c->popts[i].loaded && !config_plugin_mode_set(c,
		    &c->popts[i]))
			continue;
		if (c->popts[i].loaded && (c->popts[i].flags & GP_OPTF_SECRET))
			continue;
		snprintf(dest, sizeof(dest), "%s", c->popts[i].name);
		for (q = dest; *q != '\0'; q++)
			if (*q == '-')
				*q = '_';
		config_json_add(o, dest, c->popts[i].type,
		    config_get(c, c->popts[i].name));
	}
	return (o);
}

void
config_json_add(struct json_object *o, const char *key, uint32_t type,
    const char *v)
{
	if (v == NULL)
		json_object_object_add(o, key, NULL);
	else if (type == GP_OPT_BOOL)
		json_object_object_add(o, key,
		    json_object_new_boolean(strcmp(v, "true") == 0));
	else if (type == GP_OPT_INT || type == GP_OPT_SIZE)
		json_object_object_add(o, key,
		    json_object_new_int64(strtoll(v, NULL, 10)));
	else
		json_object_object_add(o, key, json_object_new_string(v));
}

/* Forget the value set for `name` (its default applies again). */
void
config_unset(struct config *c, const char *name)
{
	struct cvalue *v;

	if ((v = config_find_value(c, name)) == NULL)
		return;
	free(v->name);
	explicit_bzero(v->value, strlen(v->value));
	free(v->value);
	free(v->origin);
	c->nvalues--;
	memmove(v, v + 1, (size_t)(&c->values[c->nvalues] - v) * sizeof(*v));
}

/* Visit every explicitly set value (not defaults). */
void
config_foreach_set(const struct config *c,
    void (*cb)(const char *name, const char *value, const char *origin,
    int source, void *arg), void *arg)
{
	size_t i;

	for (i = 0; i < c->nvalues; i++)
		cb(c->values[i].name, c->values[i].value, c->values[i].origin,
		    c->values[i].source, arg);
}
