/*
 * Inlined frames and file:line from .gopclntab (gopclntab_fn, the
 * pc-value tables, gopclntab_inline, gopclntab_line, and elfsym's
 * ranges, built per function on its first look-up): one function with two levels of inlining built
 * in the Go 1.18 and the Go 1.20 layouts (the inline tree entry changed
 * in 1.20: no parent index, the parent is found through parentPc),
 * hostile variants of both, then a real stripped binary built now whose
 * every inline range must name the chain llvm-addr2line reads from the
 * unstripped build's DWARF.  (Only Go 1.19 is installable here: the 1.20
 * layout is tested on the table below, built after runtime/symtab.go and
 * symtabinl.go of Go 1.20-1.22.)
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sym/elfsym.h"
#include "sym/elfsym_int.h"
#include "sym/gopclntab.h"
#include "testing.h"
#include "test_sym_util.h"

static void
put32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void
put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * main.f at 0x401000-0x401100: [0x10, 0x40) runs main.g inlined (tree
 * entry 0, called from f at +0x8), [0x40, 0x80) main.h inlined into that
 * main.g (entry 1, called from g's code at +0x20); file a.go below 0x40,
 * b.go above; lines 10, 20, 30 from 0, 0x20, 0x40.
 */
#define T_HDR		72
#define T_NAMES		72	/* "main.f\0main.g\0main.h\0" + pad */
#define T_CUTAB		96	/* { 0, 5 } */
#define T_FILES		104	/* "a.go\0b.go\0" + pad */
#define T_PCTAB		120
#define T_PCLN		152
#define T_LEN		(T_PCLN + 16 + 44 + 12 + 16)

static const uint8_t pcfile_tab[] = { 2, 0x40, 2, 0xc0, 0x01, 0 };
static const uint8_t pcln_tab[] = { 22, 0x20, 20, 0x20, 20, 0xc0, 0x01, 0 };
/* -1 to 0x10 (a 0 first delta is allowed), 0, 1, then -1 (zigzag 3) */
static const uint8_t pcinl_tab[] = { 0, 0x10, 2, 0x30, 2, 0x40, 3, 0x80,
	0x01, 0 };

static size_t
table(uint8_t *b, int v120)
{
	size_t f, o, fixed = v120 ? 44 : 40;

	memset(b, 0, T_LEN);
	put32(b, v120 ? GOPCLNTAB_MAGIC_120 : GOPCLNTAB_MAGIC_118);
	b[6] = 1;
	b[7] = 8;
	put64(b + 8, 1);		/* nfunc */
	put64(b + 16, 2);		/* nfiles */
	put64(b + 24, 0x401000);	/* textStart */
	put64(b + 32, T_NAMES);
	put64(b + 40, T_CUTAB);
	put64(b + 48, T_FILES);
	put64(b + 56, T_PCTAB);
	put64(b + 64, T_PCLN);
	memcpy(b + T_NAMES, "main.f\0main.g\0main.h", 21);
	put32(b + T_CUTAB, 0);
	put32(b + T_CUTAB + 4, 5);
	memcpy(b + T_FILES, "a.go\0b.go", 10);
	/* pctab: a 0 byte (offset 0 is no table), then the three */
	o = 1;
	memcpy(b + T_PCTAB + o, pcfile_tab, sizeof(pcfile_tab));
	memcpy(b + T_PCTAB + o + 8, pcln_tab, sizeof(pcln_tab));
	memcpy(b + T_PCTAB + o + 16, pcinl_tab, sizeof(pcinl_tab));
	/* functab: (0, 16), end 0x100; _func at pcln + 16 */
	put32(b + T_PCLN, 0);
	put32(b + T_PCLN + 4, 16);
	put32(b + T_PCLN + 8, 0x100);
	f = T_PCLN + 16;
	put32(b + f + 4, 0);			/* nameOff: main.f */
	put32(b + f + 20, (uint32_t)o);		/* pcfile */
	put32(b + f + 24, (uint32_t)o + 8);	/* pcln */
	put32(b + f + 28, 3);			/* npcdata */
	put32(b + f + 32, 0);			/* cuOffset */
	b[f + fixed - 1] = 4;			/* nfuncdata */
	put32(b + f + fixed + 8, (uint32_t)o + 16);	/* InlTreeIndex */
	put32(b + f + fixed + 12, 0xffffffffu);
	put32(b + f + fixed + 16, 0xffffffffu);
	put32(b + f + fixed + 20, 0xffffffffu);
	put32(b + f + fixed + 24, 0x40);	/* InlTree: gofunc + 0x40 */
	return (T_LEN);
}

