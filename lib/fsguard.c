/*
 * Which filesystems the agent may read from: the classification of mount
 * types and the parsers of /proc/PID/mountinfo and /proc/self/fdinfo/N
 * the core and the runtime readers share (see fsguard.h).  Pure: no
 * syscalls.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "fsguard.h"

/*
 * Filesystems whose pages come from memory or a local block device.
 * Anything else is refused, unknown types included: a wrong refusal
 * costs a process's profile (logged), a wrong allowance a hung agent.
 * proc, sysfs and the like are local too (the kernel answers); rootfs
 * is the initramfs's root, memory, where a system that never switches
 * root (a VM booted from its initramfs) keeps every file.
 */
static const char *const fsguard_local[] = {
	"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "rootfs",
	"overlay", "squashfs", "erofs", "vfat", "msdos", "exfat", "f2fs", "zfs",
	"hugetlbfs", "iso9660", "udf", "jfs", "nilfs2", "bcachefs", "ntfs3",
	"reiserfs", "devtmpfs", "shm", "proc", "sysfs", "cgroup", "cgroup2",
	"devpts", "mqueue", "debugfs", "tracefs", "securityfs", "pstore",
	"bpf", "configfs", "binfmt_misc", "efivarfs", "autofs", "nsfs", NULL
};

int
fsguard_fs_local(const char *fstype, size_t len)
{
	size_t i;

	for (i = 0; fsguard_local[i] != NULL; i++)
		if (strlen(fsguard_local[i]) == len &&
		    memcmp(fsguard_local[i], fstype, len) == 0)
			return (1);
	return (0);
}

/* A decimal number at s[*i] below 2^32. */
static int
fsguard_num(const char *s, size_t len, size_t *i, uint32_t *out)
{
	uint64_t v = 0;
	size_t k;

	for (k = *i; k < len && s[k] >= '0' && s[k] <= '9'; k++) {
		v = v * 10 + (uint64_t)(s[k] - '0');
		if (v > UINT32_MAX)
			return (-EINVAL);
	}
	if (k == *i)
		return (-EINVAL);
	*i = k;
	*out = (uint32_t)v;
	return (0);
}

/* Past one field and the spaces after it: 0, or -EINVAL at the end. */
int
fsguard_skip_field(const char *s, size_t len, size_t *i)
{
	while (*i < len && s[*i] != ' ')
		(*i)++;
	if (*i >= len)
		return (-EINVAL);
	while (*i < len && s[*i] == ' ')
		(*i)++;
	return (*i < len ? 0 : -EINVAL);
}

/* Unescape the kernel's \ooo in s[0..len) in place: the new length. */
static size_t
fsguard_unescape(char *s, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len && s[i + 1] >= '0' &&
		    s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
		    s[i + 3] >= '0' && s[i + 3] <= '7') {
			s[o++] = (char)((s[i + 1] - '0') << 6 |
			    (s[i + 2] - '0') << 3 | (s[i + 3] - '0'));
			i += 3;
		} else
			s[o++] = s[i];
	}
	return (o);
}

/*
 * "36 35 98:0 /root /mnt opts [optional fields...] - fstype source
 * superopts": paths are octal-escaped, so fields hold no space.
 */
static int
fsguard_mount_line(char *s, size_t len, size_t base, int unescape,
    struct fsguard_mount *m)
{
	uint32_t parent, ma, mi;
	size_t i = 0, f, fl;

	if (fsguard_num(s, len, &i, &m->id) != 0 ||
	    fsguard_skip_field(s, len, &i) != 0 ||
	    fsguard_num(s, len, &i, &parent) != 0 ||
	    fsguard_skip_field(s, len, &i) != 0 ||
	    fsguard_num(s, len, &i, &ma) != 0 || i >= len || s[i] != ':')
		return (-EINVAL);
	i++;
	if (fsguard_num(s, len, &i, &mi) != 0 || ma >= (1u << 12) ||
	    mi >= (1u << 20))
		return (-EINVAL);
	m->dev = ma << 20 | mi;
	/* root, then the mount point */
	if (fsguard_skip_field(s, len, &i) != 0 ||
	    fsguard_skip_field(s, len, &i) != 0)
		return (-EINVAL);
	for (f = i; i < len && s[i] != ' '; i++)
		;
	if (i >= len || s[f] != '/')
		return (-EINVAL);
	fl = i - f;
	/* The optional fields end at a lone "-". */
	for (;;) {
		if (fsguard_skip_field(s, len, &i) != 0)
			return (-EINVAL);
		if (s[i] == '-' && i + 1 < len && s[i + 1] == ' ')
			break;
	}
	m->point = (uint32_t)(base + f);
	/* Only when kept: a count leaves the text as it was, for the parse
	 * that follows it (unescaped twice, "a\040b" would be cut at the
	 * space, and a path under it judged by the mount above). */
	m->pointlen = (uint32_t)(unescape ? fsguard_unescape(s + f, fl) : fl);
	i += 2;
	while (i < len && s[i] == ' ')
		i++;
	for (f = i; i < len && s[i] != ' '; i++)
		;
	fl = i - f;
	if (fl == 0)
		return (-EINVAL);
	m->local = (uint8_t)fsguard_fs_local(s + f, fl);
	if (fl >= sizeof(m->fstype))
		fl = sizeof(m->fstype) - 1;
	memcpy(m->fstype, s + f, fl);
	m->fstype[fl] = '\0';
	return (0);
}

