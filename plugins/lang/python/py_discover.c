/*
 * Python process discovery over /proc: which PIDs are candidates (maps
 * regex, exclusions), their comm and their appid, with paths resolved
 * inside the target's root (/proc/PID/root).
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "langfile.h"
#include "py_discover.h"
#include "py_target.h"

#define PY_CMDLINE_MAX	(128 * 1024)
#define PY_ARGV_MAX	1024
#define PY_CONFIG_MAX	(16u << 20)	/* config files: refused above */
#define PY_CONFIG_READ	(64 * 1024)	/* and read this far */

/*
 * A mapping that matches the python regex only because it is a gprofiler
 * plugin (".../python.so" beside its "python.plugin" manifest): every
 * gprofiler agent maps ours, and is no Python process.  An agent whose
 * plugin was replaced on disk since (a package upgrade before the
 * restart) maps ".../python.so (deleted)": the same.
 */
static int
py_discover_is_plugin(pid_t pid, const char *path, size_t len)
{
	static const char deleted[] = " (deleted)";
	const size_t dl = sizeof(deleted) - 1;
	char man[PATH_MAX + 64];
	struct stat st;
	int n;

	if (len > dl && memcmp(path + len - dl, deleted, dl) == 0)
		len -= dl;
	if (len < 10 || memcmp(path + len - 10, "/python.so", 10) != 0)
		return (0);
	n = snprintf(man, sizeof(man), "/proc/%d/root%.*s.plugin", (int)pid,
	    (int)(len - 3), path);
	return (n > 0 && (size_t)n < sizeof(man) && stat(man, &st) == 0 &&
	    S_ISREG(st.st_mode));
}

/* Maps match the python regex; cmdline and executable not excluded. */
int
py_discover_candidate(pid_t pid)
{
	char *maps;
	size_t len;
	int hit;

	if ((maps = langproc_read_maps(pid, &len)) == NULL)
		return (0);
	hit = py_discover_candidate_maps(pid, maps, len);
	free(maps);
	return (hit);
}

/* The same over maps already read (passed on to py_target_attach_maps:
 * one read of /proc/PID/maps for both). */
int
py_discover_candidate_maps(pid_t pid, const char *maps, size_t len)
{
	char path[64], exe[PATH_MAX], *cmd;
	const char *base, *line, *nl;
	struct py_map m;
	ssize_t n;
	int hit = 0;

	for (line = maps; line < maps + len && !hit; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(maps + len - line))) ==
		    NULL)
			nl = maps + len;
		if (py_proc_parse_map_line(line, (size_t)(nl - line), &m) ==
		    0 && m.path != NULL)
			hit = py_proc_map_is_python(m.path, m.pathlen) &&
			    !py_discover_is_plugin(pid, m.path, m.pathlen);
	}
	if (!hit)
		return (0);
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((n = readlink(path, exe, sizeof(exe) - 1)) > 0) {
		exe[n] = '\0';
		base = strrchr(exe, '/');
		base = base != NULL ? base + 1 : exe;
		if (strncmp(base, "pypy", 4) == 0)
			return (0);
	}
	if ((cmd = malloc(PY_CMDLINE_MAX)) == NULL)
		return (0);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	n = langproc_read_small_file(path, cmd, PY_CMDLINE_MAX);
	hit = n > 0 && !py_proc_cmdline_excluded(cmd, (size_t)n);
	free(cmd);
	return (hit);
}

int
py_discover_comm(pid_t pid, char *out, size_t len)
{
	char path[64], buf[512];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((n = langproc_read_small_file(path, buf, sizeof(buf))) <= 0)
		return (-ESRCH);
	return (py_proc_status_name(buf, (size_t)n, out, len));
}

/*
 * Resolve an absolute path of the target's namespace under
 * /proc/PID/root, following symlinks ourselves (the magic root link must
 * not be left for realpath to resolve in our namespace).
 */
