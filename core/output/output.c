/*
 * Local output files for one cycle under --output-dir
 * (docs/specs/gprofiler-compat.md §5): profile_<end>.col, .html (unless
 * --no-flamegraph), .pb.gz (with --output-format ...pprof), the
 * last_profile.col / last_flamegraph.html
 * symlinks, and --rotating-output.  Every file is written to a temporary
 * name, fsync'ed and renamed, so a reader never sees half a profile.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/trust.h"
#include "base/utctime.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "output/output.h"
#include "profile/profile.h"

#define OUTPUT_LAST_COL		"last_profile.col"
#define OUTPUT_LAST_HTML	"last_flamegraph.html"

/* The mode of this cycle's files (output_modes). */
static mode_t output_fmode = 0600;

/* The output-dir fix hint, said once wherever the directory fails. */
#define OUTPUT_FIX	"make it a directory this user can write, or choose " \
			"another with --output-dir"

/* A boolean setting that defaults to on when unset or unknown. */
static int
output_cfg_on(const struct config *cfg, const char *name)
{
	const char *v;

	if ((v = config_get(cfg, name)) == NULL || *v == '\0')
		return (1);
	return (!(strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0 ||
	    strcasecmp(v, "no") == 0 || strcasecmp(v, "off") == 0));
}

static int
output_cfg_off_default(const struct config *cfg, const char *name)
{
	const char *v;

	if ((v = config_get(cfg, name)) == NULL || *v == '\0')
		return (0);
	return (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0 ||
	    strcasecmp(v, "yes") == 0 || strcasecmp(v, "on") == 0);
}

/* Whether the comma list in --output-format names fmt. */
int
output_format_has(const struct config *cfg, const char *fmt)
{
	const char *v, *p, *e;
	size_t n = strlen(fmt);

	if ((v = config_get(cfg, "output-format")) == NULL)
		v = "col";
	for (p = v; *p != '\0'; p = *e ? e + 1 : e) {
		while (*p == ' ')
			p++;
		e = p + strcspn(p, ",");
		while (e > p && e[-1] == ' ')
			e--;
		if ((size_t)(e - p) == n && strncasecmp(p, fmt, n) == 0)
			return (1);
		e += strcspn(e, ",");
	}
	return (0);
}

/*
 * Profiles name every process's command line and container: by default only
 * the daemon's user reads them (0700 directory, 0600 files);
 * --output-group-readable gives the group read access (0750, 0640).
 */
static void
output_modes(const struct config *cfg, mode_t *dmode, mode_t *fmode)
{
	int grp = output_cfg_off_default(cfg, "output-group-readable");

	*dmode = grp ? 0750 : 0700;
	*fmode = grp ? 0640 : 0600;
}

/* mkdir -p: 0755 for missing parents, dmode for the directory itself. */
static int
output_mkdirs(const char *dir, mode_t dmode)
{
	char path[PATH_MAX];
	size_t i, n;

	n = strlen(dir);
	if (n == 0 || n >= sizeof(path))
		return (-ENAMETOOLONG);
	memcpy(path, dir, n + 1);
	for (i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, i == n || dir[i + strspn(dir + i, "/")] ==
		    '\0' ? dmode : 0755) == -1 && errno != EEXIST)
			return (-errno);
		path[i] = dir[i];
	}
	return (0);
}

/*
 * Create the directory if needed and open it after checking that no other
 * user can write it or any directory above it (they could plant links or
 * swap the directory).  The fd, or -errno with one line in err.
 */
static int
output_dir_open(const struct config *cfg, const char *dir, char *err,
    size_t errlen)
{
	mode_t dmode, fmode;
	int rc;

	output_modes(cfg, &dmode, &fmode);
	if ((rc = output_mkdirs(dir, dmode)) != 0) {
		snprintf(err, errlen, "output directory %s: %s: %s", dir,
		    strerror(-rc), OUTPUT_FIX);
		return (rc);
	}
	if ((rc = trust_open_dir(dir, TRUST_OWNER_EUID, err, errlen)) < 0) {
		/* Keep trust's detail, say which setting it was. */
		char why[768];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "output directory %s refused: %s", dir,
		    why);
	}
	return (rc);
}

/*
 * Check (and create) the output directory at start-up so a bad one is a
 * start-up error, not a failure one cycle later.  0 or -errno with a
 * one-line message in err.
 */
int
output_check_dir(const struct config *cfg, char *err, size_t errlen)
{
	const char *dir;
	int fd, rc;

	if ((dir = config_get(cfg, "output-dir")) == NULL || *dir == '\0')
		return (0);
	if ((fd = output_dir_open(cfg, dir, err, errlen)) < 0)
		return (fd);
	rc = faccessat(fd, ".", W_OK | X_OK, 0) == -1 ? -errno : 0;
	close(fd);
	if (rc != 0)
		snprintf(err, errlen, "output directory %s: %s: %s", dir,
		    strerror(-rc), OUTPUT_FIX);
	return (rc);
}

/*
 * Point dirfd/link at target (relative) atomically: <link>.tmp, then
 * rename over link.  The previous target's name goes to old (may be "").
 */
