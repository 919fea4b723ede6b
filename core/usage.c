/* --help: the core options and those of every installed plugin, from the
 * same tables that parse them. */
#include "config.h"

#include <string.h>

#include "agent.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "host/host.h"

static const char *
usage_type(uint32_t type)
{
	switch (type) {
	case GP_OPT_INT:
		return (" N");
	case GP_OPT_STRING:
		return (" TEXT");
	case GP_OPT_ENUM:
		return (" MODE");
	case GP_OPT_PATH:
		return (" PATH");
	case GP_OPT_SIZE:
		return (" SIZE");
	}
	return ("");
}

static void
usage_row(FILE *f, char sh, const char *name, uint32_t type,
    const char *choices, const char *def, const char *help)
{
	char left[128];

	if (sh != 0)
		snprintf(left, sizeof(left), "-%c, --%s%s", sh, name,
		    usage_type(type));
	else
		snprintf(left, sizeof(left), "    --%s%s", name,
		    usage_type(type));
	fprintf(f, "  %-40s %s", left, help != NULL ? help : "");
	if (choices != NULL)
		fprintf(f, " (%s)", choices);
	if (def != NULL && type != GP_OPT_BOOL)
		fprintf(f, " [%s]", def);
	fputc('\n', f);
}

void
usage_print(FILE *f, struct plugin_list *plugins)
{
	const struct option_def *od;
	const struct gp_option *o;
	struct plugin *p;
	char err[1024];
	uint32_t i;

	fprintf(f, "usage: gprofiler [options]\n"
	    "       gprofiler flamegraph FILE.col [-o OUT.html]\n"
	    "       gprofiler upload-file --file-path FILE.col [options]\n\n"
	    "Continuous whole-host profiler (gProfiler compatible).\n"
	    "Settings: command line > GPROFILER_<NAME> environment > "
	    "config file > defaults.\n"
	    "  -h, --help  -V, --version  -n, --check-config\n\n"
	    "Core options:\n");
	for (i = 0; (od = options_get(i)) != NULL; i++)
		usage_row(f, od->od_short, od->od_name, od->od_type,
		    od->od_choices, od->od_default, od->od_help);
	TAILQ_FOREACH(p, plugins, entry) {
		if (plugin_open(p, err, sizeof(err)) != 0) {
			fprintf(f, "\nPlugin %s: cannot be loaded: %s\n",
			    p->manifest.name, err);
			continue;
		}
		fprintf(f, "\nPlugin %s %s (%s; modes:%s%s%s): %s\n",
		    p->desc->name, p->desc->version != NULL ?
		    p->desc->version : "",
		    p->desc->kind == GP_KIND_SYSTEM ? "system profiler" :
		    p->desc->kind == GP_KIND_PROCESS ? "process profiler" :
		    "metrics collector",
		    (p->desc->modes & GP_MODE_CPU) ? " cpu" : "",
		    (p->desc->modes & GP_MODE_ALLOCATION) ? " allocation" : "",
		    (p->desc->modes & GP_MODE_GPU) ? " gpu" : "",
		    p->desc->description != NULL ? p->desc->description : "");
		for (i = 0; i < p->desc->option_count; i++) {
			o = (const void *)((const char *)p->desc->options +
			    (size_t)i * p->desc->option_size);
			usage_row(f, 0, o->name, o->type, o->choices,
			    o->defval, o->help);
		}
	}
}
