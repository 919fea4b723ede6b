/*
 * Unit tests for plugins/perf/sampler/record.c: checking ring-buffer
 * records.
 */
#include <errno.h>
#include <stdint.h>

#include "testing.h"
#include "sampler/sampler.h"

static uint64_t buf[(sizeof(struct sample_hdr) + 8 * 600 + 8 * SAMPLE_NREGS +
    65536) / 8];

/* nk kernel and nu user ips, nw walked frames (flagged when nw > 0), then
 * stack_len bytes of DWARF stack. */
static size_t
make_walk(uint16_t nk, uint16_t nu, uint32_t nw, uint32_t stack_len)
{
	struct sample_hdr h;
	uint64_t *ips = buf + sizeof(h) / 8;
	size_t off;
	uint32_t i;

	memset(&h, 0, sizeof(h));
	h.pid = 42;
	h.tid = 43;
	h.nkern = nk;
	h.nuser = nu;
	h.nwalk = nw;
	if (nw > 0)
		h.flags = SAMPLE_F_WALKED;
	memcpy(h.comm, "busy", 5);
	for (i = 0; i < nk + nu + 2u * nw; i++)
		ips[i] = 0x1000 + i;
	off = sizeof(h) + 8 * (size_t)(nk + nu + 2u * nw);
	if (stack_len > 0) {
		h.flags |= SAMPLE_F_DWARF;
		h.stack_off = (uint32_t)off;
		h.stack_len = stack_len;
		buf[off / 8 + SAMPLE_REG_SP] = 0x7ffc0000;
		off += 8 * SAMPLE_NREGS + stack_len;
	}
	memcpy(buf, &h, sizeof(h));
	return (off);
}

static size_t
make(uint16_t nk, uint16_t nu, uint32_t stack_len)
{
	return (make_walk(nk, nu, 0, stack_len));
}

int
main(void)
{
	struct sample_view v;
	struct sample_hdr *h = (struct sample_hdr *)(void *)buf;
	size_t len;

	CHECK_INTEQ(sizeof(struct sample_hdr) % 8, 0, "header keeps ips aligned");
	len = make(3, 5, 0);
	CHECK_INTEQ(sample_record_parse(buf, len, &v), 0, "fp record");
	CHECK_INTEQ(v.hdr.pid, 42, "pid");
	CHECK(v.kips[0] == 0x1000 && v.kips[2] == 0x1002, "kernel ips");
	CHECK(v.uips[0] == 0x1003 && v.uips[4] == 0x1007, "user ips follow");
	CHECK(v.regs == NULL && v.stack == NULL, "no dwarf part");
	CHECK_INTEQ(sample_record_parse(buf, len - 1, &v), -EINVAL, "truncated ips");
	CHECK_INTEQ(sample_record_parse(buf, 8, &v), -EINVAL, "truncated header");
	len = make(200, 0, 0);
	CHECK_INTEQ(sample_record_parse(buf, len, &v), -EINVAL, "depth > max");

	len = make(2, 0, 4096);
	CHECK_INTEQ(sample_record_parse(buf, len, &v), 0, "dwarf record");
	CHECK(v.regs != NULL && v.regs[SAMPLE_REG_SP] == 0x7ffc0000, "regs");
	CHECK(v.stack == (const uint8_t *)(v.regs + SAMPLE_NREGS), "stack after regs");
	CHECK_INTEQ(sample_record_parse(buf, len - 1, &v), -EINVAL, "short stack");
	h->stack_off = 8;
	CHECK_INTEQ(sample_record_parse(buf, len, &v), -EINVAL, "regs overlap ips");
	len = make(2, 0, 4096);
	h->stack_off += 4;
	CHECK_INTEQ(sample_record_parse(buf, len, &v), -EINVAL, "misaligned regs");
	len = make(2, 0, 4096);
	h->stack_len = SAMPLE_MAX_STACK + 1;
	CHECK_INTEQ(sample_record_parse(buf, sizeof(buf), &v), -EINVAL, "stack too big");

	/* interpreter frames walked in the sample follow the user ips */
	len = make_walk(2, 3, 4, 0);
	CHECK_INTEQ(sample_record_parse(buf, len, &v), 0, "walked record");
	CHECK_INTEQ(v.hdr.nwalk, 4, "walked frames");
	CHECK(v.walk == v.uips + 3 && v.walk[0] == 0x1005 &&
	    v.walk[7] == 0x100c, "walk pairs after the user ips");
	CHECK_INTEQ(sample_record_parse(buf, len - 8, &v), -EINVAL,
	    "truncated walk");
	len = make_walk(2, 3, SAMPLE_MAX_WALK + 1, 0);
	CHECK_INTEQ(sample_record_parse(buf, len, &v), -EINVAL,
	    "walk deeper than the program writes");
	len = make_walk(2, 3, 4, 0);
	h->flags = 0;
	CHECK_INTEQ(sample_record_parse(buf, len, &v), 0, "unflagged walk");
	CHECK_INTEQ(v.hdr.nwalk, 0, "an unflagged count is not believed");
	len = make_walk(1, 1, 2, 4096);
	CHECK_INTEQ(sample_record_parse(buf, len, &v), 0, "walk and dwarf");
	CHECK(v.regs != NULL && v.regs[SAMPLE_REG_SP] == 0x7ffc0000,
	    "regs after the walk");
	h->stack_off -= 8;
	CHECK_INTEQ(sample_record_parse(buf, len, &v), -EINVAL,
	    "regs overlap the walk");
	return (testing_done());
}
