/*
 * A profiled process seen from outside: see langproc.h.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/uio.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "langfile.h"
#include "langproc.h"
#include "langtab.h"
#include "procexe.h"
#include "procstat.h"

void
langproc_set_opener(langproc_open_fn fn, void *arg)
{
	langfile_set_opener(fn, arg);
}

int
langproc_open(const char *root, const char *path, uint32_t flags,
    uint64_t max_size)
{
	return (langfile_open(root, path, flags, max_size, -1, NULL));
}

ssize_t
langproc_read_small_file(const char *path, char *buf, size_t len)
{
	int fd;

	if ((fd = langproc_open(NULL, path, 0, 0)) < 0)
		return (fd);
	return ((ssize_t)langproc_read_fd(fd, buf, len));
}

size_t
langproc_read_fd(int fd, char *buf, size_t len)
{
	size_t total = 0;
	ssize_t n;

	while (total + 1 < len) {
		n = read(fd, buf + total, len - 1 - total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
	}
	close(fd);
	buf[total] = '\0';
	return (total);
}

char *
langproc_read_maps(pid_t pid, size_t *lenp)
{
	return (langfile_read_maps(pid, LANGPROC_MAPS_MAX, lenp, NULL));
}

int
langproc_open_object(pid_t pid, uint64_t start, uint64_t end,
    const char *objpath, int is_exe)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
	    (int)pid, start, end);
	if ((fd = langproc_open(NULL, path, GP_OPEN_PROC_LINK,
	    LANGPROC_MAX_OBJECT)) >= 0 || fd == -EINVAL || fd == -EFBIG)
		return (fd);
	if (is_exe) {
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		if ((fd = langproc_open(NULL, path, GP_OPEN_PROC_LINK,
		    LANGPROC_MAX_OBJECT)) >= 0 || fd == -EINVAL ||
		    fd == -EFBIG)
			return (fd);
	}
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	return (langproc_open(path, objpath, GP_OPEN_NO_SYMLINKS,
	    LANGPROC_MAX_OBJECT));
}

int
langproc_parse_map_line(const char *s, size_t len, uint64_t *start,
    uint64_t *end, uint64_t *off, uint64_t *ino, const char **path,
    size_t *plen)
{
	char buf[128], *p, *q;
	size_t n, i, field;
	const char *e = s + len;

	/* The numeric fields fit in 128 bytes; copy them to parse safely. */
	n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*start = strtoull(buf, &p, 16);
	if (*p != '-')
		return (-EINVAL);
	*end = strtoull(p + 1, &q, 16);
	if (*q != ' ' || *end <= *start)
		return (-EINVAL);
	while (*q == ' ')
		q++;
	while (*q != ' ' && *q != '\0')	/* perms */
		q++;
	*off = strtoull(q, &p, 16);
	if (p == q || *p != ' ')
		return (-EINVAL);
	while (*p == ' ')
		p++;
	while (*p != ' ' && *p != '\0')	/* dev */
		p++;
	*ino = strtoull(p, &q, 10);
	if (q == p)
		return (-EINVAL);
	/* The path starts after the inode and spaces, in the original. */
	field = (size_t)(q - buf);
	for (i = field; s + i < e && s[i] == ' '; i++)
		;
	*path = s + i < e ? s + i : NULL;
	*plen = s + i < e ? (size_t)(e - (s + i)) : 0;
	return (0);
}

ssize_t
langproc_read_stat(pid_t pid, char *buf, size_t len, uint64_t *exe_id)
{
	char path[64];
	struct stat st;

	*exe_id = procexe_stat(pid, &st) == 0 ? langtab_exe_id(&st) : 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return (langproc_read_small_file(path, buf, len));
}

int
langproc_stat_cpu(pid_t pid, uint64_t *start, uint64_t *exe_id,
    uint64_t *vsize, uint64_t *ticks)
{
	char buf[1024];
	ssize_t n;

	if ((n = langproc_read_stat(pid, buf, sizeof(buf), exe_id)) <= 0 ||
	    procstat_u64(buf, (size_t)n, 22, start) != 0)
		return (-ESRCH);
	if (vsize != NULL && procstat_u64(buf, (size_t)n, 23, vsize) != 0)
		*vsize = 0;
	if (ticks != NULL && procstat_cpu(buf, (size_t)n, ticks) != 0)
		return (-EINVAL);
	return (0);
}

int
langproc_stat_vsize(pid_t pid, uint64_t *start, uint64_t *exe_id,
    uint64_t *vsize)
{
	return (langproc_stat_cpu(pid, start, exe_id, vsize, NULL));
}

int
langproc_stat(pid_t pid, uint64_t *start, uint64_t *exe_id)
{
	return (langproc_stat_vsize(pid, start, exe_id, NULL));
}

int
langproc_comm(pid_t pid, char *out, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((n = langproc_read_small_file(path, out, len)) <= 0)
		return (-ESRCH);
	if (out[n - 1] == '\n')
		out[n - 1] = '\0';
	return (0);
}

int
langproc_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t got;

	if (addr == 0 || addr + len < addr)
		return (-EFAULT);
	got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (got < 0)
		return (errno == ESRCH ? -ESRCH : errno == EPERM ? -EPERM :
		    -EFAULT);
	return ((size_t)got == len ? 0 : -EFAULT);
}

