/*
 * Which installed distribution each Python file belongs to, per packages
 * directory (site-packages, dist-packages) and mount namespace: gProfiler
 * lists the directory's *.dist-info and *.egg-info, reads each one's
 * METADATA (or PKG-INFO) and RECORD (or installed-files.txt), and maps
 * every file listed to "name==version" (docs/COMPAT.md).
 *
 * The index of a directory is built from a timer, a few distributions and
 * at most PKG_TURN_BYTES per loop turn, once a new stack names it, and then
 * kept: a lookup at snapshot time is one hash probe, and a sample costs
 * nothing.  Everything is read from outside the process, in its root:
 * files through the host's safe open (readable by the process's user, as
 * it could read them itself), the directory with openat2 RESOLVE_IN_ROOT
 * and O_DIRECTORY (a FIFO or a planted link cannot block or lead out).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "py_discover.h"
#include "py_pkgver.h"
#include "py_target.h"
#include "pyreader.h"

#define PKG_MAX_DIRS	64		/* gProfiler's lru_cache keeps 128 */
#define PKG_MAX_ENTRIES	65536		/* directory entries looked at */
#define PKG_MAX_DISTS	8192		/* distributions per directory */
#define PKG_MAX_KEYS	(1u << 21)	/* files, all directories */
#define PKG_RECORD_MAX	(16u << 20)	/* a larger RECORD is refused */
#define PKG_META_READ	65536		/* the headers are at the start */
#define PKG_TURN_BYTES	(1u << 20)	/* read per loop turn */
#define PKG_TURN_DISTS	32		/* distributions per loop turn */
#define PKG_TURN_SEC	0.004		/* and about this long */
#define PKG_PARSE_SLICE	(64u * 1024)	/* of a file list, between checks */
#define PKG_TURN_MS	10
#define PKG_RETRY_S	30		/* a directory that could not be read */
#define PKG_PATH_MAX	4096

#define PKG_PENDING	0
#define PKG_READING	1
#define PKG_READY	2
#define PKG_FAILED	3

struct pkg_key {
	uint64_t	 hash;
	char		*key;	/* NULL: empty slot */
	uint32_t	 dist;
};

struct pkg_dir {
	uint64_t	 mntns;
	uint64_t	 hash;
	char		*path;	/* ends with '/' */
	size_t		 plen;
	int		 state;
	pid_t		 pid;	/* whose root it is read in */
	int64_t		 euid;
	char		**ents;	/* distribution directories to read */
	uint32_t	 nents, next;
	char		**tags;	/* "name==version" */
	uint32_t	 ntags;
	struct pkg_key	*keys;
	uint32_t	 kcap, kused;
	double		 used_at, failed_at;
	double		 started, cpu;	/* time spent indexing, for the log */
	double		 longest;	/* the longest loop turn */
	char		*cur;		/* the file list being parsed, */
	size_t		 curlen, curpos;	/* sliced across loop turns */
	int		 curlegacy;	/* installed-files.txt */
	uint64_t	 bytes;
};

struct py_pkgidx {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	struct pkg_dir	*dirs[PKG_MAX_DIRS];
	uint32_t	 ndirs;
	uint32_t	 nkeys;
	struct gp_timer	*timer;
	int		 no_openat2;
	int		 warned_full;
};

static double
pkg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

static uint64_t
pkg_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return (h);
}

