/*
 * The walk of the cgroup v2 tree for --perf-use-cgroups: every cgroup that
 * holds processes, with its CPU usage (cpu.stat usage_usec) since the
 * previous walk.  The tree is the kernel's, but a delegated subtree is a
 * user's to shape, so the walk is bounded (CG_WALK_MAX directories,
 * CG_WALK_DEPTH levels, CG_WALK_BUDGET_US of CPU time), goes from
 * directory descriptor to directory descriptor with O_NOFOLLOW, never
 * leaves the cgroup file system (same st_dev), and reads each file once,
 * bounded, non-blocking.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include "cgroups.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif

#define CG_STAT_BYTES	2048	/* cpu.stat is a few hundred bytes */

struct cg_prev {
	uint64_t id;
	uint64_t usage;
};

struct cgwalk {
	int rootfd;
	dev_t dev;
	char root[32];
	struct cg_entry *cur;	/* this walk's cgroups */
	size_t ncur, cap;
	struct cg_prev *prev;	/* the previous walk's, by id */
	size_t nprev;
	size_t visited;
	uint64_t deadline;	/* CLOCK_THREAD_CPUTIME_ID us */
	int truncated;
};

/* The budget is the agent's CPU time, not the clock's: on a busy host
 * the walk is preempted, and that costs the host nothing. */
static uint64_t
cgwalk_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ((uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
}

/* Where cgroup v2 is: the unified mount, or beside v1 on a hybrid host. */
static const char *const cgwalk_mounts[] = {
	"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
};

struct cgwalk *
cgwalk_open(void)
{
	struct cgwalk *w;
	struct statfs sf;
	struct stat st;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(cgwalk_mounts) / sizeof(cgwalk_mounts[0]);
	    i++) {
		fd = open(cgwalk_mounts[i], O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstatfs(fd, &sf) != 0 ||
		    (unsigned long)sf.f_type != CGROUP2_SUPER_MAGIC ||
		    fstat(fd, &st) != 0) {
			close(fd);
			continue;
		}
		if ((w = calloc(1, sizeof(*w))) == NULL) {
			close(fd);
			return (NULL);
		}
		w->rootfd = fd;
		w->dev = st.st_dev;
		snprintf(w->root, sizeof(w->root), "%s", cgwalk_mounts[i]);
		return (w);
	}
	errno = ENOENT;
	return (NULL);
}

void
cgwalk_free(struct cgwalk *w)
{
	if (w == NULL)
		return;
	close(w->rootfd);
	free(w->cur);
	free(w->prev);
	free(w);
}

const char *
cgwalk_root(const struct cgwalk *w)
{
	return (w->root);
}

