/*
 * The legacy BPF program (sampler_legacy.bpf.o, sampler.bpf.c built with
 * SAMPLER_LEGACY) is for Linux 4.18 to 5.7, which no machine here boots:
 * what those kernels' verifiers refuse outright is checked in the object
 * itself, instruction by instruction.
 * - no loop (a verifier before 5.3 refuses any cycle in the program);
 * - under 4096 instructions (BPF_MAXINSNS, for root too before 5.2);
 * - no call between BPF functions (4.16), no jmp32 class (5.1), no atomic
 *   other than add (5.12), no global data (5.2: no internal map);
 * - only helpers and map types 4.18 has, and program types it attaches.
 * The loads themselves are proved on the kernels the VM tier boots
 * (tests/vm/run.sh forces this program on 5.10 and 6.1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bpf.h>
#include <bpf/libbpf.h>

#include "testing.h"

#ifndef LEGACY_OBJ
#error "LEGACY_OBJ: the path of sampler_legacy.bpf.o"
#endif

/* The helpers the program may call: every one is in 4.18. */
static const struct {
	int id;
	const char *name;
	const char *since;
} helpers[] = {
	{ BPF_FUNC_map_lookup_elem,		"map_lookup_elem", "3.19" },
	{ BPF_FUNC_map_update_elem,		"map_update_elem", "3.19" },
	{ BPF_FUNC_map_delete_elem,		"map_delete_elem", "3.19" },
	{ BPF_FUNC_probe_read,			"probe_read", "4.1" },
	{ BPF_FUNC_ktime_get_ns,		"ktime_get_ns", "4.1" },
	{ BPF_FUNC_get_smp_processor_id,	"get_smp_processor_id", "4.1" },
	{ BPF_FUNC_get_current_pid_tgid,	"get_current_pid_tgid", "4.2" },
	{ BPF_FUNC_get_current_comm,		"get_current_comm", "4.2" },
	{ BPF_FUNC_perf_event_output,		"perf_event_output", "4.4" },
	{ BPF_FUNC_get_stack,			"get_stack", "4.18" },
	{ BPF_FUNC_get_current_cgroup_id,	"get_current_cgroup_id", "4.18" },
};

static int
helper_known(int id)
{
	size_t i;

	for (i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++)
		if (helpers[i].id == id)
			return (1);
	return (0);
}

