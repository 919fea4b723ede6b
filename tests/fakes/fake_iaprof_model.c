/*
 * What the fake iaprof's GPU "saw": a fixed model of three kernels in two
 * processes, written as 2026.3 interval blocks (docs/specs/iaprof.md §4.3).
 * Each block repeats the same counts (so tests can check folded totals as
 * multiples of one block); kernel 3 only runs in even blocks.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_iaprof.h"

enum {
	T_PYTHON, T_STACK, T_MATMUL_FILE, T_MATMUL, T_REDUCE, T_BENCH,
	T_CONV_FILE, T_CONV, T_MAD, T_SEND, T_MOV, T_FAILED, T_NTEXTS
};

static const char *const texts[T_NTEXTS] = {
	"python3",
	"_start;__libc_start_main;main;run;zeCommandListAppendLaunchKernel",
	"/src/matmul.cpp",
	"matmul_kernel(float*, float*, float*)",
	"reduce_sum",
	"bench",
	"/src/conv.cl",
	"conv2d;v2",
	"mad", "send", "mov", "[failed decode]",
};

struct stall_rec {
	const char *offset;
	int insn;	/* text index, -1: id 0 */
	unsigned count[10];
};

struct kernel {
	const char *addr;
	int comm, pid, stack, file, sym;	/* -1: id 0 */
	int even_only;
	struct stall_rec rec[2];
	int nrec;
};

static const struct kernel kernels[] = {
	{ "0xffff800012340000", T_PYTHON, 4242, T_STACK, T_MATMUL_FILE,
	    T_MATMUL, 0, { { "0x1a0", T_MAD, { 3, 0, 0, 0, 1, 12 } },
	    { "0x1b0", T_SEND, { 0, 0, 0, 5, 0, 2 } } }, 2 },
	{ "0xffff800012350000", T_PYTHON, 4242, T_STACK, -1, T_REDUCE, 0,
	    { { "0x40", T_MOV, { 1, 2, 0, 0, 0, 0, 0, 0, 0, 1 } } }, 1 },
	{ "0xffff800022000000", T_BENCH, 5151, -1, T_CONV_FILE, T_CONV, 1,
	    { { "0x0", T_FAILED, { 0, 0, 0, 0, 0, 0, 0, 4, 1, 0 } },
	    { "0x10", -1, { 0, 0, 0, 0, 0, 0, 7 } } }, 2 },
};
#define NKERNELS	(sizeof(kernels) / sizeof(kernels[0]))

/* The id of a model text, printing its `string` line on first use.  Run
 * g > 1 suffixes every text, so a restarted tool reuses ids for others. */
static uint64_t
model_id(struct fake *f, int t)
{
	if (t < 0)
		return (0);
	if (f->ids[t] == 0) {
		f->ids[t] = f->next_id++;
		if (f->run > 1)
			out_printf("string\t%llu\t%s-r%d\n",
			    (unsigned long long)f->ids[t], texts[t], f->run);
		else
			out_printf("string\t%llu\t%s\n",
			    (unsigned long long)f->ids[t], texts[t]);
	}
	return (f->ids[t]);
}

static void
model_start(struct fake *f)
{
	int i;

	f->next_id = 1;
	/* A restarted tool assigns its ids in another order. */
	for (i = 1; i < f->run && i < 8; i++)
		out_printf("string\t%llu\tfiller-%d-r%d\n",
		    (unsigned long long)f->next_id++, i, f->run);
}

/* The BPF thread: strings of kernels launched before this block. */
static void
model_launch(struct fake *f, const struct kernel *k)
{
	if (f->ids[k->sym] != 0)
		return;
	model_id(f, k->comm);
	model_id(f, k->stack);
	model_id(f, k->file);
	model_id(f, k->sym);
	fprintf(stderr, "INFO: new kernel %s\n", k->addr + 2);
}

static void
model_eustall(struct fake *f, const struct stall_rec *r)
{
	uint64_t insn = r->insn < 0 ? 0 : f->ids[r->insn];
	unsigned i;

	if (r->insn >= 0 && insn == 0)
		insn = model_id(f, r->insn);	/* mnemonics mid-block */
	out_printf("eustall\t%s\t%llu", r->offset, (unsigned long long)insn);
	for (i = 0; i < 10; i++)
		out_printf("\t%u", r->count[i]);
	out_bytes("\n", 1);
}

/* One kernel and its stall lines in a random order (§4.3). */
static void
model_kernel(struct fake *f, const struct kernel *k)
{
	int order[2] = { 0, 1 }, i;

	out_printf("kernel\t%s\t%llu\t%d\t%llu\t%llu\t%llu\n", k->addr,
	    (unsigned long long)f->ids[k->comm], k->pid,
	    (unsigned long long)model_id(f, k->stack),
	    (unsigned long long)model_id(f, k->file),
	    (unsigned long long)model_id(f, k->sym));
	if (k->nrec == 2 && rand() % 2) {
		order[0] = 1;
		order[1] = 0;
	}
	for (i = 0; i < k->nrec; i++) {
		if (f->mode == MODE_MIDBLOCK)
			out_printf("string\t%llu\tlaunch-%llu-%d\n",
			    (unsigned long long)f->next_id++,
			    (unsigned long long)f->block, i);
		model_eustall(f, &k->rec[order[i]]);
	}
}

