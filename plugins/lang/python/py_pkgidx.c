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
#include <sys/syscall.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "fsguard.h"
#include "py_discover.h"
#include "py_pkgtab.h"
#include "py_pkgver.h"
#include "py_target.h"
#include "pyreader.h"

#define PKG_MAX_DIRS	64		/* gProfiler's lru_cache keeps 128 */
#define PKG_MOUNTS_MAX	(1u << 20)	/* bytes of a mountinfo read */
#define PKG_MAX_ENTRIES	65536		/* directory entries looked at */
#define PKG_MAX_DISTS	8192		/* distributions per directory */
#define PKG_BUDGET	(16u << 20)	/* every directory's index, together */
#define PKG_BUDGET_MIB	16
#define PKG_DIR_MAX	(12u << 20)	/* one directory's: room for others */
#define PKG_DIR_MAX_MIB	12
#define PKG_LIST_MAX	(16u << 20)	/* a larger file list is refused */
#define PKG_LIST_RECORDS 262144		/* files of one list */
#define PKG_WINDOW	(256u * 1024)	/* file lists are parsed through it */
#define PKG_META_READ	65536		/* the headers are at the start */
#define PKG_READ_BURST	(48.0 * 1048576)	/* bytes read at once, */
#define PKG_READ_RATE	(1.0 * 1048576)	/* then per second, all directories */
#define PKG_TURN_BYTES	(1u << 20)	/* read per loop turn */
#define PKG_TURN_DISTS	32		/* distributions per loop turn */
#define PKG_TURN_SEC	0.004		/* and about this long */
#define PKG_PARSE_SLICE	128		/* files of a list, between checks */
#define PKG_TURN_MS	10
#define PKG_RETRY_S	30		/* a directory that failed, gave way */
#define PKG_FULL_RETRY_S 600		/* one that ran full, then gave way */
#define PKG_PATH_MAX	4096
#define PKG_DIR_PIDS	8		/* processes that named a directory */
#define PKG_TRIM_BYTES	(1u << 20)	/* freed: give the heap back */

#define PKG_PENDING	0
#define PKG_READING	1
#define PKG_READY	2
#define PKG_FAILED	3

struct pkg_dir {
	uint64_t	 mntns;
	uint64_t	 hash;
	char		*path;	/* ends with '/' */
	size_t		 plen;
	int		 state;
	pid_t		 pid;	/* whose root it is read in */
	int64_t		 euid;
	pid_t		 pids[PKG_DIR_PIDS];	/* live ones keep it */
	uint32_t	 npids, pidnext;
	char		**ents;	/* distribution directories to read */
	uint32_t	 nents, next;
	size_t		 entbytes;	/* ents and tags arrays */
	const char	**tags;	/* "name==version", in files' arena */
	uint32_t	 ntags;
	struct py_pkgtab files;	/* file -> tag */
	struct py_pkgtab lists;	/* "dev:ino" of the lists read */
	uint32_t	 shared;	/* lists that were one read already */
	uint32_t	 cut;		/* lists cut at PKG_LIST_MAX/RECORDS */
	int		 full;		/* stopped growing: the budget */
	int		 gave_way;	/* its index was dropped for another */
	int		 warned_full;	/* the budget's lines were logged */
	int		 warned_remote;	/* the refusal (FUSE...) was */
	char		 why[160];	/* why it was refused */
	int		 warned_gave;
	double		 used_at, failed_at;
	double		 started, cpu;	/* time spent indexing, for the log */
	double		 longest;	/* the longest loop turn */
	uint64_t	 bytes;		/* read */
};

struct py_pkgidx {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	struct pkg_dir	*dirs[PKG_MAX_DIRS];
	uint32_t	 ndirs;
	struct gp_timer	*timer;
	int		 timer_ms;
	int		 no_openat2;
	/* The one file list being parsed, of lister's next distribution. */
	struct pkg_dir	*lister;
	struct py_pkglist list;
	char		*window;
	int		 listfd;
	uint32_t	 listdist;	/* its tag */
	double		 tokens, refilled;	/* bytes it may read now */
	size_t		 freed;		/* since the heap was last trimmed */
};

static double
pkg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

