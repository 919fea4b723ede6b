/*
 * The upload spool: every profile waits here until the backend accepts it.
 * One file per profile, written to a temporary name (0600) and renamed, so
 * a crash leaves either the whole record or nothing; names carry a sequence
 * number so the spool drains in order after a restart.  Above the size cap
 * the oldest records are dropped (counted and logged).
 *
 * On disk a record is framed "GPSPOOL2 <length> <crc32>\n" + the record, so
 * a file cut short or damaged after the rename (a full disk, a crash on a
 * file system without ordered data, someone's truncate) is found here and
 * put aside instead of being uploaded half.  Files written by earlier
 * versions (the bare record, starting with '{') are still read: they carry
 * no checksum, but their body is gzip, whose own trailer the backend
 * checks.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/trust.h"
#include "base/xmalloc.h"
#include "studio/studio.h"

#define SPOOL_SUFFIX	".prof"
#define SPOOL_MAGIC	"GPSPOOL2 "
/* "GPSPOOL2 " + up to 20 digits + ' ' + 8 hex + '\n' */
#define SPOOL_HDR_MAX	(sizeof(SPOOL_MAGIC) - 1 + 20 + 1 + 8 + 1)
#define SPOOL_REJECTED	"rejected"

TAILQ_HEAD(spool_list, spool_entry);

static struct {
	char *dir;	/* NULL: memory only */
	uint64_t max_size;
	uint64_t size;
	uint64_t next_seq;
	uint64_t dropped;
	size_t count;
	struct spool_list list;
	int open;
} spool;

static void
spool_entry_free(struct spool_entry *e)
{
	if (e == NULL)
		return;
	free(e->name);
	free(e->data);
	free(e);
}

/* Insert keeping the list sorted by sequence (the scan is unordered). */
static void
spool_insert(struct spool_entry *e)
{
	struct spool_entry *it;

	TAILQ_FOREACH_REVERSE(it, &spool.list, spool_list, entry) {
		if (it->seq < e->seq) {
			TAILQ_INSERT_AFTER(&spool.list, it, e, entry);
			goto out;
		}
	}
	TAILQ_INSERT_HEAD(&spool.list, e, entry);
out:
	spool.size += e->size;
	spool.count++;
}

static void
spool_remove(struct spool_entry *e)
{
	TAILQ_REMOVE(&spool.list, e, entry);
	spool.size -= e->size;
	spool.count--;
}

/* A spool file name: 20 digits and the suffix; the sequence or -1. */
static int
spool_name_seq(const char *name, uint64_t *seq)
{
	char *end;

	if (strlen(name) != 20 + strlen(SPOOL_SUFFIX) ||
	    strcmp(name + 20, SPOOL_SUFFIX) != 0 ||
	    strspn(name, "0123456789") != 20)
		return (-1);
	errno = 0;
	*seq = strtoull(name, &end, 10);
	return (errno != 0 || end != name + 20 ? -1 : 0);
}

/* mkdir -p (0755 parents, 0700 spool), then the trust check: records are
 * uploaded with the token, so nobody else may plant or swap them. */
static int
spool_mkdir(const char *dir, char *err, size_t errlen)
{
	char *p, *s;
	int fd, rc = 0;

	s = xstrdup(dir);
	for (p = s + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(s, 0755) == -1 && errno != EEXIST) {
			rc = -errno;
			goto out;
		}
		*p = '/';
	}
	if (mkdir(s, 0700) == -1 && errno != EEXIST)
		rc = -errno;
out:
	free(s);
	if (rc != 0) {
		snprintf(err, errlen, "%s", strerror(-rc));
		return (rc);
	}
	if ((fd = trust_open_dir(dir, TRUST_OWNER_EUID, err, errlen)) < 0)
		return (fd);
	close(fd);
	return (0);
}

