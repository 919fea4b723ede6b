/*
 * The plugin loader: finds manifests in the plugin directories, and
 * dlopen()s only the plugins serving the run's mode (RTLD_NOW |
 * RTLD_LOCAL), checking the descriptor against the ABI and the manifest
 * before any plugin code runs (docs/PLUGINS.md, "The descriptor").
 *
 * As root a plugin runs with every privilege, so the file must be one only
 * root could have written: the directory is walked from "/" (trust.c), the
 * .so opened under it without following links, checked through its fd,
 * and that same fd is what dlopen() maps ("/proc/self/fd/N"): nothing can
 * be swapped between the check and the load.  The fd stays open while the
 * plugin is loaded, so no two plugins ever share a /proc/self/fd name
 * (the dynamic loader would take the second for the first).
 *
 * The host keeps its own copy of the descriptor and of the option rows,
 * zero-filled past what the plugin's struct_size and option_size cover, so
 * a host whose structs grew never reads beyond a smaller plugin's.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/trust.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "config/manifest.h"
#include "gprofiler.h"
#include "host/host.h"

/* A bound on a descriptor's option table, against garbage counts. */
#define PLUGIN_OPTIONS_MAX	1024

/*
 * One file under a checked directory fd: a regular file of root (or of the
 * daemon's user when not root), writable by nobody else.  The fd, or -errno
 * with the reason in err.
 */
static int
plugin_open_checked(int dfd, const char *dir, const char *name, char *err,
    size_t errlen)
{
	struct stat sb;
	char path[PATH_MAX], why[768];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY);
	if (fd == -1) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s%s", path, strerror(errno),
		    errno == ELOOP ? " (a symlink: install the file itself)" :
		    "");
		return (rc);
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return (-EINVAL);
	}
	if (trust_check_stat(path, &sb, 1, TRUST_OWNER_EUID, why,
	    sizeof(why)) != 0) {
		snprintf(err, errlen, "refusing a plugin path not owned by root "
		    "or writable by group/others: %s", why);
		close(fd);
		return (-EPERM);
	}
	return (fd);
}

/* The plugin directory, checked from "/" down (trust.c).  fd or -errno. */
static int
plugin_open_dir(const char *dir, char *err, size_t errlen)
{
	char why[768];
	int fd;

	if ((fd = trust_open_dir(dir, TRUST_OWNER_EUID, why,
	    sizeof(why))) == -EPERM)
		snprintf(err, errlen, "refusing a plugin path not owned by root "
		    "or writable by group/others: %s", why);
	else if (fd < 0)
		snprintf(err, errlen, "plugin directory %s", why);
	return (fd);
}

static int
plugin_read_manifest(int dfd, const char *dir, const char *fname,
    struct manifest *m, char *err, size_t errlen)
{
	char path[512], buf[16384];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, fname);
	if ((fd = plugin_open_checked(dfd, dir, fname, err, errlen)) < 0)
		return (fd);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0 || n == (ssize_t)sizeof(buf)) {
		snprintf(err, errlen, "%s: unreadable or larger than %zu "
		    "bytes", path, sizeof(buf) - 1);
		return (-EINVAL);
	}
	return (manifest_parse(buf, n, path, m, err, errlen));
}

static struct plugin *
plugins_find(struct plugin_list *list, const char *name)
{
	struct plugin *p;

	TAILQ_FOREACH(p, list, entry)
		if (strcmp(p->manifest.name, name) == 0)
			return (p);
	return (NULL);
}

