/*
 * What perf's ELF symbol loader makes of files, one line each: a hash of
 * the whole table (every symbol's address, size, attributes and name; the
 * segments, build-id, .gnu_debuglink, the Go fields) loaded in one go with
 * names copied, and again loaded lazily in small steps with names read
 * from the file, the symbol count, and the load time.  Run before and
 * after a change of the loader and diff the lines: the same tables give
 * the same lines (less the times and, where the reader is
 * plugins/common/elf's, what it read: bytes/read calls of the first load).
 *   bench/elfsym_compare FILE... > out
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elfread.h"
#include "sym/elfsym.h"

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return (h);
}

static uint64_t
table_hash(const struct elfsym_table *t)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char buf[4096];
	const char *n;
	size_t i;

	for (i = 0; i < t->nsyms; i++) {
		h = fnv(h, &t->syms[i].addr, sizeof(t->syms[i].addr));
		h = fnv(h, &t->syms[i].size, sizeof(t->syms[i].size));
		h = fnv(h, &t->attr[i], 1);
		n = elfsym_name(t, i, buf, sizeof(buf));
		h = fnv(h, n != NULL ? n : "(null)", strlen(n != NULL ? n :
		    "(null)") + 1);
	}
	for (i = 0; i < t->nsegs; i++)
		h = fnv(h, &t->segs[i], sizeof(t->segs[i]));
	h = fnv(h, t->build_id, t->build_id_len);
	if (t->debuglink != NULL)
		h = fnv(h, t->debuglink, strlen(t->debuglink));
	h = fnv(h, &t->has_symtab, sizeof(t->has_symtab));
	h = fnv(h, &t->symtab_sect, sizeof(t->symtab_sect));
	h = fnv(h, &t->dynamic, sizeof(t->dynamic));
	h = fnv(h, &t->interp_musl, sizeof(t->interp_musl));
	h = fnv(h, &t->dropped, sizeof(t->dropped));
	h = fnv(h, &t->go_funcs, sizeof(t->go_funcs));
	h = fnv(h, &t->go_version, sizeof(t->go_version));
	h = fnv(h, &t->go_buildinfo, sizeof(t->go_buildinfo));
	h = fnv(h, t->go_buildver, strnlen(t->go_buildver,
	    sizeof(t->go_buildver)));
	h = fnv(h, &t->go_ninl, sizeof(t->go_ninl));
	return (h);
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec * 1e3 + ts.tv_nsec / 1e6);
}

int
main(int argc, char **argv)
{
	struct elfsym_table *t, *u;
	struct elfsym_load *l;
	double t0, ms;
	uint64_t b0, n0, b1, n1;
	int i, fd, r, r2, steps;

	for (i = 1; i < argc; i++) {
		if ((fd = open(argv[i], O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		elfread_spent(&b0, &n0);
		t0 = now_ms();
		r = elfsym_load_fd(fd, &t);
		ms = now_ms() - t0;
		elfread_spent(&b1, &n1);
		u = NULL;
		steps = 0;
		if ((r2 = elfsym_load_begin(fd, 1, &l)) == 0) {
			while ((r2 = elfsym_load_step(l, 4096, &u)) == 1)
				steps++;
			elfsym_load_free(l);
		}
		printf("%s r=%d n=%zu h=%016llx lazy=%d h=%016llx ms=%.2f "
		    "steps=%d read=%llu/%llu\n", argv[i], r, r == 0 ? t->nsyms : 0,
		    r == 0 ? (unsigned long long)table_hash(t) : 0ULL, r2,
		    r2 == 0 ? (unsigned long long)table_hash(u) : 0ULL, ms,
		    steps, (unsigned long long)(b1 - b0),
		    (unsigned long long)(n1 - n0));
		if (r == 0)
			elfsym_free(t);
		if (r2 == 0)
			elfsym_free(u);
		close(fd);
	}
	return (0);
}
