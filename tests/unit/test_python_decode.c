/*
 * The CPython decoders as pure functions: line tables checked against what
 * each real interpreter says about its own code (dis/co_lines/co_positions),
 * the walk over a synthetic memory image (good and corrupted), str kinds,
 * the 3.13 debug offsets validation, versions and the /proc parsers.
 */
#include <sys/wait.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testing.h"
#include "python_spawn.h"
#include "py_target.h"

/* Prints "F <firstlineno>", "T <hex table>", then "<unit> <line|-1>". */
static const char dump_script[] =
"import sys, dis\n"
"def subject(a):\n"
"    total = 0\n"
"    for i in range(a):\n"
"        if i % 3 == 0:\n"
"            total += i\n"
"\n"
"        else:\n"
"            try:\n"
"                total -= 1\n"
"            except ValueError:\n"
"                pass\n"
"    return total\n"
"c = subject.__code__\n"
"print('F', c.co_firstlineno)\n"
"v = sys.version_info[:2]\n"
"if v >= (3, 11):\n"
"    print('T', c.co_linetable.hex())\n"
"    for i, p in enumerate(c.co_positions()):\n"
"        print(i, -1 if p[0] is None else p[0])\n"
"elif v == (3, 10):\n"
"    print('T', c.co_linetable.hex())\n"
"    for s, e, l in c.co_lines():\n"
"        for b in range(s, e, 2):\n"
"            print(b // 2, -1 if l is None else l)\n"
"else:\n"
"    print('T', c.co_lnotab.hex())\n"
"    starts = dict(dis.findlinestarts(c))\n"
"    line = c.co_firstlineno\n"
"    for off in range(0, len(c.co_code), 2):\n"
"        line = starts.get(off, line)\n"
"        print(off, line)\n";

static char *
run_capture(const char *python)
{
	char *argv[] = { (char *)python, (char *)"-c", (char *)dump_script,
	    NULL };
	char *buf;
	size_t len = 0, cap = 1 << 20;
	ssize_t n;
	int p[2];
	pid_t pid;

	if ((buf = malloc(cap)) == NULL || pipe(p) != 0)
		return (NULL);
	if ((pid = fork()) == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while (len + 1 < cap && (n = read(p[0], buf + len,
	    cap - 1 - len)) > 0)
		len += (size_t)n;
	close(p[0]);
	waitpid(pid, NULL, 0);
	buf[len] = '\0';
	return (buf);
}

static size_t
unhex(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned v;

	while (n < max && sscanf(s, "%2x", &v) == 1) {
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return (n);
}

static void
test_line_tables(const struct py_interp *pi)
{
	uint8_t table[65536];
	char *out = run_capture(pi->path), *line, *save, what[128];
	struct py_version v;
	size_t tlen = 0;
	int first = 0, kind, checked = 0, bad = 0, unit, want, got;

	if (out == NULL || py_version_from_filename(pi->path, &v) != 0) {
		CHECK(0, "line-table dump runs");
		free(out);
		return;
	}
	kind = v.minor <= 9 ? PY_LINE_LNOTAB : v.minor == 10 ? PY_LINE_310 :
	    PY_LINE_PEP657;
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == 'F')
			first = atoi(line + 2);
		else if (line[0] == 'T')
			tlen = unhex(line + 2, table, sizeof(table));
		else if (sscanf(line, "%d %d", &unit, &want) == 2) {
			if (kind == PY_LINE_LNOTAB)
				got = py_line_lnotab(table, tlen, first, unit);
			else if (kind == PY_LINE_310)
				got = py_line_310(table, tlen, first, unit);
			else
				got = py_line_pep657(table, tlen, first, unit);
			if (want == -1)
				want = first;	/* no line: first line */
			checked++;
			if (got != want && bad++ < 3)
				printf("# %s unit %d: got %d want %d\n",
				    pi->label, unit, got, want);
		}
	}
	snprintf(what, sizeof(what), "%s: line table of %d instructions "
	    "matches the interpreter", pi->label, checked);
	CHECK(checked > 20 && bad == 0, what);
	free(out);
}