/* The tree: entry 0 main.g (parent -1, from f+0x8), 1 main.h (parent 0,
 * from g's code at f+0x20). */
static size_t
tree(uint8_t *t, int v120)
{
	if (v120) {
		memset(t, 0, 32);
		put32(t + 4, 7);	/* nameOff */
		put32(t + 8, 0x8);	/* parentPc */
		put32(t + 16 + 4, 14);
		put32(t + 16 + 8, 0x20);
		return (32);
	}
	memset(t, 0, 40);
	t[0] = 0xff;			/* parent -1 */
	t[1] = 0xff;
	put32(t + 12, 7);		/* func_ */
	put32(t + 16, 0x8);
	t[20] = 0;			/* parent 0 */
	put32(t + 20 + 12, 14);
	put32(t + 20 + 16, 0x20);
	return (40);
}

/* The chain at pc as "h<g" (innermost first); "" for none. */
static const char *
chain(const struct gopclntab *g, const struct gopclntab_fn *fn,
    const uint8_t *t, size_t tl, uint64_t pc, char *buf, size_t len)
{
	uint32_t no[8];
	const char *n;
	size_t l;
	int k, i;

	buf[0] = '\0';
	if ((k = gopclntab_inline(g, fn, t, tl, pc, no, 8)) < 0)
		return ("error");
	for (i = 0; i < k; i++) {
		if (gopclntab_name(g, no[i], &n, &l) != 0)
			return ("bad name");
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%.*s",
		    i ? "<" : "", (int)l, n);
	}
	return (buf);
}

/* Everything a hostile table can be asked. */
static void
walk(const uint8_t *b, size_t len, const uint8_t *t, size_t tl)
{
	struct gopclntab g;
	struct gopclntab_fn fn;
	struct gopclntab_pciter it;
	const char *f;
	uint64_t lo, hi, pc;
	uint32_t no[GOPCLNTAB_INL_DEPTH];
	int32_t v, line;
	size_t fl, i, steps;

	if (gopclntab_open(&g, b, len, 0x401000) != 0)
		return;
	for (i = 0; i < g.nfunc; i++) {
		if (gopclntab_fn(&g, i, &fn) != 0)
			continue;
		gopclntab_pcstart(&it, &g, fn.pcinl, fn.entry);
		for (steps = 0; gopclntab_pcnext(&it, &lo, &hi, &v) == 1;
		    steps++)
			if (steps > len)
				abort();	/* must end */
		for (pc = fn.entry; pc < fn.entry + 0x110; pc += 8) {
			(void)gopclntab_inline(&g, &fn, t, tl, pc, no,
			    GOPCLNTAB_INL_DEPTH);
			(void)gopclntab_line(&g, &fn, pc, &f, &fl, &line);
		}
	}
}

