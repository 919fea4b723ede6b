/*
 * Refusing files on FUSE and network filesystems, for safeopen.  The
 * agent's one thread must not wait for a server a local user runs: a
 * lookup, a stat, an open or a read of a file on FUSE is answered by that
 * server, whenever it likes, in an uninterruptible sleep.  So the mount
 * a path passes through is judged from the process's /proc/PID/mountinfo
 * before the walk (lexically, fsguard_path_check), and the mount of each
 * fd the walk yields from its mnt_id in /proc/self/fdinfo/N (procfs
 * answers both, never the filesystem) before it is stat'ed or opened.
 * Mount tables are cached per mount namespace and root, a few of them,
 * read at most once a second each and capped in size.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fsguard.h"
#include "clockns.h"
#include "base/safefs.h"

#define SAFEFS_CACHE		8
#define SAFEFS_TEXT_MAX		(2u << 20)	/* bytes of one mountinfo */
#define SAFEFS_MOUNTS_MAX	16384u
#define SAFEFS_TTL_NS		1000000000ull

struct safefs_ns {
	uint64_t nsdev, nsino;
	char root[256];
	char *text;
	struct fsguard_mount *m;
	uint32_t n;
	int truncated;
	uint64_t read_ns;
	uint64_t used;
};

static struct safefs_ns safefs_cache[SAFEFS_CACHE];
static uint64_t safefs_clock;
static char safefs_reason[160];

static uint64_t
safefs_now(void)
{
	return (clock_ns(CLOCK_MONOTONIC));
}

void
safefs_ctx_init(struct safefs_ctx *c, const struct gp_open_spec *sp)
{
	const char *s;
	char *end;
	long pid;

	memset(c, 0, sizeof(*c));
	s = sp->root != NULL ? sp->root : sp->path;
	if (s == NULL)
		return;
	if (strncmp(s, "/proc/", 6) != 0) {
		/* A root of the caller's own: judged from ours, below it. */
		if (sp->root != NULL && strcmp(sp->root, "/") != 0)
			c->prefix = sp->root;
		return;
	}
	pid = strtol(s + 6, &end, 10);
	if (end == s + 6 || pid <= 0 || pid >= (1L << 22))
		return;
	c->pid = (int)pid;
	/* Paths are judged lexically in /proc/PID/root only. */
	if (sp->root != NULL && strcmp(end, "/root") != 0)
		c->prefix = "?";
}

/* Up to cap bytes of a procfs file into a fresh buffer (*more when
 * longer): its length, or -errno. */