static int
spool_scan(void)
{
	DIR *d;
	struct dirent *de;
	struct spool_entry *e;
	struct stat st;
	uint64_t seq;
	char *path;

	if ((d = opendir(spool.dir)) == NULL)
		return (-errno);
	while ((de = readdir(d)) != NULL) {
		xasprintf(&path, "%s/%s", spool.dir, de->d_name);
		if (strncmp(de->d_name, FILE_TMP_PREFIX,
		    strlen(FILE_TMP_PREFIX)) == 0) {
			/* A write interrupted by a crash. */
			unlink(path);
		} else if (spool_name_seq(de->d_name, &seq) == 0 &&
		    lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			e = xcalloc(1, sizeof(*e));
			e->name = xstrdup(de->d_name);
			e->seq = seq;
			e->size = st.st_size;
			spool_insert(e);
			if (seq >= spool.next_seq)
				spool.next_seq = seq + 1;
		}
		free(path);
	}
	closedir(d);
	return (0);
}

/*
 * Open the spool in dir (created 0700), or in memory when dir is NULL or
 * unusable (logged).  Records already there are queued oldest first.
 */
int
spool_open(const char *dir, uint64_t max_size)
{
	char err[1024];
	int rc;

	if (spool.open)
		spool_close();
	memset(&spool, 0, sizeof(spool));
	TAILQ_INIT(&spool.list);
	spool.open = 1;
	spool.max_size = max_size;
	spool.next_seq = 1;
	if (dir == NULL || *dir == '\0')
		return (0);
	if ((rc = spool_mkdir(dir, err, sizeof(err))) != 0) {
		log_warnx("spool: %s refused: %s; profiles are kept in memory "
		    "only", dir, err);
		return (0);
	}
	spool.dir = xstrdup(dir);
	if ((rc = spool_scan()) != 0) {
		log_warnx("spool: %s: %s; profiles are kept in memory only",
		    dir, strerror(-rc));
		free(spool.dir);
		spool.dir = NULL;
		return (0);
	}
	if (spool.count > 0)
		log_info("spool: %zu profile(s) from a previous run waiting "
		    "in %s", spool.count, dir);
	return (0);
}

void
spool_close(void)
{
	struct spool_entry *e;

	while ((e = TAILQ_FIRST(&spool.list)) != NULL) {
		spool_remove(e);
		spool_entry_free(e);
	}
	free(spool.dir);
	spool.dir = NULL;
	spool.open = 0;
}

/* Drop the oldest records that are not being sent until under the cap. */
static void
spool_enforce_cap(void)
{
	struct spool_entry *e, *next;
	char *path;

	if (spool.max_size == 0)
		return;
	for (e = TAILQ_FIRST(&spool.list); e != NULL &&
	    spool.size > spool.max_size && spool.count > 1; e = next) {
		next = TAILQ_NEXT(e, entry);
		if (e->busy)
			continue;
		if (e->name != NULL) {
			xasprintf(&path, "%s/%s", spool.dir, e->name);
			unlink(path);
			free(path);
		}
		spool.dropped++;
		log_warnx("spool: over --spool-max-size (%" PRIu64 " bytes): "
		    "dropped the oldest profile #%" PRIu64 " (%" PRIu64
		    " dropped so far)", spool.max_size, e->seq, spool.dropped);
		spool_remove(e);
		spool_entry_free(e);
	}
}

/* Add a record at the tail.  0, or -errno when it could not be kept. */
int
spool_put(const void *rec, size_t len)
{
	struct spool_entry *e;
	char *path, name[64];
	unsigned char *framed;
	size_t flen;
	int rc;

	e = xcalloc(1, sizeof(*e));
	e->seq = spool.next_seq++;
	e->size = len;
	if (spool.dir != NULL) {
		snprintf(name, sizeof(name), "%020" PRIu64 SPOOL_SUFFIX, e->seq);
		xasprintf(&path, "%s/%s", spool.dir, name);
		framed = spool_frame(rec, len, &flen);
		rc = file_write_atomic(AT_FDCWD, path, framed, flen, 0600);
		free(framed);
		free(path);
		if (rc == 0)
			e->size = flen;
		if (rc == 0)
			e->name = xstrdup(name);
		else
			log_warnx("spool: cannot write %s/%s: %s; keeping the "
			    "profile in memory", spool.dir, name,
			    strerror(-rc));
	}
	if (e->name == NULL) {
		e->data = xmalloc(len ? len : 1);
		memcpy(e->data, rec, len);
	}
	spool_insert(e);
	spool_enforce_cap();
	return (0);
}