/* Add the plugins of one directory; problems are warnings, not fatal. */
static void
plugins_scan_dir(struct plugin_list *list, const char *dir)
{
	struct dirent *de;
	struct manifest m;
	struct plugin *p;
	DIR *d;
	char err[1024], so[PATH_MAX];
	size_t len;
	int dfd;

	if ((dfd = plugin_open_dir(dir, err, sizeof(err))) < 0) {
		if (dfd != -ENOENT || strcmp(dir, PLUGINDIR) != 0)
			log_warnx("%s", err);
		return;
	}
	if ((d = fdopendir(dfd)) == NULL) {
		log_warnx("plugin directory %s: %s", dir, strerror(errno));
		close(dfd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len < 8 || strcmp(de->d_name + len - 7, ".plugin") != 0)
			continue;
		if (plugin_read_manifest(dirfd(d), dir, de->d_name, &m, err,
		    sizeof(err)) != 0) {
			log_warnx("%s; plugin skipped", err);
			continue;
		}
		if (strlen(m.name) + 7 != len ||
		    strncmp(m.name, de->d_name, len - 7) != 0) {
			log_warnx("%s/%s: name \"%s\" does not match the file "
			    "name; plugin skipped", dir, de->d_name, m.name);
			manifest_clear(&m);
			continue;
		}
		/* Before anything maps it: a library for another ABI must
		 * not even run its constructors here. */
		if (m.abi_major != GP_ABI_MAJOR) {
			log_warnx("%s/%s: plugin built for ABI %u, this "
			    "gprofiler has ABI %u; plugin skipped (install "
			    "a build of it for this version)", dir,
			    de->d_name, m.abi_major, GP_ABI_MAJOR);
			manifest_clear(&m);
			continue;
		}
		if (plugins_find(list, m.name) != NULL) {
			log_debug("plugin %s in %s ignored: found earlier",
			    m.name, dir);
			manifest_clear(&m);
			continue;
		}
		p = xcalloc(1, sizeof(*p));
		p->magic = PLUGIN_MAGIC;
		p->manifest = m;
		snprintf(so, sizeof(so), "%s/%s.so", dir, m.name);
		p->path = xstrdup(so);
		p->so_fd = -1;
		TAILQ_INSERT_TAIL(list, p, entry);
	}
	closedir(d);
}

/* Find every plugin in dirs (first directory wins on a name clash). */
int
plugins_scan(struct plugin_list *list, char **dirs, char *err, size_t errlen)
{
	size_t i;

	TAILQ_INIT(list);
	for (i = 0; dirs[i] != NULL; i++)
		plugins_scan_dir(list, dirs[i]);
	(void)err;
	(void)errlen;
	return (0);
}

static int
plugin_check_options(const struct plugin *p, const struct gp_plugin *d,
    char *err, size_t errlen)
{
	const struct gp_option *o;
	uint32_t i, j;

	for (i = 0; i < d->option_count; i++) {
		o = &d->options[i];
		if (o->name == NULL || o->type < GP_OPT_BOOL ||
		    o->type > GP_OPT_SIZE ||
		    (o->type == GP_OPT_ENUM && o->choices == NULL)) {
			snprintf(err, errlen, "%s: option %u is malformed",
			    p->path, i);
			return (-EINVAL);
		}
		if (!manifest_has_option(&p->manifest, o->name, NULL)) {
			snprintf(err, errlen, "%s: option \"%s\" is not in the "
			    "manifest %s.plugin", p->path, o->name,
			    p->manifest.name);
			return (-EINVAL);
		}
		if (options_find(o->name) != NULL) {
			snprintf(err, errlen, "%s: option \"%s\" is a core "
			    "option", p->path, o->name);
			return (-EINVAL);
		}
		for (j = 0; j < i; j++)
			if (strcmp(d->options[j].name, o->name) == 0) {
				snprintf(err, errlen, "%s: option \"%s\" "
				    "declared twice", p->path, o->name);
				return (-EINVAL);
			}
	}
	for (i = 0; p->manifest.options != NULL &&
	    p->manifest.options[i] != NULL; i++) {
		for (j = 0; j < d->option_count; j++)
			if (strcmp(d->options[j].name,
			    p->manifest.options[i]) == 0)
				break;
		if (j == d->option_count) {
			snprintf(err, errlen, "%s: manifest option \"%s\" is "
			    "not declared by the plugin", p->path,
			    p->manifest.options[i]);
			return (-EINVAL);
		}
	}
	return (0);
}

/* Free a descriptor copy made by plugin_import_desc (NULL is fine). */
static void
plugin_desc_free(const struct gp_plugin *d)
{
	if (d == NULL)
		return;
	free((void *)d->options);
	free((void *)d);
}

/*
 * The host's copy of a plugin's descriptor: the fixed block checked first
 * (magic, major, minor, size: the order docs/PLUGINS.md gives), then the fields
 * within the plugin's struct_size copied over a zeroed host-sized struct,
 * and the option rows the same way row by row.  NULL with err set.
 */
