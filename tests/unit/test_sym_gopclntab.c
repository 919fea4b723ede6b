/*
 * gopclntab.c and its use by elfsym.c: a small table in the Go 1.18
 * layout, hostile variants of it (every truncation, every byte flipped),
 * then real binaries built now with the installed Go toolchain, stripped
 * (-ldflags='-s -w') and not: every function the stripped binary's
 * .gopclntab names must carry the name the unstripped .symtab gives its
 * address.  Without a go command the real-binary part is skipped.
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
 * A Go 1.18-layout table: header (72 bytes), funcnametab, then pclntab:
 * functab (3 pairs and the end), the three _func records.
 */
#define SMALL_LEN	(72 + 24 + 28 + 24)
static size_t
small_table(uint8_t *b)
{
	static const char names[24] = "main.a\0main.b\0runtime.c";
	static const uint32_t entry[4] = { 0x0, 0x40, 0x100, 0x180 };
	static const uint32_t nameoff[3] = { 0, 7, 14 };
	size_t pcln = 72 + 24, i;

	memset(b, 0, SMALL_LEN);
	put32(b, GOPCLNTAB_MAGIC_118);
	b[6] = 1;
	b[7] = 8;
	put64(b + 8, 3);		/* nfunc */
	put64(b + 24, 0x401000);	/* textStart */
	put64(b + 32, 72);		/* funcnameOffset */
	put64(b + 64, pcln);		/* pclnOffset */
	memcpy(b + 72, names, sizeof(names));
	for (i = 0; i < 3; i++) {
		put32(b + pcln + 8 * i, entry[i]);
		put32(b + pcln + 8 * i + 4, (uint32_t)(28 + 8 * i));
		put32(b + pcln + 28 + 8 * i, entry[i]);
		put32(b + pcln + 28 + 8 * i + 4, nameoff[i]);
	}
	put32(b + pcln + 24, entry[3]);
	return (SMALL_LEN);
}

/* Everything a hostile table can be asked; returns the names' total. */
static size_t
walk(const uint8_t *b, size_t len)
{
	struct gopclntab g;
	uint64_t e, end;
	const char *n;
	size_t i, l, total = 0;

	if (gopclntab_open(&g, b, len, 0x401000) != 0)
		return (0);
	for (i = 0; i < g.nfunc; i++) {
		if (gopclntab_func(&g, i, &e, &end, &n, &l) != 0)
			continue;
		total += l;
		(void)gopclntab_find(&g, e);
		(void)gopclntab_find(&g, end);
		(void)gopclntab_find(&g, e - 1);
	}
	return (total);
}

/*
 * The Go 1.16/1.17 layout of the same three functions: no textStart in the
 * header (64 bytes), uintptr (entry, funcoff) pairs holding addresses, and
 * _func records starting with a uintptr entry.  Go 1.20's layout is 1.18's
 * under another magic.  (Only Go 1.19 is installable here: these two are
 * built after runtime/symtab.go of those releases.)
 */
#define SMALL116_LEN	(64 + 24 + 56 + 48)
static void
test_small116(void)
{
	static const char names[24] = "main.a\0main.b\0runtime.c";
	static const uint64_t entry[4] = { 0x401000, 0x401040, 0x401100,
	    0x401180 };
	static const uint32_t nameoff[3] = { 0, 7, 14 };
	uint8_t b[SMALL116_LEN], c[SMALL_LEN];
	struct gopclntab g;
	uint64_t e, end;
	const char *n;
	size_t pcln = 64 + 24, i, l;

	memset(b, 0, sizeof(b));
	put32(b, GOPCLNTAB_MAGIC_116);
	b[6] = 1;
	b[7] = 8;
	put64(b + 8, 3);		/* nfunc */
	put64(b + 24, 64);		/* funcnameOffset */
	put64(b + 56, pcln);		/* pclnOffset */
	memcpy(b + 64, names, sizeof(names));
	for (i = 0; i < 3; i++) {
		put64(b + pcln + 16 * i, entry[i]);
		put64(b + pcln + 16 * i + 8, 56 + 16 * i);
		put64(b + pcln + 56 + 16 * i, entry[i]);
		put32(b + pcln + 56 + 16 * i + 8, nameoff[i]);
	}
	put64(b + pcln + 48, entry[3]);
	CHECK(gopclntab_open(&g, b, sizeof(b), 0) == 0 && g.version == 116 &&
	    g.nfunc == 3, "1.16: header");
	CHECK(gopclntab_func(&g, 2, &e, &end, &n, &l) == 0 &&
	    e == 0x401100 && end == 0x401180 && l == 9 &&
	    memcmp(n, "runtime.c", 9) == 0, "1.16: function 2");
	CHECK(gopclntab_find(&g, 0x401041) == 1 &&
	    gopclntab_find(&g, 0x401180) == -1, "1.16: lookups");
	for (i = 0; i < sizeof(b); i++)
		(void)walk(b, i);
	CHECK(1, "1.16: every truncation walked");

	(void)small_table(c);
	put32(c, GOPCLNTAB_MAGIC_120);
	CHECK(gopclntab_open(&g, c, SMALL_LEN, 0) == 0 && g.version == 120 &&
	    gopclntab_find(&g, 0x401100) == 2, "1.20 magic: 1.18 layout");
}