static void
model_metrics(struct fake *f)
{
	static const char *const names[10] = {
		"active", "control", "pipestall", "send", "dist-acc", "sbid",
		"sync", "inst-fetch", "tdr", "other"
	};
	static const int col[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 9, 8 };
	unsigned long long sum[10] = { 0 };
	size_t k;
	int r, i;

	for (k = 0; k < NKERNELS; k++) {
		if (kernels[k].even_only && f->block % 2)
			continue;
		for (r = 0; r < kernels[k].nrec; r++)
			for (i = 0; i < 10; i++)
				sum[i] += kernels[k].rec[r].count[i];
	}
	for (i = 0; i < 10; i++)
		out_printf("metric\teu-stall-%s\t%llu\n", names[i],
		    sum[col[i]]);
	out_printf("metric\tfrequency-MHz\t%d\n", 2400);
	out_printf("metric\tbusy-percent\t%d\n", 87);
}

/* Malformed lines of every kind (§7 #11): 9 per block. */
static void
model_malformed(struct fake *f)
{
	out_printf("bogus\trecord\n");
	out_printf("metric\tbusy-percent\n");
	out_printf("kernel\t0x1\t999999\t77\t0\t0\t0\n");
	out_printf("eustall\t0x8\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\n");
	out_printf("kernel\t0x2\t%llu\t0\t0\t0\t0\n",
	    (unsigned long long)f->ids[T_PYTHON]);
	out_printf("eustall\t0x8\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\n");
	out_printf("interval\tnot-a-number\t1.0\n");
}

/* After a valid kernel: a negative and a non-numeric count. */
static void
model_bad_counts(void)
{
	out_printf("eustall\t0x8\t0\t-1\t0\t0\t0\t0\t0\t0\t0\t0\t0\n");
	out_printf("eustall\t0x8\t0\tmany\t0\t0\t0\t0\t0\t0\t0\t0\t0\n");
}

static void
model_flood(struct fake *f)
{
	const char *n = getenv("FAKE_IAPROF_FLOOD_LINES");
	long i, lines = n != NULL ? atol(n) : 20000;

	out_printf("kernel\t0x9000\t%llu\t4242\t0\t0\t0\n",
	    (unsigned long long)f->ids[T_PYTHON]);
	for (i = 0; i < lines; i++)
		out_printf("eustall\t0x%lx\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\n",
		    (unsigned long)rand() * 4096UL + (unsigned long)i);
}

static void
model_garbage(void)
{
	char junk[512];
	size_t i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(rand() & 0xff);
	out_bytes(junk, sizeof(junk));
	out_bytes("\n", 1);
}

static void
model_block(struct fake *f)
{
	struct timespec ts;
	size_t k;

	for (k = 0; k < NKERNELS; k++)
		if (!kernels[k].even_only || f->block % 2 == 0)
			model_launch(f, &kernels[k]);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	out_printf("interval\t%llu\t%lld.%06ld\n",
	    (unsigned long long)f->block, (long long)ts.tv_sec,
	    ts.tv_nsec / 1000);
	if (f->mode == MODE_MALFORMED)
		model_malformed(f);
	for (k = 0; k < NKERNELS; k++) {
		if (kernels[k].even_only && f->block % 2)
			continue;
		model_kernel(f, &kernels[k]);
		if (f->mode == MODE_MALFORMED && k == 0)
			model_bad_counts();
	}
	if (f->mode == MODE_FLOOD)
		model_flood(f);
	if (f->mode == MODE_GARBAGE)
		model_garbage();
	model_metrics(f);
	f->block++;
}

/* One timer tick of the real tool: one block, then the mode's twist. */
void
model_tick(struct fake *f)
{
	if (f->block == 0 && f->next_id == 0)
		model_start(f);
	switch (f->mode) {
	case MODE_NOINTERVAL:
		if (f->ids[T_PYTHON] == 0)
			model_id(f, T_PYTHON);
		fprintf(stderr, "INFO: waiting for a kernel\n");
		out_flush();
		return;
	case MODE_OLDGRAMMAR:
		out_printf("interval_start\t%llu\n",
		    (unsigned long long)f->block);
		out_printf("e\t0x1a0\t3\n");
		out_printf("interval_end\t%llu\n",
		    (unsigned long long)f->block++);
		out_flush();
		return;
	case MODE_STALL:
		if ((int)f->block >= f->blocks_max)
			return;
		break;
	case MODE_DIES:
		if ((int)f->block >= f->blocks_max) {
			out_flush();
			fprintf(stderr, "device lost\n");
			fake_log("exit %d 3", (int)getpid());
			exit(3);
		}
		break;
	}
	model_block(f);
	if (f->flush != FLUSH_NEVER)
		out_flush();
}
