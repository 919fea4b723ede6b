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
 * when port 9229 is taken in its network namespace, or when that
 * namespace holds processes of other users (the inspector, open for the
 * attach, would run their code as the target's user) unless
 * --nodejs-attach-shared-netns says so.
 *
 * Helpers run in parallel (NJ_SLOTS, at most one per network namespace,
 * since they all use its port 9229, and NJ_SLOTS_PER_UID per target
 * user), each stopped at NJ_HELPER_MS, oldest process first: processes
 * that pretend to be node and hold a helper until its deadline cannot
 * starve the others.  A helper that failed is tried again later
 * (NJ_RETRY_MS, doubling, NJ_TRIES in all); a refusal is final.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "clockns.h"
#include "langplug.h"
#include "langproc.h"
#include "nj_proto.h"
#include "nj_int.h"

static const struct gp_option nj_options[] = {
	{ "nodejs-mode", GP_OPT_ENUM, 0, "disabled", 0, 0,
	    "attach-maps|perf|disabled|none",
	    "Node.js: perf (name JS frames from the perf map of node "
	    "processes started with --perf-basic-prof), attach-maps (also "
	    "make node processes started without it write one, through "
	    "the inspector) or disabled (gProfiler's default)" },
	{ "nodejs-attach-shared-netns", GP_OPT_BOOL, 0, "false", 0, 0, NULL,
	    "with --nodejs-mode attach-maps, also attach to node processes "
	    "whose network namespace holds processes of other users (the "
	    "host's, on a multi-user host): for the ~100 ms of the attach "
	    "their inspector on 127.0.0.1:9229 is open to all of them, and "
	    "any of them could run code in it as its user (root's too); "
	    "off by default: such processes are left alone" },
};

static uint64_t
nj_now_ms(void)
{
	return (clock_ns(CLOCK_MONOTONIC) / 1000000);
}

/* What the helper left in the target's /tmp, if it was stopped before it
 * could remove it: removed through the directory the agent holds, if the
 * helper's /tmp is that very directory. */
static void
nj_remove_copy(struct nj_slot *sl)
{
	struct nj *n = sl->n;
	struct stat st;

	if (sl->copy[0] == '\0' || sl->tmpfd == -1)
		return;
	if (fstat(sl->tmpfd, &st) != 0 ||
	    (unsigned long long)st.st_dev != sl->copy_dev ||
	    (unsigned long long)st.st_ino != sl->copy_ino) {
		n->api->log(n->ctx, GP_LOG_WARN, "pid %d (%s): its helper "
		    "copied the writer into a /tmp that is not the one the "
		    "agent holds; /tmp/%s may be left there", (int)sl->pid,
		    sl->comm, sl->copy);
		return;
	}
	if (fstatat(sl->tmpfd, sl->copy, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st.st_mode))
		return;		/* the helper removed it */
	if (unlinkat(sl->tmpfd, sl->copy, 0) == 0)
		n->api->log(n->ctx, GP_LOG_INFO, "pid %d (%s): removed /tmp/%s, "
		    "the copy of the perf map writer its helper left behind",
		    (int)sl->pid, sl->comm, sl->copy);
	else
		n->api->log(n->ctx, GP_LOG_WARN, "pid %d (%s): cannot remove "
		    "/tmp/%s, the copy of the perf map writer its helper left "
		    "behind: %s", (int)sl->pid, sl->comm, sl->copy,
		    strerror(errno));
}

static void nj_fill(struct nj *);

static void
nj_fill_next(void *arg)
{
	struct nj *n = arg;

	n->next_timer = NULL;
	nj_fill(n);
}

static void
nj_kill_timeout(void *arg)
{
	struct nj_slot *sl = arg;

	sl->kill_timer = NULL;
	if (sl->child != NULL) {
		snprintf(sl->line, sizeof(sl->line), "error: the helper did "
		    "not finish within %u ms", NJ_HELPER_MS);
		/* SIGTERM first: the helper closes what it opened. */
		sl->n->api->child_stop(sl->child, SIGTERM, NJ_TERM_GRACE);
	}
}

/* "copy NAME DEV INO": the helper is about to create NAME in the
 * target's /tmp.  The name is checked: it is unlinked as root. */
static void
nj_child_copy(struct nj_slot *sl, const char *line, size_t len)
{
	static const char pre[] = ".gprofiler-nodejs-perfmap-";
	char buf[160], name[64];
	unsigned long long dev, ino;

	if (len >= sizeof(buf))
		return;
	memcpy(buf, line, len);
	buf[len] = '\0';
	if (sscanf(buf, "copy %63s %llu %llu", name, &dev, &ino) != 3 ||
	    strncmp(name, pre, sizeof(pre) - 1) != 0 ||
	    strspn(name + sizeof(pre) - 1, "0123456789abcdef-") !=
	    strlen(name) - (sizeof(pre) - 1) - 3 ||
	    strcmp(name + strlen(name) - 3, ".so") != 0)
		return;
	snprintf(sl->copy, sizeof(sl->copy), "%s", name);
	sl->copy_dev = dev;
	sl->copy_ino = ino;
}

static void
nj_child_line(void *arg, const char *line, size_t len)
{
	struct nj_slot *sl = arg;

	if (len > 5 && memcmp(line, "copy ", 5) == 0 && !sl->copy_said) {
		sl->copy_said = 1;
		nj_child_copy(sl, line, len);
		return;
	}
	if (sl->line[0] == '\0')
		snprintf(sl->line, sizeof(sl->line), "%.*s", (int)len, line);
}

static struct nj_proc *
nj_find(struct nj *n, int32_t pid, uint64_t start)
{
	struct langtab_proc *lp = langtab_find(&n->tab, pid);

	return (lp != NULL && lp->starttime == start ? (struct nj_proc *)lp :
	    NULL);
}

static void
nj_child_exit(void *arg, int status)
{
	struct nj_slot *sl = arg;
	struct nj *n = sl->n;
	struct nj_proc *pr;
	uint64_t wait;
	int again = 0;

	sl->child = NULL;
	n->running--;
	n->api->timer_del(sl->kill_timer);
	sl->kill_timer = NULL;
	nj_remove_copy(sl);
	if (sl->tmpfd != -1)
		close(sl->tmpfd);
	sl->tmpfd = -1;
	if (sl->line[0] == '\0')
		snprintf(sl->line, sizeof(sl->line), "error: the helper ended "
		    "without a word (status %d)", status);
	pr = nj_find(n, sl->pid, sl->start);
	if (status == 0 && strncmp(sl->line, "ok", 2) == 0) {
		n->attached++;
		n->api->log(n->ctx, GP_LOG_INFO, "pid %d (%s): node now "
		    "writes /tmp/perf-PID.map (attach-maps: %s; its inspector "
		    "was closed again)", (int)sl->pid, sl->comm, sl->line);
	} else if (pr != NULL && strncmp(sl->line, "error", 5) == 0 &&
	    pr->tries < NJ_TRIES && !n->stopping) {
		/* Maybe a loaded host: later, not every scan. */
		again = 1;
		wait = (uint64_t)NJ_RETRY_MS << (pr->tries - 1);
		pr->not_before = nj_now_ms() + wait;
		n->api->log(n->ctx, GP_LOG_WARN, "pid %d (%s): attach-maps "
		    "failed (attempt %u of %u, the next in %llu s): %s",
		    (int)sl->pid, sl->comm, pr->tries, NJ_TRIES,
		    (unsigned long long)wait / 1000, sl->line);
	} else if (n->stopping) {
		/* Ended by the stop, not by node: nothing to warn about. */
		n->api->log(n->ctx, GP_LOG_INFO, "pid %d (%s): attach-maps "
		    "stopped with the run (the helper's last word: %s)",
		    (int)sl->pid, sl->comm, sl->line);
	} else {
		n->left_alone++;
		n->api->log(n->ctx, GP_LOG_WARN, "pid %d (%s): attach-maps "
		    "left it alone, its JS frames stay unnamed: %s",
		    (int)sl->pid, sl->comm, sl->line);
	}
	if (pr != NULL)
		pr->att = again ? NJ_WAIT : NJ_DONE;
	if (n->stopping) {
		if (n->running == 0) {
			n->stopping = 0;
			n->api->stop_done(n->ctx);
		}
		return;
	}
	/* The next node process now, not at the next scan. */
	if (n->mode == NJ_MODE_ATTACH && n->next_timer == NULL)
		n->next_timer = n->api->timer_add(n->ctx, NJ_NEXT_MS, 0,
		    nj_fill_next, n);
}

static int
nj_spawn(struct nj *n, struct nj_slot *sl, struct nj_proc *pr)
{
	struct gp_child_spec spec;
	const char *argv[5];
	char pidstr[16], startstr[24];
	int fd;

	memset(sl, 0, sizeof(*sl));
	sl->n = n;
	sl->pid = pr->lp.pid;
	sl->start = pr->lp.starttime;
	sl->netns = pr->netns;
	sl->uid = pr->uid;
	sl->tmpfd = -1;
	nj_comm(n, pr->lp.pid, sl->comm, sizeof(sl->comm));
	if ((fd = nj_open_tmp(pr->lp.pid)) < 0) {
		n->left_alone++;
		n->api->log(n->ctx, GP_LOG_WARN, "pid %d (%s): attach-maps "
		    "left it alone, its JS frames stay unnamed: its /tmp "
		    "cannot be opened: %s", (int)pr->lp.pid, sl->comm,
		    strerror(-fd));
		return (fd);
	}
	sl->tmpfd = fd;
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pr->lp.pid);
	snprintf(startstr, sizeof(startstr), "%llu",
	    (unsigned long long)pr->lp.starttime);
	argv[0] = n->helper;
	argv[1] = pidstr;
	argv[2] = startstr;
	argv[3] = n->writer;
	argv[4] = NULL;
	spec = (struct gp_child_spec){
		.size = sizeof(spec), .argv = argv,
		.on_stdout_line = nj_child_line, .on_exit = nj_child_exit,
		.arg = sl, .max_line = 1024,
	};
	if ((sl->child = n->api->child_spawn(n->ctx, &spec)) == NULL) {
		fd = -errno;
		n->api->log(n->ctx, GP_LOG_WARN, "pid %d: cannot run %s: %s",
		    (int)pr->lp.pid, n->helper, strerror(-fd));
		close(sl->tmpfd);
		sl->tmpfd = -1;
		return (fd);
	}
	n->running++;
	pr->tries++;
	pr->att = NJ_RUN;
	sl->kill_timer = n->api->timer_add(n->ctx, NJ_HELPER_MS, 0,
	    nj_kill_timeout, sl);
	return (0);
}

