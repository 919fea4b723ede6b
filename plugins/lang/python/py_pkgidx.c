/*
 * Which installed distribution each Python file belongs to, per packages
 * directory (site-packages, dist-packages) and mount namespace: gProfiler
 * lists the directory's *.dist-info and *.egg-info, reads each one's
 * METADATA (or PKG-INFO) and RECORD (or installed-files.txt), and maps
 * every file listed to "name==version" (docs/COMPAT.md).
 *
 * The index of a directory is built from a timer, a few distributions and
 * at most PKG_TURN_BYTES per loop turn, once a new stack names it, and then
 * kept while a process that named it lives: a lookup at snapshot time is
 * one hash probe, and a sample costs nothing.  Everything is read from
 * outside the process, in its root: files through the host's safe open
 * (readable by the process's user, as it could read them itself), the
 * directory with openat2 RESOLVE_IN_ROOT and O_DIRECTORY (a FIFO or a
 * planted link cannot block or lead out).
 *
 * The directories are written by whoever installs packages, any local
 * user for a site-packages of their own, so the index has a budget: the
 * indexes of every directory together hold at most PKG_BUDGET bytes
 * (py_pkgtab.c counts them), one directory at most PKG_DIR_MAX of them so
 * that others keep room.  A directory that needs room takes it from a
 * larger one, the least recently used first (py_pkgbudget_victim); when
 * none is larger it stops growing, and its later distributions get no
 * version: one log line says which directory.  A file list is parsed
 * through one window of PKG_WINDOW bytes, at most PKG_LIST_MAX bytes and
 * PKG_LIST_RECORDS files of it; lists that are one file (symlinks, hard
 * links: the same device and inode) are read once per directory; and
 * every directory's reading together draws on PKG_READ_RATE bytes a
 * second beyond a first PKG_READ_BURST, so no directory costs more than
 * a linear, capped read.  An index is freed when no process that named it
 * is left, or when it gives way, and the heap trimmed after a large one.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "py_pkgidx_int.h"
#include "py_discover.h"
#include "py_target.h"
#include "pyreader.h"

double
pkg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

/* What a directory's index holds. */
size_t
pkg_dir_bytes(const struct pkg_dir *d)
{
	return (d->files.bytes + d->lists.bytes + d->entbytes);
}

/* What every directory's index holds. */
size_t
pkg_total(const struct py_pkgidx *x)
{
	size_t t = 0;
	uint32_t i;

	for (i = 0; i < x->ndirs; i++)
		t += pkg_dir_bytes(x->dirs[i]);
	return (t);
}

void
pkg_list_stop(struct py_pkgidx *x)
{
	if (x->lister == NULL)
		return;
	close(x->listfd);
	x->listfd = -1;
	x->lister = NULL;	/* the window stays while there is work */
}

/* The directory's index freed (it may be read again). */
void
pkg_dir_clear(struct py_pkgidx *x, struct pkg_dir *d)
{
	uint32_t i;

	if (x->lister == d)
		pkg_list_stop(x);
	x->freed += pkg_dir_bytes(d);
	for (i = 0; i < d->nents; i++)
		free(d->ents[i]);
	free(d->ents);
	d->ents = NULL;
	d->nents = d->next = 0;
	free(d->tags);
	d->tags = NULL;
	d->ntags = 0;
	d->entbytes = 0;
	py_pkgtab_clear(&d->files);
	py_pkgtab_clear(&d->lists);
}

static void
pkg_dir_free(struct py_pkgidx *x, struct pkg_dir *d)
{
	if (d == NULL)
		return;
	pkg_dir_clear(x, d);
	free(d->path);
	free(d);
}

/* Pages freed by indexes go back to the system (glibc keeps them):
 * rarely, only once a megabyte or more was freed. */
static void
pkg_trim(struct py_pkgidx *x)
{
	if (x->freed < PKG_TRIM_BYTES)
		return;
	x->freed = 0;
	malloc_trim(0);
}

struct py_pkgidx *
py_pkgidx_new(struct gp_plugin_ctx *ctx, const struct gp_host_api *api)
{
	struct py_pkgidx *x;

	if ((x = calloc(1, sizeof(*x))) == NULL)
		return (NULL);
	x->ctx = ctx;
	x->api = api;
	x->listfd = -1;
	x->tokens = PKG_READ_BURST;
	x->refilled = pkg_now();
	return (x);
}