/* The on-disk form of a record: header line + record.  Caller frees. */
unsigned char *
spool_frame(const void *rec, size_t len, size_t *lenp)
{
	unsigned char *out;
	char hdr[SPOOL_HDR_MAX + 1];
	int n;

	n = snprintf(hdr, sizeof(hdr), SPOOL_MAGIC "%zu %08lx\n", len,
	    crc32(crc32(0L, Z_NULL, 0), rec, (uInt)len));
	out = xmalloc((size_t)n + len + 1);
	memcpy(out, hdr, (size_t)n);
	if (len > 0)
		memcpy(out + n, rec, len);
	*lenp = (size_t)n + len;
	return (out);
}

/*
 * The record inside a spool file's bytes (in place: *recp points into buf):
 * 0, or -EINVAL with why in err (cut short, damaged, not a spool file).
 * Bytes without the header are a record of an earlier version (no
 * checksum): taken as they are if they look like one.
 */
int
spool_unframe(const unsigned char *buf, size_t len,
    const unsigned char **recp, size_t *reclenp, char *err, size_t errlen)
{
	const unsigned char *nl;
	char hdr[SPOOL_HDR_MAX + 1], *end;
	unsigned long long want;
	unsigned long crc, got;
	size_t hlen;

	if (len >= sizeof(SPOOL_MAGIC) - 1 &&
	    memcmp(buf, SPOOL_MAGIC, sizeof(SPOOL_MAGIC) - 1) == 0) {
		nl = memchr(buf, '\n', len < SPOOL_HDR_MAX ? len :
		    SPOOL_HDR_MAX);
		if (nl == NULL)
			goto bad_header;
		hlen = (size_t)(nl - buf);
		memcpy(hdr, buf, hlen);
		hdr[hlen] = '\0';
		errno = 0;
		want = strtoull(hdr + sizeof(SPOOL_MAGIC) - 1, &end, 10);
		if (errno != 0 || *end != ' ' || end[1] == '\0' ||
		    strspn(end + 1, "0123456789abcdef") != 8 || end[9] != '\0')
			goto bad_header;
		crc = strtoul(end + 1, NULL, 16);
		if (want != len - hlen - 1) {
			snprintf(err, errlen, "cut short or grown: %zu bytes "
			    "where the header says %llu", len - hlen - 1, want);
			return (-EINVAL);
		}
		got = crc32(crc32(0L, Z_NULL, 0), nl + 1, (uInt)want);
		if (got != crc) {
			snprintf(err, errlen, "damaged: checksum %08lx, the "
			    "header says %08lx", got, crc);
			return (-EINVAL);
		}
		*recp = nl + 1;
		*reclenp = (size_t)want;
		return (0);
	}
	if (len > 0 && buf[0] == '{') {
		*recp = buf;
		*reclenp = len;
		return (0);
	}
	snprintf(err, errlen, "not a spool record");
	return (-EINVAL);
bad_header:
	snprintf(err, errlen, "damaged header");
	return (-EINVAL);
}

struct spool_entry *
spool_first(void)
{
	return (TAILQ_FIRST(&spool.list));
}

/* A spool file whole; NULL with errno (EFTYPE-like EINVAL: not regular). */
static unsigned char *
spool_read_file(const char *path, size_t *lenp)
{
	struct stat st;
	unsigned char *buf = NULL;
	size_t off = 0;
	ssize_t r;
	int fd, e = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY)) == -1)
		return (NULL);
	if (fstat(fd, &st) == -1) {
		e = errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		e = EINVAL;
		goto out;
	}
	buf = xmalloc(st.st_size + 1);
	while (off < (size_t)st.st_size) {
		r = read(fd, buf + off, st.st_size - off);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		off += r;
	}
	*lenp = off;
