/*
 * Plugin manifests: `<name>.plugin` beside `<name>.so`, read without
 * loading the plugin, so that a mode maps only the plugins it needs.
 *
 *	name = iaprof
 *	kind = system			# system | process | metrics
 *	modes = gpu			# cpu, allocation, gpu (comma-separated)
 *	abi = 1
 *	options = iaprof-path iaprof-eu-stall-subsample
 *
 * An option may carry its type ("enable-x:bool") so the command line
 * knows it takes no separate value.  "enabled-by = OPTION" names a boolean
 * option of the plugin without which it is not even loaded (PerfSpect's
 * --enable-hw-metrics-collection).  Parsed with the config grammar.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "config/configuration.h"
#include "config/manifest.h"
#include "gprofiler.h"

struct manifest_state {
	struct manifest *m;
	char *err;
	size_t errlen;
	int seen_name, seen_kind, seen_modes, seen_abi;
};

static int
manifest_modes(const char *v, unsigned *out)
{
	char buf[256], *tok, *save;

	if (strlen(v) >= sizeof(buf))
		return (-EINVAL);
	snprintf(buf, sizeof(buf), "%s", v);
	*out = 0;
	for (tok = strtok_r(buf, ", \t", &save); tok != NULL;
	    tok = strtok_r(NULL, ", \t", &save)) {
		if (strcmp(tok, "cpu") == 0)
			*out |= MODE_CPU;
		else if (strcmp(tok, "allocation") == 0)
			*out |= MODE_ALLOCATION;
		else if (strcmp(tok, "gpu") == 0)
			*out |= MODE_GPU;
		else
			return (-EINVAL);
	}
	return (*out != 0 ? 0 : -EINVAL);
}

static int
manifest_options(struct manifest *m, const char *v)
{
	char *buf, *tok, *save, *colon;
	size_t n = 0;

	buf = xstrdup(v);
	for (tok = strtok_r(buf, ", \t", &save); tok != NULL;
	    tok = strtok_r(NULL, ", \t", &save)) {
		if (n >= 256) {
			free(buf);
			return (-E2BIG);
		}
		m->options = xreallocarray(m->options, n + 2, sizeof(char *));
		m->bool_opts = xreallocarray(m->bool_opts, n + 1,
		    sizeof(*m->bool_opts));
		m->bool_opts[n] = 0;
		if ((colon = strchr(tok, ':')) != NULL) {
			*colon++ = '\0';
			m->bool_opts[n] = strcmp(colon, "bool") == 0;
		}
		m->options[n++] = xstrdup(tok);
		m->options[n] = NULL;
	}
	free(buf);
	return (0);
}

static int
manifest_line(void *arg, const char *section, const char *key,
    const char *val, const char *origin)
{
	struct manifest_state *st = arg;
	struct manifest *m = st->m;
	char *end;

	if (*section != '\0') {
		snprintf(st->err, st->errlen, "%s: manifests have no sections",
		    origin);
		return (-EINVAL);
	}
	if (strcmp(key, "name") == 0) {
		free(m->name);
		m->name = xstrdup(val);
		st->seen_name = 1;
	} else if (strcmp(key, "kind") == 0) {
		if (strcmp(val, "system") == 0)
			m->kind = GP_KIND_SYSTEM;
		else if (strcmp(val, "process") == 0)
			m->kind = GP_KIND_PROCESS;
		else if (strcmp(val, "metrics") == 0)
			m->kind = GP_KIND_METRICS;
		else {
			snprintf(st->err, st->errlen, "%s: kind must be "
			    "system, process or metrics", origin);
			return (-EINVAL);
		}
		st->seen_kind = 1;
	} else if (strcmp(key, "modes") == 0) {
		if (manifest_modes(val, &m->modes) != 0) {
			snprintf(st->err, st->errlen, "%s: modes must list "
			    "cpu, allocation and/or gpu", origin);
			return (-EINVAL);
		}
		st->seen_modes = 1;
	} else if (strcmp(key, "abi") == 0) {
		m->abi_major = strtoul(val, &end, 10);
		if (*val == '\0' || *end != '\0') {
			snprintf(st->err, st->errlen, "%s: abi must be the "
			    "ABI major number", origin);
			return (-EINVAL);
		}
		st->seen_abi = 1;
	} else if (strcmp(key, "options") == 0) {
		if (manifest_options(m, val) != 0) {
			snprintf(st->err, st->errlen, "%s: too many options",
			    origin);
			return (-EINVAL);
		}
	} else if (strcmp(key, "enabled-by") == 0) {
		free(m->enabled_by);
		m->enabled_by = xstrdup(val);
	} else if (strcmp(key, "description") != 0 &&
	    strcmp(key, "version") != 0) {
		snprintf(st->err, st->errlen, "%s: unknown key \"%s\"", origin,
		    key);
		return (-EINVAL);
	}
	return (0);
}

/* Parse a manifest; on error m is cleared and err says file:line. */
int
manifest_parse(const char *buf, size_t len, const char *fname,
    struct manifest *m, char *err, size_t errlen)
{
	struct manifest_state st;
	int rc;

	memset(m, 0, sizeof(*m));
	memset(&st, 0, sizeof(st));
	st.m = m;
	st.err = err;
	st.errlen = errlen;
	rc = config_parse_buf(buf, len, fname, manifest_line, &st, err,
	    errlen);
	if (rc == 0 && !(st.seen_name && st.seen_kind && st.seen_modes &&
	    st.seen_abi)) {
		snprintf(err, errlen, "%s: name, kind, modes and abi are "
		    "required", fname);
		rc = -EINVAL;
	}
	if (rc != 0)
		manifest_clear(m);
	return (rc);
}

void
manifest_clear(struct manifest *m)
{
	char **p;

	free(m->name);
	free(m->enabled_by);
	for (p = m->options; p != NULL && *p != NULL; p++)
		free(*p);
	free(m->options);
	free(m->bool_opts);
	memset(m, 0, sizeof(*m));
}

/* Whether the manifest declares option `name`; *is_bool if typed bool. */
int
manifest_has_option(const struct manifest *m, const char *name, int *is_bool)
{
	size_t i;

	for (i = 0; m->options != NULL && m->options[i] != NULL; i++)
		if (strcmp(m->options[i], name) == 0) {
			if (is_bool != NULL)
				*is_bool = m->bool_opts[i];
			return (1);
		}
	return (0);
}
