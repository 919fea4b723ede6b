/*
 * Per-process application metadata (docs/specs/gprofiler-compat.md §6, last
 * paragraph): the host's base {exe, execfn, arch}, merged with a plugin's
 * keys (the header's list of them: appmeta_set.c).
 *
 * The base is read once per image, not each cycle: the check that
 * AT_EXECFN's string is in anonymous memory reads the whole of
 * /proc/PID/maps (the string is on the stack, at the top of the address
 * space), thousands of lines of kernel work for a large process.  An
 * image is (pid, start time, executable's path, AT_EXECFN's address: each
 * exec's own stack); what is not asked for in a cycle is dropped at its
 * end (appmeta_sweep).
 */
#include "config.h"

#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "hash64.h"
#include "procstat.h"

#include "base/log.h"
#include "base/procfs.h"
#include "base/procstr.h"
#include "base/safeopen.h"
#include "base/xmalloc.h"
#include "meta/meta.h"

#define APPMETA_CACHE_MAX	4096	/* images kept between cycles */
#define APPMETA_BUCKETS		1024

struct appmeta_key {
	uint64_t start;		/* clock ticks since boot */
	uint64_t execfn;	/* AT_EXECFN's address (0: none) */
	uint64_t exe;		/* hash of the executable's path */
};

struct appmeta_entry {
	int32_t pid;
	struct appmeta_key key;
	struct json_object *base;
	uint32_t cycle;		/* the last one it was asked for in */
	struct appmeta_entry *next;
};

static struct appmeta_entry *appmeta_cache[APPMETA_BUCKETS];
static size_t appmeta_cached;
static uint32_t appmeta_cycle;

/* AT_EXECFN's address in pid (auxv): 0, or -errno. */
static int
appmeta_execfn_addr(int32_t pid, uint64_t *addr)
{
	char path[64], *aux;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	if ((rc = procfs_read(path, &aux, &len, 65536)) != 0)
		return (rc);
	rc = procfs_auxv_execfn((unsigned char *)aux, len, addr);
	free(aux);
	return (rc);
}

/* The string at addr in the process (at most outsz - 1 bytes). */
static int
appmeta_execfn(int32_t pid, uint64_t addr, char *out, size_t outsz)
{
	struct iovec local, remote;
	ssize_t n;
	int rc;

	if (addr == 0)
		return (-ENOENT);
	if ((rc = procstr_range_anon(pid, addr, outsz)) != 0)
		return (rc);
	local.iov_base = out;
	local.iov_len = outsz - 1;
	remote.iov_base = (void *)(uintptr_t)addr;
	remote.iov_len = outsz - 1;
	/* Short reads at a page end are fine: the string ends before. */
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n <= 0) {
		remote.iov_len = local.iov_len = 256;
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	}
	if (n <= 0)
		return (-errno);
	out[n] = '\0';
	if (memchr(out, '\0', n) == NULL)
		return (-EINVAL);
	return (0);
}

static const char *
appmeta_arch(int32_t pid)
{
	char path[64];
	unsigned char hdr[64];
	ssize_t n;
	const char *a;
	struct gp_open_spec spec;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	spec = (struct gp_open_spec){
		.size = sizeof(spec),
		.flags = GP_OPEN_PROC_LINK,
		.path = path,
		.owner = -1,
	};
	n = safeopen_read(&spec, hdr, sizeof(hdr));
	if (n <= 0)
		return (NULL);
	a = procfs_elf_arch(hdr, n);
	return (a);
}

/* pid's image now, and its executable's path: 0, or -ESRCH. */
static int
appmeta_image(int32_t pid, struct appmeta_key *k, char *exe, size_t exesz)
{
	char path[64], *stat;
	size_t len;
	ssize_t n;
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((n = readlink(path, exe, exesz - 1)) <= 0)
		return (-ESRCH);
	exe[n] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (procfs_read(path, &stat, &len, 4096) != 0)
		return (-ESRCH);
	rc = procstat_u64(stat, len, 22, &k->start);
	free(stat);
	if (rc != 0)
		return (-ESRCH);
	k->exe = hash64_fmix(hash64_bytes(HASH64_INIT, exe, (size_t)n));
	if (appmeta_execfn_addr(pid, &k->execfn) != 0)
		k->execfn = 0;
	return (0);
}