static void
test_small(void)
{
	uint8_t b[SMALL_LEN], c[SMALL_LEN];
	struct gopclntab g;
	uint64_t e, end;
	const char *n;
	size_t len = small_table(b), l, i, ok;
	int bit;

	CHECK(gopclntab_open(&g, b, len, 0) == 0 && g.nfunc == 3 &&
	    g.version == 118 && g.text_start == 0x401000, "small: header");
	CHECK(gopclntab_func(&g, 1, &e, &end, &n, &l) == 0 &&
	    e == 0x401040 && end == 0x401100 && l == 6 &&
	    memcmp(n, "main.b", 6) == 0, "small: function 1");
	CHECK(gopclntab_find(&g, 0x401000) == 0 &&
	    gopclntab_find(&g, 0x40103f) == 0 &&
	    gopclntab_find(&g, 0x401040) == 1 &&
	    gopclntab_find(&g, 0x40117f) == 2, "small: lookups");
	CHECK(gopclntab_find(&g, 0x400fff) == -1 &&
	    gopclntab_find(&g, 0x401180) == -1, "small: outside: none");
	CHECK(gopclntab_func(&g, 3, &e, &end, &n, &l) == -EINVAL,
	    "small: index past nfunc refused");

	/* textStart 0 (PIE): the .text address given stands in. */
	memcpy(c, b, len);
	put64(c + 24, 0);
	CHECK(gopclntab_open(&g, c, len, 0x2000) == 0 &&
	    gopclntab_find(&g, 0x2040) == 1, "small: textStart 0 uses .text");

	/* Every truncation: opens only when the functab still fits, and
	 * a name cut off is refused, never read past the end. */
	for (i = 0, ok = 1; i < len; i++) {
		if (walk(b, i) > 24)
			ok = 0;
		if (gopclntab_open(&g, b, i, 0) == 0 && i < 72 + 24 + 28)
			ok = 0;
	}
	CHECK(ok, "small: every truncation bounded");

	/* Every bit of every byte flipped: no read outside (ASan/valgrind
	 * builds check), names stay NUL-terminated in the buffer. */
	for (i = 0; i < len; i++)
		for (bit = 0; bit < 8; bit++) {
			memcpy(c, b, len);
			c[i] ^= (uint8_t)(1u << bit);
			(void)walk(c, len);
		}
	CHECK(1, "small: every bit flipped walked");

	/* A huge nfunc, a pointer size of 3, Go 1.2's magic, big-endian. */
	memcpy(c, b, len);
	put64(c + 8, UINT64_MAX / 2);
	CHECK(gopclntab_open(&g, c, len, 0) == -EINVAL, "huge nfunc refused");
	memcpy(c, b, len);
	c[7] = 3;
	CHECK(gopclntab_open(&g, c, len, 0) == -EINVAL, "ptrsize 3 refused");
	memcpy(c, b, len);
	put32(c, 0xfffffffb);
	CHECK(gopclntab_open(&g, c, len, 0) == -ENOEXEC, "Go 1.2 magic: not ours");
	memcpy(c, b, len);
	put32(c, 0xf0ffffff);
	CHECK(gopclntab_open(&g, c, len, 0) == -ENOEXEC, "big-endian: not ours");
	/* A name without its NUL up to the end of the buffer. */
	memcpy(c, b, len);
	put32(c + 72 + 24 + 28 + 16 + 4, 72 + 24 + 28 + 24 - 72 - 1);
	c[len - 1] = 'x';
	CHECK(gopclntab_open(&g, c, len, 0) == 0 &&
	    gopclntab_func(&g, 2, &e, &end, &n, &l) == -EINVAL,
	    "unterminated name refused");
}