void
py_pkgidx_free(struct py_pkgidx *x)
{
	uint32_t i;

	if (x == NULL)
		return;
	x->api->timer_del(x->timer);
	for (i = 0; i < x->ndirs; i++)
		pkg_dir_free(x, x->dirs[i]);
	pkg_list_stop(x);
	/* Held while a directory waits to be read (pkg_timer_sync): the
	 * agent may stop in the middle of a list. */
	free(x->window);
	pkg_trim(x);
	free(x);
}

static void pkg_turn_cb(void *);

/*
 * The timer runs while a directory waits to be read: every PKG_TURN_MS,
 * or once the bucket has a turn's bytes again when it ran dry.
 */
static void
pkg_timer_sync(struct py_pkgidx *x)
{
	uint32_t i;
	int work = 0, ms = PKG_TURN_MS;

	for (i = 0; i < x->ndirs; i++)
		if (x->dirs[i]->state == PKG_PENDING ||
		    x->dirs[i]->state == PKG_READING)
			work = 1;
	if (work && x->tokens < PKG_TURN_BYTES)
		ms = (int)((PKG_TURN_BYTES - x->tokens) * 1e3 / PKG_READ_RATE)
		    + 1;
	if (!work || ms != x->timer_ms) {
		x->api->timer_del(x->timer);
		x->timer = NULL;
	}
	if (!work) {
		free(x->window);
		x->window = NULL;
	} else if (x->timer == NULL) {
		x->timer_ms = ms;
		x->timer = x->api->timer_add(x->ctx, (uint64_t)ms, 1,
		    pkg_turn_cb, x);
	}
}

static void
pkg_dir_ready(struct py_pkgidx *x, struct pkg_dir *d, double t0)
{
	d->state = PKG_READY;
	x->api->log(x->ctx, GP_LOG_DEBUG, "package versions: %s (pid %d's "
	    "mount namespace): %u distributions, %u Python files, %.1f MiB "
	    "of index, %llu bytes read in %.1f ms over %.0f ms (the longest "
	    "turn %.1f ms); %u lists were another's, read once; %u cut at "
	    "%u MiB or %u files%s", d->path, (int)d->pid, d->ntags,
	    d->files.used, (double)pkg_dir_bytes(d) / 1048576,
	    (unsigned long long)d->bytes, (d->cpu + pkg_now() - t0) * 1e3,
	    (pkg_now() - d->started) * 1e3, d->longest * 1e3, d->shared,
	    d->cut, PKG_LIST_MAX >> 20, PKG_LIST_RECORDS,
	    d->full ? "; stopped at the budget" : "");
}

/* One loop turn of indexing: at most PKG_TURN_BYTES, PKG_TURN_DISTS and
 * (but for the slice under way) PKG_TURN_SEC, within the bucket. */
static void
pkg_turn_cb(void *arg)
{
	struct py_pkgidx *x = arg;
	struct pkg_dir *d;
	size_t bytes = 0;
	uint32_t i, dists = 0;
	double t0, turn0 = pkg_now();
	size_t n;
	int rc;

	(void)pkg_tokens(x, turn0);
	for (i = 0; i < x->ndirs && bytes < PKG_TURN_BYTES &&
	    dists < PKG_TURN_DISTS && x->tokens > 0 &&
	    pkg_now() - turn0 < PKG_TURN_SEC; i++) {
		d = x->dirs[i];
		if (d->state != PKG_PENDING && d->state != PKG_READING)
			continue;
		t0 = pkg_now();
		if (d->state == PKG_PENDING) {
			d->started = t0;
			d->cpu = d->longest = 0;
			d->bytes = 0;
			d->shared = d->cut = 0;
			d->full = d->gave_way = 0;
			if ((rc = pkg_list(x, d)) != 0) {
				/* A refusal once per directory, INFO. */
				if (rc != -EREMOTE || !d->warned_remote)
					x->api->log(x->ctx, rc == -EREMOTE ?
					    GP_LOG_INFO : GP_LOG_DEBUG, "package "
					    "versions: cannot list %s in pid %d's "
					    "root: %s", d->path, (int)d->pid,
					    rc == -EREMOTE ? d->why :
					    strerror(-rc));
				d->warned_remote |= rc == -EREMOTE;
				pkg_dir_clear(x, d);
				d->state = PKG_FAILED;
				d->failed_at = pkg_now();
				continue;
			}
			d->state = PKG_READING;
			dists++;
		}
		while (d->state == PKG_READING && bytes < PKG_TURN_BYTES &&
		    dists < PKG_TURN_DISTS && x->tokens > 0 &&
		    pkg_now() - turn0 < PKG_TURN_SEC) {
			if (x->lister == d) {
				n = pkg_parse_some(x, d);
				bytes += n;
				d->bytes += n;
				continue;
			}
			if (d->next >= d->nents) {
				pkg_dir_ready(x, d, t0);
				break;
			}
			if (x->lister != NULL)
				break;	/* another's list holds the window */
			n = pkg_read_dist(x, d);
			bytes += n;
			d->bytes += n;
			dists++;
		}
		t0 = pkg_now() - t0;
		d->cpu += t0;
		if (t0 > d->longest)
			d->longest = t0;
	}
	pkg_trim(x);
	pkg_timer_sync(x);
}

