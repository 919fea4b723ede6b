/*
 * gobuildinfo.c and what elfsym.c keeps for the Go application metadata:
 * a header in the Go 1.18+ inline layout and hostile variants of it
 * (every truncation, every byte flipped), the pre-1.18 pointer layout
 * over a small image (the toolchain here cannot build one), then
 * real binaries built now with the installed Go toolchain: default
 * (static), -ldflags='-s -w', PIE, external linking (with glibc, and
 * with musl-gcc).  Each must give the version `go env GOVERSION` prints,
 * stripped exactly for -s -w, dynamic exactly for PIE and external
 * linking, a musl loader exactly for musl.  Without a go command the
 * real-binary part is skipped.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "sym/elfsym.h"
#include "sym/gobuildinfo.h"
#include "testing.h"
#include "test_sym_util.h"

/* The head of .go.buildinfo as Go 1.18+ writes it. */
static size_t
header(uint8_t *b, const char *ver, uint8_t flags)
{
	size_t n = strlen(ver);

	memset(b, 0, 64);
	memcpy(b, "\xff Go buildinf:", 14);
	b[14] = 8;
	b[15] = flags;
	b[32] = (uint8_t)n;
	memcpy(b + 33, ver, n);
	b[33 + n] = 0;		/* an empty module info */
	return (34 + n);
}

static void
test_synthetic(void)
{
	uint8_t b[64], c[64];
	char v[GOBUILDINFO_VER_MAX], small[8];
	size_t len, i, j, bad = 0, ok = 0;
	int r;

	len = header(b, "go1.21.4", 0x2);
	CHECK(gobuildinfo_version(b, len, v, sizeof(v)) == 0 &&
	    strcmp(v, "go1.21.4") == 0, "inline header: its version");
	/* Every truncation short of the whole string fails, none crashes. */
	for (i = 0; i < len; i++) {
		r = gobuildinfo_version(b, i, v, sizeof(v));
		if (i < 33 + 8 ? r == 0 : r != 0)
			bad++;
	}
	CHECK(bad == 0, "truncations: refused until the string is whole");
	/* Every byte flipped: a valid answer is always printable. */
	for (i = 0; i < len; i++) {
		memcpy(c, b, len);
		c[i] ^= 0xff;
		if (gobuildinfo_version(c, len, v, sizeof(v)) != 0)
			continue;
		ok++;
		for (j = 0; v[j] != '\0'; j++)
			if ((unsigned char)v[j] < 0x20 ||
			    (unsigned char)v[j] > 0x7e)
				bad++;
		if (j == 0)
			bad++;
	}
	printf("# %zu of %zu flips still read\n", ok, len);
	CHECK(bad == 0, "flipped bytes: no unprintable version");
	CHECK(gobuildinfo_version(b, len, small, sizeof(small)) == -EINVAL,
	    "a version longer than the buffer is refused");
	len = header(b, "go1.16.15", 0x0);
	CHECK(gobuildinfo_version(b, len, v, sizeof(v)) == -ENOTSUP &&
	    v[0] == '\0', "pre-1.18 pointer layout: -ENOTSUP");
	len = header(b, "go1.20", 0x2);
	b[1] = 'X';
	CHECK(gobuildinfo_version(b, len, v, sizeof(v)) == -ENOENT,
	    "no magic: -ENOENT");
	len = header(b, "", 0x2);
	CHECK(gobuildinfo_version(b, len, v, sizeof(v)) == -EINVAL,
	    "empty version: -EINVAL");
	len = header(b, "go1.20", 0x2);
	b[35] = '\n';
	CHECK(gobuildinfo_version(b, len, v, sizeof(v)) == -EINVAL,
	    "control character: -EINVAL");
	len = header(b, "go1.20", 0x2);
	memset(b + 32, 0xff, 11);	/* a uvarint that never ends */
	CHECK(gobuildinfo_version(b, 64, v, sizeof(v)) == -EINVAL,
	    "endless uvarint: -EINVAL");
	len = header(b, "go1.20", 0x2);
	b[32] = 0x86;			/* 6 | 1 << 7: 134 bytes */
	b[33] = 0x01;
	CHECK(gobuildinfo_version(b, 64, v, sizeof(v)) == -EINVAL,
	    "length past the buffer: -EINVAL");
}

