/*
 * Parsers of /proc and /etc text and of a few binary records (auxv, ELF
 * header): pure functions over bytes, so they can be unit tested and
 * fuzzed (fuzz/fuzz_proc.c).  Readers live with their users.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procstat.h"
#include "base/procfs.h"
#include "base/safeopen.h"
#include "base/xmalloc.h"

/* The next line of buf[*off..len) as (p, n); 0 at the end. */
static int
next_line(const char *buf, size_t len, size_t *off, const char **p,
    size_t *n)
{
	const char *nl;

	if (*off >= len)
		return (0);
	*p = buf + *off;
	nl = memchr(*p, '\n', len - *off);
	*n = nl != NULL ? (size_t)(nl - *p) : len - *off;
	*off += *n + 1;
	return (1);
}

static int
parse_u64(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return (-EINVAL);
	while (p < end && *p >= '0' && *p <= '9') {
		if (x > (UINT64_MAX - 9) / 10)
			return (-ERANGE);
		x = x * 10 + (*p++ - '0');
	}
	*v = x;
	*pp = p;
	return (0);
}

/* PPID from /proc/PID/stat (field 4). */
int
procfs_stat_ppid(const char *buf, size_t len, int32_t *ppid)
{
	uint64_t v;

	if (procstat_u64(buf, len, 4, &v) != 0 || v > INT32_MAX)
		return (-EINVAL);
	*ppid = (int32_t)v;
	return (0);
}

/* The aggregate "cpu " line of /proc/stat. */
int
procfs_cpu_times(const char *buf, size_t len, struct cpu_times *ct)
{
	const char *p, *end;
	size_t off = 0, n;
	uint64_t v[10];
	int i;

	while (next_line(buf, len, &off, &p, &n)) {
		if (n < 4 || memcmp(p, "cpu ", 4) != 0)
			continue;
		end = p + n;
		p += 4;
		memset(v, 0, sizeof(v));
		for (i = 0; i < 10; i++)
			if (parse_u64(&p, end, &v[i]) != 0)
				break;
		if (i < 4)
			return (-EINVAL);
		/* guest and guest_nice are already in user and nice. */
		ct->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] +
		    v[7];
		ct->idle = v[3] + v[4];
		return (0);
	}
	return (-EINVAL);
}

/* MemTotal and MemAvailable in kB. */
int
procfs_meminfo(const char *buf, size_t len, uint64_t *total_kb,
    uint64_t *avail_kb)
{
	const char *p;
	size_t off = 0, n;
	int found = 0;

	while (next_line(buf, len, &off, &p, &n)) {
		if (n > 9 && memcmp(p, "MemTotal:", 9) == 0) {
			p += 9;
			if (parse_u64(&p, p + n - 9, total_kb) == 0)
				found |= 1;
		} else if (n > 13 && memcmp(p, "MemAvailable:", 13) == 0) {
			p += 13;
			if (parse_u64(&p, p + n - 13, avail_kb) == 0)
				found |= 2;
		}
	}
	return (found == 3 ? 0 : -EINVAL);
}

/* value of KEY=value or KEY="value" (no escapes beyond the quotes). */
static int
osrel_value(const char *p, size_t n, const char *key, char *out,
    size_t outsz)
{
	size_t kl = strlen(key);

	if (n <= kl || memcmp(p, key, kl) != 0 || p[kl] != '=')
		return (0);
	p += kl + 1;
	n -= kl + 1;
	if (n >= 2 && (p[0] == '"' || p[0] == '\'') && p[n - 1] == p[0]) {
		p++;
		n -= 2;
	}
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return (1);
}

/* NAME, VERSION_ID, VERSION_CODENAME of os-release(5); "" if absent. */
int
procfs_os_release(const char *buf, size_t len, struct os_release *os)
{
	const char *p;
	size_t off = 0, n;

	memset(os, 0, sizeof(*os));
	while (next_line(buf, len, &off, &p, &n)) {
		osrel_value(p, n, "NAME", os->name, sizeof(os->name));
		osrel_value(p, n, "VERSION_ID", os->release,
		    sizeof(os->release));
		osrel_value(p, n, "VERSION_CODENAME", os->codename,
		    sizeof(os->codename));
	}
	return (os->name[0] != '\0' ? 0 : -EINVAL);
}

static int
cpuinfo_field(const char *p, size_t n, const char *key, const char **v)
{
	size_t kl = strlen(key), i;

	if (n < kl || memcmp(p, key, kl) != 0)
		return (0);
	for (i = kl; i < n && (p[i] == ' ' || p[i] == '\t'); i++)
		;
	if (i >= n || p[i] != ':')
		return (0);
	for (i++; i < n && p[i] == ' '; i++)
		;
	*v = p + i;
	return (1);
}

