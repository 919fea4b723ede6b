/*
 * The guard on reads of a process's own memory that the kernel makes for
 * us: see procstr.h.  The check and the read are not atomic: a process
 * that maps a file over its strings in the microseconds between them
 * still holds the reader (docs/SECURITY.md, open).
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/mapsread.h"
#include "base/procstr.h"

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC	0x9fa0
#endif
#define PROCSTR_CHUNK		16384	/* a maps line is at most ~4.2 KiB */

/* Linux 6.11's question to /proc/PID/maps by address (uapi linux/fs.h,
 * newer than the headers of the oldest distributions built on). */
struct procstr_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset;
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	uint32_t vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PROCSTR_QUERY		_IOWR('f', 17, struct procstr_query)
#define PROCSTR_QUERY_NEXT	0x10	/* COVERING_OR_NEXT_VMA */
#define PROCSTR_QUERY_FILE	0x20	/* FILE_BACKED_VMA */

static int procstr_no_query;	/* the kernel said ENOTTY once */

static int procstr_last_refused;

int
procstr_parse_stat(const char *buf, size_t len, struct procstr_ranges *r)
{
	const char *p, *end = buf + len;
	uint64_t v[4] = { 0, 0, 0, 0 }, x;
	unsigned field = 2;

	/* The command name (field 2) may hold anything but ends at the
	 * last ')'. */
	if ((p = memrchr(buf, ')', len)) == NULL)
		return (-EINVAL);
	for (p++; field < 51; ) {
		if (p >= end || *p != ' ')
			return (-EINVAL);
		p++;
		field++;
		if (field < 48) {
			while (p < end && *p != ' ' && *p != '\n')
				p++;
			continue;
		}
		if (p >= end || *p < '0' || *p > '9')
			return (-EINVAL);
		for (x = 0; p < end && *p >= '0' && *p <= '9'; p++) {
			if (x > (UINT64_MAX - 9) / 10)
				return (-EINVAL);
			x = x * 10 + (uint64_t)(*p - '0');
		}
		v[field - 48] = x;
	}
	r->arg_start = v[0];
	r->arg_end = v[1];
	r->env_start = v[2];
	r->env_end = v[3];
	return (0);
}

int
procstr_maps_anon(const char *maps, size_t mlen, uint64_t addr, uint64_t len)
{
	const char *s = maps, *end = maps + mlen, *nl;
	char line[256];
	unsigned long long lo, hi, ino;
	unsigned int ma, mi;
	uint64_t stop = addr + len;
	size_t l;

	if (stop < addr)
		stop = UINT64_MAX;	/* a range to the top */
	while (s < end) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		l = (size_t)(nl - s) < sizeof(line) - 1 ? (size_t)(nl - s) :
		    sizeof(line) - 1;
		memcpy(line, s, l);
		line[l] = '\0';
		s = nl + 1;
		if (sscanf(line, "%llx-%llx %*s %*s %x:%x %llu", &lo, &hi, &ma,
		    &mi, &ino) != 5)
			continue;
		if (lo >= stop)
			return (1);
		if (hi <= addr)
			continue;
		if (ino != 0 || ma != 0 || mi != 0)
			return (-EREMOTE);
	}
	return (0);
}

/*
 * The first mapping of a file that ends above addr, asked of the kernel
 * (one ioctl, whatever the length of the maps): 0 when none starts below
 * addr + len, -EREMOTE when one does, -ENOTTY before Linux 6.11 (or
 * for any other failure: the text then answers).
 */
static int
procstr_query_anon(int fd, uint64_t addr, uint64_t len)
{
	struct procstr_query q;
	uint64_t stop = addr + len < addr ? UINT64_MAX : addr + len;

	if (procstr_no_query)
		return (-ENOTTY);
	memset(&q, 0, sizeof(q));	/* a kernel struct: all fields zero */
	q.size = sizeof(q);
	q.query_flags = PROCSTR_QUERY_NEXT | PROCSTR_QUERY_FILE;
	q.query_addr = addr;
	if (ioctl(fd, PROCSTR_QUERY, &q) != 0) {
		if (errno == ENOENT)
			return (0);
		if (errno == ENOTTY || errno == EINVAL)
			procstr_no_query = 1;
		return (-ENOTTY);	/* (a process without memory: -ESRCH)
					 * the text says it */
	}
	return (q.vma_start < stop ? -EREMOTE : 0);
}

/* The same over the text, a chunk at a time: the reads the kernel
 * writes for us are the ones the budget counts (mapsread.h). */
