/*
 * Which parts of a profiled process's memory may be read remotely: see
 * langguard.h.  The parsers are pure over bytes; the rest reads the
 * target's maps and mount table through the host's safe opener, bounded in
 * bytes per refresh, in refreshes per process and in bytes per second for
 * all processes together.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fsguard.h"
#include "clockns.h"
#include "langfile.h"
#include "langguard.h"
#include "sorted.h"

/*
 * The pagemaps of the processes last looked at: a few descriptors, not
 * one per process (a reader may follow thousands).  One was too few: two
 * busy processes sampled in turn reopened it at every sample (a safe open
 * is six system calls).  The least recently used is reopened.
 */
#define LANGGUARD_PM_FDS	8
static struct {
	int open;
	int fd;
	pid_t pid;
	uint64_t used;
} langguard_pm[LANGGUARD_PM_FDS];
static uint64_t langguard_pm_clock;

/*
 * Checks made together right before one read of them all (a batch of
 * pages, langguard_batch) share their pagemap reads: a window of entries
 * around each page looked up serves the batch's other pages near it.
 * Kept only while the batch is checked, so a page's residency is as
 * fresh at the read as when each was looked up alone.
 */
#define LANGGUARD_WIN		16u	/* entries: 64 KiB of address space (a wider
					 * window costs the kernel more walking
					 * than it saves in calls) */
#define LANGGUARD_WINS		4
static struct {
	uint64_t first;	/* page number of ent[0] */
	uint64_t ent[LANGGUARD_WIN];
	pid_t pid;
	int valid;
} langguard_win[LANGGUARD_WINS];
static int langguard_in_batch;
static uint32_t langguard_win_next;

void
langguard_batch(int on)
{
	uint32_t i;

	langguard_in_batch = on;
	for (i = 0; i < LANGGUARD_WINS; i++)
		langguard_win[i].valid = 0;
}

/* The cached slot for pid, or the one to reuse (its fd closed). */
static int
langguard_pm_slot(pid_t pid, int *found)
{
	int i, lru = 0;

	for (i = 0; i < LANGGUARD_PM_FDS; i++) {
		if (langguard_pm[i].open && langguard_pm[i].pid == pid) {
			*found = 1;
			return (i);
		}
		if (langguard_pm[i].used < langguard_pm[lru].used)
			lru = i;
	}
	*found = 0;
	if (langguard_pm[lru].open)
		close(langguard_pm[lru].fd);
	langguard_pm[lru].open = 0;
	return (lru);
}

static void
langguard_pm_close(pid_t pid)
{
	int i;

	for (i = 0; i < LANGGUARD_PM_FDS; i++)
		if (langguard_pm[i].open && langguard_pm[i].pid == pid) {
			close(langguard_pm[i].fd);
			langguard_pm[i].open = 0;
			langguard_pm[i].used = 0;
		}
}

/* All processes' refreshes: bytes read in the current second. */
static uint64_t langguard_budget_sec;
static uint64_t langguard_budget_used;

void
langguard_set_opener(langguard_open_fn fn, void *arg)
{
	langfile_set_opener(fn, arg);
}

int
langguard_fs_local(const char *fstype, size_t len)
{
	return (fsguard_fs_local(fstype, len));
}