/* --- a synthetic 3.11 memory image ---------------------------------- */

#define IMG_BASE	0x200000ull
#define IMG_SIZE	0x50000	/* room for a 200 KB line table, 64 codes */

struct image {
	uint8_t b[IMG_SIZE];
};

static int
image_readv(void *arg, const struct py_iov *iov, uint32_t n)
{
	struct image *im = arg;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (iov[i].addr < IMG_BASE ||
		    iov[i].addr + iov[i].len > IMG_BASE + IMG_SIZE)
			return (-EFAULT);
		memcpy(iov[i].buf, im->b + (iov[i].addr - IMG_BASE),
		    iov[i].len);
	}
	return (0);
}

static void
put64(struct image *im, uint64_t addr, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		im->b[addr - IMG_BASE + i] = (uint8_t)(v >> (8 * i));
}

static void
put32(struct image *im, uint64_t addr, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		im->b[addr - IMG_BASE + i] = (uint8_t)(v >> (8 * i));
}

/* An ASCII compact str at addr (3.11 layout). */
static void
put_str(struct image *im, uint64_t addr, const char *s)
{
	put64(im, addr + 16, strlen(s));
	put32(im, addr + 32, (1u << 2) | 0x20 | 0x40);
	memcpy(im->b + (addr - IMG_BASE) + 48, s, strlen(s));
}

#define A(off)	(IMG_BASE + (off))
#define RT	A(0x0)
#define INTERP	A(0x100)
#define TSTATE	A(0x200)
#define CFRAME	A(0x300)
#define CODE_T	A(0x380)
#define FR(i)	A(0x400 + (i) * 0x80)
#define CODE(i)	A(0x1000 + (i) * 0x100)
#define STR(i)	A(0x2000 + (i) * 0x100)

static void
image_build(struct image *im, int nframes)
{
	int i;

	memset(im, 0, sizeof(*im));
	put64(im, RT + 40, INTERP);
	put64(im, INTERP + 16, TSTATE);
	put64(im, TSTATE + 16, INTERP);
	put64(im, TSTATE + 56, CFRAME);
	put32(im, TSTATE + 160, 4242);
	put64(im, CFRAME + 8, FR(nframes - 1));
	for (i = 0; i < nframes; i++) {
		char name[32];

		put64(im, FR(i) + 48, i > 0 ? FR(i - 1) : 0);
		put64(im, FR(i) + 32, CODE(i));
		put64(im, FR(i) + 56, CODE(i) + 184 + 2);
		put64(im, CODE(i) + 8, CODE_T);
		put64(im, CODE(i) + 112, STR(7));
		put64(im, CODE(i) + 128, STR(i));
		put64(im, CODE(i) + 136, STR(8));
		put32(im, CODE(i) + 72, 10 * (unsigned)(i + 1));
		snprintf(name, sizeof(name), "f%d", i);
		put_str(im, STR(i), name);
	}
	put_str(im, STR(7), "/srv/app.py");
	/* Line table: one 1-unit entry on line+0, then one on line+2. */
	put64(im, STR(8) + 16, 3);
	im->b[STR(8) - IMG_BASE + 32] = 0x80 | (10 << 3);	/* delta 0 */
	im->b[STR(8) - IMG_BASE + 33] = 0x80 | (12 << 3);	/* delta 2 */
	im->b[STR(8) - IMG_BASE + 34] = 0x80;
}

struct got {
	char text[4096];
	int calls;
	int32_t tid;
};

static void
collect(void *arg, struct py_target *t, int32_t tid, const char *const *f,
    uint32_t n)
{
	struct got *g = arg;
	uint32_t i;

	g->calls++;
	g->tid = tid;
	g->text[0] = '\0';
	for (i = 0; i < n; i++) {
		size_t l = strlen(g->text);

		snprintf(g->text + l, sizeof(g->text) - l, "%s%s", f[i],
		    i + 1 < n ? ";" : "");
	}
}

static int image_cached;

