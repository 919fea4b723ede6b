/*
 * Parse throughput of the iaprof stream parser on one core: a synthetic
 * 2026.3 stream (default 128 MB) with a realistic mix -- 32 kernels in 6
 * processes with 12-frame CPU stacks, ~400 distinct offsets per kernel,
 * mnemonic strings defined mid-block, 12 metrics per block -- fed in
 * 4096-byte pieces as iaprof's stdio delivers it, a snapshot taken every
 * 2000 ticks (20 s at iaprof's default 10 ms).  Prints MB/s and memory;
 * memory must follow distinct stacks, not stream length.
 *
 *	bench/iaprof_parse [MB]
 */
#include <sys/resource.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugins/iaprof/parse.h"

#define KERNELS		32
#define OFFSETS		400
#define MNEMONICS	24
#define TICKS_PER_SNAP	2000

struct gen {
	char *buf;
	size_t len, cap;
	unsigned next_id;
	unsigned kid[KERNELS][4];	/* comm, stack, file, sym */
	unsigned mn[MNEMONICS];
	unsigned seed;
};

static void
put(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
put(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (g->cap - g->len < 4096) {
		g->cap = g->cap * 2 + 65536;
		if ((g->buf = realloc(g->buf, g->cap)) == NULL)
			abort();
	}
	va_start(ap, fmt);
	n = vsnprintf(g->buf + g->len, g->cap - g->len, fmt, ap);
	va_end(ap);
	g->len += (size_t)n;
}

static unsigned
rnd(struct gen *g)
{
	g->seed = g->seed * 1103515245u + 12345u;
	return (g->seed >> 8);
}

static void
gen_strings(struct gen *g)
{
	static const char *comms[] = { "python3", "bench", "ollama",
	    "llama-server", "torch_worker", "ze_tracer" };
	unsigned k, f;

	g->next_id = 1;
	for (k = 0; k < KERNELS; k++) {
		g->kid[k][0] = g->next_id++;
		put(g, "string\t%u\t%s\n", g->kid[k][0], comms[k % 6]);
		g->kid[k][1] = g->next_id++;
		put(g, "string\t%u\t_start;__libc_start_main;main", g->kid[k][1]);
		for (f = 0; f < 9; f++)
			put(g, ";layer%u::forward(Tensor const&)", (k + f) % 17);
		put(g, ";zeCommandListAppendLaunchKernel\n");
		g->kid[k][2] = g->next_id++;
		put(g, "string\t%u\t/src/kernels/k%u.cpp\n", g->kid[k][2], k);
		g->kid[k][3] = g->next_id++;
		put(g, "string\t%u\tgemm_%u(float const*, float*, int)\n",
		    g->kid[k][3], k);
	}
}

static void
gen_block(struct gen *g, unsigned long n)
{
	static const char *mn[] = { "mov", "send", "mad", "add", "mul", "sync",
	    "and", "or", "shl", "shr", "cmp", "sel", "math", "dpas", "bfn",
	    "sendc", "jmpi", "if", "else", "endif", "while", "break", "halt",
	    "[failed decode]" };
	unsigned k, i, m, off;

	put(g, "interval\t%lu\t%lu.%06lu\n", n, 5000 + n / 100,
	    (n % 100) * 10000);
	for (k = 0; k < KERNELS; k++) {
		if (rnd(g) % 4 == 0)
			continue;
		put(g, "kernel\t0xffff8000%08x\t%u\t%u\t%u\t%u\t%u\n",
		    k << 16, g->kid[k][0], 1000 + k % 6, g->kid[k][1],
		    k % 5 == 0 ? 0 : g->kid[k][2], g->kid[k][3]);
		for (i = 0; i < 12; i++) {
			off = rnd(g) % OFFSETS;
			/* An offset always holds the same instruction. */
			m = (off * 2654435761u + k * 40503u) % MNEMONICS;
			if (g->mn[m] == 0) {
				g->mn[m] = g->next_id++;
				put(g, "string\t%u\t%s\n", g->mn[m], mn[m]);
			}
			put(g, "eustall\t0x%x\t%u\t%u\t0\t%u\t%u\t0\t%u\t0\t0"
			    "\t0\t%u\n", off * 16, g->mn[m],
			    rnd(g) % 4, rnd(g) % 2, rnd(g) % 3, rnd(g) % 40,
			    rnd(g) % 2);
		}
	}
	for (i = 0; i < 10; i++)
		put(g, "metric\teu-stall-x%u\t%u\n", i, rnd(g) % 1000);
	put(g, "metric\tfrequency-MHz\t2400\nmetric\tbusy-percent\t%u\n",
	    rnd(g) % 100);
}

struct totals {
	struct iaprof_parser *p;
	unsigned long long samples, stacks, snaps, ticks;
	size_t peak_mem;
	unsigned peak_stacks;
};

static int
sum(void *arg, int32_t pid, const char *const *frames, uint32_t n,
    uint64_t count)
{
	struct totals *t = arg;

	t->samples += count;
	t->stacks++;
	return (0);
}

static void
on_tick(void *arg, uint64_t n)
{
	struct totals *t = arg;
	size_t mem;

	if (++t->ticks % TICKS_PER_SNAP != 0)
		return;
	if ((mem = iaprof_parser_memory(t->p)) > t->peak_mem)
		t->peak_mem = mem;
	if (iaprof_parser_nstacks(t->p) > t->peak_stacks)
		t->peak_stacks = iaprof_parser_nstacks(t->p);
	iaprof_parser_take(t->p, sum, t);
	t->snaps++;
}

/* CPU time of this process: the machine may be shared. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ((double)ts.tv_sec + ts.tv_nsec / 1e9);
}

int
main(int argc, char **argv)
{
	size_t want = (argc > 1 ? strtoul(argv[1], NULL, 10) : 128) << 20;
	struct gen g = { .seed = 42 };
	struct totals t = { 0 };
	struct rusage ru;
	unsigned long n = 0;
	size_t off, len;
	double t0, dt;

	gen_strings(&g);
	while (g.len < want)
		gen_block(&g, n++);
	t.p = iaprof_parser_new(NULL, on_tick, &t);
	t0 = now();
	for (off = 0; off < g.len; off += len) {
		len = g.len - off < 4096 ? g.len - off : 4096;
		iaprof_parser_feed(t.p, g.buf + off, len);
	}
	iaprof_parser_finish(t.p);
	iaprof_parser_take(t.p, sum, &t);
	dt = now() - t0;
	getrusage(RUSAGE_SELF, &ru);
	printf("iaprof_parse: %.1f MB in %.3f s of CPU: %.1f MB/s (%lu blocks, "
	    "%llu snapshots, %llu samples, %llu stacks delivered, malformed "
	    "%llu)\n", g.len / 1048576.0, dt, g.len / 1048576.0 / dt, n,
	    t.snaps, t.samples, t.stacks,
	    (unsigned long long)iaprof_parser_malformed(t.p));
	printf("iaprof_parse: parser memory peak %.2f MB for %u distinct "
	    "stacks per snapshot; process max RSS %.1f MB (of which the "
	    "input buffer %.1f MB)\n", t.peak_mem / 1048576.0, t.peak_stacks,
	    ru.ru_maxrss / 1024.0, g.cap / 1048576.0);
	iaprof_parser_free(t.p);
	free(g.buf);
	return (0);
}