/* Whether a helper may start for pr now: one per network namespace
 * (they would all use its port 9229), NJ_SLOTS_PER_UID per user. */
static int
nj_may_start(struct nj *n, const struct nj_proc *pr)
{
	int i, same_uid = 0;

	for (i = 0; i < NJ_SLOTS; i++) {
		if (n->slots[i].child == NULL)
			continue;
		if (n->slots[i].netns == pr->netns)
			return (0);
		same_uid += n->slots[i].uid == pr->uid;
	}
	return (same_uid < NJ_SLOTS_PER_UID);
}

/* Start helpers for the waiting processes, oldest first, while slots are
 * free. */
static void
nj_fill(struct nj *n)
{
	struct nj_proc *pr, *best;
	struct nj_slot *sl;
	uint64_t now = nj_now_ms();
	uint32_t i, ouid, uid;
	uint64_t netns;
	int32_t opid;
	int k, r, usr1;
	char comm[64];

	while (n->mode == NJ_MODE_ATTACH && !n->stopping &&
	    n->running < NJ_SLOTS) {
		best = NULL;
		for (i = 0; i < n->tab.n; i++) {
			pr = (struct nj_proc *)n->tab.procs[i];
			if (pr->lp.state != LANGTAB_ACTIVE ||
			    pr->att != NJ_WAIT || pr->not_before > now ||
			    (best != NULL && pr->seq > best->seq) ||
			    !nj_may_start(n, pr))
				continue;
			best = pr;
		}
		if ((pr = best) == NULL)
			return;
		/* Its namespace and user now, not at first sight. */
		if (nj_proc_ns_uid(n, pr->lp.pid, &netns, &uid, &usr1) != 0) {
			pr->att = NJ_DONE;
			continue;
		}
		/* A node still starting has no SIGUSR1 handler yet: look
		 * again a little later (the helper would refuse it for
		 * good). */
		if (!usr1 && pr->young_looks < NJ_YOUNG_LOOKS) {
			pr->young_looks++;
			pr->not_before = now + NJ_YOUNG_MS;
			continue;
		}
		if (netns != pr->netns || uid != pr->uid) {
			pr->netns = netns;
			pr->uid = uid;
			if (!nj_may_start(n, pr))
				continue;
		}
		if (!n->shared_ok && (r = nj_netns_shared(n, pr->lp.pid, uid,
		    &ouid, &opid)) != 0) {
			pr->att = NJ_DONE;
			n->left_alone++;
			nj_comm(n, pr->lp.pid, comm, sizeof(comm));
			if (r > 0)
				n->api->log(n->ctx, GP_LOG_WARN, "pid %d (%s): "
				    "attach-maps leaves it alone: its network "
				    "namespace (net:[%llu]) holds processes of "
				    "other users (uid %u, pid %d), who could "
				    "use its inspector on 127.0.0.1:9229 while "
				    "it is open and run code as uid %u; "
				    "--nodejs-attach-shared-netns allows it "
				    "(see docs/RUNTIMES.md)", (int)pr->lp.pid,
				    comm, (unsigned long long)netns, ouid,
				    (int)opid, uid);
			else
				n->api->log(n->ctx, GP_LOG_WARN, "pid %d (%s): "
				    "attach-maps leaves it alone: whether its "
				    "network namespace holds processes of "
				    "other users cannot be told (over %u "
				    "namespaces); --nodejs-attach-shared-netns "
				    "allows it (see docs/RUNTIMES.md)",
				    (int)pr->lp.pid, comm, NJ_MAX_NETNS);
			continue;
		}
		for (k = 0; k < NJ_SLOTS && n->slots[k].child != NULL; k++)
			;
		sl = &n->slots[k];
		if (nj_spawn(n, sl, pr) != 0)
			pr->att = NJ_DONE;
	}
}

