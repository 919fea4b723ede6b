/*
 * The nodejs plugin: gProfiler's --nodejs-mode.
 *
 *   perf         node processes started with --perf-basic-prof write
 *                /tmp/perf-PID.map, which the perf plugin's symbolizer
 *                reads whatever this mode is; said once at start-up.
 *   attach-maps  additionally, each node process started WITHOUT it is
 *                made to write that map at run time, once per process:
 *                the short-lived helper nodejs-attach (nj_attach.c)
 *                opens its inspector with SIGUSR1, loads the perf map
 *                writer (nj_writer.c) with process.dlopen() and closes
 *                the inspector again (docs/RUNTIMES.md has the design
 *                and its risks).
 *
 * This plugin delivers no stacks of its own: perf's stacks of node
 * processes get their JS names from the map.  A process is left alone,
 * with one line saying why, when it already writes a map, when its user
 * opened an inspector (--inspect in its command line or NODE_OPTIONS),
 * or when port 9229 is taken in its network namespace.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "nj_proto.h"

#define NJ_SCAN_MS	2000	/* new node processes are seen within this */
#define NJ_HELPER_MS	15000	/* one helper run, then it is stopped */
#define NJ_TERM_GRACE	3000	/* SIGTERM: it closes the inspector, then
				 * SIGKILL after this */
#define NJ_NEXT_MS	50	/* the next process, after a helper ends */
#define NJ_MAX_PROCS	4096
#define NJ_READ_MAX	(256 * 1024)

#define NJ_MODE_PERF	1
#define NJ_MODE_ATTACH	2

struct nj_proc {
	int32_t		 pid;
	uint64_t	 starttime;
	int		 seen;
};

struct nj {
	struct gp_plugin_ctx	*ctx;
	const struct gp_host_api *api;
	int			 mode;
	int			 usable;	/* helper and writer found */
	char			 helper[PATH_MAX];
	char			 writer[PATH_MAX];
	struct gp_timer		*scan_timer;
	struct gp_timer		*kill_timer;
	struct gp_timer		*next_timer;
	int			 stopping;	/* stop_done when the helper ends */
	struct gp_child		*child;
	int32_t			 child_pid;	/* the target */
	char			 child_comm[64];
	char			 child_line[512];
	struct nj_proc		*procs;
	uint32_t		 nprocs;
	int			 full_said;
	uint32_t		 attached, left_alone;
	char			*rbuf;
};

static const struct gp_option nj_options[] = {
	{ "nodejs-mode", GP_OPT_ENUM, 0, "disabled", 0, 0,
	    "attach-maps|perf|disabled|none",
	    "Node.js: perf (name JS frames from the perf map of node "
	    "processes started with --perf-basic-prof), attach-maps (also "
	    "make node processes started without it write one, through "
	    "the inspector) or disabled (gProfiler's default)" },
};

/* A /proc file of pid through the host's safe open, NUL-terminated:
 * its length or -errno. */
static int64_t
nj_read_proc(struct nj *n, int32_t pid, const char *what)
{
	struct gp_open_spec	 spec;
	char			 path[64];
	int64_t			 got;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	memset(&spec, 0, sizeof(spec));
	spec.size = sizeof(spec);
	spec.path = path;
	spec.owner = -1;
	got = n->api->file_read(n->ctx, &spec, n->rbuf, NJ_READ_MAX - 1);
	if (got >= 0)
		n->rbuf[got] = '\0';
	return (got);
}

