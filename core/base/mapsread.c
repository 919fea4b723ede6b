/*
 * Reads of /proc/PID/maps under one budget: see mapsread.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/mapsread.h"

static struct mapsread_bucket mapsread_budget;
static struct mapsread_stats mapsread_st;

int
mapsread_bucket_may(struct mapsread_bucket *b, uint64_t now_ns)
{
	uint64_t dt, add;

	if (b->t_ns == 0 || now_ns < b->t_ns) {
		if (b->t_ns == 0)
			b->tokens = MAPSREAD_BURST;
		b->t_ns = now_ns;
	}
	dt = now_ns - b->t_ns;
	/* An hour refills any debt a read can leave (no overflow below). */
	if (dt >= 3600 * 1000000000ull) {
		b->tokens = MAPSREAD_BURST;
		b->t_ns = now_ns;
	} else if ((add = dt * MAPSREAD_RATE / 1000000000ull) > 0) {
		b->tokens += (int64_t)add;
		if (b->tokens > (int64_t)MAPSREAD_BURST)
			b->tokens = MAPSREAD_BURST;
		/* only the time turned into bytes: frequent calls refill */
		b->t_ns += (add * 1000000000ull + MAPSREAD_RATE - 1) /
		    MAPSREAD_RATE;
	}
	return (b->tokens > 0 ? 0 : -EAGAIN);
}

void
mapsread_bucket_spend(struct mapsread_bucket *b, uint64_t bytes)
{
	/* No maps are longer than 65,530 lines of 4 KiB paths (270 MB):
	 * the debt stays within what an hour repays. */
	b->tokens -= bytes > (1ull << 30) ? (int64_t)1 << 30 : (int64_t)bytes;
}

int
mapsread_status_root(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	uint64_t v;
	int i;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((size_t)(nl - p) < 4 || memcmp(p, "Uid:", 4) != 0)
			continue;
		/* real, effective, saved (then the file system's) */
		for (p += 4, i = 0; i < 3; i++) {
			while (p < nl && (*p == '\t' || *p == ' '))
				p++;
			if (p >= nl || *p < '0' || *p > '9')
				return (-EINVAL);
			for (v = 0; p < nl && *p >= '0' && *p <= '9'; p++)
				v = v > UINT32_MAX ? v : v * 10 +
				    (uint64_t)(*p - '0');
			if (v != 0)
				return (0);
		}
		return (1);
	}
	return (-EINVAL);
}

static uint64_t
mapsread_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
}

/* Whether pid is root's: 1, 0, or -errno (-ESRCH gone). */
static int
mapsread_root(int pid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd, rc;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (errno == ENOENT ? -ESRCH : -errno);
	n = read(fd, buf, sizeof(buf));
	rc = n < 0 ? -errno : mapsread_status_root(buf, (size_t)n);
	close(fd);
	return (rc == -EINVAL ? 0 : rc);	/* unreadable: budgeted */
}

int
mapsread_begin(int pid)
{
	int rc;

	if ((rc = mapsread_root(pid)) != 0)
		return (rc);
	if (mapsread_bucket_may(&mapsread_budget, mapsread_now()) != 0) {
		mapsread_st.deferred++;
		return (-EAGAIN);
	}
	return (0);
}

void
mapsread_end(int begun, uint64_t bytes)
{
	if (begun != 0)
		return;
	mapsread_bucket_spend(&mapsread_budget, bytes);
	mapsread_st.bytes += bytes;
}

int
mapsread(int pid, size_t max, char **text, size_t *len)
{
	char path[64], *buf = NULL, *nb, *nl;
	size_t cap = 0, have = 0, got = 0, next;
	ssize_t n;
	int fd = -1, begun, rc;

	*text = NULL;
	*len = 0;
	if ((begun = mapsread_begin(pid)) < 0)
		return (begun);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = errno == ENOENT ? -ESRCH : -errno;
		goto out;
	}
	/* One byte past max tells a cut text from one exactly max long. */
	for (;;) {
		if (have == cap) {
			if (cap > max)
				break;
			next = cap == 0 ? 65536 : cap * 2;
			next = next > max + 1 ? max + 1 : next;
			if ((nb = realloc(buf, next + 1)) == NULL) {
				rc = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap = next;
		}
		n = read(fd, buf + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = errno == ESRCH ? -ESRCH : -errno;
			goto out;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		got += (size_t)n;	/* what the kernel wrote: charged */
	}
	rc = 0;
	if (have > max) {
		rc = 1;
		nl = memrchr(buf, '\n', max);
		have = nl != NULL ? (size_t)(nl - buf) + 1 : 0;
	}
	if (buf == NULL && (buf = malloc(1)) == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	buf[have] = '\0';
	*text = buf;
	*len = have;
	buf = NULL;
out:
	mapsread_end(begun, got);
	if (fd >= 0)
		close(fd);
	free(buf);
	return (rc);
}

void
mapsread_stats(struct mapsread_stats *st)
{
	*st = mapsread_st;
}
