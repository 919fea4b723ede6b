/*
 * mkman: print the option lists of the manual pages, in mdoc, from the
 * tables the program parses with, so a page cannot drift from the code.
 *
 *	mkman cli			core options as command-line flags
 *	mkman conf			core options as config-file keys
 *	mkman plugin NAME.so ...	each plugin's section of the config page
 *
 * Plugins are read straight from the shared objects of the build tree
 * (their descriptor only: no init, no host); the daemon's loader, with
 * its ownership rules, is not involved.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "config/configuration.h"

/* One argument word for a value of the given type. */
static const char *
mkman_arg(uint32_t type)
{
	switch (type) {
	case GP_OPT_INT:
		return ("N");
	case GP_OPT_STRING:
		return ("text");
	case GP_OPT_ENUM:
		return ("mode");
	case GP_OPT_PATH:
		return ("path");
	case GP_OPT_SIZE:
		return ("size");
	}
	return (NULL);
}

/* Text for roff: a leading dot or quote would start a request, and a
 * backslash an escape. */
static void
mkman_text(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else
			fputc(*s, f);
	}
}

/* The body of one list item: help, choices, bounds, default. */
static void
mkman_body(FILE *f, uint32_t type, uint32_t flags, const char *help,
    const char *choices, int64_t min, int64_t max, const char *def)
{
	char buf[256], *tok, *save;
	int first = 1;

	mkman_text(f, help != NULL && *help != '\0' ? help : "(no help)");
	fputs(".\n", f);
	if (choices != NULL) {
		fputs("One of:", f);
		snprintf(buf, sizeof(buf), "%s", choices);
		for (tok = strtok_r(buf, "|", &save); tok != NULL;
		    tok = strtok_r(NULL, "|", &save)) {
			fprintf(f, "%s\n.Cm %s", first ? "" : " ,", tok);
			first = 0;
		}
		fputs(" .\n", f);
	}
	if (type == GP_OPT_INT && (min != 0 || max != 0))
		fprintf(f, "From %lld to %lld.\n", (long long)min,
		    (long long)max);
	if (flags & OPTF_MULTI)
		fputs("May be given more than once.\n", f);
	if (flags & (GP_OPTF_SECRET | OPTF_SECRETPATH))
		fputs("Never logged nor sent with a profile.\n", f);
	if (def != NULL && type != GP_OPT_BOOL)
		fprintf(f, "The default is\n.Ql %s .\n", def);
	else if (def != NULL && strcmp(def, "true") == 0)
		fputs("On by default.\n", f);
}

static void
mkman_cli(FILE *f)
{
	const struct option_def *od;
	const char *arg;
	size_t i;

	fputs(".Bl -tag -width Ds\n", f);
	for (i = 0; (od = options_get(i)) != NULL; i++) {
		arg = mkman_arg(od->od_type);
		fputs(".It ", f);
		if (od->od_short != 0)
			fprintf(f, "Fl %c%s%s , ", od->od_short,
			    arg != NULL ? " Ar " : "", arg != NULL ? arg : "");
		fprintf(f, "Fl Fl %s%s%s\n", od->od_name,
		    arg != NULL ? " Ns = Ns Ar " : "", arg != NULL ? arg : "");
		mkman_body(f, od->od_type, od->od_flags, od->od_help,
		    od->od_choices, od->od_min, od->od_max, od->od_default);
		if (od->od_type == GP_OPT_BOOL)
			fprintf(f, ".Fl Fl no-%s\nturns it off.\n", od->od_name);
		if (od->od_flags & OPTF_CLIONLY)
			fputs("Command line and environment only.\n", f);
	}
	fputs(".El\n", f);
}

static void
mkman_conf(FILE *f)
{
	const struct option_def *od;
	const char *arg;
	size_t i;

	fputs(".Bl -tag -width Ds\n", f);
	for (i = 0; (od = options_get(i)) != NULL; i++) {
		if (od->od_flags & OPTF_CLIONLY)
			continue;
		arg = mkman_arg(od->od_type);
		fprintf(f, ".It Ic %s No = Ar %s\n", od->od_name,
		    arg != NULL ? arg : "true|false");
		mkman_body(f, od->od_type, od->od_flags, od->od_help,
		    od->od_choices, od->od_min, od->od_max, od->od_default);
	}
	fputs(".El\n", f);
}

/* One plugin: its section, then its keys with and without the prefix. */
static int
mkman_plugin(FILE *f, const char *path)
{
	const struct gp_plugin *d;
	const struct gp_option *o;
	const char *arg, *key;
	size_t plen;
	uint32_t i;
	void *dl;

	if ((dl = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		fprintf(stderr, "mkman: %s\n", dlerror());
		return (-1);
	}
	d = dlsym(dl, GP_PLUGIN_SYMBOL);
	if (d == NULL || d->magic != GP_PLUGIN_MAGIC ||
	    d->option_size < sizeof(struct gp_option)) {
		fprintf(stderr, "mkman: %s: no usable descriptor\n", path);
		dlclose(dl);
		return (-1);
	}
	plen = strlen(d->name);
	fprintf(f, ".Ss Bq %s\n", d->name);
	if (d->description != NULL) {
		mkman_text(f, d->description);
		fputs(".\n", f);
	}
	fprintf(f, "A %s for the modes%s%s%s.\n",
	    d->kind == GP_KIND_SYSTEM ? "system profiler" :
	    d->kind == GP_KIND_PROCESS ? "process profiler" :
	    "metrics collector",
	    (d->modes & GP_MODE_CPU) ? " cpu" : "",
	    (d->modes & GP_MODE_ALLOCATION) ? " allocation" : "",
	    (d->modes & GP_MODE_GPU) ? " gpu" : "");
	if (d->option_count == 0) {
		fputs("It has no options.\n", f);
		goto out;
	}
	fputs(".Bl -tag -width Ds\n", f);
	for (i = 0; i < d->option_count; i++) {
		o = (const void *)((const char *)d->options +
		    (size_t)i * d->option_size);
		arg = mkman_arg(o->type);
		key = o->name;
		/* In the section the plugin's own prefix may be dropped. */
		if (strncmp(key, d->name, plen) == 0 && key[plen] == '-')
			fprintf(f, ".It Ic %s No or Ic %s No = Ar %s\n",
			    key + plen + 1, key, arg != NULL ? arg :
			    "true|false");
		else
			fprintf(f, ".It Ic %s No = Ar %s\n", key,
			    arg != NULL ? arg : "true|false");
		mkman_body(f, o->type, o->flags, o->help, o->choices, o->min,
		    o->max, o->defval);
		fprintf(f, "Also\n.Fl Fl %s\non the command line.\n", key);
	}
	fputs(".El\n", f);
out:
	dlclose(dl);
	return (0);
}

int
main(int argc, char **argv)
{
	int i, rc = 0;

	if (argc >= 2 && strcmp(argv[1], "cli") == 0)
		mkman_cli(stdout);
	else if (argc >= 2 && strcmp(argv[1], "conf") == 0)
		mkman_conf(stdout);
	else if (argc >= 2 && strcmp(argv[1], "plugin") == 0) {
		for (i = 2; i < argc; i++)
			if (mkman_plugin(stdout, argv[i]) != 0)
				rc = 1;
	} else {
		fputs("usage: mkman cli|conf|plugin NAME.so ...\n", stderr);
		return (2);
	}
	return (fflush(stdout) != 0 ? 1 : rc);
}