static struct pkg_dir *
pkg_dir_find(struct py_pkgidx *x, uint64_t mntns, const char *path,
    size_t plen, uint64_t h)
{
	uint32_t i;

	for (i = 0; i < x->ndirs; i++) {
		struct pkg_dir *d = x->dirs[i];

		if (d->hash == h && d->mntns == mntns && d->plen == plen &&
		    memcmp(d->path, path, plen) == 0)
			return (d);
	}
	return (NULL);
}

/* Room for one more directory: forget the least recently used one that
 * is not being read.  -ENOSPC when every one is. */
static int
pkg_dir_room(struct py_pkgidx *x)
{
	uint32_t i, old = PKG_MAX_DIRS;

	if (x->ndirs < PKG_MAX_DIRS)
		return (0);
	for (i = 0; i < x->ndirs; i++)
		if ((x->dirs[i]->state == PKG_READY ||
		    x->dirs[i]->state == PKG_FAILED) && (old == PKG_MAX_DIRS ||
		    x->dirs[i]->used_at < x->dirs[old]->used_at))
			old = i;
	if (old == PKG_MAX_DIRS)
		return (-ENOSPC);
	pkg_dir_free(x, x->dirs[old]);
	x->dirs[old] = x->dirs[--x->ndirs];
	return (0);
}

/* pid named d: it keeps d while it lives (py_pkgidx_keep). */
static void
pkg_dir_user(struct pkg_dir *d, pid_t pid)
{
	uint32_t i;

	for (i = 0; i < d->npids; i++)
		if (d->pids[i] == pid)
			return;
	if (d->npids < PKG_DIR_PIDS)
		d->pids[d->npids++] = pid;
	else
		d->pids[d->pidnext++ % PKG_DIR_PIDS] = pid;
}

void
py_pkgidx_note(struct py_pkgidx *x, pid_t pid, uint64_t mntns,
    const char *const *frames, uint32_t n)
{
	struct pkg_dir *d;
	size_t len, from, fb, fl, cl, plen;
	uint64_t h;
	uint32_t i;
	double now = 0;
	int queued = 0;

	for (i = 0; i < n; i++) {
		len = strlen(frames[i]);
		for (from = 0; py_pkgver_next_module(frames[i], len, from, &fb,
		    &fl, &cl); from = cl + 1) {
			if ((plen = py_pkgver_packages_dir(frames[i] + fb,
			    fl)) == 0 || plen >= PKG_PATH_MAX)
				continue;
			if (now == 0)
				now = pkg_now();
			h = py_pkgtab_hash(frames[i] + fb, plen);
			d = pkg_dir_find(x, mntns, frames[i] + fb, plen, h);
			if (d != NULL) {
				d->used_at = now;
				pkg_dir_user(d, pid);
				if (d->state != PKG_FAILED || now -
				    d->failed_at < (d->gave_way && d->full ?
				    PKG_FULL_RETRY_S : PKG_RETRY_S) ||
				    x->no_openat2)
					continue;
				d->state = PKG_PENDING;	/* again, this pid */
				d->pid = pid;
				d->euid = py_discover_euid(pid);
				queued = 1;
				continue;
			}
			if (x->no_openat2 || pkg_dir_room(x) != 0 ||
			    (d = calloc(1, sizeof(*d))) == NULL)
				continue;
			if ((d->path = strndup(frames[i] + fb, plen)) == NULL) {
				free(d);
				continue;
			}
			d->plen = plen;
			d->hash = h;
			d->mntns = mntns;
			d->pid = pid;
			d->euid = py_discover_euid(pid);
			d->used_at = now;
			d->state = PKG_PENDING;
			pkg_dir_user(d, pid);
			x->dirs[x->ndirs++] = d;
			queued = 1;
		}
	}
	if (queued)
		pkg_timer_sync(x);
}