int
langproc_pages_init(struct langproc_pages *c, pid_t pid)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->pid = pid;
	if ((rc = langguard_init(&c->guard, pid, NULL, 0)) != 0)
		return (rc);
	if ((c->pages = calloc(LANGPROC_PAGES, sizeof(*c->pages))) == NULL) {
		langguard_free(&c->guard);
		return (-ENOMEM);
	}
	return (0);
}

void
langproc_pages_free(struct langproc_pages *c)
{
	if (c == NULL)
		return;
	langproc_pages_idle(c);
	langguard_free(&c->guard);
}

void
langproc_pages_idle(struct langproc_pages *c)
{
	free(c->pages);
	c->pages = NULL;
	c->nseen = 0;
}

int
langproc_pages_wake(struct langproc_pages *c)
{
	if (c->pages == NULL &&
	    (c->pages = calloc(LANGPROC_PAGES, sizeof(*c->pages))) == NULL)
		return (-ENOMEM);
	return (0);
}

/*
 * A sample's first read: what was cached may have changed.  The pages the
 * last sample used are read again at once, in one process_vm_readv: a
 * busy thread's next sample mostly walks the same stack, frames and code
 * objects (one system call instead of one a page; the guard still checks
 * each page).  A batch that fails is dropped whole: the sample then
 * reads page by page, as it would have.
 */
static void
langproc_pages_refresh(struct langproc_pages *c)
{
	struct iovec local[LANGPROC_PAGES], remote[LANGPROC_PAGES];
	struct langproc_page *p[LANGPROC_PAGES];
	uint32_t i, k = 0, n;
	size_t want = 0;
	ssize_t got;

	if (c->pages == NULL)
		return;
	if (++c->gen == 0) {
		memset(c->pages, 0, LANGPROC_PAGES * sizeof(*c->pages));
		c->gen = 1;
	}
	n = c->nseen;
	c->nseen = 0;
	langguard_batch(1);
	for (i = 0; i < n; i++) {
		if (langguard_check(&c->guard, c->seen[i], LANGPROC_PAGE) != 0)
			break;
		p[k] = &c->pages[c->next++ % LANGPROC_PAGES];
		local[k].iov_base = p[k]->data;
		local[k].iov_len = LANGPROC_PAGE;
		remote[k].iov_base = (void *)(uintptr_t)c->seen[i];
		remote[k].iov_len = LANGPROC_PAGE;
		want += LANGPROC_PAGE;
		k++;
	}
	langguard_batch(0);
	if (k == 0 || i < n)
		return;
	c->nreads++;
	got = process_vm_readv(c->pid, local, k, remote, k, 0);
	if (got < 0 || (size_t)got != want) {
		for (i = 0; i < k; i++)
			p[i]->gen = 0;	/* partly overwritten */
		return;
	}
	c->prefetched++;
	for (i = 0; i < k; i++) {
		p[i]->addr = (uint64_t)(uintptr_t)remote[i].iov_base;
		p[i]->gen = c->gen;
		p[i]->bad = 0;
	}
}

/* Left to the sample's first read: a walked sample whose frames are all
 * known reads nothing, and then refreshes nothing either. */
void
langproc_pages_begin(struct langproc_pages *c)
{
	c->stale = 1;
}

int
langproc_pages_read(struct langproc_pages *c, uint64_t addr, void *buf,
    size_t len)
{
	struct langproc_page *p;
	uint64_t page, off;
	uint8_t *dst = buf;
	size_t n;
	uint32_t i;
	int rc;

	if (c->stale) {
		c->stale = 0;
		langproc_pages_refresh(c);
	}
	if (c->pages == NULL || len > 2 * LANGPROC_PAGE || addr == 0 ||
	    addr + len < addr) {
		if ((rc = langguard_check(&c->guard, addr, len)) != 0)
			return (rc);
		c->nreads++;
		return (langproc_read(c->pid, addr, buf, len));
	}
	while (len > 0) {
		page = addr & ~(uint64_t)(LANGPROC_PAGE - 1);
		off = addr - page;
		n = LANGPROC_PAGE - off < len ? LANGPROC_PAGE - off : len;
		/* Fully associative: a sample touches a handful of pages
		 * whose addresses often collide in a direct-mapped table. */
		for (i = 0, p = NULL; i < LANGPROC_PAGES && p == NULL; i++)
			if (c->pages[i].gen == c->gen &&
			    c->pages[i].addr == page)
				p = &c->pages[i];
		if (p == NULL) {
			p = &c->pages[c->next++ % LANGPROC_PAGES];
			p->addr = page;
			p->gen = c->gen;
			p->used = 0;
			/* A refusal is cached for the sample like a fault. */
			if ((p->bad = langguard_check(&c->guard, page,
			    LANGPROC_PAGE)) == 0) {
				c->nreads++;
				p->bad = langproc_read(c->pid, page, p->data,
				    LANGPROC_PAGE);
			}
		}
		if (p->bad != 0)
			return (p->bad);
		if (p->used != c->gen && c->nseen < LANGPROC_PAGES) {
			c->seen[c->nseen++] = page;
			p->used = c->gen;
		}
		memcpy(dst, p->data + off, n);
		dst += n;
		addr += n;
		len -= n;
	}
	return (0);
}