/* A decimal or hexadecimal number at s[*i], at most 64 bits. */
static int
langguard_num(const char *s, size_t len, size_t *i, int base, uint64_t *out)
{
	uint64_t v = 0;
	size_t k = *i;
	int d;

	for (; k < len; k++) {
		if (s[k] >= '0' && s[k] <= '9')
			d = s[k] - '0';
		else if (base == 16 && s[k] >= 'a' && s[k] <= 'f')
			d = s[k] - 'a' + 10;
		else if (base == 16 && s[k] >= 'A' && s[k] <= 'F')
			d = s[k] - 'A' + 10;
		else
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return (-EINVAL);
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (k == *i)
		return (-EINVAL);
	*i = k;
	*out = v;
	return (0);
}

/* "MAJ:MIN" in base at s[*i]: the kernel's dev_t (major << 20 | minor). */
static int
langguard_dev(const char *s, size_t len, size_t *i, int base, uint32_t *dev)
{
	uint64_t ma, mi;

	if (langguard_num(s, len, i, base, &ma) != 0 || *i >= len ||
	    s[*i] != ':')
		return (-EINVAL);
	(*i)++;
	if (langguard_num(s, len, i, base, &mi) != 0 || ma >= (1u << 12) ||
	    mi >= (1u << 20))
		return (-EINVAL);
	*dev = (uint32_t)(ma << 20 | mi);
	return (0);
}

/* The mount table's classification is fsguard's (shared with the core's
 * file opens); a copy is parsed, since fsguard unescapes in place. */
uint32_t
langguard_parse_mountinfo(const char *buf, size_t len,
    struct langguard_mount *out, uint32_t max)
{
	struct fsguard_mount *m;
	char *copy;
	uint32_t n, i;

	if ((copy = malloc(len + 1)) == NULL)
		return (0);
	memcpy(copy, buf, len);
	n = fsguard_parse_mountinfo(copy, len, NULL, 0);
	if (out == NULL)
		goto out;
	if (n > max)
		n = max;
	if ((m = calloc(n + 1, sizeof(*m))) == NULL) {
		n = 0;
		goto out;
	}
	n = fsguard_parse_mountinfo(copy, len, m, n);
	for (i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].dev = m[i].dev;
		out[i].local = m[i].local;
		memcpy(out[i].fstype, m[i].fstype, sizeof(out[i].fstype));
	}
	free(m);
out:
	free(copy);
	return (n);
}

int
langguard_parse_map_line(const char *s, size_t len, uint64_t *start,
    uint64_t *end, uint32_t *dev, uint64_t *ino)
{
	size_t i = 0;

	if (langguard_num(s, len, &i, 16, start) != 0 || i >= len ||
	    s[i] != '-')
		return (-EINVAL);
	i++;
	if (langguard_num(s, len, &i, 16, end) != 0 || i >= len ||
	    s[i] != ' ' || *end <= *start)
		return (-EINVAL);
	while (i < len && s[i] == ' ')
		i++;
	/* perms, offset */
	if (fsguard_skip_field(s, len, &i) != 0 ||
	    fsguard_skip_field(s, len, &i) != 0)
		return (-EINVAL);
	if (langguard_dev(s, len, &i, 16, dev) != 0 || i >= len ||
	    s[i] != ' ')
		return (-EINVAL);
	while (i < len && s[i] == ' ')
		i++;
	return (langguard_num(s, len, &i, 10, ino));
}

static uint32_t
langguard_verdict(uint32_t dev, uint64_t ino, const struct langguard_mount *m,
    uint32_t nm, uint32_t shm_dev)
{
	uint32_t i;

	/* Anonymous memory: heap, stacks, [vdso]; no file behind it. */
	if (dev == 0 && ino == 0)
		return (LANGGUARD_OK);
	/* memfd, SysV and MAP_SHARED|MAP_ANONYMOUS memory: tmpfs. */
	if (shm_dev != 0 && dev == shm_dev)
		return (LANGGUARD_OK);
	/* A device missing from the process's own mount table is a file
	 * of another mount namespace, passed by descriptor, or of a mount
	 * taken away since: nothing says what serves it. */
	for (i = 0; i < nm; i++)
		if (m[i].dev == dev)
			return (m[i].local ? LANGGUARD_OK : LANGGUARD_REFUSED);
	return (LANGGUARD_REFUSED);
}

uint32_t
langguard_parse_maps(const char *buf, size_t len,
    const struct langguard_mount *mounts, uint32_t nmounts, uint32_t shm_dev,
    struct langguard_range *out, uint32_t max, int *more)
{
	const char *s = buf, *end = buf + len, *nl;
	struct langguard_range *prev;
	uint64_t start, stop, ino;
	uint32_t n = 0, dev, v;