static int
output_relink(int dirfd, const char *link, const char *target, char *old,
    size_t oldlen)
{
	char tmp[NAME_MAX + 1];
	ssize_t n;

	old[0] = '\0';
	if ((n = readlinkat(dirfd, link, old, oldlen - 1)) > 0)
		old[n] = '\0';
	snprintf(tmp, sizeof(tmp), "%s.tmp", link);
	unlinkat(dirfd, tmp, 0);
	if (symlinkat(target, dirfd, tmp) == -1)
		return (-errno);
	if (renameat(dirfd, tmp, dirfd, link) == -1) {
		n = -errno;
		unlinkat(dirfd, tmp, 0);
		return ((int)n);
	}
	return (0);
}

/* "profile_2025-01-08T11:00:00": the cycle's end in UTC, to the second
 * (len is a name's buffer, far more than the prefix). */
static void
output_stem(const struct timespec *end, char *buf, size_t len)
{
	int n = snprintf(buf, len, "profile_");

	utc_iso_time(buf + n, len - (size_t)n, end->tv_sec);
}

static int
output_put(int dirfd, const char *dir, const char *name, const void *buf,
    size_t len)
{
	int rc;

	if ((rc = file_write_atomic(dirfd, name, buf, len, output_fmode)) != 0)
		log_msg(LOG_LEVEL_ERR, "output", "cannot write %s/%s: %s: %s",
		    dir, name, strerror(-rc), OUTPUT_FIX);
	return (rc);
}

/* A writer's bytes for one cycle, from the cycle and its .col text;
 * NULL (logged by the caller) when it cannot encode them. */
typedef void *(*output_render_fn)(const struct cycle_output *,
		    const char *col, size_t collen, size_t *lenp);

/* The .col itself: the text every other writer starts from. */
static void *
output_render_col(const struct cycle_output *co, const char *col,
    size_t collen, size_t *lenp)
{
	(void)co;
	*lenp = collen;
	return ((void *)(uintptr_t)col);
}

static void *
output_render_html(const struct cycle_output *co, const char *col,
    size_t collen, size_t *lenp)
{
	return (flamegraph_render_times(col, collen, &co->start, &co->end,
	    lenp));
}

static void *
output_render_pprof(const struct cycle_output *co, const char *col,
    size_t collen, size_t *lenp)
{
	(void)col;
	(void)collen;
	return (pprof_render(co, lenp));
}

/*
 * Every file a cycle may write, in the order written: adding a format is
 * a row here and its renderer's file.  A row with a format name is chosen
 * by --output-format (and that name is what the option accepts); the
 * .col is always written, the flame graph unless --no-flamegraph.  The
 * last_* link, where a row has one, names the newest complete file.
 */
static const struct output_writer {
	const char *format;	/* --output-format, or NULL */
	const char *ext;
	const char *last;	/* link, or NULL */
	int always;		/* whatever the option says */
	const char *setting;	/* on unless set false */
	output_render_fn render;
} output_writers[] = {
	{ "col",	".col",	   OUTPUT_LAST_COL,  1, NULL,
	    output_render_col },
	{ NULL,		".html",   OUTPUT_LAST_HTML, 0, "flamegraph",
	    output_render_html },
	{ "pprof",	".pb.gz",  NULL,	     0, NULL,
	    output_render_pprof },
};
#define OUTPUT_NWRITERS	(sizeof(output_writers) / sizeof(output_writers[0]))

static int
output_writer_on(const struct output_writer *w, const struct config *cfg)
{
	if (w->always)
		return (1);
	if (w->setting != NULL)
		return (output_cfg_on(cfg, w->setting));
	return (w->format != NULL && output_format_has(cfg, w->format));
}

/* 0, or -EINVAL with one line naming the unknown format (exit 2). */
int
output_check_formats(const struct config *cfg, char *err, size_t errlen)
{
	char *buf, *tok, *save, names[128] = "";
	const char *o;
	unsigned i;
	int rc = 0, known;

	if (config_get(cfg, "output-format") == NULL)
		return (0);
	buf = xstrdup(config_get(cfg, "output-format"));
	for (tok = strtok_r(buf, ",", &save); tok != NULL && rc == 0;
	    tok = strtok_r(NULL, ",", &save)) {
		known = 0;
		for (i = 0; i < OUTPUT_NWRITERS; i++)
			if (output_writers[i].format != NULL &&
			    strcmp(tok, output_writers[i].format) == 0)
				known = 1;
		if (known)
			continue;
		for (i = 0; i < OUTPUT_NWRITERS; i++)
			if (output_writers[i].format != NULL)
				snprintf(names + strlen(names), sizeof(names) -
				    strlen(names), "%s%s", names[0] ? ", " : "",
				    output_writers[i].format);
		o = config_origin(cfg, "output-format");
		snprintf(err, errlen, "%s: unknown output format \"%s\"; use "
		    "a comma list of %s, e.g. col,pprof", o != NULL ? o :
		    "output-format", tok, names);
		rc = -EINVAL;
	}
	free(buf);
	return (rc);
}