/* Whether pid runs node, by its executable's name: before its stat, so
 * that a walk costs other processes one readlink. */
static int
nj_candidate(void *arg, pid_t pid)
{
	(void)arg;
	return (nj_is_node((int32_t)pid));
}

/* A node process met: where it stands at first sight (its namespace,
 * its user, whether it must be left alone). */
static void
nj_examine(void *arg, struct langtab_proc *lp, double age)
{
	struct nj *n = arg;
	struct nj_proc *pr = (struct nj_proc *)lp;
	const char *why;
	char comm[64];
	int quiet;

	(void)age;
	lp->state = LANGTAB_NEW;	/* unreadable now: the next scan */
	if (nj_proc_ns_uid(n, lp->pid, &pr->netns, &pr->uid, NULL) != 0)
		return;
	lp->state = LANGTAB_ACTIVE;
	pr->seq = n->seq++;
	pr->att = NJ_WAIT;
	if ((why = nj_reason(n, lp->pid, &quiet)) == NULL)
		return;
	pr->att = NJ_DONE;
	nj_comm(n, lp->pid, comm, sizeof(comm));
	n->left_alone += !quiet;
	n->api->log(n->ctx, quiet ? GP_LOG_DEBUG : GP_LOG_INFO, "pid %d (%s): "
	    "attach-maps leaves it alone: %s", (int)lp->pid, comm, why);
}

