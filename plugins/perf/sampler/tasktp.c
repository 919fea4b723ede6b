/*
 * Where the kernel saves a task's user thread pointer (x86-64's
 * task_struct.thread.fsbase, arm64's thread.uw.tp_value), found in the
 * kernel's own BTF: the BPF program reads it from the sampled task to
 * find an interpreter's thread-local root (walk_cfg.root_tls).  Kernel
 * layouts move with the configuration, so no offset is assumed; the
 * program is loaded without CO-RE relocations, so a kernel without BTF
 * still loads it, with no TLS walk.
 */
#include "config.h"

#include <bpf/btf.h>
#include <errno.h>
#include <string.h>

#include "sampler_int.h"

/* The byte offset of member `name` of the struct or union with type id
 * id, and its type id in *mtype; -1 if there is none. */
static long
tasktp_member(const struct btf *btf, int32_t id, const char *name,
    int32_t *mtype)
{
	const struct btf_type *t = btf__type_by_id(btf, (uint32_t)id);
	const struct btf_member *m;
	uint32_t i;

	if (t == NULL || (!btf_is_struct(t) && !btf_is_union(t)))
		return (-1);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), name) != 0)
			continue;
		if (btf_member_bitfield_size(t, i) != 0)
			return (-1);
		*mtype = (int32_t)btf__resolve_type(btf, m->type);
		return ((long)(btf_member_bit_offset(t, i) / 8));
	}
	return (-1);
}

uint32_t
sampler_task_tp_off(void)
{
#if defined(__x86_64__)
	static const char *const path[] = { "thread", "fsbase", NULL };
#elif defined(__aarch64__)
	static const char *const path[] = { "thread", "uw", "tp_value", NULL };
#else
	static const char *const path[] = { NULL };
#endif
	struct btf *btf;
	int32_t id;
	long off = 0, o;
	size_t i;

	if (path[0] == NULL || (btf = btf__load_vmlinux_btf()) == NULL)
		return (0);
	id = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	for (i = 0; id > 0 && path[i] != NULL; i++) {
		if ((o = tasktp_member(btf, id, path[i], &id)) < 0) {
			off = 0;
			break;
		}
		off += o;
	}
	btf__free(btf);
	return (id > 0 && off > 0 && off < (1l << 20) ? (uint32_t)off : 0);
}