	*more = 0;
	while (s < end) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		if (langguard_parse_map_line(s, (size_t)(nl - s), &start,
		    &stop, &dev, &ino) != 0) {
			s = nl + 1;
			continue;
		}
		s = nl + 1;
		v = langguard_verdict(dev, ino, mounts, nmounts, shm_dev);
		prev = n > 0 ? &out[n - 1] : NULL;
		/* The kernel lists mappings in order; anything else is
		 * not a maps text to trust for a lookup. */
		if (prev != NULL && start < prev->end)
			continue;
		if (prev != NULL && prev->end == start && prev->verdict == v &&
		    (v == LANGGUARD_OK || prev->dev == dev)) {
			prev->end = stop;
			continue;
		}
		if (n == max) {
			*more = 1;
			break;
		}
		out[n].start = start;
		out[n].end = stop;
		out[n].dev = dev;
		out[n].verdict = v;
		n++;
	}
	return (n);
}

int
langguard_lookup(const struct langguard_range *r, uint32_t n, uint64_t addr,
    uint64_t len, const struct langguard_range **bad)
{
	uint64_t end = addr + len;
	size_t lo;

	*bad = NULL;
	if (len == 0)
		return (0);
	if (end < addr)
		return (-ENOENT);
	/* The last range starting at or below addr. */
	lo = sorted_upper(r, n, sizeof(*r), offsetof(struct langguard_range,
	    start), addr);
	if (lo == 0)
		return (-ENOENT);
	for (lo--; lo < n && r[lo].start <= addr; lo++) {
		if (addr >= r[lo].end)
			return (-ENOENT);
		if (r[lo].verdict != LANGGUARD_OK) {
			*bad = &r[lo];
			return (-EREMOTE);
		}
		if (end <= r[lo].end)
			return (0);
		addr = r[lo].end;	/* continues in the next, if it touches */
	}
	return (-ENOENT);
}

/* The agent's CPU time (ns): what a refresh costs it, whatever the
 * host's load adds to its wall time. */
static uint64_t
langguard_cpu(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return (0);
	return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
}

static uint64_t
langguard_now(void)
{
	return (clock_ns(CLOCK_MONOTONIC));
}

/* The kernel's shared memory mount, which no mount table shows: that of
 * a memfd of our own. */
static uint32_t
langguard_shm_dev(void)
{
	static int done;
	static uint32_t dev;
	struct stat st;
	int fd;

	if (done)
		return (dev);
	done = 1;
	if ((fd = memfd_create("gprofiler-langguard", MFD_CLOEXEC)) < 0)
		return (0);
	if (fstat(fd, &st) == 0 && major(st.st_dev) < (1u << 12) &&
	    minor(st.st_dev) < (1u << 20))
		dev = (uint32_t)major(st.st_dev) << 20 | minor(st.st_dev);
	close(fd);
	return (dev);
}

/* Read the target's mounts and maps again (the maps given, when the
 * caller has just read them): 0 or -errno. */
static int
langguard_refresh(struct langguard *g, int budgeted, const char *given,
    size_t givenlen)
{
	struct langguard_mount *mounts = NULL, *bad = NULL;
	struct langguard_range *r = NULL;
	char path[64], *mi = NULL, *maps = NULL;
	size_t mlen = 0, len = 0;
	uint64_t t0, c0, sec;
	uint32_t nm, n, nbad, i;
	int rc = -ESRCH, more, mmore;

	t0 = langguard_now();
	c0 = langguard_cpu();
	sec = t0 / 1000000000ull;
	if (sec != langguard_budget_sec) {
		langguard_budget_sec = sec;
		langguard_budget_used = 0;
	}
	if (budgeted && langguard_budget_used >= LANGGUARD_BUDGET_BYTES)
		return (-EAGAIN);
	g->refreshed = t0;
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)g->pid);
	if ((mi = langfile_read(path, LANGGUARD_MOUNTS_MAX, &mlen,
	    &mmore)) == NULL)
		goto out;
	if (given != NULL) {
		more = givenlen > LANGGUARD_MAPS_MAX;
		len = more ? LANGGUARD_MAPS_MAX : givenlen;
	} else if ((maps = langfile_read_maps(g->pid, LANGGUARD_MAPS_MAX,
	    &len, &more)) == NULL) {
		rc = errno == EAGAIN ? -EAGAIN : rc;
		goto out;
	}
	langguard_budget_used += mlen + len;
	rc = -ENOMEM;
	nm = langguard_parse_mountinfo(mi, mlen, NULL, 0);
	if ((mounts = calloc(nm + 1, sizeof(*mounts))) == NULL)
		goto out;
	nm = langguard_parse_mountinfo(mi, mlen, mounts, nm);
	for (i = 0, nbad = 0; i < nm; i++)
		nbad += !mounts[i].local;
	nbad = nbad < LANGGUARD_BAD_MAX ? nbad : LANGGUARD_BAD_MAX;
	if ((bad = calloc(nbad + 1, sizeof(*bad))) == NULL)
		goto out;
	for (i = 0, nbad = 0; i < nm && nbad < LANGGUARD_BAD_MAX; i++)
		if (!mounts[i].local)
			bad[nbad++] = mounts[i];
	/* A line at most per 40 bytes: enough ranges, never more than
	 * the cap. */
	n = len / 40 + 1 < LANGGUARD_RANGES_MAX ? (uint32_t)(len / 40 + 1) :
	    LANGGUARD_RANGES_MAX;
	if ((r = calloc(n, sizeof(*r))) == NULL)
		goto out;
	n = langguard_parse_maps(given != NULL ? given : maps, len, mounts, nm,
	    langguard_shm_dev(), r, n, &g->truncated);
	g->truncated |= more;
	free(g->r);
	free(g->bad);
	g->r = r;
	g->n = n;
	g->bad = bad;
	g->nbad = nbad;
	r = NULL;
	bad = NULL;
	g->nrefresh++;
	rc = 0;
