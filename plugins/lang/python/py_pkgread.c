/*
 * Reading one packages directory for the index (py_pkgidx.c): its
 * distributions listed in the process's root (openat2 RESOLVE_IN_ROOT,
 * O_DIRECTORY), refused when any filesystem on the way is not local,
 * each one's tag read from METADATA or PKG-INFO, its file list parsed
 * through one window a slice at a time, within the byte budget and the
 * read rate's token bucket.
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

#include "py_pkgidx_int.h"
#include "langfile.h"
#include "fsguard.h"
#include "py_discover.h"
#include "py_target.h"
#include "pyreader.h"

/* The bytes the index may read now (a token bucket). */
double
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
	int fd;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)d->pid);
	if (snprintf(path, sizeof(path), "%s%s/%s", d->path, ent, name) >=
	    (int)sizeof(path))
		return (NULL);
	if ((fd = langfile_open(root, path, GP_OPEN_READABLE_BY, 0, d->euid,
	    NULL)) < 0)
		return (NULL);
	/* Sized by the file (it may grow while read: cap still holds). */
	if (fstat(fd, &st) == 0 && st.st_size >= 0 &&
	    (uint64_t)st.st_size < cap)
		cap = (size_t)st.st_size;
	if ((buf = malloc(cap + 1)) == NULL) {
		close(fd);
		return (NULL);
	}
	*lenp = langproc_read_fd(fd, buf, cap + 1);
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
	return (langfile_open(root, path, GP_OPEN_READABLE_BY, PKG_LIST_MAX,
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
size_t
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
size_t
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
	spec = (struct gp_open_spec){
		.size = sizeof(spec),
		.path = mpath,
		.owner = -1,
	};
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

int
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

