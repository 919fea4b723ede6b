/*
 * The PerfSpect auto-installer, a small state machine in the loop:
 *
 *   cached binary?  --yes--> `--version` --ok--> done
 *        | no                    | fails: reinstall
 *        v
 *   download (host http_download: HTTPS only, redirects to HTTPS only, at
 *   most 5, TLS verified whatever --no-verify says) into a private staging
 *   directory
 *     -> SHA-256 check: --perfspect-sha256 when given, else the digest must
 *        be one of the releases pinned in perfspect-releases.sha256;
 *        anything else is refused (it would run as root)
 *     -> extract, every entry checked (install_verify.c)
 *     -> `<staging>/perfspect/perfspect --version`
 *     -> rename into <dir>/perfspect (the cache) -> done
 *
 * The whole install is bounded by a timer (PERFSPECT_INSTALL_TIMEOUT);
 * when it fires the run continues without hardware metrics.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "install.h"
#include "perfspect.h"

#define PS_INSTALL_MAGIC	0x50534931u

struct ps_install {
	uint32_t magic;
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	char dir[PATH_MAX / 2];
	char url[2048];
	char sha256[80];
	char pins[PATH_MAX / 2];
	unsigned timeout_s;
	ps_install_done_fn *done;
	void *arg;

	char stage[PATH_MAX / 2];
	int fd;
	int downloading;	/* host holds us */
	int finished;		/* done was called */
	int cached;		/* checking the cache */
	struct gp_timer *timer;
	struct gp_timer *kick;
	struct gp_child *child;
	int version_ok;
	char version[128];
	struct ps_install *next_waiting;
};

/* Records finished while the host still holds them (a download or a
 * version check in flight), until it reports them or the plugin goes. */
static struct ps_install *install_waiting;

static int
rm_any(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	remove(path);
	return (0);
}