static uint64_t
nj_starttime(struct nj *n, int32_t pid)
{
	char	*p;
	int	 i;

	if (nj_read_proc(n, pid, "stat") <= 0 ||
	    (p = strrchr(n->rbuf, ')')) == NULL)
		return (0);
	for (i = 2; i < 22 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	return (p == NULL ? 0 : strtoull(p + 1, NULL, 10));
}

/* Whether pid runs a node binary (the comm may be a process.title). */
static int
nj_is_node(int32_t pid)
{
	char	 path[64], exe[PATH_MAX];
	ssize_t	 len;
	char	*b;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((len = readlink(path, exe, sizeof(exe) - 1)) <= 0)
		return (0);
	exe[len] = '\0';
	if ((b = strstr(exe, " (deleted)")) != NULL)
		*b = '\0';
	b = strrchr(exe, '/');
	b = b == NULL ? exe : b + 1;
	return (strcmp(b, "node") == 0 || strcmp(b, "nodejs") == 0);
}

static void
nj_comm(struct nj *n, int32_t pid, char *out, size_t len)
{
	snprintf(out, len, "?");
	if (nj_read_proc(n, pid, "comm") > 0) {
		n->rbuf[strcspn(n->rbuf, "\n")] = '\0';
		snprintf(out, len, "%s", n->rbuf);
	}
}

/* Why pid must be left alone (a line), or NULL to attach. */
static const char *
nj_reason(struct nj *n, int32_t pid, int *quiet)
{
	int64_t	 got;
	int	 r;

	*quiet = 0;
	if ((got = nj_read_proc(n, pid, "cmdline")) < 0)
		return ("its command line cannot be read");
	r = nj_args_check(n->rbuf, (size_t)got, 0);
	if (r == NJ_ARGS_PLAIN && (got = nj_read_proc(n, pid, "environ")) >= 0)
		r = nj_args_check(n->rbuf, (size_t)got, 1);
	if (r == NJ_ARGS_PERFMAP) {
		*quiet = 1;
		return ("it writes its perf map itself (--perf-basic-prof)");
	}
	if (r == NJ_ARGS_INSPECT)
		return ("its user enabled the inspector (--inspect or "
		    "--debug-port in its command line or NODE_OPTIONS), "
		    "which this agent does not take over");
	if (((got = nj_read_proc(n, pid, "net/tcp")) > 0 &&
	    nj_tcp_listening(n->rbuf, (size_t)got, NJ_INSPECT_PORT)) ||
	    ((got = nj_read_proc(n, pid, "net/tcp6")) > 0 &&
	    nj_tcp_listening(n->rbuf, (size_t)got, NJ_INSPECT_PORT)))
		return ("port 9229 is already in use in its network "
		    "namespace");
	return (NULL);
}

static void	nj_scan(void *);

static void
nj_scan_next(void *arg)
{
	struct nj *n = arg;

	n->next_timer = NULL;
	nj_scan(n);
}

static void
nj_kill_timeout(void *arg)
{
	struct nj *n = arg;

	n->kill_timer = NULL;
	if (n->child != NULL) {
		snprintf(n->child_line, sizeof(n->child_line), "error: the "
		    "helper did not finish within %u ms", NJ_HELPER_MS);
		/* SIGTERM first: the helper closes what it opened. */
		n->api->child_stop(n->child, SIGTERM, NJ_TERM_GRACE);
	}
}

static void
nj_child_line(void *arg, const char *line, size_t len)
{
	struct nj *n = arg;

	if (n->child_line[0] == '\0')
		snprintf(n->child_line, sizeof(n->child_line), "%.*s",
		    (int)len, line);
}

static void
nj_child_exit(void *arg, int status)
{
	struct nj *n = arg;

	n->child = NULL;
	n->api->timer_del(n->kill_timer);
	n->kill_timer = NULL;
	if (n->child_line[0] == '\0')
		snprintf(n->child_line, sizeof(n->child_line), "error: the "
		    "helper ended without a word (status %d)", status);
	if (status == 0 && strncmp(n->child_line, "ok", 2) == 0) {
		n->attached++;
		n->api->log(n->ctx, GP_LOG_INFO, "pid %d (%s): node now "
		    "writes /tmp/perf-PID.map (attach-maps: %s; its inspector "
		    "was closed again)", (int)n->child_pid, n->child_comm,
		    n->child_line);
	} else {
		n->left_alone++;
		n->api->log(n->ctx, GP_LOG_WARN, "pid %d (%s): attach-maps "
		    "left it alone, its JS frames stay unnamed: %s",
		    (int)n->child_pid, n->child_comm, n->child_line);
	}
	if (n->stopping) {
		n->stopping = 0;
		n->api->stop_done(n->ctx);
		return;
	}
	/* The next node process now, not at the next scan. */
	if (n->mode == NJ_MODE_ATTACH && n->next_timer == NULL)
		n->next_timer = n->api->timer_add(n->ctx, NJ_NEXT_MS, 0,
		    nj_scan_next, n);
}

static int
nj_spawn(struct nj *n, int32_t pid, uint64_t start)
{
	struct gp_child_spec	 spec;
	const char		*argv[5];
	char			 pidstr[16], startstr[24];

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	snprintf(startstr, sizeof(startstr), "%llu",
	    (unsigned long long)start);
	argv[0] = n->helper;
	argv[1] = pidstr;
	argv[2] = startstr;
	argv[3] = n->writer;
	argv[4] = NULL;
	memset(&spec, 0, sizeof(spec));
	spec.size = sizeof(spec);
	spec.argv = argv;
	spec.on_stdout_line = nj_child_line;
	spec.on_exit = nj_child_exit;
	spec.arg = n;
	spec.max_line = 1024;
	n->child_pid = pid;
	n->child_line[0] = '\0';
	nj_comm(n, pid, n->child_comm, sizeof(n->child_comm));
	if ((n->child = n->api->child_spawn(n->ctx, &spec)) == NULL) {
		n->api->log(n->ctx, GP_LOG_WARN, "pid %d: cannot run %s: %s",
		    (int)pid, n->helper, strerror(errno));
		return (-errno);
	}
	n->kill_timer = n->api->timer_add(n->ctx, NJ_HELPER_MS, 0,
	    nj_kill_timeout, n);
	return (0);
}

static struct nj_proc *
nj_find(struct nj *n, int32_t pid, uint64_t start)
{
	uint32_t	 i;

	for (i = 0; i < n->nprocs; i++)
		if (n->procs[i].pid == pid && n->procs[i].starttime == start)
			return (&n->procs[i]);
	return (NULL);
}

/* One pass over /proc: each node process is looked at once per
 * process (PID and start time), one helper at a time. */
static void
nj_scan(void *arg)
{
	struct nj	*n = arg;
	struct nj_proc	*pr;
	struct dirent	*de;
	const char	*why;
	char		 comm[64], *end;
	uint64_t	 start;
	uint32_t	 i;
	DIR		*d;
	long		 pid;
	int		 quiet;

	if ((d = opendir("/proc")) == NULL)
		return;
	for (i = 0; i < n->nprocs; i++)
		n->procs[i].seen = 0;
	while ((de = readdir(d)) != NULL) {
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0 || pid > INT32_MAX)
			continue;
		if (!nj_is_node((int32_t)pid) ||
		    (start = nj_starttime(n, (int32_t)pid)) == 0)
			continue;
		if ((pr = nj_find(n, (int32_t)pid, start)) != NULL) {
			pr->seen = 1;
			continue;
		}
		/* One helper at a time: the others at a later pass. */
		if (n->child != NULL)
			continue;
		if (!n->api->pid_wanted(n->ctx, (int32_t)pid))
			continue;
		if (n->nprocs == NJ_MAX_PROCS) {
			if (!n->full_said)
				n->api->log(n->ctx, GP_LOG_WARN, "more than %u "
				    "node processes: the others are not "
				    "attached to", NJ_MAX_PROCS);
			n->full_said = 1;
			continue;
		}
		pr = &n->procs[n->nprocs++];
		pr->pid = (int32_t)pid;
		pr->starttime = start;
		pr->seen = 1;
		if ((why = nj_reason(n, (int32_t)pid, &quiet)) != NULL) {
			nj_comm(n, (int32_t)pid, comm, sizeof(comm));
			n->left_alone += !quiet;
			n->api->log(n->ctx, quiet ? GP_LOG_DEBUG : GP_LOG_INFO,
			    "pid %d (%s): attach-maps leaves it alone: %s",
			    (int)pid, comm, why);
			continue;
		}
		(void)nj_spawn(n, (int32_t)pid, start);
	}
	closedir(d);
	/* Forget processes that are gone (a new one may reuse the PID). */
	for (i = 0; i < n->nprocs;)
		if (!n->procs[i].seen && !(n->child != NULL &&
		    n->procs[i].pid == n->child_pid))
			n->procs[i] = n->procs[--n->nprocs];
		else
			i++;
}