static void
nj_release(void *arg, struct langtab_proc *lp)
{
	(void)arg;
	free(lp);
}

static const struct langfind_ops nj_find_ops = {
	.proc_size = sizeof(struct nj_proc),
	.rescan_ms = 0,		/* its own timer: no reports wanted */
	.examine = nj_examine,
	.candidate = nj_candidate,
};

/* One pass over /proc (langfind): each node process is recorded once per
 * process (PID, start time and executable) and waits for a helper; the
 * vanished are forgotten (a new one may reuse the PID). */
static void
nj_scan(void *arg)
{
	struct nj *n = arg;

	n->ns_valid = 0;	/* the users of each namespace, again */
	langfind_scan(&n->find);
	if (n->tab.n >= LANGTAB_MAX && !n->full_said) {
		n->api->log(n->ctx, GP_LOG_WARN, "more than %u node processes: "
		    "the others are not attached to", LANGTAB_MAX);
		n->full_said = 1;
	}
	nj_fill(n);
}

/*
 * Whether dir/nodejs holds the helper and the writer, and they are safe
 * to run as root and to hand to node: owned by root (or the agent's
 * user), writable by nobody else, as the plugin directory itself.  Their
 * paths are absolute (a relative --plugin-dir too): the helper is spawned
 * by path, and the writer's is handed to node, whose directory is not
 * ours.
 */