static void
rm_tree(const char *path)
{
	if (path[0] != '\0')
		nftw(path, rm_any, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static void
install_release(struct ps_install *in)
{
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
	rm_tree(in->stage);
	in->stage[0] = '\0';
	if (in->timer != NULL)
		in->api->timer_del(in->timer);
	in->timer = NULL;
	if (in->kick != NULL)
		in->api->timer_del(in->kick);
	in->kick = NULL;
	if (in->child != NULL)
		in->api->child_stop(in->child, SIGKILL, 0);
}

static void
install_free(struct ps_install *in)
{
	struct ps_install **pp;

	for (pp = &install_waiting; *pp != NULL; pp = &(*pp)->next_waiting)
		if (*pp == in) {
			*pp = in->next_waiting;
			break;
		}
	in->magic = 0;
	free(in);
}

/* Report once; the record lives on while the host still holds it. */
static void
install_finish(struct ps_install *in, const char *binary, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

static void
install_finish(struct ps_install *in, const char *binary, const char *fmt,
    ...)
{
	char why[1024] = "";
	va_list ap;

	if (in->finished)
		return;
	in->finished = 1;
	if (fmt != NULL) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
		in->api->log(in->ctx, in->done != NULL ? GP_LOG_ERR :
		    GP_LOG_DEBUG, "PerfSpect install: %s; "
		    "continuing without hardware metrics", why);
	} else
		in->api->log(in->ctx, GP_LOG_INFO, "PerfSpect ready: %s (%s)",
		    binary, in->version);
	install_release(in);
	if (in->done != NULL)
		in->done(in->arg, binary, fmt != NULL ? why : NULL);
	if (!in->downloading && in->child == NULL)
		install_free(in);
	else {
		in->next_waiting = install_waiting;
		install_waiting = in;
	}
}

/* Only root may have written the directory we execute from. */
static int
install_dir_safe(const char *path, char *why, size_t len)
{
	struct stat st;

	if (lstat(path, &st) != 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return (-1);
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022) != 0) {
		snprintf(why, len, "%s must be a directory owned by root and "
		    "writable only by it", path);
		return (-1);
	}
	return (0);
}

static int
install_mkdirs(const char *dir, char *why, size_t len)
{
	char p[PATH_MAX / 2], *s;

	snprintf(p, sizeof(p), "%s", dir);
	for (s = p + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			goto fail;
		*s = '/';
	}
	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		goto fail;
	return (install_dir_safe(dir, why, len));
fail:
	snprintf(why, len, "creating %.400s: %s", p, strerror(errno));
	return (-1);
}

static void install_download(struct ps_install *);

static void
version_line_cb(void *arg, const char *line, size_t len)
{
	struct ps_install *in = arg;

	if (ps_version_line_ok(line, len)) {
		in->version_ok = 1;
		snprintf(in->version, sizeof(in->version), "%.*s", (int)len,
		    line);
	}
}

/* The extracted tree becomes the cache, replacing a broken one. */
static int
install_commit(struct ps_install *in, char *why, size_t len)
{
	char from[PATH_MAX], to[PATH_MAX];

	snprintf(from, sizeof(from), "%s/x/perfspect", in->stage);
	snprintf(to, sizeof(to), "%s/perfspect", in->dir);
	rm_tree(to);
	if (chmod(from, 0755) != 0 || rename(from, to) != 0) {
		snprintf(why, len, "installing %s: %s", to, strerror(errno));
		return (-1);
	}
	return (0);
}

static void
version_exit_cb(void *arg, int status)
{
	struct ps_install *in = arg;
	char bin[PATH_MAX], why[PATH_MAX + 64];

	in->child = NULL;
	if (in->finished) {
		if (!in->downloading)
			install_free(in);
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    !in->version_ok) {
		if (in->cached) {
			in->api->log(in->ctx, GP_LOG_WARN, "cached PerfSpect "
			    "in %s does not run; reinstalling", in->dir);
			in->cached = 0;
			install_download(in);
			return;
		}
		install_finish(in, NULL, "the downloaded perfspect does not "
		    "run (`perfspect --version` exit status %d)",
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return;
	}
	if (!in->cached && install_commit(in, why, sizeof(why)) != 0) {
		install_finish(in, NULL, "%s", why);
		return;
	}
	snprintf(bin, sizeof(bin), "%s/perfspect/perfspect", in->dir);
	install_finish(in, bin, NULL);
}

static int
install_check_version(struct ps_install *in, const char *bin)
{
	struct gp_child_spec spec;
	const char *argv[] = { bin, "--version", NULL };

	spec = (struct gp_child_spec){
		.size = sizeof(spec),
		.argv = argv,
		.on_stdout_line = version_line_cb,
		.on_exit = version_exit_cb,
		.arg = in,
	};
	in->version_ok = 0;
	if ((in->child = in->api->child_spawn(in->ctx, &spec)) == NULL)
		return (-errno);
	return (0);
}

/*
 * Is `got` one of the pinned releases?  1 (version set), 0, or -1 with why
 * set when the list cannot be trusted.  The list decides what root runs:
 * only a root-owned file nobody else can write counts.
 */
static int
install_pinned(struct ps_install *in, const char *got, char *version,
    size_t vlen, size_t *npins, char *why, size_t whylen)
{
	struct stat st;
	char *buf = NULL;
	ssize_t n;
	size_t have = 0;
	int fd, rc = -1;

	*npins = 0;
	if ((fd = open(in->pins, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC)) == -1) {
		snprintf(why, whylen, "%s: %s", in->pins, strerror(errno));
		return (errno == ENOENT ? 0 : -1);
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022) != 0 || st.st_size > PS_PINS_MAX_BYTES) {
		snprintf(why, whylen, "%s must be a regular file owned by root, "
		    "writable only by it, at most %u bytes", in->pins,
		    PS_PINS_MAX_BYTES);
		goto out;
	}
	if ((buf = malloc(st.st_size + 1)) == NULL)
		goto out;
	while (have < (size_t)st.st_size &&
	    (n = read(fd, buf + have, st.st_size - have)) > 0)
		have += n;
	rc = ps_pins_find(buf, have, got, version, vlen, npins);
out:
	free(buf);
	close(fd);
	return (rc);
}

/* The download's digest: what was asked for, or a pinned release. */
static int
install_verify(struct ps_install *in, const char *got)
{
	char version[64], why[PATH_MAX];
	size_t npins;
	int rc;

	if (in->sha256[0] != '\0') {
		if (ps_sha256_match(got, in->sha256) == 0)
			return (0);
		install_finish(in, NULL, "checksum mismatch for %s: sha256 "
		    "is %s, --perfspect-sha256 expects %s; refusing it",
		    in->url, got, in->sha256);
		return (-1);
	}
	why[0] = '\0';
	if ((rc = install_pinned(in, got, version, sizeof(version), &npins,
	    why, sizeof(why))) == 1) {
		in->api->log(in->ctx, GP_LOG_INFO, "%s is PerfSpect %s (sha256 "
		    "%s, pinned in %s)", in->url, version, got, in->pins);
		return (0);
	}
	install_finish(in, NULL, "refusing %s: its sha256 %s is not a "
	    "PerfSpect release this agent knows (%zu pinned in %s%s%s), and "
	    "it would run as root; check the tarball and give "
	    "--perfspect-sha256 %s to allow it, or install PerfSpect yourself "
	    "and give --perfspect-path", in->url, got, npins, in->pins,
	    rc < 0 ? ": " : "", rc < 0 ? why : "", got);
	return (-1);
}

/* After the download: checksum, extraction, then `--version`. */
static void
install_unpack(struct ps_install *in)
{
	char got[65], why[512], x[PATH_MAX / 2 + 8], bin[PATH_MAX];
	struct stat st;
	int rc;

	if ((rc = ps_sha256_fd(in->fd, got)) != 0) {
		install_finish(in, NULL, "reading the download: %s",
		    strerror(-rc));
		return;
	}
	if (install_verify(in, got) != 0)
		return;
	snprintf(x, sizeof(x), "%s/x", in->stage);
	if (mkdir(x, 0700) != 0 ||
	    ps_archive_extract(in->fd, x, why, sizeof(why)) != 0) {
		install_finish(in, NULL, "refusing %s: %s", in->url, why);
		return;
	}
	snprintf(bin, sizeof(bin), "%s/perfspect/perfspect", x);
	if (lstat(bin, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_mode & 0111) == 0) {
		install_finish(in, NULL, "%s has no executable "
		    "perfspect/perfspect", in->url);
		return;
	}
	if ((rc = install_check_version(in, bin)) != 0)
		install_finish(in, NULL, "running %s: %s", bin, strerror(-rc));
}

static void
download_done_cb(void *arg, int32_t rc, int32_t http_status,
    const char *err)
{
	struct ps_install *in = arg;

	if (in == NULL || in->magic != PS_INSTALL_MAGIC)
		return;
	in->downloading = 0;
	if (in->finished) {
		if (in->child == NULL)
			install_free(in);
		return;
	}
	if (rc != 0)
		install_finish(in, NULL, "downloading %s failed: %s", in->url,
		    err != NULL ? err : strerror(-rc));
	else if (http_status != 200)
		install_finish(in, NULL, "downloading %s failed: HTTP %d",
		    in->url, http_status);
	else
		install_unpack(in);
}

static void
install_download(struct ps_install *in)
{
	char tmpl[PATH_MAX], why[PATH_MAX];
	int rc;

	if (install_mkdirs(in->dir, why, sizeof(why)) != 0) {
		install_finish(in, NULL, "%s", why);
		return;
	}
	snprintf(tmpl, sizeof(tmpl), "%s/.staging.XXXXXX", in->dir);
	if (mkdtemp(tmpl) == NULL) {
		install_finish(in, NULL, "creating %s: %s", tmpl,
		    strerror(errno));
		return;
	}
	snprintf(in->stage, sizeof(in->stage), "%.2000s", tmpl);
	snprintf(tmpl, sizeof(tmpl), "%s/perfspect.tgz", in->stage);
	if ((in->fd = open(tmpl, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1) {
		install_finish(in, NULL, "creating %s: %s", tmpl,
		    strerror(errno));
		return;
	}
	in->api->log(in->ctx, GP_LOG_INFO, "downloading PerfSpect from %s",
	    in->url);
	in->downloading = 1;
	rc = in->api->http_download(in->ctx, in->url, in->fd,
	    in->timeout_s * 1000u, download_done_cb, in);
	if (rc != 0) {
		in->downloading = 0;
		install_finish(in, NULL, "downloading %s: %s", in->url,
		    rc == -ENOSYS ? "this daemon cannot download" :
		    strerror(-rc));
	}
}

static void
install_timeout_cb(void *arg)
{
	struct ps_install *in = arg;

	in->timer = NULL;	/* one-shot: gone after this returns */
	install_finish(in, NULL, "gave up after %u s (PERFSPECT_INSTALL_"
	    "TIMEOUT); set it higher or give --perfspect-path",
	    in->timeout_s);
}

/* Deferred so that done never runs inside ps_install_begin. */
static void
install_kick_cb(void *arg)
{
	struct ps_install *in = arg;
	char bin[PATH_MAX], why[512];
	struct stat st;

	in->kick = NULL;	/* one-shot: gone after this returns */
	snprintf(bin, sizeof(bin), "%s/perfspect/perfspect", in->dir);
	if (install_dir_safe(in->dir, why, sizeof(why)) == 0 &&
	    lstat(bin, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == 0 && (st.st_mode & 0111) != 0 &&
	    (st.st_mode & 022) == 0) {
		in->cached = 1;
		if (install_check_version(in, bin) == 0)
			return;
		in->cached = 0;
	}
	install_download(in);
}

struct ps_install *
ps_install_begin(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    const struct ps_install_config *cfg, ps_install_done_fn *done, void *arg)
{
	struct ps_install *in;

	if ((in = calloc(1, sizeof(*in))) == NULL) {
		api->log(ctx, GP_LOG_ERR, "PerfSpect install: out of memory");
		return (NULL);
	}
	in->magic = PS_INSTALL_MAGIC;
	in->ctx = ctx;
	in->api = api;
	in->fd = -1;
	snprintf(in->dir, sizeof(in->dir), "%s", cfg->dir);
	snprintf(in->url, sizeof(in->url), "%s", cfg->url);
	if (cfg->sha256 != NULL)
		snprintf(in->sha256, sizeof(in->sha256), "%s", cfg->sha256);
	snprintf(in->pins, sizeof(in->pins), "%s", cfg->pins != NULL ?
	    cfg->pins : PS_PINS_FILE);
	in->timeout_s = cfg->timeout_s;
	in->done = done;
	in->arg = arg;
	in->timer = api->timer_add(ctx, (uint64_t)cfg->timeout_s * 1000, 0,
	    install_timeout_cb, in);
	in->kick = api->timer_add(ctx, 0, 0, install_kick_cb, in);
	return (in);
}

unsigned
ps_install_reap(void)
{
	unsigned n;

	for (n = 0; install_waiting != NULL; n++)
		install_free(install_waiting);
	return (n);
}

void
ps_install_cancel(struct ps_install *in)
{
	if (in == NULL || in->finished)
		return;
	in->done = NULL;
	install_finish(in, NULL, "cancelled");
}