/* An image for the pre-1.18 layout: link-time addresses from IMG_BASE. */
#define IMG_BASE	0x500000u
static uint8_t img[0x400];

static int
img_read(void *arg, uint64_t addr, void *buf, size_t n)
{
	(void)arg;
	if (addr < IMG_BASE || addr - IMG_BASE > sizeof(img) ||
	    n > sizeof(img) - (addr - IMG_BASE))
		return (-1);
	memcpy(buf, img + (addr - IMG_BASE), n);
	return (0);
}

static void
put(uint8_t *p, uint64_t v, unsigned ps)
{
	unsigned i;

	for (i = 0; i < ps; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Header pointing at a string header at +0x100, the bytes at +0x200. */
static size_t
old_layout(uint8_t *b, unsigned ps, const char *ver, uint64_t len)
{
	memset(b, 0, 64);
	memset(img, 0, sizeof(img));
	memcpy(b, "\xff Go buildinf:", 14);
	b[14] = (uint8_t)ps;
	b[15] = 0;
	put(b + 16, IMG_BASE + 0x100, ps);
	put(b + 16 + ps, IMG_BASE + 0x180, ps);	/* modinfo: not read */
	put(img + 0x100, IMG_BASE + 0x200, ps);
	put(img + 0x100 + ps, len, ps);
	memcpy(img + 0x200, ver, strlen(ver));
	return (32);
}

static void
test_old_layout(void)
{
	uint8_t b[64];
	char v[GOBUILDINFO_VER_MAX];
	size_t len, i, bad = 0;

	len = old_layout(b, 8, "go1.16.15", 9);
	CHECK(gobuildinfo_version_at(b, len, img_read, NULL, v, sizeof(v)) ==
	    0 && strcmp(v, "go1.16.15") == 0, "pre-1.18, 8-byte pointers");
	len = old_layout(b, 4, "go1.13", 6);
	CHECK(gobuildinfo_version_at(b, len, img_read, NULL, v, sizeof(v)) ==
	    0 && strcmp(v, "go1.13") == 0, "pre-1.18, 4-byte pointers");
	CHECK(gobuildinfo_version_at(b, len, NULL, NULL, v, sizeof(v)) ==
	    -ENOTSUP, "pre-1.18 without a reader: -ENOTSUP");
	b[15] = 1;
	CHECK(gobuildinfo_version_at(b, len, img_read, NULL, v, sizeof(v)) ==
	    -ENOTSUP, "big-endian: -ENOTSUP");
	len = old_layout(b, 8, "go1.16.15", 1u << 20);
	CHECK(gobuildinfo_version_at(b, len, img_read, NULL, v, sizeof(v)) ==
	    -EINVAL, "huge length: -EINVAL");
	len = old_layout(b, 8, "go1.16.15", 9);
	put(b + 16, 0x10, 8);
	CHECK(gobuildinfo_version_at(b, len, img_read, NULL, v, sizeof(v)) ==
	    -EINVAL, "pointer outside the image: -EINVAL");
	len = old_layout(b, 8, "go1.16.15", 9);
	put(img + 0x100, IMG_BASE + sizeof(img) - 4, 8);
	CHECK(gobuildinfo_version_at(b, len, img_read, NULL, v, sizeof(v)) ==
	    -EINVAL, "string running off the image: -EINVAL");
	len = old_layout(b, 3, "go1.16.15", 9);
	CHECK(gobuildinfo_version_at(b, len, img_read, NULL, v, sizeof(v)) ==
	    -ENOTSUP, "3-byte pointers: -ENOTSUP");
	/* The inline layout reads the same through either call. */
	len = header(b, "go1.21.4", 0x2);
	CHECK(gobuildinfo_version_at(b, len, img_read, NULL, v, sizeof(v)) ==
	    0 && strcmp(v, "go1.21.4") == 0, "inline layout through _at");
	for (i = 0; i < 32; i++)
		if (gobuildinfo_version_at(b, i, img_read, NULL, v,
		    sizeof(v)) == 0)
			bad++;
	CHECK(bad == 0, "truncated headers refused through _at");
}

static const char go_src[] =
    "package main\n"
    "\n"
    "import \"os\"\n"
    "\n"
    "func main() { os.Exit(len(os.Args) - 1) }\n";

static int
go_build(const char *dir, const char *out, const char *f1, const char *f2)
{
	char src[512], dst[512];
	char *argv[8];
	int n = 0;

	snprintf(src, sizeof(src), "%s/m.go", dir);
	snprintf(dst, sizeof(dst), "%s/%s", dir, out);
	argv[n++] = "go";
	argv[n++] = "build";
	if (f1 != NULL)
		argv[n++] = (char *)f1;
	if (f2 != NULL)
		argv[n++] = (char *)f2;
	argv[n++] = "-o";
	argv[n++] = dst;
	argv[n++] = src;
	argv[n] = NULL;
	return (tsu_run(argv));
}

static struct elfsym_table *
load(const char *path, int lazy)
{
	struct elfsym_table *t = NULL;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (NULL);
	if ((lazy ? elfsym_load_fd_lazy(fd, &t) : elfsym_load_fd(fd, &t)) !=
	    0)
		t = NULL;
	close(fd);
	return (t);
}

static void
test_one(const char *dir, const char *name, const char *want, int stripped,
    int dynamic, int musl)
{
	struct elfsym_table *t, *l;
	char path[512], what[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	t = load(path, 0);
	l = load(path, 1);
	snprintf(what, sizeof(what), "%s: loaded", name);
	if (!CHECK(t != NULL && l != NULL, what))
		goto out;
	printf("# %s: version \"%s\" (%d), symtab %d, dynamic %d\n", name,
	    t->go_buildver, t->go_buildinfo, t->symtab_sect, t->dynamic);
	snprintf(what, sizeof(what), "%s: version %s", name, want);
	CHECK(t->go_buildinfo == 0 && strcmp(t->go_buildver, want) == 0 &&
	    l->go_buildinfo == 0 && strcmp(l->go_buildver, want) == 0, what);
	snprintf(what, sizeof(what), "%s: %s", name, stripped ? "stripped" :
	    "has .symtab");
	CHECK(t->symtab_sect == !stripped && l->symtab_sect == !stripped,
	    what);
	snprintf(what, sizeof(what), "%s: %s", name, dynamic ? "dynamic" :
	    "static");
	CHECK(t->dynamic == dynamic && l->dynamic == dynamic, what);
	snprintf(what, sizeof(what), "%s: %s", name, musl ? "musl loader" :
	    "no musl loader");
	CHECK(t->interp_musl == musl && l->interp_musl == musl, what);
out:
	elfsym_free(t);
	elfsym_free(l);
}

/*
 * A real binary rewritten to the pre-1.18 layout: its .go.buildinfo's
 * header now points at a string header written at +0x40 of the section,
 * which points back at the version bytes the inline layout left at +0x21
 * (the module info after them is overwritten: it is not read).
 */
static void
test_rewritten(const char *dir, const char *from, const char *want)
{
	struct elfsym_table *t = NULL;
	Elf *e = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *n;
	char src[512], dst[512];
	uint8_t w[16];
	size_t shstrndx;
	uint64_t off = 0, addr = 0;
	int fd = -1;

	snprintf(src, sizeof(src), "%s/%s", dir, from);
	snprintf(dst, sizeof(dst), "%s/%s.old", dir, from);
	(void)elf_version(EV_CURRENT);
	if (!CHECK(tsu_copy(src, dst, 64 << 20) == 0 &&
	    (fd = open(dst, O_RDWR | O_CLOEXEC)) >= 0 &&
	    (e = elf_begin(fd, ELF_C_READ, NULL)) != NULL &&
	    elf_getshdrstrndx(e, &shstrndx) == 0, "copy to rewrite"))
		goto out;
	while ((scn = elf_nextscn(e, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL &&
		    (n = elf_strptr(e, shstrndx, sh.sh_name)) != NULL &&
		    strcmp(n, ".go.buildinfo") == 0) {
			off = sh.sh_offset;
			addr = sh.sh_addr;
		}
	elf_end(e);
	e = NULL;
	if (!CHECK(off != 0 && addr != 0, ".go.buildinfo found"))
		goto out;
	w[0] = 0;				/* flags: pointers */
	(void)pwrite(fd, w, 1, (off_t)off + 15);
	put(w, addr + 0x40, 8);
	(void)pwrite(fd, w, 8, (off_t)off + 16);
	put(w, addr + 0x21, 8);
	put(w + 8, strlen(want), 8);
	if (!CHECK(pwrite(fd, w, 16, (off_t)off + 0x40) == 16, "rewritten"))
		goto out;
	close(fd);
	fd = -1;
	t = load(dst, 0);
	CHECK(t != NULL && t->go_buildinfo == 0 &&
	    strcmp(t->go_buildver, want) == 0,
	    "pre-1.18 layout in a real binary: version through PT_LOAD");
	if (t != NULL)
		printf("# rewritten: \"%s\" (%d)\n", t->go_buildver,
		    t->go_buildinfo);
out:
	if (e != NULL)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	elfsym_free(t);
}

static void
test_real(void)
{
	struct elfsym_table *t;
	char *dir, path[512], env[600], want[64];
	FILE *f;
	size_t n;

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
	setenv("GO111MODULE", "off", 1);
	want[0] = '\0';
	if ((f = popen("go env GOVERSION", "r")) != NULL) {
		if (fgets(want, sizeof(want), f) == NULL)
			want[0] = '\0';
		pclose(f);
	}
	n = strcspn(want, "\n");
	want[n] = '\0';
	if (!CHECK(strncmp(want, "go1.", 4) == 0, "go env GOVERSION"))
		goto out;
	snprintf(path, sizeof(path), "%s/m.go", dir);
	if ((f = fopen(path, "w")) == NULL) {
		CHECK(0, "write m.go");
		goto out;
	}
	fputs(go_src, f);
	fclose(f);
	if (!CHECK(go_build(dir, "m", NULL, NULL) == 0 &&
	    go_build(dir, "m.s", "-ldflags=-s -w", NULL) == 0 &&
	    go_build(dir, "m.pie.s", "-ldflags=-s -w", "-buildmode=pie") ==
	    0, "go build: default, -s -w, PIE -s -w"))
		goto out;
	test_one(dir, "m", want, 0, 0, 0);
	test_one(dir, "m.s", want, 1, 0, 0);
	test_one(dir, "m.pie.s", want, 1, 1, 0);
	test_rewritten(dir, "m.s", want);
	/* External linking needs a C toolchain (cgo); skipped without. */
	if (go_build(dir, "m.ext", "-ldflags=-linkmode=external", NULL) == 0)
		test_one(dir, "m.ext", want, 0, 1, 0);
	else
		printf("ok %d # SKIP external linking failed (no cgo?)\n",
		    ++testing_n);
	/* Linked against musl (musl-tools): its loader is the interpreter. */
	setenv("CC", "musl-gcc", 1);
	if (tsu_run((char *[]){ "sh", "-c", "command -v musl-gcc >/dev/null",
	    NULL }) == 0 && go_build(dir, "m.musl",
	    "-ldflags=-linkmode=external", NULL) == 0)
		test_one(dir, "m.musl", want, 0, 1, 1);
	else
		printf("ok %d # SKIP no musl-gcc (musl-tools)\n", ++testing_n);
	unsetenv("CC");
	/* Not Go: this test program. */
	t = load("/proc/self/exe", 0);
	CHECK(t != NULL && t->go_buildinfo == -ENOENT &&
	    t->go_buildver[0] == '\0', "a C binary: no Go version");
	elfsym_free(t);
out:
	tsu_rmtree(dir);
}

int
main(void)
{
	test_synthetic();
	test_old_layout();
	test_real();
	return (testing_done());
}