static void
image_target(struct py_target *t, struct image *im, int line_mode)
{
	memset(t, 0, sizeof(*t));
	t->pid = 1;
	t->mem.readv = image_readv;
	t->mem.arg = im;
	t->runtime = RT;
	t->code_type = CODE_T;
	t->tid_fallback = 1;
	t->line_mode = line_mode;
	py_offsets_for_version(3, 11, &t->off);
	t->codes = py_code_cache_new();
	t->scratch.frames = calloc(PY_MAX_FRAMES,
	    sizeof(*t->scratch.frames));
	t->scratch.ptrs = calloc(PY_MAX_FRAMES,
	    sizeof(*t->scratch.ptrs));
}

static int
image_sample(struct image *im, int line_mode, struct got *g)
{
	struct py_target t;
	uint32_t nth;
	int rc;

	memset(g, 0, sizeof(*g));
	image_target(&t, im, line_mode);
	if (image_cached)
		py_mem_cache_init(&t.mem);
	rc = py_target_sample(&t, collect, g, &nth);
	py_target_release(&t);
	return (rc);
}

#define BIG_LT		A(0x4000)
#define BIG_CODE(i)	A(0x40000 + (i) * 0x100)

/*
 * Frames walked in the sample (the BPF program's pairs, root first): the
 * same text as the reader's walk, code objects read once, hostile words
 * refused, and the code cache within its byte budget whatever the line
 * tables claim.
 */
static void
test_walked(void)
{
	static struct image im;
	struct py_target t;
	struct got g;
	uint64_t walk[2 * 3], reads, one[2];
	size_t most = 0;
	int i, good = 0;

	image_build(&im, 3);
	image_target(&t, &im, PY_LINE_CURRENT);
	for (i = 0; i < 3; i++) {
		walk[2 * i] = CODE(i);
		walk[2 * i + 1] = CODE(i) + 184 + 2;
	}
	memset(&g, 0, sizeof(g));
	CHECK_INTEQ(py_target_sample_walked(&t, 4242, walk, 3, collect, &g),
	    0, "a walked sample");
	CHECK_STREQ(g.text, "f0 (/srv/app.py:12)_[p];f1 (/srv/app.py:22)_[p];"
	    "f2 (/srv/app.py:32)_[p]", "root first, current lines from the "
	    "walked positions");
	CHECK_INTEQ(g.tid, 4242, "the sampled thread");
	reads = t.mem.nreads;
	CHECK_INTEQ(py_target_sample_walked(&t, 4242, walk, 3, collect, &g),
	    0, "again");
	CHECK_INTEQ(t.mem.nreads - reads, 0, "cached code objects: no read");
	/* texts kept per position: a position seen before, one on another
	 * line, and more positions than a code object keeps */
	for (i = 0; i < 3 * PY_CODE_TEXTS; i++) {
		walk[5] = CODE(2) + 184 + 2 * (uint64_t)(i % 2 == 0 ? 0 :
		    i < PY_CODE_TEXTS ? 1 : 2 + i);
		memset(&g, 0, sizeof(g));
		(void)py_target_sample_walked(&t, 4242, walk, 3, collect, &g);
		if (i == 0)
			CHECK_STREQ(strrchr(g.text, ';') + 1,
			    "f2 (/srv/app.py:30)_[p]", "its first unit");
		if (i == 1)
			CHECK_STREQ(strrchr(g.text, ';') + 1,
			    "f2 (/srv/app.py:32)_[p]", "its second unit");
	}
	walk[5] = CODE(2) + 184;
	(void)py_target_sample_walked(&t, 4242, walk, 3, collect, &g);
	CHECK_STREQ(strrchr(g.text, ';') + 1, "f2 (/srv/app.py:30)_[p]",
	    "the first unit after the positions went round");
	walk[5] = CODE(2) + 184 + 2;
	(void)py_target_sample_walked(&t, 4242, walk, 3, collect, &g);
	CHECK_STREQ(strrchr(g.text, ';') + 1, "f2 (/srv/app.py:32)_[p]",
	    "and the second, made again");
	CHECK_INTEQ(t.mem.nreads - reads, 0, "still no read");
	/* hostile words: not a code object, not a pointer */
	memset(&g, 0, sizeof(g));
	walk[2] = CODE_T;
	CHECK(py_target_sample_walked(&t, 4242, walk, 3, collect, &g) != 0 &&
	    g.calls == 0, "a word that is no code object fails the sample");
	walk[2] = 0x7fff00000003ull;
	CHECK(py_target_sample_walked(&t, 4242, walk, 3, collect, &g) != 0 &&
	    g.calls == 0, "a misaligned word fails the sample");
	CHECK_INTEQ(py_target_sample_walked(&t, 4242, walk, PY_MAX_FRAMES + 1,
	    collect, &g), -EINVAL, "more frames than a stack holds");
	/* 64 code objects each with a 200 KB line table: 12.8 MB claimed */
	put64(&im, BIG_LT + 16, 200000);
	for (i = 0; i < 64; i++) {
		put64(&im, BIG_CODE(i) + 8, CODE_T);
		put64(&im, BIG_CODE(i) + 112, STR(7));
		put64(&im, BIG_CODE(i) + 128, STR(0));
		put64(&im, BIG_CODE(i) + 136, BIG_LT);
		put32(&im, BIG_CODE(i) + 72, 5);
	}
	t.line_mode = PY_LINE_FIRST;
	for (i = 0; i < 64; i++) {
		one[0] = BIG_CODE(i);
		one[1] = 0;
		memset(&g, 0, sizeof(g));
		if (py_target_sample_walked(&t, 1, one, 1, collect, &g) == 0 &&
		    strcmp(g.text, "f0 (/srv/app.py:5)_[p]") == 0)
			good++;
		if (py_code_cache_bytes(t.codes) > most)
			most = py_code_cache_bytes(t.codes);
	}
	CHECK_INTEQ(good, 64, "every sample of the big code objects");
	CHECK(most <= 8u << 20 && most >= 4u << 20, "the code cache stays "
	    "within its 8 MiB");
	printf("# code cache peak %zu bytes\n", most);
	py_target_release(&t);
}