static struct gp_plugin *
plugin_import_desc(const struct plugin *p, const struct gp_plugin *raw,
    char *err, size_t errlen)
{
	struct gp_plugin *d;
	struct gp_option *rows;
	size_t sz;
	uint32_t i;

	if (raw->magic != GP_PLUGIN_MAGIC) {
		snprintf(err, errlen, "%s: not a gprofiler plugin (magic "
		    "0x%08x, expected 0x%08x)", p->path, raw->magic,
		    GP_PLUGIN_MAGIC);
		return (NULL);
	}
	if (raw->abi_major != GP_ABI_MAJOR || raw->abi_minor > GP_ABI_MINOR) {
		snprintf(err, errlen, "%s: built for plugin ABI %u.%u, this "
		    "gprofiler has %u.%u (rebuild the plugin against this "
		    "version's gprofiler/plugin.h)", p->path, raw->abi_major,
		    raw->abi_minor, GP_ABI_MAJOR, GP_ABI_MINOR);
		return (NULL);
	}
	if (raw->struct_size < GP_PLUGIN_SIZE_1_0) {
		snprintf(err, errlen, "%s: descriptor of %u bytes, ABI %u.%u "
		    "needs %u", p->path, raw->struct_size, raw->abi_major,
		    raw->abi_minor, GP_PLUGIN_SIZE_1_0);
		return (NULL);
	}
	d = xcalloc(1, sizeof(*d));
	sz = raw->struct_size < sizeof(*d) ? raw->struct_size : sizeof(*d);
	memcpy(d, raw, sz);
	d->struct_size = (uint32_t)sz;
	d->options = NULL;
	if (d->option_count == 0)
		return (d);
	if (raw->options == NULL || d->option_size < GP_OPTION_SIZE_1_0 ||
	    d->option_count > PLUGIN_OPTIONS_MAX) {
		snprintf(err, errlen, "%s: option table missing, too long (%u "
		    "rows) or rows of %u bytes (need %u)", p->path,
		    d->option_count, d->option_size, GP_OPTION_SIZE_1_0);
		free(d);
		return (NULL);
	}
	rows = xcalloc(d->option_count, sizeof(*rows));
	sz = d->option_size < sizeof(*rows) ? d->option_size : sizeof(*rows);
	for (i = 0; i < d->option_count; i++)
		memcpy(&rows[i], (const char *)raw->options +
		    (size_t)i * raw->option_size, sz);
	d->options = rows;
	d->option_size = sizeof(*rows);
	return (d);
}

/* The rest of the descriptor checks, on the host's copy. */
static int
plugin_check_desc(const struct plugin *p, const struct gp_plugin *d,
    char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < sizeof(d->reserved) / sizeof(d->reserved[0]); i++)
		if (d->reserved[i] != 0 || d->flags != 0) {
			snprintf(err, errlen, "%s: reserved fields or flags are "
			    "not zero", p->path);
			return (-EINVAL);
		}
	if (d->name == NULL || strcmp(d->name, p->manifest.name) != 0) {
		snprintf(err, errlen, "%s: descriptor name \"%s\" does not "
		    "match the file name", p->path,
		    d->name != NULL ? d->name : "(null)");
		return (-EINVAL);
	}
	if (d->kind != p->manifest.kind || d->modes != p->manifest.modes) {
		snprintf(err, errlen, "%s: kind/modes %u/0x%x differ from the "
		    "manifest's %u/0x%x", p->path, d->kind, d->modes,
		    p->manifest.kind, p->manifest.modes);
		return (-EINVAL);
	}
	if (d->init == NULL || d->start == NULL || d->snapshot == NULL ||
	    d->stop == NULL) {
		snprintf(err, errlen, "%s: init, start, snapshot and stop "
		    "are required", p->path);
		return (-EINVAL);
	}
	return (plugin_check_options(p, d, err, errlen));
}

/* The .so, checked and open: split p->path into its directory and name. */
static int
plugin_open_so(const struct plugin *p, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	const char *slash;
	int dfd, fd;

	if ((slash = strrchr(p->path, '/')) == NULL ||
	    (size_t)(slash - p->path) >= sizeof(dir)) {
		snprintf(err, errlen, "%s: not an absolute path", p->path);
		return (-EINVAL);
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - p->path), p->path);
	if ((dfd = plugin_open_dir(*dir != '\0' ? dir : "/", err,
	    errlen)) < 0)
		return (dfd);
	fd = plugin_open_checked(dfd, dir, slash + 1, err, errlen);
	close(dfd);
	return (fd);
}