/* --rotating-output: remove the files of the previous cycle whose stem
 * the old link named, unless this cycle reused the name. */
static void
output_rotate(int dirfd, const char *oldcol, const char *stem)
{
	char oldstem[NAME_MAX + 1], name[NAME_MAX + 1];
	size_t n;
	unsigned i;

	n = strlen(oldcol);
	/* Only names this writer made: no path, "profile_*.col". */
	if (strchr(oldcol, '/') != NULL || strncmp(oldcol, "profile_", 8) ||
	    n < 4 || strcmp(oldcol + n - 4, ".col") != 0)
		return;
	snprintf(oldstem, sizeof(oldstem), "%.*s", (int)(n - 4), oldcol);
	if (strcmp(oldstem, stem) == 0)
		return;
	for (i = 0; i < OUTPUT_NWRITERS; i++) {
		snprintf(name, sizeof(name), "%s%s", oldstem,
		    output_writers[i].ext);
		if (unlinkat(dirfd, name, 0) == -1 && errno != ENOENT)
			log_warn("output: cannot remove old %s", name);
	}
}

static int
output_link(int dirfd, const char *dir, const char *link, const char *target,
    char *old, size_t oldlen)
{
	int rc;

	if ((rc = output_relink(dirfd, link, target, old, oldlen)) != 0)
		log_msg(LOG_LEVEL_ERR, "output", "cannot link %s/%s: %s: %s",
		    dir, link, strerror(-rc), OUTPUT_FIX);
	return (rc);
}

static int
output_open_dir(const struct config *cfg, const char *dir)
{
	char err[1024];
	int fd;

	if ((fd = output_dir_open(cfg, dir, err, sizeof(err))) < 0)
		log_msg(LOG_LEVEL_ERR, "output", "%s", err);
	return (fd);
}

/*
 * Ad-hoc runs (a heartbeat command, not continuous) upload the flame graph
 * in the header's flamegraph_html, as the reference agent does; continuous
 * uploads keep it null to stay small (spec §12 #10).  Call before
 * rendering the .col for the upload.  1 if embedded, else 0.
 */
int
output_embed_flamegraph(const struct cycle_output *co)
{
	char *col, *html;
	size_t collen, hlen;

	if (!co->adhoc || co->header == NULL ||
	    !output_cfg_on(co->cfg, "flamegraph"))
		return (0);
	col = col_render(co, &collen);
	html = flamegraph_render_times(col, collen, &co->start, &co->end,
	    &hlen);
	json_object_object_add(co->header, "flamegraph_html",
	    json_object_new_string_len(html, (int)hlen));
	free(html);
	free(col);
	return (1);
}

int
output_write_cycle(const struct cycle_output *co)
{
	const struct output_writer *w;
	char stem[NAME_MAX - 16], name[NAME_MAX + 1];
	char oldcol[NAME_MAX + 1], old[NAME_MAX + 1];
	const char *dir;
	char *col;
	void *buf;
	size_t collen, len;
	mode_t dmode;
	unsigned i;
	int dirfd, rc = 0;

	dir = config_get(co->cfg, "output-dir");
	if (dir == NULL || *dir == '\0')
		return (0);
	if ((dirfd = output_open_dir(co->cfg, dir)) < 0)
		return (dirfd);
	output_modes(co->cfg, &dmode, &output_fmode);
	output_stem(&co->end, stem, sizeof(stem));
	oldcol[0] = '\0';

	col = col_render(co, &collen);
	for (i = 0; i < OUTPUT_NWRITERS; i++) {
		w = &output_writers[i];
		if (!output_writer_on(w, co->cfg))
			continue;
		snprintf(name, sizeof(name), "%s%s", stem, w->ext);
		if ((buf = w->render(co, col, collen, &len)) == NULL) {
			log_msg(LOG_LEVEL_ERR, "output", "cannot encode %s/%s",
			    dir, name);
			rc = -EINVAL;
			goto out;
		}
		rc = output_put(dirfd, dir, name, buf, len);
		if (buf != col)
			free(buf);
		if (rc != 0)
			goto out;
	}
	/* Links last, so they never name a file that is not complete. */
	for (i = 0; i < OUTPUT_NWRITERS && rc == 0; i++) {
		w = &output_writers[i];
		if (w->last == NULL || !output_writer_on(w, co->cfg))
			continue;
		snprintf(name, sizeof(name), "%s%s", stem, w->ext);
		rc = output_link(dirfd, dir, w->last, name, old, sizeof(old));
		/* Rotation follows the .col link: every writer's file of a
		 * cycle has the stem it names. */
		if (strcmp(w->ext, ".col") == 0)
			memcpy(oldcol, old, sizeof(oldcol));
	}
	if (rc != 0)
		goto out;
	fsync(dirfd);
	if (output_cfg_off_default(co->cfg, "rotating-output"))
		output_rotate(dirfd, oldcol, stem);
	log_info("output: wrote %s/%s.col", dir, stem);
out:
	free(col);
	close(dirfd);
	return (rc);
}