static ssize_t
safefs_slurp(const char *path, size_t cap, char **out, int *more)
{
	char *buf, *tmp;
	size_t len = 0, sz = 65536;
	ssize_t n;
	int fd;

	*more = 0;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return (-errno);
	if ((buf = malloc(sz + 1)) == NULL) {
		close(fd);
		return (-ENOMEM);
	}
	for (;;) {
		if (len == sz) {
			if (sz >= cap) {
				*more = 1;
				break;
			}
			sz = sz * 2 > cap ? cap : sz * 2;
			if ((tmp = realloc(buf, sz + 1)) == NULL) {
				free(buf);
				close(fd);
				return (-ENOMEM);
			}
			buf = tmp;
		}
		n = read(fd, buf + len, sz - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return ((ssize_t)len);
}

/* The mount table of pid (0: ours), cached; NULL with *err on failure. */
static struct safefs_ns *
safefs_table_read(int pid, int force, int *err)
{
	struct safefs_ns *e, *victim = NULL;
	struct stat sb;
	char path[64], root[256], *text = NULL;
	ssize_t len, rl;
	uint64_t now = safefs_now();
	uint32_t n;
	int i, more;

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/mnt");
	/* nsfs and procfs answer these, not the process's filesystems. */
	if (stat(path, &sb) != 0) {
		*err = -errno;
		return (NULL);
	}
	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/root", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/root");
	if ((rl = readlink(path, root, sizeof(root) - 1)) < 0) {
		*err = -errno;
		return (NULL);
	}
	root[rl] = '\0';
	for (i = 0; i < SAFEFS_CACHE; i++) {
		e = &safefs_cache[i];
		if (e->text != NULL && e->nsdev == (uint64_t)sb.st_dev &&
		    e->nsino == (uint64_t)sb.st_ino &&
		    strcmp(e->root, root) == 0)
			break;
		if (victim == NULL || e->used < victim->used)
			victim = e;
	}
	if (i < SAFEFS_CACHE) {
		e->used = ++safefs_clock;
		if (now - e->read_ns < (force ? SAFEFS_TTL_NS / 10 :
		    SAFEFS_TTL_NS))
			return (e);
		victim = e;
	}
	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/mountinfo");
	if ((len = safefs_slurp(path, SAFEFS_TEXT_MAX, &text, &more)) < 0) {
		*err = (int)len;
		return (NULL);
	}
	e = victim;
	free(e->text);
	free(e->m);
	memset(e, 0, sizeof(*e));
	n = fsguard_parse_mountinfo(text, (size_t)len, NULL, 0);
	if (n > SAFEFS_MOUNTS_MAX) {
		n = SAFEFS_MOUNTS_MAX;
		more = 1;
	}
	if ((e->m = calloc(n + 1, sizeof(*e->m))) == NULL) {
		free(text);
		*err = -ENOMEM;
		return (NULL);
	}
	e->n = fsguard_parse_mountinfo(text, (size_t)len, e->m, n);
	e->text = text;
	e->truncated = more;
	e->nsdev = (uint64_t)sb.st_dev;
	e->nsino = (uint64_t)sb.st_ino;
	snprintf(e->root, sizeof(e->root), "%s", root);
	e->read_ns = now;
	e->used = ++safefs_clock;
	return (e);
}

/*
 * The same, found once an open: its namespace and root are known from the
 * first look (a stat and a readlink of /proc each), and every later step
 * of the walk uses that table while it is the one read then.
 */
static struct safefs_ns *
safefs_table(struct safefs_ctx *c, int pid, int force, int *err)
{
	struct safefs_ns *e;
	int k = pid == c->pid ? 0 : 1;

	if (!force && c->seen[k] != NULL &&
	    c->seen[k]->read_ns == c->seen_read[k] && c->seen[k]->text != NULL)
		return (c->seen[k]);
	if ((e = safefs_table_read(pid, force, err)) != NULL) {
		c->seen[k] = e;
		c->seen_read[k] = e->read_ns;
	}
	return (e);
}

static int
safefs_refuse(const struct safefs_ns *e, const struct fsguard_mount *m,
    const char *what)
{
	if (m != NULL)
		snprintf(safefs_reason, sizeof(safefs_reason),
		    "on %s (mount %.*s), a filesystem whose reads can block",
		    m->fstype, (int)(m->pointlen > 100 ? 100 : m->pointlen),
		    e->text + m->point);
	else
		snprintf(safefs_reason, sizeof(safefs_reason), "%s",
		    what != NULL ? what : "on a filesystem not local");
	return (-EREMOTE);
}

int
safefs_check_path(struct safefs_ctx *c, const char *path)
{
	const struct fsguard_mount *bad = NULL;
	struct safefs_ns *e;
	char full[4096];
	int err = 0, r;

	if (c->prefix != NULL && c->prefix[0] != '/')
		return (0);	/* the walk's fd checks stand alone */
	if (c->prefix != NULL) {
		if ((size_t)snprintf(full, sizeof(full), "%s/%s", c->prefix,
		    path) >= sizeof(full))
			return (-ENAMETOOLONG);
		path = full;
	}

	if ((e = safefs_table(c, c->pid, 0, &err)) == NULL)
		return (err);
	if (e->truncated)
		return (safefs_refuse(e, NULL, "a mount table larger than "
		    "read: its filesystems are not known"));
	r = fsguard_path_check(e->text, e->m, e->n, path, &bad);
	if (r == -EREMOTE)
		return (safefs_refuse(e, bad, NULL));
	return (r == -EINVAL ? 0 : r);
}

int
safefs_check_fd(struct safefs_ctx *c, int fd)
{
	const struct fsguard_mount *m = NULL;
	struct safefs_ns *e;
	char path[64], buf[512];
	ssize_t len;
	uint32_t id;
	int f, err = 0, pass;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if ((f = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (-errno);
	len = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (len <= 0 || fsguard_fdinfo_mnt_id(buf, (size_t)len, &id) != 0)
		return (-EIO);
	/* Its process's table, read again once if the mount is newer; then
	 * ours (a file mapped before a chroot may be outside its root). */
	for (pass = 0; pass < 3 && m == NULL; pass++) {
		e = safefs_table(c, pass == 2 ? 0 : c->pid, pass == 1, &err);
		if (e != NULL)
			m = fsguard_by_id(e->m, e->n, id);
	}
	if (m == NULL)
		return (safefs_refuse(NULL, NULL, "on a mount not in the "
		    "process's mount table"));
	if (!m->local)
		return (safefs_refuse(e, m, NULL));
	return (0);
}

const char *
safefs_why(void)
{
	return (safefs_reason[0] != '\0' ? safefs_reason :
	    "on a filesystem whose reads can block");
}