/* dlopen() and check, without running init. */
int
plugin_open(struct plugin *p, char *err, size_t errlen)
{
	const struct gp_plugin *raw;
	struct gp_plugin *d = NULL;
	char fdpath[64];
	int fd, rc;

	if (p->dl != NULL)
		return (0);
	if ((fd = plugin_open_so(p, err, errlen)) < 0)
		return (fd);
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	if ((p->dl = dlopen(fdpath, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		snprintf(err, errlen, "%s: cannot load: %s (use ldd(1) to "
		    "find missing libraries)", p->path, dlerror());
		close(fd);
		return (-ENOEXEC);
	}
	raw = dlsym(p->dl, GP_PLUGIN_SYMBOL);
	if (raw == NULL) {
		snprintf(err, errlen, "%s: no \"%s\" symbol: not a gprofiler "
		    "plugin", p->path, GP_PLUGIN_SYMBOL);
		rc = -ENOEXEC;
	} else if ((d = plugin_import_desc(p, raw, err, errlen)) == NULL)
		rc = -EINVAL;
	else
		rc = plugin_check_desc(p, d, err, errlen);
	if (rc != 0) {
		plugin_desc_free(d);
		dlclose(p->dl);
		p->dl = NULL;
		close(fd);
		return (rc);
	}
	p->desc = d;
	p->so_fd = fd;
	return (0);
}

/* Whether a plugin is wanted in this run: gProfiler's --<name>-mode
 * disabled (or --no-<name>), or its enabled-by option off, leaves it
 * unloaded (not even mapped). */
static int
plugin_wanted(const struct plugin *p, const struct config *cfg, unsigned mode)
{
	char opt[160];
	const char *v;

	if ((p->manifest.modes & mode) == 0)
		return (0);
	if (p->manifest.enabled_by != NULL &&
	    !config_get_bool(cfg, p->manifest.enabled_by))
		return (0);
	/*
	 * Only a mode someone set turns the plugin off: its default is known
	 * once a plugin registered its options, so reading the default would
	 * make the same flags load other plugins after a reload than at a
	 * fresh start (nodejs, whose default "disabled" still names perf
	 * maps, went missing after a command reloaded the plugins).
	 */
	snprintf(opt, sizeof(opt), "%s-mode", p->manifest.name);
	if (manifest_has_option(&p->manifest, opt, NULL) &&
	    config_is_set(cfg, opt) && (v = config_get(cfg, opt)) != NULL &&
	    (strcmp(v, "disabled") == 0 || strcmp(v, "none") == 0))
		return (0);
	return (1);
}

/* The system profiler for the mode: --system-profiler, else the first by
 * name (so a run is reproducible whatever readdir's order). */
static struct plugin *
plugins_pick_system(struct plugin_list *list, const struct config *cfg,
    unsigned mode)
{
	struct plugin *p, *best = NULL;
	const char *want = config_get(cfg, "system-profiler");

	TAILQ_FOREACH(p, list, entry) {
		if (p->manifest.kind != GP_KIND_SYSTEM ||
		    !plugin_wanted(p, cfg, mode))
			continue;
		if (want != NULL) {
			if (strcmp(p->manifest.name, want) == 0)
				return (p);
			continue;
		}
		if (best == NULL ||
		    strcmp(p->manifest.name, best->manifest.name) < 0)
			best = p;
	}
	return (best);
}

/* Whether the user turned the mode's system profiler off on purpose. */
static int
plugins_system_disabled(struct plugin_list *list, const struct config *cfg,
    unsigned mode)
{
	struct plugin *p;

	TAILQ_FOREACH(p, list, entry)
		if (p->manifest.kind == GP_KIND_SYSTEM &&
		    (p->manifest.modes & mode) && !plugin_wanted(p, cfg, mode))
			return (1);
	return (0);
}

static int
plugin_init(struct plugin *p, struct event_base *base, struct config *cfg,
    char *err, size_t errlen)
{
	int rc;

	if ((rc = plugin_open(p, err, errlen)) != 0)
		return (rc);
	if ((rc = config_register_plugin(cfg, p->manifest.name,
	    p->desc->options, p->desc->option_count, p->desc->option_size,
	    err, errlen)) != 0)
		return (rc);
	p->ctx = host_ctx_new(p, base);
	host_ctx_set_config(p->ctx, cfg);
	if ((rc = p->desc->init(p->ctx, host_api(), &p->priv)) != 0) {
		snprintf(err, errlen, "%s: init failed: %s", p->path,
		    strerror(rc < 0 ? -rc : rc));
		host_ctx_free(p->ctx);
		p->ctx = NULL;
		return (rc < 0 ? rc : -rc);
	}
	p->active = 1;
	return (0);
}

/* A plugin's incompatible core options that the user set. */
static int
plugin_check_incompatible(const struct plugin *p, const struct config *cfg,
    char *err, size_t errlen)
{
	const char *const	*inc;

	for (inc = p->desc->incompatible; inc != NULL && *inc != NULL; inc++)
		if (config_is_set(cfg, *inc) ||
		    (config_option_plugin(cfg, *inc, NULL) != NULL &&
		    config_origin(cfg, *inc) != NULL)) {
			snprintf(err, errlen, "%s: --%s cannot be used with "
			    "plugin %s (mode %s); remove it",
			    config_origin(cfg, *inc), *inc, p->manifest.name,
			    config_mode_name(config_mode(cfg)));
			return (-EINVAL);
		}
	return (0);
}

/* Options given for plugins that do not serve this mode are mistakes. */
struct foreign_state {
	const struct config *cfg;
	unsigned mode;
	char *err;
	size_t errlen;
	int rc;
};

static void
plugin_foreign_one(const char *name, const char *value, const char *origin,
    int source, void *arg)
{
	struct foreign_state *st = arg;
	const char *owner;
	unsigned modes;
	char ms[64] = "";

	(void)value;
	if (st->rc != 0 || source == SRC_DEFAULT)
		return;
	/* gProfiler's parser takes every flag in its own modes (allocation,
	 * none); compat_log_inert() names them there instead. */
	if (st->mode == MODE_ALLOCATION || st->mode == MODE_NONE)
		return;
	owner = config_option_plugin(st->cfg, name, &modes);
	if (owner == NULL || (modes & st->mode) != 0)
		return;
	snprintf(ms, sizeof(ms), "%s%s%s", (modes & MODE_CPU) ? "cpu " : "",
	    (modes & MODE_ALLOCATION) ? "allocation " : "",
	    (modes & MODE_GPU) ? "gpu " : "");
	if (*ms != '\0')
		ms[strlen(ms) - 1] = '\0';
	snprintf(st->err, st->errlen, "%s: --%s belongs to plugin %s, which "
	    "serves mode %s, not %s; remove it or use --mode %s", origin, name,
	    owner, ms, config_mode_name(st->mode), ms);
	st->rc = -EINVAL;
}

static int plugins_load_process(struct plugin_list *,
		    struct event_base *, struct config *, unsigned, char *,
		    size_t);

/*
 * --skip-system-profilers-above N: gProfiler does not start perf on a host
 * with more than N processes at start-up (runtime profilers still run).
 */
static int
plugins_too_many_processes(const struct config *cfg, unsigned mode)
{
	int64_t max;
	DIR *d;
	struct dirent *de;
	long long n = 0;

	max = config_get_int(cfg, "skip-system-profilers-above", 0);
	if (max <= 0 || mode != MODE_CPU || (d = opendir("/proc")) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			n++;
	closedir(d);
	if (n <= max) {
		log_debug("system process count: %lld (threshold: %lld)", n,
		    (long long)max);
		return (0);
	}
	log_warnx("skipping the system profiler (perf): %lld processes "
	    "exceed --skip-system-profilers-above %lld; runtime profilers "
	    "continue", n, (long long)max);
	return (1);
}

/* Whether any plugin found serves `mode`. */
static int
plugins_serve(const struct plugin_list *list, unsigned mode)
{
	const struct plugin *p;

	TAILQ_FOREACH(p, list, entry)
		if (p->manifest.modes & mode)
			return (1);
	return (0);
}

int
plugins_load_for_mode(struct plugin_list *list, struct event_base *base,
    struct config *cfg, unsigned mode, char *err, size_t errlen)
{
	struct foreign_state fs = { cfg, mode, err, errlen, 0 };
	struct plugin *sys;
	int rc;

	config_foreach_set(cfg, plugin_foreign_one, &fs);
	if (fs.rc != 0)
		return (fs.rc);
	if (mode == MODE_NONE)
		return (0);
	if (mode == MODE_ALLOCATION && !plugins_serve(list, mode)) {
		snprintf(err, errlen, "--mode allocation: no installed plugin "
		    "profiles allocations (gProfiler's allocation mode samples "
		    "Java heap allocations with async-profiler, which this "
		    "agent does not embed); use --mode cpu");
		return (-ENOTSUP);
	}
	sys = plugins_pick_system(list, cfg, mode);
	if (sys != NULL && plugins_too_many_processes(cfg, mode))
		return (plugins_load_process(list, base, cfg, mode, err,
		    errlen));
	if (sys == NULL && !plugins_system_disabled(list, cfg, mode)) {
		snprintf(err, errlen, "no system profiler plugin for mode %s "
		    "is installed (looked for *.plugin manifests in %s and "
		    "--plugin-dir); install one (perf for cpu, iaprof for "
		    "gpu) or disable it (--perf-mode disabled)",
		    config_mode_name(mode), PLUGINDIR);
		return (-ENOENT);
	}
	if (sys != NULL && (rc = plugin_init(sys, base, cfg, err,
	    errlen)) != 0)
		return (rc);
	return (plugins_load_process(list, base, cfg, mode, err, errlen));
}

/* The process profilers serving `mode` (after the system profiler). */
static int
plugins_load_process(struct plugin_list *list, struct event_base *base,
    struct config *cfg, unsigned mode, char *err, size_t errlen)
{
	struct plugin *p;
	char why[1024];
	int rc;

	TAILQ_FOREACH(p, list, entry) {
		if (p->manifest.kind == GP_KIND_SYSTEM ||
		    !plugin_wanted(p, cfg, mode) || p->active)
			continue;
		if ((rc = plugin_init(p, base, cfg, why, sizeof(why))) != 0) {
			if (rc == -EINVAL && p->desc != NULL)
				return (snprintf(err, errlen, "%s", why),
				    -EINVAL);
			log_warnx("%s; plugin %s skipped", why,
			    p->manifest.name);
		}
	}
	TAILQ_FOREACH(p, list, entry)
		if (p->active && (rc = plugin_check_incompatible(p, cfg, err,
		    errlen)) != 0)
			return (rc);
	return (0);
}

void
plugins_selection(struct plugin_list *list, const struct config *cfg,
    unsigned mode, char *buf, size_t len)
{
	struct plugin *p, *sys;
	size_t n;
	const char *sep = "";

	/* "cpu:perf,java,python": logged as is, so no trailing comma. */
	snprintf(buf, len, "%s:", config_mode_name(mode));
	if (mode == MODE_NONE)
		return;
	if ((sys = plugins_pick_system(list, cfg, mode)) != NULL) {
		snprintf(buf + strlen(buf), len - strlen(buf), "%s",
		    sys->manifest.name);
		sep = ",";
	}
	TAILQ_FOREACH(p, list, entry) {
		n = strlen(buf);
		if (p->manifest.kind != GP_KIND_SYSTEM &&
		    plugin_wanted(p, cfg, mode)) {
			snprintf(buf + n, len - n, "%s%s", sep,
			    p->manifest.name);
			sep = ",";
		}
	}
}

struct plugin *
plugins_system(struct plugin_list *list)
{
	struct plugin *p;

	TAILQ_FOREACH(p, list, entry)
		if (p->active && p->desc->kind == GP_KIND_SYSTEM)
			return (p);
	return (NULL);
}

int
plugins_check(struct plugin_list *list, char *err, size_t errlen)
{
	struct plugin *p;
	char why[1024] = "";
	int rc;

	TAILQ_FOREACH(p, list, entry) {
		if (!p->active || p->desc->check == NULL)
			continue;
		if ((rc = p->desc->check(p->priv, why, sizeof(why))) != 0) {
			snprintf(err, errlen, "%s: %s", p->manifest.name,
			    *why != '\0' ? why : "invalid options");
			return (-EINVAL);
		}
	}
	return (0);
}

/* Destroy and unload the active plugins (the list keeps the manifests, so
 * another mode can load its own). */
void
plugins_unload(struct plugin_list *list)
{
	struct plugin *p;

	TAILQ_FOREACH(p, list, entry) {
		if (p->active && p->desc->destroy != NULL)
			p->desc->destroy(p->priv);
		if (p->ctx != NULL)
			host_ctx_free(p->ctx);
		if (p->dl != NULL) {
			/* Only the loader's plugins own a copy and an fd. */
			plugin_desc_free(p->desc);
			dlclose(p->dl);
			close(p->so_fd);
			p->so_fd = -1;
		}
		p->ctx = NULL;
		p->priv = NULL;
		p->dl = NULL;
		p->desc = NULL;
		p->active = 0;
		p->started = 0;
	}
}

void
plugins_free(struct plugin_list *list)
{
	struct plugin *p;

	plugins_unload(list);
	while ((p = TAILQ_FIRST(list)) != NULL) {
		TAILQ_REMOVE(list, p, entry);
		manifest_clear(&p->manifest);
		free(p->path);
		free(p);
	}
}