static void
test_layout(int v120)
{
	uint8_t b[T_LEN], c[T_LEN], t[40], u[40];
	struct gopclntab g;
	struct gopclntab_fn fn;
	const char *f;
	char buf[64], what[64];
	const char *ver = v120 ? "1.20" : "1.18";
	size_t len = table(b, v120), tl = tree(t, v120), fl;
	size_t i;
	int32_t line;
	int bit;

	snprintf(what, sizeof(what), "%s: _func record", ver);
	CHECK(gopclntab_open(&g, b, len, 0) == 0 && gopclntab_fn(&g, 0,
	    &fn) == 0 && fn.entry == 0x401000 && fn.end == 0x401100 &&
	    fn.pcinl == 17 && fn.has_inltree && fn.inltree == 0x40, what);
	snprintf(what, sizeof(what), "%s: inline chains", ver);
	CHECK(strcmp(chain(&g, &fn, t, tl, 0x401000, buf, sizeof(buf)),
	    "") == 0 &&
	    strcmp(chain(&g, &fn, t, tl, 0x401010, buf, sizeof(buf)),
	    "main.g") == 0 &&
	    strcmp(chain(&g, &fn, t, tl, 0x40103f, buf, sizeof(buf)),
	    "main.g") == 0 &&
	    strcmp(chain(&g, &fn, t, tl, 0x401040, buf, sizeof(buf)),
	    "main.h<main.g") == 0 &&
	    strcmp(chain(&g, &fn, t, tl, 0x40107f, buf, sizeof(buf)),
	    "main.h<main.g") == 0 &&
	    strcmp(chain(&g, &fn, t, tl, 0x401080, buf, sizeof(buf)),
	    "") == 0 &&
	    strcmp(chain(&g, &fn, t, tl, 0x401200, buf, sizeof(buf)),
	    "") == 0, what);
	snprintf(what, sizeof(what), "%s: file:line", ver);
	CHECK(gopclntab_line(&g, &fn, 0x401005, &f, &fl, &line) == 0 &&
	    fl == 4 && memcmp(f, "a.go", 4) == 0 && line == 10 &&
	    gopclntab_line(&g, &fn, 0x401020, &f, &fl, &line) == 0 &&
	    line == 20 &&
	    gopclntab_line(&g, &fn, 0x4010ff, &f, &fl, &line) == 0 &&
	    fl == 4 && memcmp(f, "b.go", 4) == 0 && line == 30 &&
	    gopclntab_line(&g, &fn, 0x401100, &f, &fl, &line) == -ENOENT,
	    what);

	/* A tree cut short, a loop of parents, an index past the tree. */
	snprintf(what, sizeof(what), "%s: short tree refused", ver);
	CHECK(gopclntab_inline(&g, &fn, t, tl / 2, 0x401050,
	    (uint32_t [8]){ 0 }, 8) == -EINVAL, what);
	memcpy(u, t, tl);
	if (v120)
		put32(u + 8, 0x10);	/* g's call site inside g */
	else
		u[0] = u[1] = 0;	/* g's parent is g */
	snprintf(what, sizeof(what), "%s: parent loop cut at the depth", ver);
	CHECK(gopclntab_inline(&g, &fn, u, tl, 0x401050,
	    (uint32_t [GOPCLNTAB_INL_DEPTH]){ 0 }, GOPCLNTAB_INL_DEPTH) ==
	    GOPCLNTAB_INL_DEPTH, what);

	for (i = 0; i < len; i++)
		walk(b, i, t, tl);
	for (i = 0; i < len; i++)
		for (bit = 0; bit < 8; bit++) {
			memcpy(c, b, len);
			c[i] ^= (uint8_t)(1u << bit);
			walk(c, len, t, tl);
		}
	for (i = 0; i < tl; i++)
		for (bit = 0; bit < 8; bit++) {
			memcpy(u, t, tl);
			u[i] ^= (uint8_t)(1u << bit);
			walk(b, len, u, tl);
		}
	snprintf(what, sizeof(what), "%s: every truncation and bit flip "
	    "walked", ver);
	CHECK(1, what);
}

