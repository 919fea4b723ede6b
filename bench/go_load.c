/*
 * The cost (thread CPU time) of a stripped Go binary's symbol table, as
 * the perf plugin
 * pays it on its loop: the load (elfsym_load_fd: .gopclntab's functions
 * and what the inline look-ups need up front), then the first inline
 * look-up in each function (where the function's inline ranges are
 * built), then look-ups once built.  It also prints a digest of the
 * inlined frames at every byte of every function, so that two builds can
 * be compared for identical output.
 *
 *	bench/go_load [-n RUNS] BINARY...
 *
 * e.g. bench/go_load "$(go env GOTOOLDIR)/compile"
 */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elfsym.h"
#include "gopclntab.h"

static double
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ((double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6);
}

static int
go_load_one(const char *path, int runs)
{
	struct elfsym_table	*t = NULL;
	const char		*n[GOPCLNTAB_INL_DEPTH];
	double			 t0, d, lmin = 1e9, lmax = 0, fmax = 0, ftot = 0;
	uint64_t		 a, h = 1469598103934665603ull;
	size_t			 i, k, nn, inl = 0, frames = 0;
	const char		*c;
	int			 fd, run;

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
		lmax = d > lmax ? d : lmax;
	}
	printf("%s: %zu functions from .gopclntab (%zu symbols)\n", path,
	    t->go_funcs, t->nsyms);
	printf("  load: %.2f ms min, %.2f ms max over %d runs; %zu bytes\n",
	    lmin, lmax, runs, elfsym_bytes(t));
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
	int	 ch, runs = 5, r = 0;

	while ((ch = getopt(argc, argv, "n:")) != -1) {
		switch (ch) {
		case 'n':
			runs = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || runs < 1)
		goto usage;
	for (; argc > 0; argc--, argv++)
		r |= go_load_one(argv[0], runs);
	return (r);
usage:
	fprintf(stderr, "usage: go_load [-n runs] binary...\n");
	return (2);
}
