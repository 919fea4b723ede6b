/*
 * manifest.c: a plugin's <name>.plugin manifest (its kind, modes, ABI and
 * option names, in the configuration file's grammar), read before any
 * dlopen so a mode maps only its plugins and every source of settings can
 * name their options.  struct manifest is in gprofiler.h, inside the plugin
 * record.
 */
#ifndef GP_CONFIG_MANIFEST_H
#define GP_CONFIG_MANIFEST_H

#include <stddef.h>

struct manifest;

int manifest_parse(const char *buf, size_t len, const char *fname,
		    struct manifest *, char *err, size_t errlen);
void manifest_clear(struct manifest *);
int manifest_has_option(const struct manifest *, const char *name,
		    int *is_bool);

#endif