/* A Go program with a leaf inlined twice deep into a loop. */
static const char go_src[] =
    "package main\n"
    "\n"
    "import \"os\"\n"
    "\n"
    "var sink uint64\n"
    "\n"
    "func leaf(x uint64) uint64 { return x*6364136223846793005 + 1 }\n"
    "\n"
    "func mid(x uint64) uint64 { return leaf(x) ^ (x >> 3) }\n"
    "\n"
    "//go:noinline\n"
    "func caller(n int) {\n"
    "\tx := sink\n"
    "\tfor i := 0; i < n; i++ {\n"
    "\t\tx = mid(x)\n"
    "\t}\n"
    "\tsink = x\n"
    "}\n"
    "\n"
    "func main() { caller(len(os.Args) * 1000) }\n";

static struct elfsym_table *
load(const char *path)
{
	struct elfsym_table *t = NULL;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (NULL);
	if (elfsym_load_fd(fd, &t) != 0)
		t = NULL;
	close(fd);
	return (t);
}

/* The Go reader over fd, into an empty table (b->t); NULL on failure. */
static struct elfsym_table *
go_open(int fd, struct elfread **e, struct elfsym_go *go,
    struct elfsym_build *b)
{
	if (elfread_open_fd(fd, ELFSYM_READ_BYTES, ELFSYM_READ_CALLS, e) != 0)
		return (NULL);
	elfsym_go_probe(*e, go);
	memset(b, 0, sizeof(*b));
	if ((b->t = calloc(1, sizeof(*b->t))) == NULL) {
		(void)elfread_free(*e);
		return (NULL);
	}
	b->t->fd = -1;
	return (b->t);
}

/* funcnametab's copies in two tables, NUL included, are the same. */
static int
go_names_same(const struct elfsym_table *u, const struct elfsym_table *t)
{
	size_t n;

	if (u->go_lazy == NULL || t->go_lazy == NULL)
		return (0);
	n = t->go_lazy->names_len + 1;
	return (u->go_lazy->names_len + 1 == n &&
	    u->go_nbase + n <= u->names_len && t->go_nbase + n <= t->names_len &&
	    memcmp(u->names + u->go_nbase, t->names + t->go_nbase, n) == 0);
}

/*
 * The Go part read in slices (elfsym_go_step from an fd, budget units a
 * step) gives the one-shot load's functions and inline data, byte for
 * byte; the sliced read takes more than one step.
 */
static int
sliced_same(const char *path, const struct elfsym_table *t, size_t budget)
{
	struct elfsym_build b;
	struct elfsym_goread r;
	struct elfsym_go go;
	struct elfsym_table *u;
	struct elfread *e;
	size_t steps = 0;
	int fd, rc, same = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (0);
	if ((u = go_open(fd, &e, &go, &b)) == NULL) {
		close(fd);
		return (0);
	}
	elfsym_go_begin(&r, &go);
	while ((rc = elfsym_go_step(&r, &b, budget)) == 1)
		steps++;
	elfsym_go_free(&r);
	same = rc == 0 && steps > 1 && u->go_funcs == t->go_funcs &&
	    u->nsyms == t->go_funcs && u->go_version == t->go_version &&
	    u->go_inl_state == 0 && u->go_ninl == t->go_ninl &&
	    u->go_names_len == t->go_names_len &&
	    memcmp(u->go_inl, t->go_inl, t->go_ninl *
	    sizeof(*t->go_inl)) == 0 &&
	    memcmp(u->go_chain, t->go_chain, (3 * t->go_ninl + 1) *
	    sizeof(*t->go_chain)) == 0 &&
	    go_names_same(u, t) &&
	    memcmp(u->go_lazy + 1, t->go_lazy + 1, t->go_names_len -
	    (size_t)((const char *)(t->go_lazy + 1) - t->go_names)) == 0;
	printf("# sliced by %zu units: %zu steps\n", budget, steps + 1);
	elfsym_free(u);
	(void)elfread_free(e);
	close(fd);
	return (same);
}

/*
 * The binary cut by its owner after the reader found the inline trees and
 * before it read them (they are read from the file per function, not
 * held whole): the functions stay, the inline data is given up and freed,
 * nothing is read past the end.
 */