static void
test_image(void)
{
	static struct image im;
	struct got g;

	image_build(&im, 3);
	CHECK_INTEQ(image_sample(&im, PY_LINE_FIRST, &g), 0, "image walk");
	CHECK_STREQ(g.text, "f0 (/srv/app.py:10)_[p];f1 (/srv/app.py:20)_[p];"
	    "f2 (/srv/app.py:30)_[p]", "frames root first, first lines");
	CHECK_INTEQ(g.tid, 4242, "native thread id");
	image_cached = 1;
	CHECK(image_sample(&im, PY_LINE_FIRST, &g) == 0 && strcmp(g.text,
	    "f0 (/srv/app.py:10)_[p];f1 (/srv/app.py:20)_[p];"
	    "f2 (/srv/app.py:30)_[p]") == 0, "same walk through the page cache");
	image_cached = 0;
	image_sample(&im, PY_LINE_CURRENT, &g);
	CHECK(strstr(g.text, "f2 (/srv/app.py:32)_[p]") != NULL,
	    "current line from the location table");
	/* A frame pointing at itself: the sample fails, no hang. */
	image_build(&im, 3);
	put64(&im, FR(1) + 48, FR(1));
	CHECK(image_sample(&im, PY_LINE_FIRST, &g) != 0 && g.calls == 0,
	    "self-loop frame refused");
	/* A two-frame cycle: bounded by the depth cap. */
	image_build(&im, 3);
	put64(&im, FR(0) + 48, FR(2));
	CHECK(image_sample(&im, PY_LINE_FIRST, &g) == 0 &&
	    strlen(g.text) > 0, "frame cycle bounded");
	/* Misaligned and out-of-image pointers. */
	image_build(&im, 3);
	put64(&im, FR(1) + 48, FR(0) + 3);
	CHECK(image_sample(&im, PY_LINE_FIRST, &g) != 0, "misaligned frame");
	image_build(&im, 3);
	put64(&im, CODE(1) + 128, 0x7fff00000000ull);
	CHECK(image_sample(&im, PY_LINE_FIRST, &g) != 0, "unreadable name");
	/* Wrong code type, huge string length, bad tstate back-pointer. */
	image_build(&im, 3);
	put64(&im, CODE(0) + 8, CODE_T + 8);
	CHECK(image_sample(&im, PY_LINE_FIRST, &g) != 0, "not a code object");
	image_build(&im, 3);
	put64(&im, STR(1) + 16, 1ull << 40);
	CHECK(image_sample(&im, PY_LINE_FIRST, &g) != 0, "absurd str length");
	image_build(&im, 3);
	put64(&im, TSTATE + 16, INTERP + 8);
	CHECK(image_sample(&im, PY_LINE_FIRST, &g) != 0, "tstate->interp");
	/* Thread list looping onto itself stays bounded. */
	image_build(&im, 3);
	put64(&im, TSTATE + 8, TSTATE);
	CHECK(image_sample(&im, PY_LINE_FIRST, &g) == 0 &&
	    g.calls > 0, "tstate cycle bounded");
}

