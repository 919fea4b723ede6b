/*
 * /proc text the Python plugin reads, parsed as pure functions over bytes:
 * maps lines, the state and start time in stat, Name: in status, and the
 * gProfiler selection rules over maps paths and cmdlines
 * (docs/specs/gprofiler-compat.md §10).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "procstat.h"
#include "pyreader.h"

static int
py_proc_hex(const char *s, size_t len, size_t *i, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;

	while (*i < len && digits < 17) {
		char c = s[*i];
		int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			break;
		v = v << 4 | (uint64_t)d;
		(*i)++;
		digits++;
	}
	if (digits == 0 || digits > 16)
		return (-EINVAL);
	*out = v;
	return (0);
}

static void
py_proc_skip_spaces(const char *s, size_t len, size_t *i)
{
	while (*i < len && s[*i] == ' ')
		(*i)++;
}

/* "start-end perms offset maj:min inode [path]" (no newline). */
int
py_proc_parse_map_line(const char *s, size_t len, struct py_map *m)
{
	uint64_t dummy;
	size_t i = 0, k;

	memset(m, 0, sizeof(*m));
	if (py_proc_hex(s, len, &i, &m->start) != 0 || i >= len ||
	    s[i++] != '-' || py_proc_hex(s, len, &i, &m->end) != 0 ||
	    m->end < m->start)
		return (-EINVAL);
	py_proc_skip_spaces(s, len, &i);
	for (k = 0; k < 4 && i < len && s[i] != ' '; k++)
		m->perms[k] = s[i++];
	if (k != 4)
		return (-EINVAL);
	py_proc_skip_spaces(s, len, &i);
	if (py_proc_hex(s, len, &i, &m->offset) != 0)
		return (-EINVAL);
	py_proc_skip_spaces(s, len, &i);
	if (py_proc_hex(s, len, &i, &dummy) != 0 || i >= len ||
	    s[i++] != ':' || py_proc_hex(s, len, &i, &dummy) != 0)
		return (-EINVAL);
	py_proc_skip_spaces(s, len, &i);
	m->inode = 0;
	while (i < len && s[i] >= '0' && s[i] <= '9' && m->inode < (1ull << 60))
		m->inode = m->inode * 10 + (uint64_t)(s[i++] - '0');
	py_proc_skip_spaces(s, len, &i);
	if (i < len) {
		m->path = s + i;
		m->pathlen = len - i;
	}
	return (0);
}

static const char *
py_proc_memmem(const char *h, size_t hl, const char *n)
{
	size_t nl = strlen(n), i;

	for (i = 0; i + nl <= hl; i++)
		if (memcmp(h + i, n, nl) == 0)
			return (h + i);
	return (NULL);
}

/*
 * gProfiler's py-spy selection regex over one maps path:
 * (^.+/(lib)?python[^/]*$)|(^.+/site-packages/.+?$)|(^.+/dist-packages/.+?$)
 */
int
py_proc_map_is_python(const char *p, size_t len)
{
	static const char *const pkgs[] = { "/site-packages/",
	    "/dist-packages/" };
	const char *base, *hit;
	size_t i, bl;

	for (i = len; i > 0 && p[i - 1] != '/'; i--)
		;
	if (i >= 2) {	/* ".+/" needs a character before the slash */
		base = p + i;
		bl = len - i;
		if (bl >= 3 && memcmp(base, "lib", 3) == 0) {
			base += 3;
			bl -= 3;
		}
		if (bl >= 6 && memcmp(base, "python", 6) == 0)
			return (1);
	}
	for (i = 0; i < 2; i++) {
		hit = py_proc_memmem(p, len, pkgs[i]);
		while (hit != NULL) {
			size_t at = (size_t)(hit - p), nl = strlen(pkgs[i]);

			if (at > 0 && at + nl < len)
				return (1);
			hit = py_proc_memmem(hit + 1, len - at - 1, pkgs[i]);
		}
	}
	return (0);
}

/* /proc/PID/stat: the state (field 3) and start time (field 22). */
int
py_proc_stat_state(const char *s, size_t len, char *state,
    uint64_t *starttime)
{
	if (procstat_state(s, len, state) != 0 || (starttime != NULL &&
	    procstat_u64(s, len, 22, starttime) != 0))
		return (-EINVAL);
	return (0);
}

/* Name: of /proc/PID/status, the comm as gProfiler reports it. */
int
py_proc_status_name(const char *s, size_t len, char *out, size_t outlen)
{
	size_t i, o = 0;

	if (outlen == 0 || len < 5 || memcmp(s, "Name:", 5) != 0)
		return (-EINVAL);
	for (i = 5; i < len && (s[i] == ' ' || s[i] == '\t'); i++)
		;
	for (; i < len && s[i] != '\n' && o + 1 < outlen; i++)
		out[o++] = s[i];
	out[o] = '\0';
	return (o > 0 ? 0 : -EINVAL);
}

/*
 * A cmdline (NUL-separated) gProfiler never profiles
 * (docs/specs/gprofiler-compat.md §10).
 */
int
py_proc_cmdline_excluded(const char *s, size_t len)
{
	static const char *const bad[] = { "unattended-upgrades",
	    "networkd-dispatcher", "supervisord", "tuned" };
	char *joined;
	size_t i;
	int hit = 0;

	if ((joined = malloc(len + 1)) == NULL)
		return (0);
	for (i = 0; i < len; i++)
		joined[i] = s[i] == '\0' ? ' ' : s[i];
	joined[len] = '\0';
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]) && !hit; i++)
		hit = py_proc_memmem(joined, len, bad[i]) != NULL;
	free(joined);
	return (hit);
}
