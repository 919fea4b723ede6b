/*
 * The BPF backend's interpreter frame walks (sampler.bpf.c's walk.bpf.h):
 * a process's frame layout and its threads' roots written into the
 * program's maps.  The full and compat programs walk; the legacy one has
 * no walk (its ops have none).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "sbpf_int.h"
#include "sampler.skel.h"

int
sbpf_walk_set(struct sampler *base, int32_t pid, const struct walk_cfg *c)
{
	struct sbpf *s = (struct sbpf *)base;
	uint32_t key = (uint32_t)pid;
	int rc;

	if (c == NULL) {
		rc = bpf_map__delete_elem(s->m.walk_cfgs, &key,
		    sizeof(key), 0);
		return (rc == -ENOENT ? 0 : rc);
	}
	if (c->looped && !s->have_loop)
		return (-ENOTSUP);
	/* A root in the TLS needs the thread pointer's place in the task,
	 * looked up in the kernel's BTF once, when first needed (a few MB
	 * parsed, then freed). */
	if (c->root_tls == WALK_ROOT_TLS && !s->tp_known) {
		s->skel->bss->task_tp_off = sampler_task_tp_off();
		s->tp_known = 1;
	}
	if (c->root_tls == WALK_ROOT_TLS && s->skel->bss->task_tp_off == 0)
		return (-ENOTSUP);
	return (bpf_map__update_elem(s->m.walk_cfgs, &key,
	    sizeof(key), c, sizeof(*c), BPF_ANY));
}

/* Roots are keyed by TID; the tgid in the value keeps one process's
 * profiler from walking another's thread. */
int
sbpf_walk_root(struct sampler *base, int32_t pid, int32_t tid, uint64_t root,
    uint64_t check)
{
	struct sbpf *s = (struct sbpf *)base;
	uint32_t key = (uint32_t)pid, tkey = (uint32_t)tid;
	struct walk_cfg c;
	struct walk_root r;
	int rc;

	if (root == 0) {
		rc = bpf_map__delete_elem(s->m.walk_roots, &tkey,
		    sizeof(tkey), 0);
		return (rc == -ENOENT ? 0 : rc);
	}
	if (bpf_map__lookup_elem(s->m.walk_cfgs, &key, sizeof(key),
	    &c, sizeof(c), 0) != 0)
		return (-ENOENT);
	memset(&r, 0, sizeof(r));
	r.root = root;
	r.check = check;
	r.tgid = (uint32_t)pid;
	return (bpf_map__update_elem(s->m.walk_roots, &tkey,
	    sizeof(tkey), &r, sizeof(r), BPF_ANY));
}