out:
	free(r);
	free(bad);
	free(mounts);
	free(mi);
	free(maps);
	g->cost_ns = langguard_cpu() - c0;
	return (rc);
}

int
langguard_init(struct langguard *g, pid_t pid, const char *maps, size_t len)
{
	memset(g, 0, sizeof(*g));
	g->pid = pid;
	return (langguard_refresh(g, 0, maps, len));
}

void
langguard_free(struct langguard *g)
{
	if (g == NULL)
		return;
	langguard_pm_close(g->pid);
	free(g->r);
	free(g->bad);
	g->r = NULL;
	g->bad = NULL;
	g->n = g->nbad = 0;
}

static void
langguard_refuse(struct langguard *g, uint64_t addr,
    const struct langguard_range *b)
{
	const char *fs = NULL;
	uint32_t i;

	for (i = 0; b != NULL && i < g->nbad; i++)
		if (g->bad[i].dev == b->dev)
			fs = g->bad[i].fstype;
	if (b == NULL)
		snprintf(g->why, sizeof(g->why), "refused to read memory at "
		    "0x%" PRIx64 ": past the first %u KiB of its maps, not "
		    "known to be local", addr, LANGGUARD_MAPS_MAX / 1024);
	else if (fs != NULL)
		snprintf(g->why, sizeof(g->why), "refused to read memory at "
		    "0x%" PRIx64 ": a file on %s (device %u:%u), which could "
		    "stall the reader", addr, fs, b->dev >> 20,
		    b->dev & 0xfffff);
	else
		snprintf(g->why, sizeof(g->why), "refused to read memory at "
		    "0x%" PRIx64 ": a file on device %u:%u, %s", addr,
		    b->dev >> 20, b->dev & 0xfffff, g->nbad == LANGGUARD_BAD_MAX ?
		    "not a local filesystem" : "which is not in the process's "
		    "mount table");
}

/*
 * Whether every page of [addr, addr + len) is resident in the target or in
 * swap now (/proc/PID/pagemap bits 63 and 62): 1; 0 when one is not, or
 * when that cannot be known.  A resident page is read without a fault, so
 * without asking any filesystem; one not resident is faulted in by the
 * read from whatever is mapped there at that moment.
 */