uint32_t
fsguard_parse_mountinfo(char *buf, size_t len, struct fsguard_mount *out,
    uint32_t max)
{
	struct fsguard_mount m;
	char *s = buf, *end = buf + len, *nl;
	uint32_t n = 0;

	if (len > UINT32_MAX)
		return (0);
	while (s < end && (out == NULL || n < max)) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		memset(&m, 0, sizeof(m));
		if (fsguard_mount_line(s, (size_t)(nl - s), (size_t)(s - buf),
		    out != NULL, &m) == 0) {
			if (out != NULL)
				out[n] = m;
			n++;
		}
		s = nl + 1;
	}
	return (n);
}

const struct fsguard_mount *
fsguard_by_id(const struct fsguard_mount *m, uint32_t n, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (m[i].id == id)
			return (&m[i]);
	return (NULL);
}

const struct fsguard_mount *
fsguard_by_dev(const struct fsguard_mount *m, uint32_t n, uint32_t dev)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (m[i].dev == dev)
			return (&m[i]);
	return (NULL);
}

/* path, absolute, with "." and ".." and repeated slashes taken out
 * lexically ("/.." is "/"): its length, or -ENAMETOOLONG. */
static int
fsguard_normalize(const char *path, char *out, size_t outsz)
{
	const char *p = path, *q;
	size_t o = 0, cl;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		for (q = p; *q != '\0' && *q != '/'; q++)
			;
		cl = (size_t)(q - p);
		if (cl == 1 && p[0] == '.')
			;
		else if (cl == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			if (o + 1 + cl >= outsz)
				return (-ENAMETOOLONG);
			out[o++] = '/';
			memcpy(out + o, p, cl);
			o += cl;
		}
		p = q;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return ((int)o);
}

int
fsguard_path_check(const char *text, const struct fsguard_mount *m,
    uint32_t n, const char *path, const struct fsguard_mount **bad)
{
	char norm[PATH_MAX + 1];
	unsigned char seen[(PATH_MAX + 1) / 8 + 1];
	const char *pt;
	uint32_t i, pl;
	int nl;

	if (path == NULL || path[0] != '/')
		return (-EINVAL);
	if ((nl = fsguard_normalize(path, norm, sizeof(norm))) < 0)
		return (nl);
	memset(seen, 0, sizeof(seen));
	/*
	 * Mount points on the path, each a prefix of it and so known by its
	 * length; the last mount listed at a point is the one on top.
	 */
	for (i = n; i-- > 0;) {
		pt = text + m[i].point;
		pl = m[i].pointlen;
		if (pl > 1 && pt[pl - 1] == '/')
			pl--;
		if (pl == 0 || pl > (uint32_t)nl || memcmp(pt, norm, pl) != 0)
			continue;
		if (pl > 1 && norm[pl] != '/' && norm[pl] != '\0')
			continue;
		if (seen[pl / 8] & (1u << (pl % 8)))
			continue;
		seen[pl / 8] |= (unsigned char)(1u << (pl % 8));
		if (!m[i].local) {
			if (bad != NULL)
				*bad = &m[i];
			return (-EREMOTE);
		}
	}
	return (0);
}

int
fsguard_fdinfo_mnt_id(const char *buf, size_t len, uint32_t *id)
{
	static const char key[] = "mnt_id:";
	size_t i = 0, kl = sizeof(key) - 1;

	while (i < len) {
		if ((i == 0 || buf[i - 1] == '\n') && len - i > kl &&
		    memcmp(buf + i, key, kl) == 0) {
			i += kl;
			while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
				i++;
			return (fsguard_num(buf, len, &i, id));
		}
		i++;
	}
	return (-EINVAL);
}