/* Up to len - 1 bytes of dirfd/name, NUL-terminated; the count or -1. */
static ssize_t
cgwalk_read(int dirfd, const char *name, char *buf, size_t len)
{
	struct stat st;
	ssize_t n = -1;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return (-1);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		n = read(fd, buf, len - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return (n);
}

static uint64_t
cgwalk_prev_usage(const struct cgwalk *w, uint64_t id, int *found)
{
	size_t lo = 0, hi = w->nprev, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (w->prev[mid].id == id) {
			*found = 1;
			return (w->prev[mid].usage);
		}
		if (w->prev[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = 0;
	return (0);
}

/* dirfd (at path, below the mount) as a candidate: one that holds
 * processes and says how much CPU it used. */
static int
cgwalk_add(struct cgwalk *w, int dirfd, const struct stat *st,
    const char *path, const char *name, const char *parent)
{
	char buf[CG_STAT_BYTES];
	struct cg_entry *e, *ne;
	uint64_t usage, before;
	int found;

	/* cgroup.procs lists the processes of this cgroup only: one byte
	 * says whether there is any (not a whole list read). */
	if (cgwalk_read(dirfd, "cgroup.procs", buf, 16) <= 0)
		return (0);
	if (cgwalk_read(dirfd, "cpu.stat", buf, sizeof(buf)) <= 0 ||
	    cgstat_parse_usage(buf, strlen(buf), &usage) != 0)
		return (0);
	if (w->ncur == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		if ((ne = realloc(w->cur, w->cap * sizeof(*ne))) == NULL)
			return (-ENOMEM);
		w->cur = ne;
	}
	e = &w->cur[w->ncur++];
	memset(e, 0, sizeof(*e));
	e->id = (uint64_t)st->st_ino;
	e->usage = usage;
	before = cgwalk_prev_usage(w, e->id, &found);
	/* new since the last walk: all it used is recent */
	e->delta = found && usage >= before ? usage - before :
	    (found ? 0 : usage);
	e->docker = cgsel_is_docker(name, parent);
	snprintf(e->path, sizeof(e->path), "%s", path);
	return (0);
}

/*
 * The directory fd (at path below the mount, st its stat), then its
 * subdirectories; takes fd (the root's is a duplicate, rewound).
 */
static int
cgwalk_dir(struct cgwalk *w, int fd, const struct stat *st, char *path,
    size_t plen, int depth, const char *name, const char *parent)
{
	struct dirent *d;
	struct stat cst;
	DIR *dir;
	size_t n;
	int cfd, dfd, rc = 0;

	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return (0);
	}
	rewinddir(dir);
	dfd = dirfd(dir);
	if (depth > 0 && (rc = cgwalk_add(w, dfd, st, path, name,
	    parent)) != 0)
		goto out;
	while ((d = readdir(dir)) != NULL) {
		if (d->d_type != DT_DIR || strcmp(d->d_name, ".") == 0 ||
		    strcmp(d->d_name, "..") == 0)
			continue;
		if (depth >= CG_WALK_DEPTH || w->visited >= CG_WALK_MAX ||
		    cgwalk_now_us() > w->deadline) {
			w->truncated = 1;
			break;
		}
		w->visited++;
		cfd = openat(dfd, d->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			continue;	/* removed meanwhile */
		n = strlen(d->d_name);
		if (fstat(cfd, &cst) != 0 || cst.st_dev != w->dev ||
		    plen + 1 + n >= CG_PATH_MAX) {
			close(cfd);
			continue;
		}
		path[plen] = '/';
		memcpy(path + plen + 1, d->d_name, n + 1);
		rc = cgwalk_dir(w, cfd, &cst, path, plen + 1 + n, depth + 1,
		    d->d_name, name);
		path[plen] = '\0';
		if (rc != 0)
			break;
	}
out:
	closedir(dir);
	return (rc);
}

static int
cgwalk_prev_cmp(const void *a, const void *b)
{
	const struct cg_prev *x = a, *y = b;

	return (x->id < y->id ? -1 : x->id > y->id);
}

int
cgwalk_scan(struct cgwalk *w, struct cg_entry **ep, int *truncated)
{
	char path[CG_PATH_MAX];
	struct cg_prev *np;
	struct stat st;
	size_t i;
	int fd, rc;

	w->ncur = 0;
	w->visited = 0;
	w->truncated = 0;
	w->deadline = cgwalk_now_us() + CG_WALK_BUDGET_US;
	path[0] = '\0';
	if ((fd = dup(w->rootfd)) < 0)
		return (-errno);
	if (fstat(fd, &st) != 0) {
		rc = -errno;
		close(fd);
		return (rc);
	}
	if ((rc = cgwalk_dir(w, fd, &st, path, 0, 0, "", NULL)) != 0)
		return (rc);
	/* this walk's usage is the next one's baseline */
	np = w->ncur > 0 ? malloc(w->ncur * sizeof(*np)) : NULL;
	if (w->ncur > 0 && np == NULL)
		return (-ENOMEM);
	for (i = 0; i < w->ncur; i++) {
		np[i].id = w->cur[i].id;
		np[i].usage = w->cur[i].usage;
	}
	if (w->ncur > 0)
		qsort(np, w->ncur, sizeof(*np), cgwalk_prev_cmp);
	free(w->prev);
	w->prev = np;
	w->nprev = w->ncur;
	*ep = w->cur;
	*truncated = w->truncated;
	return ((int)w->ncur);
}