static int
nj_files_in(struct nj *n, const char *dir, size_t dlen)
{
	struct stat st;
	char rel[PATH_MAX], sub[PATH_MAX - 32];
	const char *paths[3];
	int i;

	snprintf(rel, sizeof(rel), "%.*s/nodejs", (int)dlen, dir);
	if (realpath(rel, sub) == NULL)
		return (-ENOENT);
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
	const char *dirs = n->api->option_get(n->ctx, "plugin-dir");
	const char *e;
	size_t len;

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

/* Timers off and the helpers told to stop (each closes the inspector it
 * opened and removes its copy); the records of processes already looked
 * at are kept, so a new run (SIGHUP) does not open their inspectors
 * again. */
static void
nj_reset(struct nj *n)
{
	int i;

	n->api->timer_del(n->scan_timer);
	n->scan_timer = NULL;
	n->api->timer_del(n->next_timer);
	n->next_timer = NULL;
	for (i = 0; i < NJ_SLOTS; i++) {
		n->api->timer_del(n->slots[i].kill_timer);
		n->slots[i].kill_timer = NULL;
		if (n->slots[i].child != NULL)
			n->api->child_stop(n->slots[i].child, SIGTERM,
			    NJ_TERM_GRACE);
	}
}

static int
nj_start(void *priv)
{
	struct nj *n = priv;
	const char *m = n->api->option_get(n->ctx, "nodejs-mode");
	int rc;

	nj_reset(n);
	n->mode = m != NULL && strcmp(m, "attach-maps") == 0 ?
	    NJ_MODE_ATTACH : NJ_MODE_PERF;
	n->shared_ok = n->api->option_get_bool(n->ctx,
	    "nodejs-attach-shared-netns") > 0;
	if (n->mode == NJ_MODE_PERF) {
		/* The mode in force, as --help and the uploaded arguments
		 * name it (disabled by default): perf names the same
		 * processes in both. */
		n->api->log(n->ctx, GP_LOG_INFO, "--nodejs-mode %s: node "
		    "processes started with --perf-basic-prof are named from "
		    "their /tmp/perf-PID.map by perf; jitdump files "
		    "(--perf-prof) are not read, and processes started "
		    "without the flag stay unnamed (--nodejs-mode "
		    "attach-maps names them)", m != NULL ? m : "disabled");
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
	if (n->shared_ok)
		n->api->log(n->ctx, GP_LOG_WARN, "--nodejs-attach-shared-netns: "
		    "node processes whose network namespace holds processes "
		    "of other users are attached to too; each of those users "
		    "can reach their inspector while it is open (about 100 ms "
		    "per process) and run code as their user");
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
		    "%u attached, %u left alone", n->tab.n, n->attached,
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
	if (n->running > 0)
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
	int i, rc;

	if ((n = langplug_new(api, sizeof(*n), &rc)) == NULL)
		return (rc);
	n->ctx = ctx;
	n->api = api;
	for (i = 0; i < NJ_SLOTS; i++)
		n->slots[i].tmpfd = -1;
	rc = langtab_init(&n->tab, nj_release, NULL);
	n->ns = calloc(NJ_MAX_NETNS, sizeof(*n->ns));
	n->rbuf = malloc(NJ_READ_MAX);
	if (rc != 0 || n->ns == NULL || n->rbuf == NULL) {
		langtab_free(&n->tab);
		free(n->ns);
		free(n->rbuf);
		free(n);
		return (-ENOMEM);
	}
	langfind_init(&n->find, &n->tab, api, ctx, &nj_find_ops, n);
	/* the finder's reads of /proc, through the host's safe open */
	langproc_set_opener(langplug_open, ctx);
	*privp = n;
	return (0);
}

static void
nj_destroy(void *priv)
{
	struct nj *n = priv;
	int i;

	if (n == NULL)
		return;
	nj_reset(n);
	/* A helper still running (past the host's stop bound) is killed
	 * here, not by the host after us: its copy is ours to remove. */
	for (i = 0; i < NJ_SLOTS; i++) {
		if (n->slots[i].child != NULL) {
			n->api->child_stop(n->slots[i].child, SIGKILL, 0);
			nj_remove_copy(&n->slots[i]);
		}
		if (n->slots[i].tmpfd != -1)
			close(n->slots[i].tmpfd);
	}
	langtab_free(&n->tab);
	free(n->ns);
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
