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

static struct mapsread_bucket mapsread_all = {
	0, 0, MAPSREAD_ALL_BURST, MAPSREAD_ALL_RATE
};
static struct mapsread_users mapsread_us;
static struct mapsread_stats mapsread_st;

int
mapsread_bucket_may(struct mapsread_bucket *b, uint64_t now_ns)
{
	uint64_t dt, add;

	if (b->t_ns == 0 || now_ns < b->t_ns) {
		if (b->t_ns == 0)
			b->tokens = b->burst;
		b->t_ns = now_ns;
	}
	dt = now_ns - b->t_ns;
	/* An hour refills any debt a read can leave (no overflow below:
	 * rates are below 4 GiB a second). */
	if (dt >= 3600 * 1000000000ull || b->rate == 0) {
		b->tokens = b->burst;
		b->t_ns = now_ns;
	} else if ((add = dt * b->rate / 1000000000ull) > 0) {
		b->tokens += (int64_t)add;
		if (b->tokens > (int64_t)b->burst)
			b->tokens = b->burst;
		/* only the time turned into bytes: frequent calls refill */
		b->t_ns += (add * 1000000000ull + b->rate - 1) / b->rate;
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

struct mapsread_bucket *
mapsread_user(struct mapsread_users *t, uint32_t uid, uint64_t now_ns)
{
	struct mapsread_bucket *b;
	int i, free_i = -1;

	for (i = 0; i < MAPSREAD_USERS; i++) {
		if (t->used[i] && t->uid[i] == uid) {
			(void)mapsread_bucket_may(&t->b[i], now_ns);
			return (&t->b[i]);
		}
		/* A bucket full again is as good as a new one: its user has
		 * no debt left to remember. */
		if (free_i < 0 && (!t->used[i] ||
		    (mapsread_bucket_may(&t->b[i], now_ns) == 0 &&
		    t->b[i].tokens == (int64_t)t->b[i].burst)))
			free_i = i;
	}
	if (free_i >= 0) {
		b = &t->b[free_i];
		t->used[free_i] = 1;
		t->uid[free_i] = uid;
	} else
		b = &t->b[MAPSREAD_USERS];	/* the rest's */
	if (b->burst == 0) {
		b->burst = MAPSREAD_USER_BURST;
		b->rate = MAPSREAD_USER_RATE;
		b->t_ns = 0;
	}
	(void)mapsread_bucket_may(b, now_ns);
	return (b);
}

int
mapsread_status_root(const char *buf, size_t len, uint32_t *uid)
{
	const char *p = buf, *end = buf + len, *nl;
	uint64_t v;
	int i, root = 1;

	*uid = 0;
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
			if (i == 0)
				*uid = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
			if (v != 0)
				root = 0;
		}
		return (root);
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

/* Whether pid is root's: 1, 0, or -errno (-ESRCH gone); its real uid
 * in *uid. */
static int
mapsread_root(int pid, uint32_t *uid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd, rc;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (errno == ENOENT ? -ESRCH : -errno);
	*uid = UINT32_MAX;
	n = read(fd, buf, sizeof(buf));
	rc = n < 0 ? -errno : mapsread_status_root(buf, (size_t)n, uid);
	close(fd);
	if (rc == -EINVAL) {	/* unreadable: budgeted, as no one's */
		*uid = UINT32_MAX;
		rc = 0;
	}
	return (rc);
}

int
mapsread_begin(int pid, struct mapsread_ticket *tk)
{
	struct mapsread_bucket *user;
	uint64_t now;
	int rc;

	if ((rc = mapsread_root(pid, &tk->uid)) < 0)
		return (rc);
	if ((tk->root = rc) != 0)
		return (0);
	now = mapsread_now();
	user = mapsread_user(&mapsread_us, tk->uid, now);
	/* The user's own first: a user past their share does not spend
	 * what all users share. */
	if (user->tokens <= 0 ||
	    mapsread_bucket_may(&mapsread_all, now) != 0) {
		mapsread_st.deferred++;
		mapsread_st.last_uid = tk->uid;
		mapsread_st.last_all = user->tokens > 0;
		return (-EAGAIN);
	}
	return (0);
}

void
mapsread_end(const struct mapsread_ticket *tk, uint64_t bytes)
{
	if (tk->root)
		return;
	/* Single-threaded: no other user took the place since begin. */
	mapsread_bucket_spend(mapsread_user(&mapsread_us, tk->uid,
	    mapsread_now()), bytes);
	mapsread_bucket_spend(&mapsread_all, bytes);
	mapsread_st.bytes += bytes;
}

int
mapsread(int pid, size_t max, char **text, size_t *len)
{
	char path[64], *buf = NULL, *nb, *nl;
	size_t cap = 0, have = 0, got = 0, next;
	ssize_t n;
	struct mapsread_ticket tk;
	int fd = -1, rc;

	*text = NULL;
	*len = 0;
	if ((rc = mapsread_begin(pid, &tk)) < 0)
		return (rc);
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
	mapsread_end(&tk, got);
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