static int
cut_before_trees(const char *path, const struct elfsym_table *t)
{
	struct elfsym_build b;
	struct elfsym_goread r;
	struct elfsym_go go;
	struct elfsym_table *u;
	struct elfread *e;
	char cut[600];
	int fd, rc, cutdone = 0, ok = 0;

	snprintf(cut, sizeof(cut), "%s.cut", path);
	if (tsu_copy(path, cut, -1) != 0 ||
	    (fd = open(cut, O_RDWR | O_CLOEXEC)) < 0)
		return (0);
	if ((u = go_open(fd, &e, &go, &b)) == NULL)
		goto out;
	elfsym_go_begin(&r, &go);
	while ((rc = elfsym_go_step(&r, &b, 64)) == 1)
		if (!cutdone && u->go_names != NULL) {
			/* the copies are allocated, the trees not read */
			cutdone = ftruncate(fd, (off_t)r.off) == 0;
		}
	elfsym_go_free(&r);
	ok = rc == 0 && cutdone && u->go_funcs == t->go_funcs &&
	    u->go_inl_state != 0 && u->go_ninl == 0 && u->go_names == NULL &&
	    u->go_inl == NULL;
	printf("# cut at the trees' offset %llu: %zu functions, inline "
	    "state %d\n", (unsigned long long)r.off, u->go_funcs,
	    u->go_inl_state);
	elfsym_free(u);
	(void)elfread_free(e);
out:
	close(fd);
	(void)unlink(cut);
	return (ok);
}

/*
 * Every inline range of main.caller, and every 7th range elsewhere (the
 * runtime inlines much): the chain elfsym gives (innermost first, then
 * the function holding the code) must be llvm-addr2line -i's on the
 * unstripped build (its DWARF DW_TAG_inlined_subroutine).
 */