/*
 * Whether dir/nodejs holds the helper and the writer, and they are safe
 * to run as root and to hand to node: owned by root (or the agent's
 * user), writable by nobody else, as the plugin directory itself.
 */
static int
nj_files_in(struct nj *n, const char *dir, size_t dlen)
{
	struct stat	 st;
	char		 sub[PATH_MAX - 32];
	const char	*paths[3];
	int		 i;

	snprintf(sub, sizeof(sub), "%.*s/nodejs", (int)dlen, dir);
	snprintf(n->helper, sizeof(n->helper), "%s/nodejs-attach", sub);
	snprintf(n->writer, sizeof(n->writer), "%s/nodejs-perfmap.so", sub);
	paths[0] = sub;
	paths[1] = n->helper;
	paths[2] = n->writer;
	for (i = 0; i < 3; i++)
		if (stat(paths[i], &st) != 0 || (st.st_uid != 0 &&
		    st.st_uid != geteuid()) || (st.st_mode & 022) != 0)
			return (-ENOENT);
	return (access(n->helper, X_OK) == 0 ? 0 : -ENOENT);
}

/* The helper and the writer sit in "nodejs/" of a plugin directory:
 * --plugin-dir's (comma-joined when repeated), else the built-in one. */
static int
nj_find_files(struct nj *n)
{
	const char	*dirs = n->api->option_get(n->ctx, "plugin-dir");
	const char	*e;
	size_t		 len;

	while (dirs != NULL && *dirs != '\0') {
		len = strcspn(dirs, ",");
		if (len > 0 && nj_files_in(n, dirs, len) == 0)
			return (0);
		dirs += len + (dirs[len] == ',');
	}
	if ((e = getenv("GPROFILER_PLUGIN_SYSTEM_DIR")) != NULL && *e != '\0' &&
	    nj_files_in(n, e, strlen(e)) == 0)
		return (0);
	return (nj_files_in(n, PLUGINDIR, strlen(PLUGINDIR)));
}

