/*
 * The cost (thread CPU time) of a stripped Go binary's symbol table, as
 * the perf plugin pays it on its loop.  With -s BUDGET, first (in a fresh
 * process: its pages are faulted in, as a long-running agent's may not
 * be) the Go part read in slices of BUDGET units (elfsym_go_step, what a
 * sliced loader calls per loop turn): the longest step.  Then the load in
 * one call (elfsym_load_fd: .gopclntab's functions and what the inline
 * look-ups need, up front): the first load in the process and the
 * shortest of RUNS; the first inline look-up in each function (where its
 * ranges are built); and a digest of the inlined frames at every byte of
 * every function, so that two builds can be compared for identical
 * output.
 *
 *	bench/go_load [-n RUNS] [-s BUDGET] BINARY...
 *
 * e.g. bench/go_load -s 16384 "$(go env GOTOOLDIR)/compile"
 */
#include "config.h"

#include <sys/resource.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sym/elfsym.h"
#include "sym/elfsym_int.h"
#include "sym/gopclntab.h"

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ((double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6);
}

/* The Go part of the load in slices of budget units: the longest. */
static int
go_load_sliced(const char *path, size_t budget)
{
	struct elfsym_build b;
	struct elfsym_goread r;
	struct elfsym_go go;
	struct elfread *e;
	double t0, d, max = 0, tot = 0;
	size_t steps = 0;
	int fd, rc, ph, maxph = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		perror(path);
		return (1);
	}
	if (elfread_open_fd(fd, ELFSYM_READ_BYTES, ELFSYM_READ_CALLS,
	    &e) != 0) {
		close(fd);
		return (1);
	}
	elfsym_go_probe(e, &go);
	memset(&b, 0, sizeof(b));
	if (go.scn == 0 || go.symtab ||
	    (b.t = calloc(1, sizeof(*b.t))) == NULL) {
		fprintf(stderr, "%s: not a stripped Go binary\n", path);
		(void)elfread_free(e);
		close(fd);
		return (1);
	}
	b.t->fd = -1;
	elfsym_go_begin(&r, &go);
	do {
		ph = r.phase;
		t0 = now_ms();
		rc = elfsym_go_step(&r, &b, budget);
		d = now_ms() - t0;
		maxph = d > max ? ph : maxph;
		max = d > max ? d : max;
		tot += d;
		steps++;
	} while (rc == 1);
	elfsym_go_free(&r);
	printf("%s: sliced, %zu units a step: %zu steps, longest %.2f ms "
	    "(phase %d of elfsym_go.c's GR_*), %.2f ms in all; %zu functions, "
	    "%zu with inlined "
	    "code%s\n", path, budget, steps, max, maxph, tot, b.t->go_funcs,
	    b.t->go_ninl, rc < 0 ? " (failed)" : "");
	elfsym_free(b.t);
	(void)elfread_free(e);
	close(fd);
	return (rc < 0);
}

static int
go_load_one(const char *path, int runs)
{
	struct elfsym_table *t = NULL;
	const char *n[GOPCLNTAB_INL_DEPTH];
	double t0, d, lmin = 1e9, lfirst = 0, fmax = 0, ftot = 0;
	uint64_t a, h = 1469598103934665603ull;
	size_t i, k, nn, inl = 0, frames = 0;
	const char *c;
	struct rusage ru;
	long peak = 0;
	int fd, run;

	for (run = 0; run < runs; run++) {
		elfsym_free(t);
		t = NULL;
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			perror(path);
			return (1);
		}
		t0 = now_ms();
		if (elfsym_load_fd(fd, &t) != 0) {
			close(fd);
			fprintf(stderr, "%s: not a readable ELF\n", path);
			return (1);
		}
		d = now_ms() - t0;
		close(fd);
		lmin = d < lmin ? d : lmin;
		lfirst = run == 0 ? d : lfirst;
		if (run == 0 && getrusage(RUSAGE_SELF, &ru) == 0)
			peak = ru.ru_maxrss;
	}
	printf("%s: %zu functions from .gopclntab (%zu symbols)\n", path,
	    t->go_funcs, t->nsyms);
	printf("  load in one call: first %.2f ms, shortest of %d %.2f ms; "
	    "%zu bytes; peak RSS after the first %ld KiB (the process's "
	    "own ~2 MiB with it)\n", lfirst, runs, lmin, elfsym_bytes(t),
	    peak);
	/* The first look-up in each function: what a sample landing there
	 * first pays. */
	for (i = 0; i < t->nsyms; i++) {
		a = t->syms[i].addr + t->syms[i].size / 2;
		t0 = now_ms();
		nn = elfsym_go_inlined(t, a, n, GOPCLNTAB_INL_DEPTH);
		d = now_ms() - t0;
		fmax = d > fmax ? d : fmax;
		ftot += d;
		inl += nn > 0;
	}
	printf("  first look-up per function: %.3f ms max, %.2f ms in all "
	    "(%zu of %zu inlined there); %zu bytes after\n", fmax, ftot, inl,
	    t->nsyms, elfsym_bytes(t));
	/* Every byte of every function: the digest of the frames. */
	t0 = now_ms();
	for (i = 0; i < t->nsyms; i++)
		for (a = t->syms[i].addr; a < t->syms[i].addr +
		    t->syms[i].size; a++) {
			nn = elfsym_go_inlined(t, a, n, GOPCLNTAB_INL_DEPTH);
			for (k = 0; k < nn; k++) {
				for (c = n[k]; *c != '\0'; c++)
					h = (h ^ (uint8_t)*c) *
					    1099511628211ull;
				h = (h ^ 0x100) * 1099511628211ull;
			}
			h = (h ^ (a & 0xffffffff)) * 1099511628211ull;
			h = (h ^ nn) * 1099511628211ull;
			frames += nn;
		}
	d = now_ms() - t0;
	printf("  every byte: %zu inlined frames, digest %016llx, %.1f ms\n",
	    frames, (unsigned long long)h, d);
	elfsym_free(t);
	return (0);
}

int
main(int argc, char **argv)
{
	size_t budget = 0;
	int ch, runs = 5, r = 0, i;

	while ((ch = getopt(argc, argv, "n:s:")) != -1) {
		switch (ch) {
		case 'n':
			runs = atoi(optarg);
			break;
		case 's':
			budget = (size_t)strtoul(optarg, NULL, 10);
			if (budget == 0)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || runs < 1)
		goto usage;
	for (i = 0; budget > 0 && i < argc; i++)
		r |= go_load_sliced(argv[i], budget);
	for (i = 0; i < argc; i++)
		r |= go_load_one(argv[i], runs);
	return (r);
usage:
	fprintf(stderr, "usage: go_load [-n runs] [-s budget] binary...\n");
	return (2);
}