out:
	close(fd);
	errno = e;
	return (buf);
}

unsigned char *
spool_read(const struct spool_entry *e, size_t *lenp)
{
	const unsigned char *rec;
	unsigned char *buf, *out;
	char *path, err[128];
	size_t len, reclen;

	if (e->data != NULL) {
		buf = xmalloc(e->size + 1);
		memcpy(buf, e->data, e->size);
		*lenp = e->size;
		return (buf);
	}
	xasprintf(&path, "%s/%s", spool.dir, e->name);
	if ((buf = spool_read_file(path, &len)) == NULL) {
		log_warn("spool: %s", path);
		goto out;
	}
	if (spool_unframe(buf, len, &rec, &reclen, err, sizeof(err)) != 0) {
		log_warnx("spool: %s: %s; the record is not uploaded", path,
		    err);
		free(buf);
		buf = NULL;
		goto out;
	}
	if (rec == buf)
		log_debug("spool: %s: a record of an earlier version (no "
		    "checksum)", path);
	out = xmalloc(reclen + 1);
	memcpy(out, rec, reclen);
	free(buf);
	buf = out;
	*lenp = reclen;
out:
	free(path);
	return (buf);
}

/* The backend accepted it: forget the record. */
void
spool_done(struct spool_entry *e)
{
	char *path;

	if (e->name != NULL) {
		xasprintf(&path, "%s/%s", spool.dir, e->name);
		if (unlink(path) == -1 && errno != ENOENT)
			log_warn("spool: unlink %s", path);
		free(path);
	}
	spool_remove(e);
	spool_entry_free(e);
}

/* The backend refused it for good: keep it under rejected/ to inspect. */
void
spool_reject(struct spool_entry *e)
{
	char *from, *dir, *to;

	if (e->name != NULL) {
		xasprintf(&from, "%s/%s", spool.dir, e->name);
		xasprintf(&dir, "%s/" SPOOL_REJECTED, spool.dir);
		xasprintf(&to, "%s/%s", dir, e->name);
		if (mkdir(dir, 0700) == -1 && errno != EEXIST)
			log_warn("spool: mkdir %s", dir);
		if (rename(from, to) == -1) {
			log_warn("spool: rename %s", from);
			unlink(from);
		} else
			log_warnx("spool: the rejected profile is kept in %s",
			    to);
		free(from);
		free(dir);
		free(to);
	}
	spool_remove(e);
	spool_entry_free(e);
}

size_t
spool_count(void)
{
	return (spool.count);
}

uint64_t
spool_dropped(void)
{
	return (spool.dropped);
}

/*
 * A record: one line of JSON (what the request needs besides the body)
 * and the body.  Caller frees.
 */
unsigned char *
spool_record_make(const char *meta, const void *body, size_t bodylen,
    size_t *lenp)
{
	size_t mlen = strlen(meta);
	unsigned char *rec;

	rec = xmalloc(mlen + 1 + bodylen);
	memcpy(rec, meta, mlen);
	rec[mlen] = '\n';
	if (bodylen > 0)
		memcpy(rec + mlen + 1, body, bodylen);
	*lenp = mlen + 1 + bodylen;
	return (rec);
}

/* Split a record read back from disk; -EINVAL if it is damaged. */
int
spool_record_split(const unsigned char *rec, size_t len, const char **meta,
    size_t *metalen, const unsigned char **body, size_t *bodylen)
{
	const unsigned char *nl;

	if (rec == NULL || len == 0 || rec[0] != '{')
		return (-EINVAL);
	if ((nl = memchr(rec, '\n', len)) == NULL)
		return (-EINVAL);
	*meta = (const char *)rec;
	*metalen = nl - rec;
	*body = nl + 1;
	*bodylen = len - (nl + 1 - rec);
	return (0);
}
