/*
 * Per-process application metadata (docs/specs/gprofiler-compat.md §6, last
 * paragraph): the host's base {exe, execfn, arch}, merged with a plugin's
 * keys, and the header's deduplicated "application_metadata" list.
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

#include "base/log.h"
#include "base/procfs.h"
#include "base/procstr.h"
#include "base/safeopen.h"
#include "meta/meta.h"

/* AT_EXECFN's string in the process (at most PATH_MAX bytes). */
static int
appmeta_execfn(int32_t pid, char *out, size_t outsz)
{
	char path[64], *aux;
	size_t len;
	uint64_t addr;
	struct iovec local, remote;
	ssize_t n;
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	if ((rc = procfs_read(path, &aux, &len, 65536)) != 0)
		return (rc);
	rc = procfs_auxv_execfn((unsigned char *)aux, len, &addr);
	free(aux);
	if (rc != 0)
		return (rc);
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

/* {exe, execfn, arch} of pid; NULL if the process is gone.  Caller owns. */
struct json_object *
appmeta_base(int32_t pid)
{
	static struct complain remote;
	struct json_object *o;
	char path[64], exe[PATH_MAX], fn[PATH_MAX];
	const char *arch;
	ssize_t n;
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((n = readlink(path, exe, sizeof(exe) - 1)) <= 0)
		return (NULL);
	exe[n] = '\0';
	o = json_object_new_object();
	json_object_object_add(o, "exe", json_object_new_string(exe));
	rc = appmeta_execfn(pid, fn, sizeof(fn));
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

/* Base merged with the plugin's keys (theirs win).  Caller owns. */
struct json_object *
appmeta_for_pid(int32_t pid, struct json_object *extra)
{
	struct json_object *o;

	if ((o = appmeta_base(pid)) == NULL) {
		if (extra == NULL)
			return (NULL);
		o = json_object_new_object();
	}
	if (extra != NULL && json_object_is_type(extra, json_type_object)) {
		json_object_object_foreach(extra, k, v)
			json_object_object_add(o, k, json_object_get(v));
	}
	return (o);
}

/*
 * Index of md in the list (a json array whose entry 0 is null), appending
 * it when no equal entry exists.  Takes ownership of md.
 */
uint32_t
appmeta_index(struct json_object *list, struct json_object *md)
{
	size_t i, n = json_object_array_length(list);

	if (md == NULL)
		return (0);
	for (i = 1; i < n; i++)
		if (json_object_equal(json_object_array_get_idx(list, i),
		    md)) {
			json_object_put(md);
			return (i);
		}
	json_object_array_add(list, md);
	return (n);
}