static void
test_strings(void)
{
	struct py_offsets o;
	uint8_t hdr[72] = { 0 }, ucs2[] = { 0xf1, 0x6d, 0x44, 0x30 };
	uint8_t ucs4[] = { 0x00, 0xf6, 0x01, 0x00 }, lat[] = { 'c', 0xe9 };
	uint64_t data;
	size_t nb;
	char out[64];
	int kind;

	py_offsets_for_version(3, 12, &o);
	hdr[16] = 2;
	hdr[32] = (2 << 2) | 0x20;	/* compact, UCS-2 */
	CHECK(py_str_decode(&o, hdr, sizeof(hdr), 0x1000, &data, &nb,
	    &kind) == 0 && data == 0x1000 + 56 && nb == 4 && kind == 2,
	    "3.12 compact UCS-2 header");
	py_str_to_utf8(ucs2, sizeof(ucs2), 2, out, sizeof(out));
	CHECK_STREQ(out, "深い", "UCS-2 to UTF-8");
	py_str_to_utf8(ucs4, sizeof(ucs4), 4, out, sizeof(out));
	CHECK_STREQ(out, "\xf0\x9f\x98\x80", "UCS-4 to UTF-8");
	py_str_to_utf8(lat, sizeof(lat), 1, out, sizeof(out));
	CHECK_STREQ(out, "c\xc3\xa9", "Latin-1 to UTF-8");
	py_str_to_utf8(ucs2, sizeof(ucs2), 2, out, 4);
	CHECK_STREQ(out, "深", "cut at a character boundary");
	hdr[32] = (2 << 2);	/* legacy */
	CHECK(py_str_decode(&o, hdr, sizeof(hdr), 0x1000, &data, &nb,
	    &kind) != 0, "legacy str refused");
}

static void
test_debug_offsets(void)
{
	uint8_t b[PY_DEBUG_OFFSETS_SIZE] = { 0 };
	struct py_offsets o;
	char err[128];
	int i;

	memcpy(b, "xdebugpy", 8);
	for (i = 0; i < 8; i++)
		b[8 + i] = (uint8_t)(0x030d00f0ull >> (8 * i));
	/* Every group size 8192, every offset 16 * index. */
	for (i = 3; i < 73; i++) {
		uint64_t v = (i == 3 || i == 6 || i == 19 || i == 28 ||
		    i == 34 || i == 44 || i == 46 || i == 50 || i == 53 ||
		    i == 56 || i == 59 || i == 61 || i == 64 || i == 67 ||
		    i == 71) ? 8192 : i == 70 ? 40 : (uint64_t)i * 16;
		int k;

		for (k = 0; k < 8; k++)
			b[i * 8 + k] = (uint8_t)(v >> (8 * k));
	}
	CHECK(py_offsets_from_debug(b, sizeof(b), 13, &o, err,
	    sizeof(err)) == 0 && o.ts_frame == 23 * 16 && o.fr_owner == 33 *
	    16 && o.co_code_adaptive == 43 * 16 && o.str_ascii_size == 40 &&
	    o.str_compact_size == 56, "3.13 offsets taken from the block");
	b[25 * 8 + 2] = 0x10;	/* native_thread_id beyond the struct */
	CHECK(py_offsets_from_debug(b, sizeof(b), 13, &o, err,
	    sizeof(err)) == -EINVAL, "out-of-bounds offset refused");
	b[25 * 8 + 2] = 0;
	CHECK(py_offsets_from_debug(b, sizeof(b), 12, &o, err,
	    sizeof(err)) == -EINVAL, "minor mismatch refused");
	b[16] = 1;
	CHECK(py_offsets_from_debug(b, sizeof(b), 13, &o, err,
	    sizeof(err)) == -ENOTSUP, "free-threaded refused");
}