/* What a directory's index holds. */
static size_t
pkg_dir_bytes(const struct pkg_dir *d)
{
	return (d->files.bytes + d->lists.bytes + d->entbytes);
}

/* What every directory's index holds. */
static size_t
pkg_total(const struct py_pkgidx *x)
{
	size_t t = 0;
	uint32_t i;

	for (i = 0; i < x->ndirs; i++)
		t += pkg_dir_bytes(x->dirs[i]);
	return (t);
}

static void
pkg_list_stop(struct py_pkgidx *x)
{
	if (x->lister == NULL)
		return;
	close(x->listfd);
	x->listfd = -1;
	x->lister = NULL;	/* the window stays while there is work */
}

/* The directory's index freed (it may be read again). */
static void
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
	pkg_trim(x);
	free(x);
}

/* The bytes the index may read now (a token bucket). */
static double
pkg_tokens(struct py_pkgidx *x, double now)
{
	x->tokens += (now - x->refilled) * PKG_READ_RATE;
	if (x->tokens > PKG_READ_BURST)
		x->tokens = PKG_READ_BURST;
	x->refilled = now;
	return (x->tokens);
}

/*
 * A file of a distribution, in the process's root and readable by its
 * user: up to cap bytes, malloc'ed and NUL-terminated, or NULL.
 */
static char *
pkg_read(struct pkg_dir *d, const char *ent, const char *name, size_t cap,
    size_t *lenp)
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
	if ((fd = py_open(root, path, GP_OPEN_READABLE_BY, 0, d->euid)) < 0)
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

/* A file list, as pkg_read opens one: fd, its identity in *info. */
static int
pkg_open_list(struct pkg_dir *d, const char *ent, const char *name,
    struct gp_file_info *info)
{
	char root[64], path[PKG_PATH_MAX];

	snprintf(root, sizeof(root), "/proc/%d/root", (int)d->pid);
	if (snprintf(path, sizeof(path), "%s%s/%s", d->path, ent, name) >=
	    (int)sizeof(path))
		return (-ENAMETOOLONG);
	memset(info, 0, sizeof(*info));
	return (py_open_info(root, path, GP_OPEN_READABLE_BY, PKG_LIST_MAX,
	    d->euid, info));
}

/* The next distribution is done with. */
static void
pkg_dist_done(struct pkg_dir *d)
{
	free(d->ents[d->next]);
	d->ents[d->next++] = NULL;
}

/*
 * The index has no room for d to grow: a larger directory's index gives
 * way (the least recently used first) and 1, or 0 when none is larger.
 */
static int
pkg_make_room(struct py_pkgidx *x, struct pkg_dir *d)
{
	struct py_pkguse u[PKG_MAX_DIRS];
	struct pkg_dir *v;
	uint32_t i, self = 0;
	size_t total = pkg_total(x), mine = pkg_dir_bytes(d);
	int vi;

	/* d's own share is what stops it: no other need give way. */
	if ((mine < PKG_DIR_MAX ? PKG_DIR_MAX - mine : 0) <=
	    (total < PKG_BUDGET ? PKG_BUDGET - total : 0))
		return (0);
	for (i = 0; i < x->ndirs; i++) {
		u[i].used_at = x->dirs[i]->used_at;
		u[i].bytes = pkg_dir_bytes(x->dirs[i]);
		u[i].evictable = x->dirs[i]->state == PKG_READY ||
		    x->dirs[i]->state == PKG_FAILED;
		if (x->dirs[i] == d)
			self = i;
	}
	if ((vi = py_pkgbudget_victim(u, x->ndirs, self)) < 0)
		return (0);
	v = x->dirs[vi];
	if (!v->warned_gave)
		x->api->log(x->ctx, GP_LOG_INFO, "package versions: the index "
		    "of %s (pid %d's mount namespace, %.1f MiB) gave way to "
		    "%s: the indexes of every packages directory together "
		    "keep within %u MiB, the larger ones giving way first; "
		    "read again when its files are profiled %d s from now",
		    v->path, (int)v->pid, (double)u[vi].bytes / 1048576,
		    d->path, PKG_BUDGET_MIB, v->full ? PKG_FULL_RETRY_S :
		    PKG_RETRY_S);
	v->warned_gave = 1;
	pkg_dir_clear(x, v);
	v->state = PKG_FAILED;
	v->failed_at = pkg_now();
	v->gave_way = 1;
	return (1);
}