/* {exe, execfn, arch} of image k of pid, read now.  Caller owns.
 * *deferred: execfn was not checked (the maps budget), not for keeps. */
static struct json_object *
appmeta_read(int32_t pid, const struct appmeta_key *k, const char *exe,
    int *deferred)
{
	static struct complain remote;
	struct json_object *o;
	char fn[PATH_MAX];
	const char *arch;
	int rc;

	o = json_object_new_object();
	json_object_object_add(o, "exe", json_object_new_string(exe));
	rc = appmeta_execfn(pid, k->execfn, fn, sizeof(fn));
	*deferred = rc == -EAGAIN;
	if (rc == -EREMOTE)
		log_complain(&remote, LOG_LEVEL_WARN, "metadata", "pid %d: "
		    "its AT_EXECFN string is in a page mapped from a file "
		    "(one on FUSE would hold the reader): not read, execfn "
		    "left null", (int)pid);
	json_object_object_add(o, "execfn", rc == 0 ?
	    json_object_new_string(fn) : NULL);
	arch = appmeta_arch(pid);
	json_object_object_add(o, "arch", arch != NULL ?
	    json_object_new_string(arch) : NULL);
	return (o);
}

/* {exe, execfn, arch} of pid; NULL if the process is gone.  Caller owns
 * (a reference to the cached object: not to be changed). */
struct json_object *
appmeta_base(int32_t pid)
{
	struct appmeta_entry **b = &appmeta_cache[(uint32_t)pid %
	    APPMETA_BUCKETS], *e;
	struct appmeta_key k;
	char exe[PATH_MAX];
	int deferred;

	if (appmeta_image(pid, &k, exe, sizeof(exe)) != 0)
		return (NULL);
	for (e = *b; e != NULL; e = e->next)
		if (e->pid == pid)
			break;
	if (e != NULL && memcmp(&e->key, &k, sizeof(k)) == 0) {
		e->cycle = appmeta_cycle;
		return (json_object_get(e->base));
	}
	if (e == NULL && appmeta_cached < APPMETA_CACHE_MAX) {
		e = xcalloc(1, sizeof(*e));
		e->pid = pid;
		e->next = *b;
		*b = e;
		appmeta_cached++;
	}
	if (e == NULL)
		return (appmeta_read(pid, &k, exe, &deferred));
	json_object_put(e->base);
	e->key = k;
	e->base = appmeta_read(pid, &k, exe, &deferred);
	e->cycle = appmeta_cycle;
	if (deferred)	/* a key no image has: read again next cycle */
		memset(&e->key, 0, sizeof(e->key));
	return (json_object_get(e->base));
}

void
appmeta_sweep(void)
{
	struct appmeta_entry **pp, *e;
	size_t i;

	for (i = 0; i < APPMETA_BUCKETS; i++)
		for (pp = &appmeta_cache[i]; (e = *pp) != NULL;) {
			if (e->cycle == appmeta_cycle) {
				pp = &e->next;
				continue;
			}
			*pp = e->next;
			json_object_put(e->base);
			free(e);
			appmeta_cached--;
		}
	appmeta_cycle++;
}

/* Base merged with the plugin's keys (theirs win).  Caller owns. */
struct json_object *
appmeta_for_pid(int32_t pid, struct json_object *extra)
{
	struct json_object *base = appmeta_base(pid), *o = NULL;

	if (extra == NULL)
		return (base);	/* NULL if gone */
	/* the base is the cache's: the plugin's keys go into a copy */
	if (base == NULL || json_object_deep_copy(base, &o, NULL) != 0) {
		json_object_put(o);
		o = json_object_new_object();
	}
	json_object_put(base);
	if (json_object_is_type(extra, json_type_object)) {
		json_object_object_foreach(extra, k, v)
			json_object_object_add(o, k, json_object_get(v));
	}
	return (o);
}