static int
py_discover_resolve(void *arg, const char *in, char *out, size_t outlen)
{
	char cur[PATH_MAX], rest[PATH_MAX], tmp[PATH_MAX], link[PATH_MAX];
	char root[64], full[PATH_MAX + 64];
	int pid = (int)(intptr_t)arg, hops = 0;
	char *comp, *slash;
	ssize_t n;

	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	if (in[0] != '/' || strlen(in) >= sizeof(rest))
		return (-EINVAL);
	snprintf(rest, sizeof(rest), "%s", in + 1);
	cur[0] = '\0';
	while (rest[0] != '\0') {
		comp = rest;
		slash = strchr(rest, '/');
		if (slash != NULL)
			*slash = '\0';
		snprintf(tmp, sizeof(tmp), "%s", slash ? slash + 1 : "");
		if (strcmp(comp, "") == 0 || strcmp(comp, ".") == 0) {
			;
		} else if (strcmp(comp, "..") == 0) {
			char *last = strrchr(cur, '/');

			if (last != NULL)
				*last = '\0';
		} else {
			size_t cl = strlen(cur);

			if (cl + strlen(comp) + 2 > sizeof(cur))
				return (-ENAMETOOLONG);
			if ((size_t)snprintf(full, sizeof(full), "%s%s/%s",
			    root, cur, comp) >= sizeof(full))
				return (-ENAMETOOLONG);
			n = readlink(full, link, sizeof(link) - 1);
			if (n > 0) {
				link[n] = '\0';
				if (++hops > 40)
					return (-ELOOP);
				if (strlen(link) + strlen(tmp) + 2 >
				    sizeof(rest))
					return (-ENAMETOOLONG);
				if (link[0] == '/')
					cur[0] = '\0';
				if ((size_t)snprintf(rest, sizeof(rest), "%s/%s",
				    link[0] == '/' ? link + 1 : link, tmp) >=
				    sizeof(rest))
					return (-ENAMETOOLONG);
				continue;
			}
			snprintf(cur + cl, sizeof(cur) - cl, "/%s", comp);
		}
		snprintf(rest, sizeof(rest), "%s", tmp);
	}
	if (snprintf(out, outlen, "%s", cur[0] ? cur : "/") >= (int)outlen)
		return (-ENAMETOOLONG);
	return (0);
}

/* The effective uid of pid (Uid: of /proc/PID/status); -1 if unknown. */
int64_t
py_discover_euid(pid_t pid)
{
	char path[64], buf[4096], *p;
	unsigned long r, e;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (langproc_read_small_file(path, buf, sizeof(buf)) <= 0 ||
	    (p = strstr(buf, "\nUid:")) == NULL ||
	    sscanf(p + 5, "%lu %lu", &r, &e) != 2 || e > UINT32_MAX)
		return (-1);
	return ((int64_t)e);
}

/*
 * A config file named on the command line (uwsgi --ini, gunicorn -c, ...),
 * in the process's root and only if its user could read it: a link to a
 * root-only file, a FIFO or a device is refused.  At most 64 KiB are read.
 */
static char *
py_discover_read_file(void *arg, const char *p, size_t *lenp)
{
	pid_t pid = (pid_t)(intptr_t)arg;
	char root[64], *buf;
	int64_t euid;
	int fd;

	if ((euid = py_discover_euid(pid)) < 0)
		return (NULL);
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	if ((fd = langfile_open(root, p, GP_OPEN_READABLE_BY,
	    PY_CONFIG_MAX, euid, NULL)) < 0)
		return (NULL);
	if ((buf = malloc(PY_CONFIG_READ)) == NULL) {
		close(fd);
		return (NULL);
	}
	*lenp = langproc_read_fd(fd, buf, PY_CONFIG_READ);
	return (buf);
}

/* The appid of pid into out ("" when no rule matches). */
int
py_discover_appid(pid_t pid, char *out, size_t len)
{
	char path[64], cwd[PATH_MAX], *cmd;
	const char *argv[PY_ARGV_MAX];
	struct py_appid_env env;
	ssize_t n, i;
	int argc = 0, rc;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)pid);
	if ((n = readlink(path, cwd, sizeof(cwd) - 1)) <= 0)
		return (-ESRCH);
	cwd[n] = '\0';
	if ((cmd = malloc(PY_CMDLINE_MAX)) == NULL)
		return (-ENOMEM);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((n = langproc_read_small_file(path, cmd, PY_CMDLINE_MAX)) <= 0) {
		free(cmd);
		return (-ESRCH);
	}
	for (i = 0; i < n && argc < PY_ARGV_MAX; i++) {
		argv[argc++] = cmd + i;
		i += (ssize_t)strlen(cmd + i);
	}
	env.cwd = cwd;
	env.resolve = py_discover_resolve;
	env.read_file = py_discover_read_file;
	env.arg = (void *)(intptr_t)pid;
	rc = py_appid(argv, argc, &env, out, len);
	free(cmd);
	return (rc);
}