static const char go_src[] =
    "package main\n"
    "\n"
    "import \"os\"\n"
    "\n"
    "var sink uint64\n"
    "\n"
    "//go:noinline\n"
    "func hotA(n int) { for i := 0; i < n; i++ { sink += uint64(i) } }\n"
    "\n"
    "//go:noinline\n"
    "func hotB(n int) { for i := 0; i < n; i++ { sink ^= uint64(i) } }\n"
    "\n"
    "func main() { hotA(len(os.Args)); hotB(len(os.Args)) }\n";

static int
go_build(const char *dir, const char *out, int strip, int pie)
{
	char src[512], dst[512];
	char *argv[8];
	int n = 0;

	snprintf(src, sizeof(src), "%s/hot.go", dir);
	snprintf(dst, sizeof(dst), "%s/%s", dir, out);
	argv[n++] = "go";
	argv[n++] = "build";
	if (strip)
		argv[n++] = "-ldflags=-s -w";
	if (pie)
		argv[n++] = "-buildmode=pie";
	argv[n++] = "-o";
	argv[n++] = dst;
	argv[n++] = src;
	argv[n] = NULL;
	return (tsu_run(argv));
}

static struct elfsym_table *
load(const char *dir, const char *name, int lazy)
{
	struct elfsym_table *t = NULL;
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (NULL);
	if ((lazy ? elfsym_load_fd_lazy(fd, &t) : elfsym_load_fd(fd, &t)) !=
	    0)
		t = NULL;
	close(fd);
	return (t);
}

/*
 * The same function: .symtab names assembly by its ABI (".abi0") and
 * writes array lengths in type names that .gopclntab shortens ("[...]");
 * the runtime (and pprof) name a function as .gopclntab does.
 */
static int
go_name_eq(const char *go, const char *sym)
{
	size_t n;

	while (*go != '\0' && *sym != '\0') {
		if (strncmp(go, "[...]", 5) == 0 && *sym == '[' &&
		    (n = strspn(sym + 1, "0123456789")) > 0 &&
		    sym[1 + n] == ']') {
			go += 5;
			sym += n + 2;
		} else if (*go++ != *sym++)
			return (0);
	}
	return (*go == '\0' && (*sym == '\0' || strcmp(sym, ".abi0") == 0));
}

/* The symtab's address of a name (a linear scan: a test). */
static uint64_t
addr_of(const struct elfsym_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nsyms; i++)
		if (go_name_eq(name, t->names + t->syms[i].name))
			return (t->syms[i].addr);
	return (0);
}

/* Both builds of one kind: every name as the unstripped .symtab's. */
static void
test_pair(const char *dir, const char *full_name, const char *strip_name,
    int pie)
{
	struct elfsym_table *full, *go;
	const char *b;
	size_t i, same = 0;
	char what[128];

	snprintf(what, sizeof(what), "%s: every .gopclntab name matches "
	    ".symtab", strip_name);
	if (go_build(dir, full_name, 0, pie) != 0 ||
	    go_build(dir, strip_name, 1, pie) != 0) {
		CHECK(0, what);
		return;
	}
	full = load(dir, full_name, 0);
	go = load(dir, strip_name, 1);
	for (i = 0; go != NULL && full != NULL && i < go->nsyms; i++) {
		b = elfsym_lookup(full, go->syms[i].addr, NULL);
		if (b != NULL && go_name_eq(go->names + go->syms[i].name, b))
			same++;
	}
	printf("# %s: %zu of %zu names as in .symtab\n", strip_name, same,
	    go != NULL ? go->nsyms : 0);
	CHECK(go != NULL && full != NULL && same == go->nsyms && same > 500,
	    what);
	elfsym_free(full);
	elfsym_free(go);
}

