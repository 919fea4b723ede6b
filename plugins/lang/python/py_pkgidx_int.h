/*
 * The package index's insides, shared by its two halves: py_pkgidx.c
 * keeps the directories (which exist, who named them, their budget, the
 * timer that reads them) and answers lookups; py_pkgread.c reads one
 * directory's distributions and file lists from the process's root.
 * See py_pkgidx.c for the bounds and why each one is there.
 */
#ifndef PY_PKGIDX_INT_H
#define PY_PKGIDX_INT_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "py_pkgtab.h"
#include "py_pkgver.h"

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
	uint64_t mntns;
	uint64_t hash;
	char *path;	/* ends with '/' */
	size_t plen;
	int state;
	pid_t pid;	/* whose root it is read in */
	int64_t euid;
	pid_t pids[PKG_DIR_PIDS];	/* live ones keep it */
	uint32_t npids, pidnext;
	char **ents;	/* distribution directories to read */
	uint32_t nents, next;
	size_t entbytes;	/* ents and tags arrays */
	const char **tags;	/* "name==version", in files' arena */
	uint32_t ntags;
	struct py_pkgtab files;	/* file -> tag */
	struct py_pkgtab lists;	/* "dev:ino" of the lists read */
	uint32_t shared;	/* lists that were one read already */
	uint32_t cut;		/* lists cut at PKG_LIST_MAX/RECORDS */
	int full;		/* stopped growing: the budget */
	int gave_way;		/* its index was dropped for another */
	int warned_full;	/* the budget's lines were logged */
	int warned_remote;	/* the refusal (FUSE...) was */
	char why[160];		/* why it was refused */
	int warned_gave;
	double used_at, failed_at;
	double started, cpu;	/* time spent indexing, for the log */
	double longest;		/* the longest loop turn */
	uint64_t bytes;		/* read */
};

struct py_pkgidx {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	struct pkg_dir *dirs[PKG_MAX_DIRS];
	uint32_t ndirs;
	struct gp_timer *timer;
	int timer_ms;
	int no_openat2;
	/* The one file list being parsed, of lister's next distribution. */
	struct pkg_dir *lister;
	struct py_pkglist list;
	char *window;
	int listfd;
	uint32_t listdist;		/* its tag */
	double tokens, refilled;	/* bytes it may read now */
	size_t freed;			/* since the heap was last trimmed */
};

/* py_pkgidx.c */
double pkg_now(void);
size_t pkg_dir_bytes(const struct pkg_dir *d);
size_t pkg_total(const struct py_pkgidx *x);
void pkg_list_stop(struct py_pkgidx *x);
void pkg_dir_clear(struct py_pkgidx *x, struct pkg_dir *d);

/* py_pkgread.c */
double pkg_tokens(struct py_pkgidx *x, double now);
size_t pkg_parse_some(struct py_pkgidx *x, struct pkg_dir *d);
size_t pkg_read_dist(struct py_pkgidx *x, struct pkg_dir *d);
int pkg_list(struct py_pkgidx *x, struct pkg_dir *d);

#endif