static void
test_versions_and_proc(void)
{
	struct py_version v;
	struct py_map m;
	const char *ml = "7f12a000-7f12b000 r-xp 00001000 08:01 1234     "
	    "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0";
	const char *stat = "77 (a) b (c)) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 "
	    "15 16 17 18 987654 20";
	static const char excl[] = "/usr/bin/python3\0/usr/bin/"
	    "networkd-dispatcher", fine[] = "python3\0app.py";
	char why[128], state;
	uint64_t st;

	CHECK(py_version_from_hex(0x030b07f0, &v) == 0 && v.minor == 11 &&
	    v.micro == 7, "PY_VERSION_HEX");
	CHECK(py_version_from_string("3.10.13 (main, Jan", 18, &v) == 0 &&
	    v.minor == 10 && v.micro == 13, "sys.version text");
	CHECK(py_version_from_filename("/x/libpython3.13t.so.1.0", &v) == 0 &&
	    v.free_threaded && py_version_supported(&v, why, sizeof(why)) ==
	    -ENOTSUP, "3.13t skipped");
	CHECK(py_version_from_filename("/usr/bin/python3.7", &v) == 0 &&
	    py_version_supported(&v, why, sizeof(why)) == -ENOTSUP &&
	    strstr(why, "3.7") != NULL, "3.7 skipped with reason");
	CHECK(py_proc_parse_map_line(ml, strlen(ml), &m) == 0 &&
	    m.start == 0x7f12a000 && m.offset == 0x1000 && m.inode == 1234 &&
	    m.pathlen == strlen("/usr/lib/x86_64-linux-gnu/libpython3.11.so"
	    ".1.0"), "maps line");
	CHECK(py_proc_map_is_python(m.path, m.pathlen), "libpython matches");
	CHECK(py_proc_map_is_python("/usr/bin/python3", 16) &&
	    !py_proc_map_is_python("/python3", 8) &&
	    py_proc_map_is_python("/v/lib/python3.11/site-packages/x.so",
	    36) && !py_proc_map_is_python("/usr/lib/libc.so.6", 18) &&
	    !py_proc_map_is_python("/site-packages/", 15),
	    "gProfiler's maps regex");
	CHECK(py_proc_stat_state(stat, strlen(stat), &state, &st) == 0 &&
	    state == 'R' && st == 987654, "stat with ')' in comm");
	CHECK(py_proc_stat_state(stat, 8, &state, &st) == -EINVAL,
	    "stat cut before the start time: refused");
	CHECK(py_proc_cmdline_excluded(excl, sizeof(excl) - 1) &&
	    !py_proc_cmdline_excluded(fine, sizeof(fine) - 1),
	    "excluded cmdlines");
}

int
main(void)
{
	struct py_interp interps[8];
	int i, n;

	test_image();
	test_walked();
	test_strings();
	test_debug_offsets();
	test_versions_and_proc();
	n = py_spawn_find(interps, 8);
	for (i = 0; i < n; i++)
		test_line_tables(&interps[i]);
	if (n == 0)
		printf("# no interpreters: line tables not checked\n");
	return (testing_done());
}