/* Timers off and the helper told to stop (it closes the inspector it
 * opened); the records of processes already looked at are kept, so a
 * new run (SIGHUP) does not open their inspectors again. */
static void
nj_reset(struct nj *n)
{
	n->api->timer_del(n->scan_timer);
	n->scan_timer = NULL;
	n->api->timer_del(n->next_timer);
	n->next_timer = NULL;
	n->api->timer_del(n->kill_timer);
	n->kill_timer = NULL;
	if (n->child != NULL)
		n->api->child_stop(n->child, SIGTERM, NJ_TERM_GRACE);
}

static int
nj_start(void *priv)
{
	struct nj	*n = priv;
	const char	*m = n->api->option_get(n->ctx, "nodejs-mode");
	int		 rc;

	nj_reset(n);
	n->mode = m != NULL && strcmp(m, "attach-maps") == 0 ?
	    NJ_MODE_ATTACH : NJ_MODE_PERF;
	if (n->mode == NJ_MODE_PERF) {
		n->api->log(n->ctx, GP_LOG_INFO, "--nodejs-mode perf: node "
		    "processes started with --perf-basic-prof are named from "
		    "their /tmp/perf-PID.map by perf; jitdump files "
		    "(--perf-prof) are not read, and processes started "
		    "without the flag stay unnamed (--nodejs-mode "
		    "attach-maps names them)");
		return (0);
	}
	if ((rc = nj_find_files(n)) != 0) {
		n->api->log(n->ctx, GP_LOG_WARN, "--nodejs-mode attach-maps "
		    "cannot work: nodejs/nodejs-attach and "
		    "nodejs/nodejs-perfmap.so, owned by root and writable by "
		    "no one else, are in no plugin directory (the last looked "
		    "at: %s); node processes are named only when started "
		    "with --perf-basic-prof", PLUGINDIR);
		return (0);
	}
	n->api->log(n->ctx, GP_LOG_INFO, "--nodejs-mode attach-maps: node "
	    "processes (V8 11, node 20) started without --perf-basic-prof "
	    "are made to write /tmp/perf-PID.map through their inspector, "
	    "once each; see docs/RUNTIMES.md for what that loads into them");
	nj_scan(n);
	n->scan_timer = n->api->timer_add(n->ctx, NJ_SCAN_MS, 1, nj_scan, n);
	return (0);
}

static int
nj_snapshot(void *priv, struct gp_snapshot *snap)
{
	struct nj *n = priv;

	/* Nothing of its own to deliver: perf's stacks carry the names. */
	if (n->mode == NJ_MODE_ATTACH)
		n->api->log(n->ctx, GP_LOG_DEBUG, "%u node processes seen, "
		    "%u attached, %u left alone", n->nprocs, n->attached,
		    n->left_alone);
	n->api->snapshot_done(snap, 0, NULL);
	return (0);
}

static int
nj_stop(void *priv)
{
	struct nj *n = priv;

	nj_reset(n);
	n->mode = 0;
	if (n->child != NULL)
		n->stopping = 1;	/* stop_done from nj_child_exit */
	else
		n->api->stop_done(n->ctx);
	return (0);
}

static int
nj_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	struct nj *n;

	if (api->abi_major != GP_ABI_MAJOR)
		return (-EINVAL);
	if (!GP_API_HAS(api, file_open))
		return (-ENOTSUP);
	if ((n = calloc(1, sizeof(*n))) == NULL)
		return (-ENOMEM);
	n->ctx = ctx;
	n->api = api;
	n->procs = calloc(NJ_MAX_PROCS, sizeof(*n->procs));
	n->rbuf = malloc(NJ_READ_MAX);
	if (n->procs == NULL || n->rbuf == NULL) {
		free(n->procs);
		free(n->rbuf);
		free(n);
		return (-ENOMEM);
	}
	*privp = n;
	return (0);
}

static void
nj_destroy(void *priv)
{
	struct nj *n = priv;

	if (n == NULL)
		return;
	nj_reset(n);
	free(n->procs);
	free(n->rbuf);
	free(n);
}

GP_PLUGIN_EXPORT const struct gp_plugin gprofiler_plugin = {
	GP_PLUGIN_HEADER,
	.name = "nodejs",
	.version = "0.1.0",
	.build = "attach-maps through the inspector (V8 11)",
	.description = "Node.js JS frame names: perf maps, written at run "
	    "time when asked (--nodejs-mode attach-maps)",
	.kind = GP_KIND_PROCESS,
	.modes = GP_MODE_CPU,
	.options = nj_options,
	.option_size = sizeof(struct gp_option),
	.option_count = sizeof(nj_options) / sizeof(nj_options[0]),
	.init = nj_init,
	.start = nj_start,
	.snapshot = nj_snapshot,
	.stop = nj_stop,
	.destroy = nj_destroy,
};
