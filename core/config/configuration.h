/*
 * The configuration (core/config/): one option table for the command line,
 * the config file and GPROFILER_* variables; immutable configurations;
 * gProfiler's flags; --external-metadata.  Plugin manifests, read with the
 * same grammar: config/manifest.h.
 */
#ifndef GP_CONFIG_CONFIGURATION_H
#define GP_CONFIG_CONFIGURATION_H

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

struct event_base;
struct json_object;

/* options.c */
#define OPTF_SECRET	 GP_OPTF_SECRET	/* never logged or in run_arguments */
#define OPTF_MULTI	 0x100u	/* repeatable: values are joined with ',' */
#define OPTF_CLIONLY	 0x200u	/* command line and environment only */
#define OPTF_MODEDEFAULT 0x400u	/* default depends on the mode */
#define OPTF_SECRETPATH	 0x800u	/* a file holding a secret: mode checked */

/*
 * -f's default depends on the mode (gProfiler's 11 Hz for cpu; 100 for
 * gpu, iaprof's 10 ms interval): the table row and config_get() take
 * them from here.  Every other default is written once, in its table row;
 * code reads numbers with config_get_num(), never with a literal fallback.
 */
#define OPT_STR_(x)		#x
#define OPT_STR(x)		OPT_STR_(x)
#define OPT_FREQUENCY_CPU	OPT_STR(GP_DEFAULT_FREQUENCY)
#define OPT_FREQUENCY_GPU	"100"

struct option_def {
	const char *od_name;
	char od_short;
	uint32_t od_type;	/* GP_OPT_* */
	uint32_t od_flags;	/* OPTF_* */
	const char *od_default;
	int64_t od_min;	/* both 0: unbounded */
	int64_t od_max;
	const char *od_choices;
	const char *od_dest;	/* run_arguments key (gProfiler's dest) */
	const char *od_help;
};
const struct option_def *options_find(const char *);
const struct option_def *options_find_short(int);
const struct option_def *options_get(size_t);
size_t options_count(void);

/* config.c */
/*
 * An effective set of option values, core and plugin, as text, each with
 * where it came from.  Owned by whoever created it; runs keep their own copy.
 */
struct config;
struct config *config_new(void);
struct config *config_clone(const struct config *);
void config_free(struct config *);
/* Effective value as text (the default when not set); NULL if none. */
const char *config_get(const struct config *, const char *name);
int64_t config_get_num(const struct config *, const char *name);
int64_t config_get_int(const struct config *, const char *name,
		    int64_t dflt);
int config_get_bool(const struct config *, const char *name);
int config_is_set(const struct config *, const char *name);
/* Set a value; -EINVAL with a message in err naming origin and fix. */
int config_set(struct config *, const char *name,
		    const char *value, int source, const char *origin,
		    char *err, size_t errlen);
unsigned config_mode(const struct config *);	/* MODE_* */
const char *config_mode_name(unsigned mode);
/* The effective settings for metadata.run_arguments, secrets removed.
 * Caller owns the result. */
struct json_object *config_run_arguments(const struct config *);
const char *config_origin(const struct config *, const char *name);
int config_source(const struct config *, const char *name);
void config_declare_plugin_option(struct config *, const char *name,
		    const char *plugin, unsigned modes);
const char *config_option_plugin(const struct config *, const char *name,
		    unsigned *modes);
void config_forget_plugin_rows(struct config *);
int config_register_plugin(struct config *, const char *plugin,
		    const struct gp_option *rows, size_t nrows, size_t rowsize,
		    char *err, size_t errlen);
int config_check_value(uint32_t type, const char *value,
		    int64_t min, int64_t max, const char *choices, char *out,
		    size_t outlen, char *err, size_t errlen);
int config_choice_ok(const char *choices, const char *value);
int config_parse_size(const char *, unsigned long long *);
void config_json_add(struct json_object *, const char *key,
		    uint32_t type, const char *value);
void config_foreach_set(const struct config *,
		    void (*)(const char *name, const char *value,
		    const char *origin, int source, void *arg), void *arg);
void config_unset(struct config *, const char *name);

/* config_parse.c */
int config_parse_buf(const char *buf, size_t len,
		    const char *fname, int (*cb)(void *arg, const char *section,
		    const char *key, const char *value, const char *origin),
		    void *arg, char *err, size_t errlen);

/* config_load.c */
struct settings;
struct cmdline {
	struct settings *cl_cli;	/* options as given, in order */
	char *cl_subcommand;		/* "flamegraph", "upload-file" */
	int cl_subargc;
	char **cl_subargv;	/* from the subcommand's name on */
	int cl_help;
	int cl_version;
	int cl_check;	/* -n: check the configuration only */
};
struct plugin_list;
int cmdline_parse(struct cmdline *, int argc, char **argv,
		    const struct plugin_list *, char *err, size_t errlen);
void cmdline_free(struct cmdline *);
char **cmdline_plugin_dirs(const struct cmdline *);
int config_load(struct config **, const struct cmdline *,
		    const struct plugin_list *, char *err, size_t errlen);
int config_set_user(struct config *, const char *name,
		    const char *value, int source, const char *origin,
		    char *err, size_t errlen);
int config_env_one(struct config *, const char *name, char *err,
		    size_t errlen);

/* config_check.c */
int config_validate(const struct config *, char *err,
		    size_t errlen);

/* compat.c: gProfiler flags without an implementation here */
int compat_known(const char *name);
int compat_is_flag(const char *name, const char *next);
const char *compat_bare_value(const char *name);
void compat_declare(struct config *);
int compat_apply_env(struct config *, char *err, size_t errlen);
int compat_validate(const struct config *, char *err,
		    size_t errlen);
void compat_log_inert(const struct config *);
/* extmeta.c: --external-metadata */
int extmeta_parse(const char *buf, size_t len,
		    struct json_object **staticp, char *err, size_t errlen);
int extmeta_load(const char *path, char *err, size_t errlen);
void extmeta_add(struct json_object *md);
void extmeta_free(void);
/* compat_usage.c: --log-usage and --diagnostics */
int compat_usage_start(struct event_base *, const struct config *);
void compat_usage_stop(void);

#endif