static void
pkg_dir_clear(struct py_pkgidx *x, struct pkg_dir *d)
{
	uint32_t i;

	free(d->cur);
	d->cur = NULL;
	for (i = 0; i < d->nents; i++)
		free(d->ents[i]);
	free(d->ents);
	d->ents = NULL;
	d->nents = d->next = 0;
	for (i = 0; i < d->ntags; i++)
		free(d->tags[i]);
	free(d->tags);
	d->tags = NULL;
	d->ntags = 0;
	for (i = 0; i < d->kcap; i++)
		free(d->keys[i].key);
	free(d->keys);
	d->keys = NULL;
	x->nkeys -= d->kused;
	d->kcap = d->kused = 0;
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

struct py_pkgidx *
py_pkgidx_new(struct gp_plugin_ctx *ctx, const struct gp_host_api *api)
{
	struct py_pkgidx *x;

	if ((x = calloc(1, sizeof(*x))) == NULL)
		return (NULL);
	x->ctx = ctx;
	x->api = api;
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
	free(x);
}

static struct pkg_key *
pkg_key_find(struct pkg_dir *d, const char *k, size_t n, uint64_t h)
{
	uint32_t j;

	if (d->kcap == 0)
		return (NULL);
	for (j = (uint32_t)h & (d->kcap - 1); d->keys[j].key != NULL;
	    j = (j + 1) & (d->kcap - 1))
		if (d->keys[j].hash == h && strncmp(d->keys[j].key, k, n) ==
		    0 && d->keys[j].key[n] == '\0')
			return (&d->keys[j]);
	return (NULL);
}

static int
pkg_key_grow(struct pkg_dir *d)
{
	struct pkg_key *nk;
	uint32_t cap = d->kcap ? d->kcap * 2 : 256, i, j;

	if ((nk = calloc(cap, sizeof(*nk))) == NULL)
		return (-ENOMEM);
	for (i = 0; i < d->kcap; i++) {
		if (d->keys[i].key == NULL)
			continue;
		for (j = (uint32_t)d->keys[i].hash & (cap - 1);
		    nk[j].key != NULL; j = (j + 1) & (cap - 1))
			;
		nk[j] = d->keys[i];
	}
	free(d->keys);
	d->keys = nk;
	d->kcap = cap;
	return (0);
}

/*
 * One file of a distribution: relative to the packages directory, or
 * absolute (os.path.join keeps an absolute one).  Only *.py files can be
 * named by a frame.  A file two distributions list keeps the first.
 */
static int
pkg_key_add(struct py_pkgidx *x, struct pkg_dir *d, const char *k,
    uint32_t dist)
{
	size_t n = strlen(k);
	uint64_t h;
	uint32_t j;
	char *dup;

	if (n < 4 || strcmp(k + n - 3, ".py") != 0)
		return (0);
	if (x->nkeys >= PKG_MAX_KEYS)
		return (-ENOSPC);
	h = pkg_hash(k, n);
	if (pkg_key_find(d, k, n, h) != NULL)
		return (0);
	if ((d->kused + 1) * 4 > d->kcap * 3 && pkg_key_grow(d) != 0)
		return (-ENOMEM);
	if ((dup = strdup(k)) == NULL)
		return (-ENOMEM);
	for (j = (uint32_t)h & (d->kcap - 1); d->keys[j].key != NULL;
	    j = (j + 1) & (d->kcap - 1))
		;
	d->keys[j] = (struct pkg_key){ h, dup, dist };
	d->kused++;
	x->nkeys++;
	return (0);
}

/*
 * A file of a distribution, in the process's root and readable by its
 * user: up to cap bytes (max: a larger file is refused), malloc'ed and
 * NUL-terminated, or NULL.
 */
static char *
pkg_read(struct pkg_dir *d, const char *ent, const char *name, size_t cap,
    uint64_t max, size_t *lenp)
{
	char root[64], path[PKG_PATH_MAX], *buf;
	struct stat st;
	ssize_t n;
	size_t total = 0;
	int fd;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)d->pid);
	if (snprintf(path, sizeof(path), "%s%s/%s", d->path, ent, name) >=
	    (int)sizeof(path))
		return (NULL);
	if ((fd = py_open(root, path, GP_OPEN_READABLE_BY, max, d->euid)) < 0)
		return (NULL);
	/* Sized by the file (it may grow while read: cap still holds). */
	if (fstat(fd, &st) == 0 && st.st_size >= 0 &&
	    (uint64_t)st.st_size < cap)
		cap = (size_t)st.st_size;
	if ((buf = malloc(cap + 1)) == NULL) {
		close(fd);
		return (NULL);
	}
	while (total < cap) {
		n = read(fd, buf + total, cap - total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
	}
	close(fd);
	buf[total] = '\0';
	*lenp = total;
	return (buf);
}

/* The next distribution is done with. */
static void
pkg_dist_done(struct pkg_dir *d)
{
	free(d->cur);
	d->cur = NULL;
	free(d->ents[d->next]);
	d->ents[d->next++] = NULL;
}

/* Up to PKG_PARSE_SLICE bytes of the current file list: bytes parsed. */
static size_t
pkg_parse_some(struct py_pkgidx *x, struct pkg_dir *d)
{
	char file[PKG_PATH_MAX];
	const char *ent = d->ents[d->next];
	size_t start = d->curpos;
	int rc;

	while (d->curpos - start < PKG_PARSE_SLICE) {
		rc = d->curlegacy ? py_pkgver_legacy_next(d->cur, d->curlen,
		    &d->curpos, ent, file, sizeof(file)) :
		    py_pkgver_record_next(d->cur, d->curlen, &d->curpos, file,
		    sizeof(file));
		if (rc == 0)
			break;
		if (rc < 0)
			continue;
		if (pkg_key_add(x, d, file, d->ntags - 1) == -ENOSPC) {
			if (!x->warned_full)
				x->api->log(x->ctx, GP_LOG_WARN, "package "
				    "versions: %u files indexed, the most; "
				    "files of %s%s and later get none",
				    PKG_MAX_KEYS, d->path, ent);
			x->warned_full = 1;
			d->curpos = d->curlen;
			break;
		}
	}
	if (d->curpos >= d->curlen)
		pkg_dist_done(d);
	return (d->curpos - start);
}