/* d stops growing: its index stays as far as it got, said once. */
static void
pkg_dir_full(struct py_pkgidx *x, struct pkg_dir *d, const char *at)
{
	if (!d->warned_full)
		x->api->log(x->ctx, GP_LOG_WARN, "package versions: %s (pid "
		    "%d's mount namespace): the index is full (%u MiB for "
		    "one packages directory, %u MiB for all together; %.1f "
		    "MiB this one's) at %s, distribution %u of %u: the files "
		    "listed from there on get no version (a site-packages "
		    "this large is unusual: check who wrote it; "
		    "--no-python-versions turns the index off)", d->path,
		    (int)d->pid, PKG_DIR_MAX_MIB, PKG_BUDGET_MIB,
		    (double)pkg_dir_bytes(d) / 1048576, at,
		    d->next < d->nents ? d->next + 1 : d->nents, d->nents);
	d->warned_full = 1;
	d->full = 1;
	if (x->lister == d)
		pkg_list_stop(x);
	while (d->next < d->nents)
		pkg_dist_done(d);
}

/* What d's table t may reach: what it holds, and what is left of the
 * index's budget and of d's share of it. */
static size_t
pkg_limit(struct py_pkgidx *x, const struct pkg_dir *d,
    const struct py_pkgtab *t)
{
	size_t total = pkg_total(x), mine = pkg_dir_bytes(d), room;

	room = total < PKG_BUDGET ? PKG_BUDGET - total : 0;
	if (mine >= PKG_DIR_MAX)
		room = 0;
	else if (PKG_DIR_MAX - mine < room)
		room = PKG_DIR_MAX - mine;
	return (t->bytes + room);
}

/* One file of the list: only *.py files can be named by a frame. */
static int
pkg_file_add(struct py_pkgidx *x, struct pkg_dir *d, const char *k)
{
	size_t n = strlen(k);
	int rc;

	if (n < 4 || strcmp(k + n - 3, ".py") != 0)
		return (0);
	while ((rc = py_pkgtab_add(&d->files, k, n, x->listdist,
	    pkg_limit(x, d, &d->files))) == -ENOSPC)
		if (!pkg_make_room(x, d))
			return (-ENOSPC);
	return (rc < 0 ? rc : 0);
}

/* The list is over: its distribution done with. */
static void
pkg_list_done(struct py_pkgidx *x, struct pkg_dir *d)
{
	if (x->list.fed >= PKG_LIST_MAX ||
	    x->list.records >= PKG_LIST_RECORDS)
		d->cut++;
	pkg_list_stop(x);
	pkg_dist_done(d);
}

/*
 * Up to PKG_PARSE_SLICE files of the list being parsed, reading into the
 * window as it empties: the bytes read.
 */
static size_t
pkg_parse_some(struct py_pkgidx *x, struct pkg_dir *d)
{
	char file[PKG_PATH_MAX], *at;
	struct py_pkglist *l = &x->list;
	size_t bytes = 0, room;
	ssize_t n;
	uint32_t i;
	int rc;

	for (i = 0; i < PKG_PARSE_SLICE && bytes < PKG_TURN_BYTES; i++) {
		rc = py_pkglist_next(l, file, sizeof(file));
		if (rc < 0)
			continue;
		if (rc > 0) {
			if (l->records >= PKG_LIST_RECORDS)
				py_pkglist_fed(l, 0);	/* no more */
			if (pkg_file_add(x, d, file) == -ENOSPC) {
				pkg_dir_full(x, d, d->ents[d->next]);
				break;
			}
			continue;
		}
		if (l->eof) {
			pkg_list_done(x, d);
			break;
		}
		at = py_pkglist_room(l, &room);
		if (room > PKG_LIST_MAX - l->fed)
			room = PKG_LIST_MAX - l->fed;
		if (room == 0) {
			py_pkglist_fed(l, 0);
			continue;
		}
		if ((n = read(x->listfd, at, room)) < 0 && errno == EINTR)
			continue;
		py_pkglist_fed(l, n > 0 ? (size_t)n : 0);
		if (n > 0) {
			bytes += (size_t)n;
			x->tokens -= (double)n;
		}
	}
	return (bytes);
}