static int
procstr_text_anon(int pid, int fd, uint64_t addr, uint64_t len)
{
	char buf[PROCSTR_CHUNK];
	const char *nl;
	size_t have = 0, total = 0, whole;
	ssize_t n;
	struct mapsread_ticket tk;
	int rc;

	if ((rc = mapsread_begin(pid, &tk)) < 0)
		return (rc);
	for (;;) {
		n = read(fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		have += (size_t)n;
		total += (size_t)n;
		/* At the end every line is whole; before it, the last one
		 * waits for the next read. */
		if (n == 0)
			whole = have;
		else if ((nl = memrchr(buf, '\n', have)) != NULL)
			whole = (size_t)(nl - buf) + 1;
		else if (have == sizeof(buf)) {
			rc = -E2BIG;	/* no maps line is this long */
			break;
		} else
			continue;
		if ((rc = procstr_maps_anon(buf, whole, addr, len)) != 0 ||
		    n == 0)
			break;
		if (total > PROCSTR_MAPS_MAX) {
			rc = -E2BIG;
			break;
		}
		memmove(buf, buf + whole, have - whole);
		have -= whole;
	}
	mapsread_end(&tk, total);
	return (rc == 1 ? 0 : rc);
}

void
procstr_set_query(int on)
{
	procstr_no_query = !on;
}

int
procstr_range_anon(int pid, uint64_t addr, uint64_t len)
{
	char path[64];
	int fd, rc;

	if (len == 0)
		return (0);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (-errno);
	if ((rc = procstr_query_anon(fd, addr, len)) == -ENOTTY)
		rc = procstr_text_anon(pid, fd, addr, len);
	close(fd);
	return (rc);
}

/* "/proc/N/NAME" or "/proc/N/task/T/NAME": N, or -1. */
static int
procstr_path_pid(const char *p, const char *name)
{
	int pid = 0, tid = 0;

	if (strncmp(p, "/proc/", 6) != 0)
		return (-1);
	for (p += 6; *p >= '0' && *p <= '9' && pid < 100000000; p++)
		pid = pid * 10 + (*p - '0');
	if (pid == 0 || *p++ != '/')
		return (-1);
	if (strncmp(p, "task/", 5) == 0) {
		for (p += 5; *p >= '0' && *p <= '9' && tid < 100000000; p++)
			tid = tid * 10 + (*p - '0');
		if (tid == 0 || *p++ != '/')
			return (-1);
	}
	return (strcmp(p, name) == 0 ? pid : -1);
}

/* Whether pid's strings are in anonymous memory: 0 or -errno. */
static int
procstr_check(int pid)
{
	struct procstr_ranges r;
	char path[64], buf[4096];
	uint64_t lo, hi;
	ssize_t n;
	int fd, rc;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (-errno);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return (-errno);
	if (procstr_parse_stat(buf, (size_t)n, &r) != 0)
		return (-ENOTSUP);
	if ((r.arg_start | r.arg_end | r.env_start | r.env_end) == 0) {
		/* No memory (a kernel thread, a zombie: nothing to read),
		 * or not shown to us (then its strings are not read). */
		rc = procstr_range_anon(pid, 0, UINT64_MAX);
		return (rc == -EREMOTE ? -EACCES : rc);
	}
	/* cmdline may run on into the environment (setproctitle): both. */
	lo = r.arg_start < r.env_start ? r.arg_start : r.env_start;
	hi = r.arg_end > r.env_end ? r.arg_end : r.env_end;
	return (hi > lo ? procstr_range_anon(pid, lo, hi - lo) : 0);
}

int
procstr_guard_fd(int fd, const struct stat *st)
{
	struct statfs sf;
	struct stat sb;
	char self[64], link[256];
	const char *base;
	ssize_t n;
	int pid, rc;

	if (fstatfs(fd, &sf) != 0)
		return (-errno);
	if (sf.f_type != PROC_SUPER_MAGIC)
		return (0);
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if ((n = readlink(self, link, sizeof(link) - 1)) < 0)
		return (-errno);
	link[n] = '\0';
	base = strrchr(link, '/');
	if (base == NULL || (strcmp(base, "/cmdline") != 0 &&
	    strcmp(base, "/environ") != 0))
		return (0);
	/* Only the host's /proc/N is known to be process N: the same file
	 * there, or no read. */
	if ((pid = procstr_path_pid(link, base + 1)) < 0 ||
	    stat(link, &sb) != 0 || sb.st_dev != st->st_dev ||
	    sb.st_ino != st->st_ino)
		return (-EPERM);
	if ((rc = procstr_check(pid)) == -EREMOTE)
		procstr_last_refused = pid;
	return (rc);
}

int
procstr_refused(void)
{
	int pid = procstr_last_refused;

	procstr_last_refused = 0;
	return (pid);
}