/*
 * The next distribution's tag; its file list becomes d->cur, parsed in
 * slices (pkg_parse_some).  Bytes read, for the budget.
 */
static size_t
pkg_read_dist(struct pkg_dir *d)
{
	char proj[256], ver[256], *meta, *files, *tag;
	const char *ent = d->ents[d->next], *nv, *vv;
	size_t mlen = 0, flen = 0, nl, vl;
	int kind = py_pkgver_dist_kind(ent), exact, vexact, legacy = 0;
	int hasver;

	hasver = py_pkgver_dirname(ent, proj, sizeof(proj), ver, sizeof(ver));
	if (hasver < 0) {
		pkg_dist_done(d);
		return (0);
	}
	meta = NULL;
	if (kind == PY_DIST_INFO)
		meta = pkg_read(d, ent, "METADATA", PKG_META_READ, 0, &mlen);
	if (meta == NULL)
		meta = pkg_read(d, ent, "PKG-INFO", PKG_META_READ, 0, &mlen);
	if (meta == NULL) {
		pkg_dist_done(d);
		return (0);
	}
	files = pkg_read(d, ent, "RECORD", PKG_RECORD_MAX, PKG_RECORD_MAX,
	    &flen);
	if (files == NULL) {
		legacy = 1;
		files = pkg_read(d, ent, "installed-files.txt", PKG_RECORD_MAX,
		    PKG_RECORD_MAX, &flen);
	}
	if (files == NULL ||
	    py_pkgver_header(meta, mlen, "Name", &nv, &nl, &exact) == 0)
		goto out;
	if (!exact) {
		nv = proj;
		nl = strlen(proj);
	}
	if (hasver) {
		vv = ver;
		vl = strlen(ver);
	} else {
		(void)py_pkgver_header(meta, mlen, "Version", &vv, &vl,
		    &vexact);
		while (vv != NULL && vl > 0 && (vv[vl - 1] == ' ' ||
		    vv[vl - 1] == '\t'))
			vl--;
		if (vv == NULL || vl == 0)
			goto out;
	}
	if (d->ntags >= PKG_MAX_DISTS ||
	    (tag = malloc(nl + vl + 3)) == NULL)
		goto out;
	memcpy(tag, nv, nl);
	memcpy(tag + nl, "==", 2);
	memcpy(tag + nl + 2, vv, vl);
	tag[nl + 2 + vl] = '\0';
	d->tags[d->ntags++] = tag;
	d->cur = files;
	d->curlen = flen;
	d->curpos = 0;
	d->curlegacy = legacy;
	files = NULL;
	free(meta);
	return (mlen + flen);
out:
	free(meta);
	free(files);
	pkg_dist_done(d);
	return (mlen + flen);
}

/*
 * The distributions in the directory, in the process's root: openat2
 * RESOLVE_IN_ROOT keeps every link inside it, O_DIRECTORY opens nothing
 * else, and the directory must be readable by the process's user.
 */
static int
pkg_list(struct py_pkgidx *x, struct pkg_dir *d)
{
	struct open_how how;
	struct dirent *de;
	struct stat st;
	char root[64];
	DIR *dir;
	uint32_t seen = 0, cap = 0;
	int rootfd, fd, tries = 0;
	char **ne;

	if (x->no_openat2)
		return (-ENOSYS);
	snprintf(root, sizeof(root), "/proc/%d/root", (int)d->pid);
	if ((rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return (-errno);
	memset(&how, 0, sizeof(how));
	how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	do
		fd = (int)syscall(SYS_openat2, rootfd, d->path, &how,
		    sizeof(how));
	while (fd < 0 && errno == EAGAIN && ++tries < 8);
	if (fd < 0) {
		fd = -errno;
		close(rootfd);
		if (fd == -ENOSYS) {
			x->no_openat2 = 1;
			x->api->log(x->ctx, GP_LOG_INFO, "no package versions "
			    "in Python frames: the kernel lacks openat2(2), "
			    "which keeps the walk inside each process's "
			    "root");
		}
		return (fd);
	}
	close(rootfd);
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    (d->euid != 0 && !(((int64_t)st.st_uid == d->euid &&
	    (st.st_mode & S_IRUSR) && (st.st_mode & S_IXUSR)) ||
	    ((int64_t)st.st_uid != d->euid && (st.st_mode & S_IROTH) &&
	    (st.st_mode & S_IXOTH))))) {
		close(fd);
		return (-EPERM);
	}
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return (-errno);
	}
	while ((de = readdir(dir)) != NULL && seen++ < PKG_MAX_ENTRIES &&
	    d->nents < PKG_MAX_DISTS) {
		if (py_pkgver_dist_kind(de->d_name) == PY_DIST_NONE ||
		    (de->d_type != DT_DIR && de->d_type != DT_LNK &&
		    de->d_type != DT_UNKNOWN))
			continue;
		if (d->nents == cap) {
			cap = cap ? cap * 2 : 64;
			if ((ne = realloc(d->ents, cap * sizeof(*ne))) == NULL)
				break;
			d->ents = ne;
		}
		if ((d->ents[d->nents] = strdup(de->d_name)) == NULL)
			break;
		d->nents++;
	}
	closedir(dir);
	if (d->nents > 0 &&
	    (d->tags = calloc(d->nents, sizeof(*d->tags))) == NULL)
		return (-ENOMEM);
	return (0);
}