/* Successors of instruction i (-1: none); the count of slots it takes. */
static int
succ(const struct bpf_insn *in, int i, int n, int out[2])
{
	uint8_t cls = BPF_CLASS(in[i].code), op = BPF_OP(in[i].code);

	out[0] = out[1] = -1;
	if (in[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
		out[0] = i + 2 < n ? i + 2 : -1;
		return (2);
	}
	if (cls == BPF_JMP && op == BPF_EXIT)
		return (1);
	if (cls == BPF_JMP && op != BPF_CALL) {
		out[0] = i + 1 + in[i].off;
		if (out[0] < 0)
			out[0] = n;	/* out of the program */
		if (op != BPF_JA)
			out[1] = i + 1;
		return (1);
	}
	out[0] = i + 1 < n ? i + 1 : -1;
	return (1);
}

/* Depth-first from instruction 0: 1 when an edge leads back to an
 * instruction still on the path (a loop), 0 when none does. */
static int
has_cycle(const struct bpf_insn *in, int n)
{
	int *stack = calloc((size_t)n, sizeof(int));
	int *next = calloc((size_t)n, sizeof(int));
	char *state = calloc((size_t)n, 1);	/* 0 new, 1 on path, 2 done */
	int sp = 0, i, s[2], cyc = 0;

	if (stack == NULL || next == NULL || state == NULL) {
		cyc = -1;
		goto out;
	}
	stack[sp++] = 0;
	state[0] = 1;
	while (sp > 0 && !cyc) {
		i = stack[sp - 1];
		succ(in, i, n, s);
		if (next[i] < 2) {
			int w = s[next[i]++];

			if (w < 0)
				continue;
			if (w >= n) {
				cyc = -1;	/* a jump out of the program */
				break;
			}
			if (state[w] == 1)
				cyc = 1;
			else if (state[w] == 0) {
				state[w] = 1;
				stack[sp++] = w;
			}
			continue;
		}
		state[i] = 2;
		sp--;
	}
out:
	free(stack);
	free(next);
	free(state);
	return (cyc);
}

static void
check_prog(struct bpf_program *p)
{
	const struct bpf_insn *in = bpf_program__insns(p);
	int n = (int)bpf_program__insn_cnt(p), i, bad_helper = -1;
	int pseudo_call = 0, jmp32 = 0, atomic = 0;
	enum bpf_prog_type t = bpf_program__type(p);
	char what[160];

	for (i = 0; i < n; i++) {
		uint8_t cls = BPF_CLASS(in[i].code);

		if (in[i].code == (BPF_JMP | BPF_CALL)) {
			if (in[i].src_reg == BPF_PSEUDO_CALL)
				pseudo_call = 1;
			else if (!helper_known(in[i].imm) && bad_helper < 0)
				bad_helper = in[i].imm;
		}
		if (cls == BPF_JMP32)
			jmp32 = 1;
		if (cls == BPF_STX && BPF_MODE(in[i].code) == BPF_ATOMIC &&
		    in[i].imm != BPF_ADD)
			atomic = 1;
		if (in[i].code == (BPF_LD | BPF_IMM | BPF_DW))
			i++;
	}
#define CHECKP(e, fmt) do {						\
	snprintf(what, sizeof(what), "%s: " fmt, bpf_program__name(p));	\
	CHECK(e, what);							\
} while (0)
	CHECKP(n > 0 && n < 4096, "under 4096 instructions (BPF_MAXINSNS)");
	CHECKP(has_cycle(in, n) == 0, "no loop, no jump out of the program");
	CHECKP(!pseudo_call, "no call between BPF functions");
	CHECKP(!jmp32, "no jmp32 instruction");
	CHECKP(!atomic, "no atomic but add");
	if (bad_helper < 0)
		snprintf(what, sizeof(what), "%s: only helpers of 4.18",
		    bpf_program__name(p));
	else
		snprintf(what, sizeof(what), "%s: only helpers of 4.18 "
		    "(#%d is not in the list)", bpf_program__name(p),
		    bad_helper);
	CHECK(bad_helper < 0, what);
	CHECKP(t == BPF_PROG_TYPE_PERF_EVENT || t == BPF_PROG_TYPE_TRACEPOINT ||
	    t == BPF_PROG_TYPE_RAW_TRACEPOINT, "a program type 4.18 attaches");
#undef CHECKP
}

/* A made-up program with a loop: the cycle finder finds it. */
static void
check_finder(void)
{
	struct bpf_insn loop[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = 0, .imm = 1 },
		{ .code = BPF_JMP | BPF_JLT | BPF_K, .dst_reg = 0, .off = -2,
		    .imm = 9 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	/* a jump back that is no loop: 0 -> 2 -> 4 -> 1 -> exit */
	struct bpf_insn back[] = {
		{ .code = BPF_JMP | BPF_JA, .off = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
		{ .code = BPF_JMP | BPF_JA, .off = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
		{ .code = BPF_JMP | BPF_JA, .off = -4 },
	};

	CHECK(has_cycle(loop, 4) == 1, "the cycle finder finds a loop");
	CHECK(has_cycle(back, 5) == 0,
	    "a jump back that closes no loop is not one");
}

int
main(void)
{
	struct bpf_object *obj;
	struct bpf_program *p;
	struct bpf_map *m;
	enum bpf_map_type t;
	int nprogs = 0, internal = 0, bad_map = 0;

	check_finder();
	libbpf_set_print(NULL);
	obj = bpf_object__open_file(LEGACY_OBJ, NULL);
	CHECK(obj != NULL, "the legacy object opens");
	if (obj == NULL)
		return (testing_done());
	bpf_object__for_each_program(p, obj) {
		check_prog(p);
		nprogs++;
	}
	CHECK(nprogs == 4, "four programs: sample, tracepoint, exec, exit");
	bpf_object__for_each_map(m, obj) {
		t = bpf_map__type(m);
		if (bpf_map__is_internal(m))
			internal = 1;
		if (t != BPF_MAP_TYPE_HASH && t != BPF_MAP_TYPE_ARRAY &&
		    t != BPF_MAP_TYPE_PERCPU_ARRAY &&
		    t != BPF_MAP_TYPE_LRU_HASH &&
		    t != BPF_MAP_TYPE_PERF_EVENT_ARRAY)
			bad_map = 1;
	}
	CHECK(!internal, "no .data, .rodata or .bss map (global data: 5.2)");
	CHECK(!bad_map, "only map types 4.18 has (no ring buffer: 5.8)");
	bpf_object__close(obj);
	return (testing_done());
}
