/*
 * Which users share a node process's network namespace: the inspector
 * attach-maps opens on its 127.0.0.1:9229 is reachable by every one of
 * them, so a namespace with other users' processes is refused unless
 * --nodejs-attach-shared-netns (docs/SECURITY.md).  One pass over /proc
 * per scan, built only when a process is about to be attached.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <linux/openat2.h>

#include <ctype.h>
#include <dirent.h>
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

#include "nj_proto.h"
#include "nj_int.h"

/* The inode of pid's network namespace, its effective uid and whether
 * it catches SIGUSR1 yet (usr1 may be NULL): 0, or -errno (it is gone). */
int
nj_proc_ns_uid(struct nj *n, int32_t pid, uint64_t *netns, uint32_t *uid,
    int *usr1p)
{
	struct stat st;
	char path[64];
	uint32_t gid;
	int64_t got;
	int usr1;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	if (stat(path, &st) != 0)
		return (-errno);
	if ((got = nj_read_proc(n, pid, "status")) <= 0 ||
	    nj_status_parse(n->rbuf, (size_t)got, uid, &gid, &usr1) != 0)
		return (-ESRCH);
	*netns = (uint64_t)st.st_ino;
	if (usr1p != NULL)
		*usr1p = usr1;
	return (0);
}

static struct nj_netns *
nj_netns_find(struct nj *n, uint64_t dev, uint64_t ino)
{
	uint32_t i;

	for (i = 0; i < n->nns; i++)
		if (n->ns[i].ino == ino && n->ns[i].dev == dev)
			return (&n->ns[i]);
	return (NULL);
}

/* Whether pid is one of this plugin's helpers (they run as the target's
 * user in its namespace: they are not other users). */
static int
nj_is_helper(struct nj *n, int32_t pid)
{
	int i;

	for (i = 0; i < NJ_SLOTS; i++)
		if (n->slots[i].child != NULL &&
		    n->api->child_pid(n->slots[i].child) == pid)
			return (1);
	return (0);
}

/*
 * Which users have processes in which network namespace: one pass over
 * /proc (a stat of ns/net and a read of status per process), at most
 * once per scan and only when a process is about to be attached to.
 * Every uid of a process counts (real, effective, saved, fs), and the
 * uid is read from status: a process that made itself non-dumpable
 * shows /proc/PID as root's, not its status.
 */
static void
nj_netns_build(struct nj *n)
{
	struct nj_netns *e;
	struct dirent *de;
	struct stat st;
	char path[64], *end;
	uint32_t uids[4];
	int64_t got;
	long pid;
	DIR *d;
	int k;

	n->nns = 0;
	n->ns_full = 0;
	n->ns_valid = 1;
	if ((d = opendir("/proc")) == NULL) {
		n->ns_full = 1;		/* nothing can be told */
		return;
	}
	while ((de = readdir(d)) != NULL) {
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0 || pid > INT32_MAX ||
		    nj_is_helper(n, (int32_t)pid))
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
		if (stat(path, &st) != 0 ||
		    (got = nj_read_proc(n, (int32_t)pid, "status")) <= 0 ||
		    nj_status_uids(n->rbuf, (size_t)got, uids) != 0)
			continue;	/* gone, or a kernel thread */
		if ((e = nj_netns_find(n, (uint64_t)st.st_dev,
		    (uint64_t)st.st_ino)) == NULL) {
			if (n->nns == NJ_MAX_NETNS) {
				n->ns_full = 1;
				continue;
			}
			e = &n->ns[n->nns++];
			e->dev = (uint64_t)st.st_dev;
			e->ino = (uint64_t)st.st_ino;
			e->uid = NJ_NOUID;
			e->pid = 0;
			e->multi = 0;
		}
		for (k = 0; k < 4; k++) {
			if (uids[k] == 0)
				continue;	/* root can do anything anyway */
			if (e->uid == NJ_NOUID) {
				e->uid = uids[k];
				e->pid = (int32_t)pid;
			} else if (uids[k] != e->uid)
				e->multi = 1;
		}
	}
	closedir(d);
}

/*
 * Whether pid's network namespace holds processes of users other than
 * uid (and root): 1 and one of them in *ouid, *opid; 0 no; -1 cannot be
 * told (the table is full, pid is gone).
 */
int
nj_netns_shared(struct nj *n, int32_t pid, uint32_t uid, uint32_t *ouid,
    int32_t *opid)
{
	struct nj_netns *e;
	struct stat st;
	char path[64], *end;
	uint32_t uids[4];
	struct dirent *de;
	int64_t got;
	long p;
	DIR *d;
	int k;

	if (!n->ns_valid)
		nj_netns_build(n);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	if (stat(path, &st) != 0)
		return (-1);
	if ((e = nj_netns_find(n, (uint64_t)st.st_dev,
	    (uint64_t)st.st_ino)) == NULL)
		return (n->ns_full ? -1 : 0);
	if (!e->multi && (e->uid == NJ_NOUID || e->uid == uid))
		return (0);
	*ouid = e->uid;
	*opid = e->pid;
	if (e->uid != uid)
		return (1);
	/* The one recorded is the target's user: find another (rare, and
	 * only to name it in the line). */
	*ouid = NJ_NOUID;
	*opid = 0;
	if ((d = opendir("/proc")) == NULL)
		return (1);
	while ((de = readdir(d)) != NULL && *opid == 0) {
		p = strtol(de->d_name, &end, 10);
		if (*end != '\0' || p <= 0 || p > INT32_MAX)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ns/net", p);
		if (stat(path, &st) != 0 || (uint64_t)st.st_ino != e->ino ||
		    (uint64_t)st.st_dev != e->dev ||
		    (got = nj_read_proc(n, (int32_t)p, "status")) <= 0 ||
		    nj_status_uids(n->rbuf, (size_t)got, uids) != 0)
			continue;
		for (k = 0; k < 4; k++)
			if (uids[k] != 0 && uids[k] != uid) {
				*ouid = uids[k];
				*opid = (int32_t)p;
				break;
			}
	}
	closedir(d);
	return (1);
}