static void	pkg_turn_cb(void *);

static void
pkg_timer_sync(struct py_pkgidx *x)
{
	uint32_t i;
	int work = 0;

	for (i = 0; i < x->ndirs; i++)
		if (x->dirs[i]->state == PKG_PENDING ||
		    x->dirs[i]->state == PKG_READING)
			work = 1;
	if (!work) {
		x->api->timer_del(x->timer);
		x->timer = NULL;
	} else if (x->timer == NULL)
		x->timer = x->api->timer_add(x->ctx, PKG_TURN_MS, 1,
		    pkg_turn_cb, x);
}

/* One loop turn of indexing: at most PKG_TURN_BYTES, PKG_TURN_DISTS and
 * (but for the distribution under way) PKG_TURN_SEC. */
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

	for (i = 0; i < x->ndirs && bytes < PKG_TURN_BYTES &&
	    dists < PKG_TURN_DISTS && pkg_now() - turn0 < PKG_TURN_SEC; i++) {
		d = x->dirs[i];
		if (d->state != PKG_PENDING && d->state != PKG_READING)
			continue;
		t0 = pkg_now();
		if (d->state == PKG_PENDING) {
			d->started = t0;
			d->cpu = d->longest = 0;
			d->bytes = 0;
			if ((rc = pkg_list(x, d)) != 0) {
				x->api->log(x->ctx, GP_LOG_DEBUG, "package "
				    "versions: cannot list %s in pid %d's "
				    "root: %s", d->path, (int)d->pid,
				    strerror(-rc));
				pkg_dir_clear(x, d);
				d->state = PKG_FAILED;
				d->failed_at = pkg_now();
				continue;
			}
			d->state = PKG_READING;
			dists++;
		}
		while (d->state == PKG_READING && bytes < PKG_TURN_BYTES &&
		    dists < PKG_TURN_DISTS && pkg_now() - turn0 < PKG_TURN_SEC) {
			if (d->next >= d->nents) {
				d->state = PKG_READY;
				x->api->log(x->ctx, GP_LOG_DEBUG, "package "
				    "versions: %s (pid %d's mount namespace): "
				    "%u distributions, %u Python files, %llu "
				    "bytes read in %.1f ms over %.0f ms (the "
				    "longest turn %.1f ms)", d->path,
				    (int)d->pid, d->ntags, d->kused,
				    (unsigned long long)d->bytes, (d->cpu +
				    pkg_now() - t0) * 1e3, (pkg_now() -
				    d->started) * 1e3, d->longest * 1e3);
				break;
			}
			if (d->cur != NULL) {
				bytes += pkg_parse_some(x, d);
				continue;
			}
			n = pkg_read_dist(d);
			bytes += n;
			d->bytes += n;
			dists++;
		}
		t0 = pkg_now() - t0;
		d->cpu += t0;
		if (t0 > d->longest)
			d->longest = t0;
	}
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
			h = pkg_hash(frames[i] + fb, plen);
			d = pkg_dir_find(x, mntns, frames[i] + fb, plen, h);
			if (d != NULL) {
				d->used_at = now;
				if (d->state != PKG_FAILED ||
				    now - d->failed_at < PKG_RETRY_S ||
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
			x->dirs[x->ndirs++] = d;
			queued = 1;
		}
	}
	if (queued)
		pkg_timer_sync(x);
}

/* The tag of one file: its distribution's, else the standard library's. */
static int
pkg_tag(struct py_pkgidx *x, uint64_t mntns, const struct py_version *ver,
    const char *f, size_t fl, char *out, size_t outlen)
{
	struct pkg_dir *d;
	struct pkg_key *k;
	size_t plen = py_pkgver_packages_dir(f, fl);

	if (plen > 0 && (d = pkg_dir_find(x, mntns, f, plen,
	    pkg_hash(f, plen))) != NULL && d->state == PKG_READY) {
		k = NULL;
		if (f[plen] != '/')
			k = pkg_key_find(d, f + plen, fl - plen,
			    pkg_hash(f + plen, fl - plen));
		if (k == NULL)
			k = pkg_key_find(d, f, fl, pkg_hash(f, fl));
		if (k != NULL)
			return (snprintf(out, outlen, "%s",
			    d->tags[k->dist]) < (int)outlen);
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