static int
pkg_pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x < y ? -1 : x > y);
}

void
py_pkgidx_keep(struct py_pkgidx *x, const pid_t *live, uint32_t nlive)
{
	struct pkg_dir *d;
	uint32_t i, j, k;

	for (i = 0; i < x->ndirs;) {
		d = x->dirs[i];
		for (j = k = 0; j < d->npids; j++)
			if (bsearch(&d->pids[j], live, nlive, sizeof(*live),
			    pkg_pid_cmp) != NULL)
				d->pids[k++] = d->pids[j];
		d->npids = k;
		if (k > 0) {
			i++;
			continue;
		}
		x->api->log(x->ctx, GP_LOG_DEBUG, "package versions: %s (pid "
		    "%d's mount namespace): no process that named it is left; "
		    "its index (%.1f MiB) freed", d->path, (int)d->pid,
		    (double)pkg_dir_bytes(d) / 1048576);
		pkg_dir_free(x, d);
		x->dirs[i] = x->dirs[--x->ndirs];
	}
	pkg_trim(x);
	pkg_timer_sync(x);
}

/* The tag of one file: its distribution's, else the standard library's. */
static int
pkg_tag(struct py_pkgidx *x, uint64_t mntns, const struct py_version *ver,
    const char *f, size_t fl, char *out, size_t outlen)
{
	struct pkg_dir *d;
	int64_t k;
	size_t plen = py_pkgver_packages_dir(f, fl);

	if (plen > 0 && (d = pkg_dir_find(x, mntns, f, plen,
	    py_pkgtab_hash(f, plen))) != NULL && d->state == PKG_READY) {
		k = -1;
		if (f[plen] != '/')
			k = py_pkgtab_find(&d->files, f + plen, fl - plen);
		if (k < 0)
			k = py_pkgtab_find(&d->files, f, fl);
		if (k >= 0 && (uint64_t)k < d->ntags)
			return (snprintf(out, outlen, "%s",
			    d->tags[k]) < (int)outlen);
	}
	if (ver != NULL && ver->major > 0 && py_pkgver_is_stdlib(f, fl))
		return (snprintf(out, outlen, "standard-library==%d.%d.%d",
		    ver->major, ver->minor, ver->micro) < (int)outlen);
	return (0);
}

const char *
py_pkgidx_decorate(struct py_pkgidx *x, uint64_t mntns,
    const struct py_version *ver, const char *frame, char *buf, size_t buflen)
{
	char tag[1024];
	size_t len = strlen(frame), from = 0, fb, fl, cl, o = 0, t;
	int any = 0;

	while (py_pkgver_next_module(frame, len, from, &fb, &fl, &cl)) {
		if (pkg_tag(x, mntns, ver, frame + fb, fl, tag, sizeof(tag))) {
			t = strlen(tag);
			if (o + (cl - from) + t + 3 >= buflen)
				return (frame);
			memcpy(buf + o, frame + from, cl - from);
			o += cl - from;
			buf[o++] = ' ';
			buf[o++] = '[';
			memcpy(buf + o, tag, t);
			o += t;
			buf[o++] = ']';
			any = 1;
		} else {
			if (o + (cl - from) >= buflen)
				return (frame);
			memcpy(buf + o, frame + from, cl - from);
			o += cl - from;
		}
		from = cl;
	}
	if (!any || o + (len - from) + 1 > buflen)
		return (frame);
	memcpy(buf + o, frame + from, len - from + 1);
	return (buf);
}