static void
test_real(void)
{
	struct elfsym_table *t = NULL, *pie;
	struct timespec t0, t1;
	uint64_t *rng = NULL;
	size_t nrng = 0, nfn;
	double tfirst;
	char *dir, path[512], full[512], env[600];
	char cmd[1200], line[1024], want[1024];
	const char *n[GOPCLNTAB_INL_DEPTH];
	size_t i, k, nn, asked = 0, same = 0, in_caller = 0;
	size_t caller_bad = 0;
	long f;
	FILE *fp, *addrs;

	if (tsu_run((char *[]){ "sh", "-c", "command -v go >/dev/null && "
	    "command -v llvm-addr2line >/dev/null", NULL }) != 0) {
		printf("ok %d # SKIP no go toolchain or llvm-addr2line\n",
		    ++testing_n);
		return;
	}
	if ((dir = tsu_tmpdir()) == NULL) {
		CHECK(0, "tmpdir");
		return;
	}
	snprintf(env, sizeof(env), "%s/gocache", dir);
	setenv("GOCACHE", getenv("GOCACHE") ? getenv("GOCACHE") : env, 1);
	snprintf(env, sizeof(env), "%s/gopath", dir);
	setenv("GOPATH", env, 1);
	setenv("GOTOOLCHAIN", "local", 1);
	setenv("GOPROXY", "off", 1);
	setenv("GOFLAGS", "-buildvcs=false", 1);
	snprintf(path, sizeof(path), "%s/inl.go", dir);
	if ((fp = fopen(path, "w")) == NULL) {
		CHECK(0, "write inl.go");
		goto out;
	}
	fputs(go_src, fp);
	fclose(fp);
	snprintf(cmd, sizeof(cmd), "cd '%s' && go build -o inl inl.go && "
	    "go build -ldflags='-s -w' -o inl.s inl.go && go build "
	    "-buildmode=pie -ldflags='-s -w' -o inl.pie.s inl.go", dir);
	if (!CHECK(tsu_run((char *[]){ "sh", "-c", cmd, NULL }) == 0,
	    "go build, with and without -s -w"))
		goto out;
	snprintf(path, sizeof(path), "%s/inl.s", dir);
	snprintf(full, sizeof(full), "%s/inl", dir);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	t = load(path);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tfirst = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	/* Loaded, no function's ranges are built yet: only its
	 * functions with inlined code are known. */
	nfn = t != NULL ? t->go_ninl : 0;
	for (i = 0; i < nfn; i++)
		if ((t->go_inl[i].chain & ELFSYM_GOINL_LAZY) == 0)
			break;
	CHECK(t != NULL && nfn > 10 && i == nfn && t->go_nchain ==
	    3 * nfn + 1, "stripped: loaded with no inline range built");
	CHECK(t != NULL && sliced_same(path, t, 1) &&
	    sliced_same(path, t, 4096), "read in slices: the same table");
	CHECK(t != NULL && cut_before_trees(path, t), "cut before its inline "
	    "trees are read: its functions kept, no inline data");
	if (t != NULL && (nrng = elfsym_go_inl_ranges(t, NULL, 0)) > 0 &&
	    (rng = calloc(nrng, sizeof(*rng))) != NULL)
		(void)elfsym_go_inl_ranges(t, rng, nrng);
	if (!CHECK(t != NULL && t->go_inl_state == 0 && rng != NULL &&
	    nrng > 100, "stripped: inline ranges read"))
		goto out;
	for (i = 1; i < nrng && rng[i - 1] < rng[i]; i++)
		;
	CHECK(i == nrng, "the ranges in address order");
	printf("# %zu functions (%zu with inlined code), %zu inline ranges, "
	    "%zu chain words, %zu bytes of names and tables; loaded in "
	    "%.2f ms, %zu bytes in all\n", t->go_funcs, nfn, nrng,
	    t->go_nchain, t->go_names_len, tfirst, elfsym_bytes(t));

	/* The addresses, one a line, for llvm-addr2line. */
	snprintf(path, sizeof(path), "%s/addrs", dir);
	if ((addrs = fopen(path, "w")) == NULL)
		goto out;
	for (i = 0; i < nrng; i++) {
		f = elfsym_find(t, rng[i]);
		if (f >= 0 && strcmp(t->names + t->syms[f].name,
		    "main.caller") == 0)
			in_caller++;
		else if (i % 7 != 0)
			continue;
		fprintf(addrs, "%#" PRIx64 "\n", rng[i]);
	}
	fclose(addrs);
	/* Each address's chain on one line: names joined by '<'. */
	snprintf(cmd, sizeof(cmd), "llvm-addr2line -i -f -a -e '%s' <'%s' | "
	    "awk '/^0x/ { if (s != \"\") print s; s = $1 \" \"; n = 0; "
	    "next } { if (n %% 2 == 0) s = s (n ? \"<\" : \"\") $0; n++ } "
	    "END { if (s != \"\") print s }'", full, path);
	if ((fp = popen(cmd, "r")) == NULL) {
		CHECK(0, "llvm-addr2line");
		goto out;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		uint64_t a;
		char *sp;

		line[strcspn(line, "\n")] = '\0';
		if ((sp = strchr(line, ' ')) == NULL)
			continue;
		a = strtoull(line, NULL, 16);
		nn = elfsym_go_inlined(t, a, n, GOPCLNTAB_INL_DEPTH);
		want[0] = '\0';
		for (k = 0; k < nn; k++)
			snprintf(want + strlen(want), sizeof(want) -
			    strlen(want), "%s<", n[k]);
		f = elfsym_find(t, a);
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
		    "%s", f >= 0 ? t->names + t->syms[f].name : "?");
		asked++;
		if (strcmp(want, sp + 1) == 0)
			same++;
		else if (f >= 0 && strcmp(t->names + t->syms[f].name,
		    "main.caller") == 0)
			caller_bad++;
		if (strcmp(want, sp + 1) != 0 && asked - same <= 5)
			printf("# %#" PRIx64 ": gopclntab %s, DWARF %s\n", a,
			    want, sp + 1);
	}
	pclose(fp);
	printf("# %zu of %zu inline chains as DWARF's (%zu ranges in "
	    "main.caller)\n", same, asked, in_caller);
	/*
	 * The compiler's pointer-receiver wrappers (runtime.(*lockRank).
	 * String calling lockRank.String inlined) record the inlining in
	 * .gopclntab, as the runtime's own tracebacks show it, but not in
	 * DWARF: a few such differences are allowed outside main.caller.
	 */
	CHECK(in_caller >= 1 && asked > 50 && caller_bad == 0 &&
	    same * 100 >= asked * 99, "the chains checked are DWARF's "
	    "(99%, all of main.caller's)");
	/* mid inlined into caller, leaf into mid: the loop's body */
	for (i = 0, k = 0; i < nrng; i++) {
		nn = elfsym_go_inlined(t, rng[i], n, 4);
		if (nn == 2 && strcmp(n[0], "main.leaf") == 0 &&
		    strcmp(n[1], "main.mid") == 0)
			k++;
	}
	CHECK(k >= 1, "main.leaf < main.mid inlined in main.caller");
	/* A big real binary, if the toolchain has it: Go's own compiler. */
	snprintf(cmd, sizeof(cmd), "%s/pkg/tool/linux_amd64/compile",
	    getenv("GOROOT_TEST") ? getenv("GOROOT_TEST") : "/usr/lib/go");
	if (access(cmd, R_OK) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		pie = load(cmd);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (pie != NULL) {
			printf("# %s: %zu functions (%zu with inlined code); "
			    "loaded in %.2f ms, %zu bytes (%zu of them inline)",
			    cmd, pie->go_funcs, pie->go_ninl,
			    (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6,
			    elfsym_bytes(pie), pie->go_ninl *
			    sizeof(*pie->go_inl) + pie->go_nchain *
			    sizeof(*pie->go_chain) + pie->go_names_len);
			clock_gettime(CLOCK_MONOTONIC, &t0);
			k = elfsym_go_inl_ranges(pie, NULL, 0);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			printf("; all %zu inline ranges built in %.2f ms\n", k,
			    (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
		}
		elfsym_free(pie);
	}
	/* -buildmode=pie: moduledata found, the same ranges */
	snprintf(path, sizeof(path), "%s/inl.pie.s", dir);
	if ((pie = load(path)) != NULL)
		printf("# pie: %zu inline ranges\n",
		    elfsym_go_inl_ranges(pie, NULL, 0));
	CHECK(pie != NULL && pie->go_ninl == t->go_ninl &&
	    elfsym_go_inl_ranges(pie, NULL, 0) == nrng,
	    "stripped PIE build: the same inline ranges");
	elfsym_free(pie);

	/*
	 * The per-frame cost of the inline look-up (what a sample pays per
	 * user frame of such a binary): addresses spread over the text, a
	 * third in inlined code.
	 */
	if (t->nsyms > 0) {
		uint64_t base = t->syms[0].addr, span, a;
		size_t got = 0, reps = 2000000;

		span = t->syms[t->nsyms - 1].addr - base + 1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < reps; i++) {
			a = i % 3 == 0 ? rng[(i * 7919) % nrng] :
			    base + (i * 2654435761u) % span;
			got += elfsym_go_inlined(t, a, n, GOPCLNTAB_INL_DEPTH);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("# inline look-up: %.1f ns a frame (%zu frames, %zu "
		    "inlined names)\n", ((double)(t1.tv_sec - t0.tv_sec) *
		    1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)reps,
		    reps, got);
		CHECK(got >= reps / 3, "inline look-ups answer");
	}
out:
	free(rng);
	elfsym_free(t);
	tsu_rmtree(dir);
}

int
main(void)
{
	test_layout(0);
	test_layout(1);
	test_real();
	return (testing_done());
}