static void
test_real(void)
{
	static const char *const	 want[] = { "main.hotA", "main.hotB",
	    "main.main", "runtime.mallocgc", "runtime.goexit" };
	struct elfsym_table *full, *go, *lazy;
	struct timespec t0, t1;
	const char *a, *b;
	char *dir, path[512], env[600];
	size_t i, same = 0, diff = 0, nfull = 0;
	uint64_t addr;
	FILE *f;
	int fd, ok;

	if (tsu_run((char *[]){ "sh", "-c", "command -v go >/dev/null",
	    NULL }) != 0) {
		printf("ok %d # SKIP no go toolchain in PATH\n", ++testing_n);
		return;
	}
	if ((dir = tsu_tmpdir()) == NULL) {
		CHECK(0, "tmpdir");
		return;
	}
	/* A cache of its own unless one is set; never a download. */
	snprintf(env, sizeof(env), "%s/gocache", dir);
	setenv("GOCACHE", getenv("GOCACHE") ? getenv("GOCACHE") : env, 1);
	snprintf(env, sizeof(env), "%s/gopath", dir);
	setenv("GOPATH", env, 1);
	setenv("GOTOOLCHAIN", "local", 1);
	setenv("GOPROXY", "off", 1);
	setenv("GOFLAGS", "-buildvcs=false", 1);
	snprintf(path, sizeof(path), "%s/hot.go", dir);
	if ((f = fopen(path, "w")) == NULL) {
		CHECK(0, "write hot.go");
		goto out;
	}
	fputs(go_src, f);
	fclose(f);
	if (!CHECK(go_build(dir, "hot", 0, 0) == 0 &&
	    go_build(dir, "hot.s", 1, 0) == 0, "go build, with and without "
	    "-s -w"))
		goto out;
	test_pair(dir, "hot.pie", "hot.pie.s", 1);

	full = load(dir, "hot", 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	go = load(dir, "hot.s", 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	lazy = load(dir, "hot.s", 1);
	if (!CHECK(full != NULL && go != NULL && lazy != NULL, "loaded"))
		goto out;
	printf("# stripped: %zu functions from .gopclntab (format %d) "
	    "in %.2f ms, %zu bytes\n", go->go_funcs, go->go_version,
	    (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6, elfsym_bytes(go));
	CHECK(full->has_symtab && full->go_funcs == 0,
	    "unstripped: its .symtab is used");
	CHECK(!go->has_symtab && go->go_funcs > 500 && go->go_version >= 116,
	    "stripped: functions from .gopclntab");
	CHECK(lazy->go_funcs == go->go_funcs && lazy->names != NULL,
	    "stripped, lazy load: the same table, names copied");

	/* Every Go function is named as the unstripped .symtab names its
	 * address (the stripped build lays out text the same). */
	for (i = 0; i < go->nsyms; i++) {
		a = go->names + go->syms[i].name;
		b = elfsym_lookup(full, go->syms[i].addr, NULL);
		if (b != NULL && go_name_eq(a, b))
			same++;
		else if (diff++ < 5)
			printf("# %#" PRIx64 ": gopclntab %s, symtab %s\n",
			    go->syms[i].addr, a, b ? b : "(none)");
	}
	printf("# %zu names as in .symtab, %zu not\n", same, diff);
	CHECK(same == go->nsyms && same > 500,
	    "every .gopclntab name matches .symtab");
	/* And the other way: .symtab's functions are all found. */
	for (i = 0, ok = 0; i < full->nsyms; i++) {
		a = full->names + full->syms[i].name;
		b = elfsym_lookup(go, full->syms[i].addr, NULL);
		if (full->syms[i].size == 0)
			continue;	/* runtime.text and such markers */
		nfull++;
		if (b != NULL && go_name_eq(b, a))
			ok++;
	}
	printf("# %d of %zu sized .symtab functions found by name\n", ok,
	    nfull);
	CHECK((size_t)ok == nfull, ".symtab's functions all found");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		addr = addr_of(full, want[i]);
		a = elfsym_lookup(go, addr + 1, NULL);
		CHECK(addr != 0 && a != NULL && strcmp(a, want[i]) == 0,
		    want[i]);
	}

	/* The stripped binary with its .gopclntab scribbled over and cut in
	 * the middle: loads or refuses, never reads outside. */
	snprintf(path, sizeof(path), "%s/hot.s", dir);
	snprintf(env, sizeof(env), "%s/bad", dir);
	ok = 1;
	if (tsu_copy(path, env, -1) == 0 && (fd = open(env, O_RDWR)) >= 0) {
		struct elfsym_table *bad;
		off_t off;
		uint8_t junk[4096];

		srandom(1);
		for (i = 0; i < sizeof(junk); i++)
			junk[i] = (uint8_t)random();
		/* scribble a few places, reload after each */
		for (off = 0; off < lseek(fd, 0, SEEK_END); off += 65536) {
			if (pwrite(fd, junk, sizeof(junk), off + 4096) < 0)
				break;
			if (elfsym_load_fd(fd, &bad) == 0) {
				(void)elfsym_lookup(bad, addr_of(full,
				    "main.hotA"), NULL);
				elfsym_free(bad);
			}
		}
		if (ftruncate(fd, lseek(fd, 0, SEEK_END) * 3 / 4) != 0 ||
		    (elfsym_load_fd(fd, &bad) == 0 && (elfsym_free(bad), 0)))
			ok = 1;
		close(fd);
	} else
		ok = 0;
	CHECK(ok, "scribbled and truncated copies: bounded");
	elfsym_free(full);
	elfsym_free(go);
	elfsym_free(lazy);
out:
	tsu_rmtree(dir);
}

/* The small table read in place: its bytes from mem, the reads counted;
 * fail_after reads, every read fails (the file cut while read). */
struct memsrc {
	const uint8_t *b;
	size_t len;
	int reads, fail_after;
};

static int
memsrc_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct memsrc *m = arg;

	if (m->reads++ >= m->fail_after || off > m->len ||
	    len > m->len - off)
		return (-1);
	memcpy(buf, m->b + off, len);
	return (0);
}

static void
test_src(void)
{
	uint8_t b[SMALL_LEN];
	struct gopclntab_src src;
	struct gopclntab g, gb;
	struct memsrc m;
	uint64_t e, end, e2, end2;
	const char *n, *n2;
	size_t len = small_table(b), l, l2, i;
	int same = 1;

	m.b = b;
	m.len = len;
	m.reads = 0;
	m.fail_after = 1000;
	CHECK(gopclntab_src_init(&src, memsrc_read, &m, len) == 0 &&
	    gopclntab_open_src(&g, &src, len, 0) == 0 && g.nfunc == 3 &&
	    g.version == 118 && g.p == NULL, "in place: header");
	CHECK(gopclntab_open(&gb, b, len, 0) == 0, "in place: and in memory");
	for (i = 0; i <= g.nfunc; i++) {
		int r1 = gopclntab_func(&g, i, &e, &end, &n, &l);
		int r2 = gopclntab_func(&gb, i, &e2, &end2, &n2, &l2);

		if (r1 != r2 || (r1 == 0 && (e != e2 || end != end2 ||
		    l != l2 || memcmp(n, n2, l) != 0)))
			same = 0;
	}
	CHECK(same && gopclntab_find(&g, 0x401040) == 1,
	    "in place: the same functions and names as in memory");
	CHECK(m.reads == 1 && src.fills == 1,
	    "in place: a small table is one window, read once");
	gopclntab_src_free(&src);

	/* The file cut after the header's window: what follows fails. */
	m.reads = 0;
	m.fail_after = 1;
	CHECK(gopclntab_src_init(&src, memsrc_read, &m, len) == 0 &&
	    gopclntab_open_src(&g, &src, len, 0) == 0, "in place: cut: opens");
	src.w[0].len = 0;	/* the window forgotten: read again */
	CHECK(gopclntab_func(&g, 1, &e, &end, &n, &l) == -EINVAL &&
	    src.max_fills == 0, "in place: a failed read ends the reads");
	gopclntab_src_free(&src);

	/* No window to spare: nothing is read. */
	m.reads = 0;
	m.fail_after = 1000;
	CHECK(gopclntab_src_init(&src, memsrc_read, &m, len) == 0, "init");
	src.max_fills = 0;
	CHECK(gopclntab_open_src(&g, &src, len, 0) == -ENOEXEC &&
	    m.reads == 0, "in place: past its reads, the table reads as cut");
	gopclntab_src_free(&src);
}

int
main(void)
{
	test_small();
	test_src();
	test_small116();
	test_real();
	return (testing_done());
}