/*
 * The next distribution's tag; its file list, unless one read already,
 * becomes the list parsed (pkg_parse_some).  Bytes read, for the budget.
 */
static size_t
pkg_read_dist(struct py_pkgidx *x, struct pkg_dir *d)
{
	char proj[256], ver[256], tag[600], id[64], *meta;
	const char *ent = d->ents[d->next], *nv, *vv, *name, *t;
	struct gp_file_info info;
	size_t mlen = 0, nl, vl;
	int kind = py_pkgver_dist_kind(ent), exact, vexact, legacy, fd = -1;
	int hasver, rc;

	hasver = py_pkgver_dirname(ent, proj, sizeof(proj), ver, sizeof(ver));
	if (hasver < 0) {
		pkg_dist_done(d);
		return (0);
	}
	meta = NULL;
	if (kind == PY_DIST_INFO)
		meta = pkg_read(d, ent, "METADATA", PKG_META_READ, &mlen);
	if (meta == NULL)
		meta = pkg_read(d, ent, "PKG-INFO", PKG_META_READ, &mlen);
	if (meta == NULL) {
		pkg_dist_done(d);
		return (0);
	}
	x->tokens -= (double)mlen;
	legacy = 0;
	name = "RECORD";
	if ((fd = pkg_open_list(d, ent, name, &info)) < 0) {
		legacy = 1;
		name = "installed-files.txt";
		fd = pkg_open_list(d, ent, name, &info);
	}
	if (fd < 0 ||
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
	/*
	 * The same list as a distribution's read before (a link to it):
	 * every file it names is that one's already (the first keeps a
	 * file).  Its entries relative to an egg-info's own directory name
	 * files in that directory, metadata, never a module.
	 */
	rc = 1;
	if (info.ino != 0) {
		snprintf(id, sizeof(id), "%llx:%llx",
		    (unsigned long long)info.dev,
		    (unsigned long long)info.ino);
		while ((rc = py_pkgtab_add(&d->lists, id, strlen(id), 0,
		    pkg_limit(x, d, &d->lists))) == -ENOSPC)
			if (!pkg_make_room(x, d))
				goto full;
	}
	if (rc == 0)
		d->shared++;
	if (rc <= 0 || d->ntags >= PKG_MAX_DISTS || nl + vl + 3 > sizeof(tag))
		goto out;
	memcpy(tag, nv, nl);
	memcpy(tag + nl, "==", 2);
	memcpy(tag + nl + 2, vv, vl);
	while ((t = py_pkgtab_store(&d->files, tag, nl + 2 + vl,
	    pkg_limit(x, d, &d->files))) == NULL)
		if (!pkg_make_room(x, d))
			goto full;
	if (x->window == NULL && (x->window = malloc(PKG_WINDOW)) == NULL)
		goto out;
	d->tags[d->ntags++] = t;
	x->lister = d;
	x->listfd = fd;
	x->listdist = d->ntags - 1;
	x->list.buf = x->window;
	x->list.cap = PKG_WINDOW;
	py_pkglist_start(&x->list, legacy, ent);
	free(meta);
	return (mlen);
full:
	free(meta);
	close(fd);
	pkg_dir_full(x, d, ent);
	return (mlen);
out:
	free(meta);
	if (fd >= 0)
		close(fd);
	pkg_dist_done(d);
	return (mlen);
}

/*
 * The distributions in the directory, in the process's root: openat2
 * RESOLVE_IN_ROOT keeps every link inside it, O_DIRECTORY opens nothing
 * else, and the directory must be readable by the process's user.
 */
/*
 * Whether the packages directory is on local filesystems only (never FUSE
 * nor a network filesystem, whose lookups and reads wait for a server a
 * user may run): with fd < 0, every mount its path passes through in
 * pid's mount table, before the walk; else the mount of that O_PATH fd
 * (its mnt_id in our fdinfo, which procfs answers), before anything
 * touches it.  0, or -EREMOTE with the reason in why.
 */
static int
pkg_dir_local(struct py_pkgidx *x, pid_t pid, const char *path, int fd,
    char *why, size_t whylen)
{
	const struct fsguard_mount *bad = NULL;
	struct fsguard_mount *m = NULL;
	struct gp_open_spec spec;
	char mpath[64], info[512], *text;
	int64_t len;
	ssize_t n;
	uint32_t nm, id;
	int f, rc = -EREMOTE;

	if ((text = malloc(PKG_MOUNTS_MAX + 1)) == NULL)
		return (-ENOMEM);
	snprintf(mpath, sizeof(mpath), "/proc/%d/mountinfo", (int)pid);
	memset(&spec, 0, sizeof(spec));
	spec.size = sizeof(spec);
	spec.path = mpath;
	spec.owner = -1;
	if ((len = x->api->file_read(x->ctx, &spec, text,
	    PKG_MOUNTS_MAX)) < 0) {
		rc = (int)len;
		goto out;
	}
	if (len >= PKG_MOUNTS_MAX) {
		snprintf(why, whylen, "its mount table is larger than %u KiB: "
		    "its filesystems are not known", PKG_MOUNTS_MAX >> 10);
		goto out;
	}
	text[len] = '\0';
	nm = fsguard_parse_mountinfo(text, (size_t)len, NULL, 0);
	if ((m = calloc(nm + 1, sizeof(*m))) == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	nm = fsguard_parse_mountinfo(text, (size_t)len, m, nm);
	if (fd < 0) {
		rc = fsguard_path_check(text, m, nm, path, &bad);
		if (rc == -EINVAL)
			rc = 0;
	} else {
		snprintf(mpath, sizeof(mpath), "/proc/self/fdinfo/%d", fd);
		if ((f = open(mpath, O_RDONLY | O_CLOEXEC)) < 0) {
			rc = -errno;
			goto out;
		}
		n = read(f, info, sizeof(info) - 1);
		close(f);
		if (n <= 0 || fsguard_fdinfo_mnt_id(info, (size_t)n, &id) != 0) {
			rc = -EIO;
			goto out;
		}
		if ((bad = fsguard_by_id(m, nm, id)) == NULL)
			snprintf(why, whylen, "on a mount not in the process's "
			    "mount table");
		else
			rc = bad->local ? 0 : -EREMOTE;
	}
	if (rc == -EREMOTE && bad != NULL)
		snprintf(why, whylen, "on %s (mount %.*s), a filesystem whose "
		    "reads can block", bad->fstype, (int)(bad->pointlen > 100 ?
		    100 : bad->pointlen), text + bad->point);
out:
	free(m);
	free(text);
	return (rc);
}

static int
pkg_list(struct py_pkgidx *x, struct pkg_dir *d)
{
	struct open_how how;
	struct dirent *de;
	struct stat st;
	char root[64];
	DIR *dir;
	uint32_t seen = 0, cap = 0;
	int rootfd, fd, pfd, rc, tries = 0;
	char **ne;

	if (x->no_openat2)
		return (-ENOSYS);
	if ((rc = pkg_dir_local(x, d->pid, d->path, -1, d->why,
	    sizeof(d->why))) != 0)
		return (rc);
	snprintf(root, sizeof(root), "/proc/%d/root", (int)d->pid);
	if ((rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return (-errno);
	memset(&how, 0, sizeof(how));
	/* O_PATH first: its mount is judged before anything opens it. */
	how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
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
	if ((rc = pkg_dir_local(x, d->pid, d->path, fd, d->why,
	    sizeof(d->why))) != 0) {
		close(fd);
		return (rc);
	}
	snprintf(root, sizeof(root), "/proc/self/fd/%d", fd);
	pfd = fd;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	close(pfd);
	if (fd < 0)
		return (-errno);
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
	d->entbytes = cap * sizeof(*d->ents) + d->nents * sizeof(*d->tags);
	for (seen = 0; seen < d->nents; seen++)
		d->entbytes += strlen(d->ents[seen]) + 1;
	if (d->nents > 0 &&
	    (d->tags = calloc(d->nents, sizeof(*d->tags))) == NULL)
		return (-ENOMEM);
	/* The names to read count too: as much room as any file. */
	while (pkg_total(x) > PKG_BUDGET || pkg_dir_bytes(d) > PKG_DIR_MAX)
		if (!pkg_make_room(x, d)) {
			pkg_dir_full(x, d, "its listing");
			break;
		}
	return (0);
}

static void	pkg_turn_cb(void *);

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
