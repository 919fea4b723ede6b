/*
 * Check a sampler ring-buffer record and split it into header, stacks,
 * registers and stack bytes.  The kernel wrote it, but the layout is ours
 * and a mismatch between the BPF object and this code must not crash.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "sampler.h"

_Static_assert(2 * (SAMPLE_MAX_DEPTH + SAMPLE_MAX_WALK) <= WALK_SLOT_MASK + 1,
    "a walk pair's index fits the program's mask");

int
sample_record_parse(const void *rec, size_t len, struct sample_view *v)
{
	const uint8_t *p = rec;
	size_t ipsz, end;

	if (len < sizeof(v->hdr))
		return (-EINVAL);
	memcpy(&v->hdr, p, sizeof(v->hdr));
	if (v->hdr.nkern > SAMPLE_MAX_DEPTH || v->hdr.nuser > SAMPLE_MAX_DEPTH)
		return (-EINVAL);
	if (!(v->hdr.flags & SAMPLE_F_WALKED))
		v->hdr.nwalk = 0;
	else if (v->hdr.nwalk > SAMPLE_MAX_WALK)
		return (-EINVAL);
	ipsz = ((size_t)v->hdr.nkern + v->hdr.nuser + 2 * v->hdr.nwalk) *
	    sizeof(uint64_t);
	if (len < sizeof(v->hdr) + ipsz)
		return (-EINVAL);
	/* ips follow the header; the header is 8-byte aligned in size */
	v->kips = (const uint64_t *)(const void *)(p + sizeof(v->hdr));
	v->uips = v->kips + v->hdr.nkern;
	v->walk = v->uips + v->hdr.nuser;
	v->regs = NULL;
	v->stack = NULL;
	if (!(v->hdr.flags & SAMPLE_F_DWARF))
		return (0);
	if (v->hdr.stack_off % 8 != 0 ||
	    v->hdr.stack_off < sizeof(v->hdr) + ipsz ||
	    v->hdr.stack_len > SAMPLE_MAX_STACK)
		return (-EINVAL);
	end = (size_t)v->hdr.stack_off + SAMPLE_NREGS * sizeof(uint64_t) +
	    v->hdr.stack_len;
	if (end > len)
		return (-EINVAL);
	v->regs = (const uint64_t *)(const void *)(p + v->hdr.stack_off);
	v->stack = p + v->hdr.stack_off + SAMPLE_NREGS * sizeof(uint64_t);
	return (0);
}