static int
langguard_resident(struct langguard *g, uint64_t addr, uint64_t len)
{
	uint64_t ent[LANGGUARD_PAGEMAP_MAX], first, n, i, wfirst;
	char path[64];
	long ps;
	uint32_t w;
	int fd, k, found;

	if (len == 0)
		return (1);
	if ((ps = sysconf(_SC_PAGESIZE)) <= 0 || addr + len < addr)
		return (0);
	first = addr / (uint64_t)ps;
	n = (addr + len - 1) / (uint64_t)ps - first + 1;
	if (n > LANGGUARD_PAGEMAP_MAX || first > INT64_MAX / 8)
		return (0);
	k = langguard_pm_slot(g->pid, &found);
	if (!found) {
		snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)g->pid);
		if ((fd = langfile_open(NULL, path, 0, 0, -1, NULL)) < 0)
			return (0);
		langguard_pm[k].open = 1;
		langguard_pm[k].fd = fd;
		langguard_pm[k].pid = g->pid;
	}
	langguard_pm[k].used = ++langguard_pm_clock;
	if (langguard_in_batch) {
		wfirst = first & ~(uint64_t)(LANGGUARD_WIN - 1);
		for (w = 0; w < LANGGUARD_WINS; w++)
			if (langguard_win[w].valid &&
			    langguard_win[w].pid == g->pid &&
			    langguard_win[w].first == wfirst)
				break;
		if (w == LANGGUARD_WINS && first + n <= wfirst +
		    LANGGUARD_WIN) {
			w = langguard_win_next++ % LANGGUARD_WINS;
			langguard_win[w].valid = 0;
			if (pread(langguard_pm[k].fd, langguard_win[w].ent,
			    sizeof(langguard_win[w].ent), (off_t)(wfirst *
			    8)) != (ssize_t)sizeof(langguard_win[w].ent)) {
				langguard_pm_close(g->pid);
				return (0);
			}
			langguard_win[w].first = wfirst;
			langguard_win[w].pid = g->pid;
			langguard_win[w].valid = 1;
		}
		if (w < LANGGUARD_WINS && first + n <= wfirst +
		    LANGGUARD_WIN) {
			for (i = 0; i < n; i++)
				if ((langguard_win[w].ent[first - wfirst + i] >>
				    62 & 3) == 0)
					return (0);
			return (1);
		}
	}
	/* A process gone (its PID perhaps reused) reads short: judged by
	 * maps read again, and the pagemap of whichever process has the PID
	 * opened at the next look. */
	if (pread(langguard_pm[k].fd, ent, (size_t)n * 8,
	    (off_t)(first * 8)) != (ssize_t)(n * 8)) {
		langguard_pm_close(g->pid);
		return (0);
	}
	for (i = 0; i < n; i++)
		if ((ent[i] >> 62 & 3) == 0)
			return (0);
	return (1);
}

int
langguard_check(struct langguard *g, uint64_t addr, uint64_t len)
{
	const struct langguard_range *b;
	uint64_t wait, now;
	int rc;

	rc = langguard_lookup(g->r, g->n, addr, len, &b);
	wait = g->cost_ns * LANGGUARD_REFRESH_COST;
	if (wait < LANGGUARD_REFRESH_NS)
		wait = LANGGUARD_REFRESH_NS;
	if (rc == -ENOENT && langguard_now() - g->refreshed >= wait &&
	    langguard_refresh(g, 1, NULL, 0) == 0)
		rc = langguard_lookup(g->r, g->n, addr, len, &b);
	/*
	 * The maps may be old: the target can have mapped a FUSE file over
	 * an allowed range since (mmap MAP_FIXED).  Such a page is not
	 * resident until something reads it; a resident one needs no fault.
	 * Pages not resident are judged by maps read just now instead.
	 */
	if (rc == 0 && !langguard_resident(g, addr, len)) {
		now = langguard_now();
		if (now - g->refreshed >= LANGGUARD_FRESH_NS) {
			wait = g->cost_ns * LANGGUARD_REFRESH_COST;
			if (wait < LANGGUARD_NONRES_NS)
				wait = LANGGUARD_NONRES_NS;
			if (now - g->nonres < wait)
				return (-EAGAIN);
			g->nonres = now;
			if (langguard_refresh(g, 1, NULL, 0) != 0)
				return (-EAGAIN);
		}
		rc = langguard_lookup(g->r, g->n, addr, len, &b);
	}
	if (rc == 0)
		return (0);
	if (rc == -EREMOTE) {
		langguard_refuse(g, addr, b);
		return (-EREMOTE);
	}
	/* Beyond what the capped maps told: refused, not unmapped. */
	if (g->truncated && g->n > 0 && addr >= g->r[g->n - 1].end) {
		langguard_refuse(g, addr, NULL);
		return (-EREMOTE);
	}
	return (-EFAULT);
}