static void
copy_field(char *dst, size_t dsz, const char *line, size_t n,
    const char *v)
{
	size_t l = n - (size_t)(v - line);

	if (l >= dsz)
		l = dsz - 1;
	memcpy(dst, v, l);
	dst[l] = '\0';
}

/* First "model name", "flags"/"Features", "cpu family", "model". */
int
procfs_cpuinfo(const char *buf, size_t len, struct cpu_info *ci)
{
	const char *p, *v, *e;
	size_t off = 0, n;
	uint64_t x;

	memset(ci, 0, sizeof(*ci));
	ci->family = ci->model = -1;
	while (next_line(buf, len, &off, &p, &n)) {
		if (!ci->model_name[0] && cpuinfo_field(p, n, "model name",
		    &v))
			copy_field(ci->model_name, sizeof(ci->model_name), p,
			    n, v);
		else if (!ci->flags[0] && (cpuinfo_field(p, n, "flags", &v) ||
		    cpuinfo_field(p, n, "Features", &v)))
			copy_field(ci->flags, sizeof(ci->flags), p, n, v);
		else if (ci->family < 0 && cpuinfo_field(p, n, "cpu family",
		    &v)) {
			e = p + n;
			if (parse_u64(&v, e, &x) == 0 && x < 65536)
				ci->family = (int)x;
		} else if (ci->model < 0 && cpuinfo_field(p, n, "model",
		    &v)) {
			e = p + n;
			if (parse_u64(&v, e, &x) == 0 && x < 65536)
				ci->model = (int)x;
		}
	}
	return (0);
}

/* AT_EXECFN's address from a 64-bit /proc/PID/auxv. */
int
procfs_auxv_execfn(const unsigned char *buf, size_t len, uint64_t *addr)
{
	uint64_t kv[2];
	size_t off;

	for (off = 0; off + 16 <= len; off += 16) {
		memcpy(kv, buf + off, 16);
		if (kv[0] == 0)
			break;
		if (kv[0] == 31) {	/* AT_EXECFN */
			*addr = kv[1];
			return (0);
		}
	}
	return (-ENOENT);
}

/* The architecture name (uname -m style) of an ELF header's e_machine. */
const char *
procfs_elf_arch(const unsigned char *buf, size_t len)
{
	uint16_t m;

	if (len < 20 || memcmp(buf, "\177ELF", 4) != 0)
		return (NULL);
	if (buf[5] == 1)	/* little endian */
		m = buf[18] | buf[19] << 8;
	else
		m = buf[18] << 8 | buf[19];
	switch (m) {
	case 3:
		return ("i386");
	case 40:
		return ("arm");
	case 62:
		return ("x86_64");
	case 183:
		return ("aarch64");
	case 243:
		return ("riscv64");
	case 21:
		return ("ppc64");
	case 22:
		return ("s390x");
	default:
		return ("unknown");
	}
}

/*
 * Read a small file whole (/proc files report size 0: read until EOF), at
 * most max bytes, through safeopen: no FIFO, device or magic link (a
 * /proc/PID/root/... path is refused: use safeopen with a root).
 */
int
procfs_read(const char *path, char **bufp, size_t *lenp, size_t max)
{
	struct gp_open_spec spec;
	const char *base;
	char *buf;
	size_t len = 0, cap = 4096;
	ssize_t n;
	int fd, e;

	spec = (struct gp_open_spec){
		.size = sizeof(spec),
		.path = path,
		.owner = -1,
	};
	/* /proc/PID/exe is the kernel's link to the executable: followed,
	 * and what it names is checked like any file. */
	base = strrchr(path, '/');
	if (strncmp(path, "/proc/", 6) == 0 && base != NULL &&
	    strcmp(base, "/exe") == 0)
		spec.flags = GP_OPEN_PROC_LINK;
	if ((fd = safeopen_open(&spec, NULL)) < 0)
		return (fd);
	buf = xmalloc(cap);
	for (;;) {
		if (len + 1 >= cap) {
			if (cap >= max)
				break;
			cap *= 2;
			buf = xreallocarray(buf, cap, 1);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			e = errno;
			close(fd);
			free(buf);
			return (-e);
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return (0);
}

ssize_t
procfs_read_buf(const char *path, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return (-errno);
	while (len + 1 < cap) {
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			close(fd);
			return (-e);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return ((ssize_t)len);
}
