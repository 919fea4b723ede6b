/*
 * elfsym.c on real binaries: this test program, the libc it runs with,
 * truncated and corrupted copies of libc, and a stripped copy of itself
 * completed from a separate debug file made with objcopy.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sym/elfsym.h"
#include "sym/procmaps.h"
#include "testing.h"
#include "test_sym_util.h"

#define CHECK_EQ(a, b)	CHECK_INTEQ(a, b, #a " == " #b)

__attribute__((noinline)) int	elfsym_test_marker(int);

__attribute__((noinline)) int
elfsym_test_marker(int x)
{
	return (x * 3 + 1);
}

__attribute__((noinline)) static int
static_helper(int x)
{
	return (x ^ 0x55);
}

/* Path of the file mapped at addr (map_files) and addr's file offset. */
static int
self_mapping(const void *addr, char *path, size_t len, uint64_t *off)
{
	struct procmaps m;
	char *buf;
	size_t blen;
	long i;
	FILE *f = fopen("/proc/self/maps", "r");

	buf = malloc(1 << 20);
	blen = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	procmaps_parse(buf, blen, &m);
	free(buf);
	if ((i = procmaps_find(&m, (uint64_t)(uintptr_t)addr)) < 0) {
		procmaps_free(&m);
		return (-1);
	}
	snprintf(path, len, "/proc/self/map_files/%" PRIx64 "-%" PRIx64,
	    m.v[i].start, m.v[i].end);
	*off = (uint64_t)(uintptr_t)addr - m.v[i].start + m.v[i].pgoff;
	procmaps_free(&m);
	return (0);
}

static const char *
lookup_at(const struct elfsym_table *t, uint64_t off)
{
	uint64_t vaddr;

	if (elfsym_file_to_vaddr(t, off, &vaddr) != 0)
		return (NULL);
	return (elfsym_lookup(t, vaddr, NULL));
}

static struct elfsym_table *
load_path(const char *path, int *err)
{
	struct elfsym_table *t = NULL;
	int fd;

	if ((fd = open(path, O_RDONLY)) < 0) {
		*err = -errno;
		return (NULL);
	}
	*err = elfsym_load_fd(fd, &t);
	close(fd);
	return (t);
}

static void
test_self(void)
{
	struct elfsym_table *t;
	char path[128], hex[129];
	uint64_t off, off2;
	int err;

	CHECK(self_mapping((const char *)elfsym_test_marker + 3, path,
	    sizeof(path), &off) == 0, "own mapping");
	t = load_path(path, &err);
	CHECK(t != NULL && err == 0, "load own binary");
	if (t == NULL)
		return;
	CHECK(t->has_symtab, "own binary has .symtab");
	CHECK_STREQ(lookup_at(t, off), "elfsym_test_marker", "inside marker");
	self_mapping((const void *)static_helper, path, sizeof(path), &off2);
	CHECK_STREQ(lookup_at(t, off2), "static_helper", "static function");
	elfsym_build_id_hex(t, hex, sizeof(hex));
	CHECK(strlen(hex) == 40, "gcc's sha1 build-id");
	printf("# own binary: %zu symbols, %zu bytes\n", t->nsyms,
	    elfsym_bytes(t));
	elfsym_free(t);
	elfsym_free(NULL);
}

static char libc_path[128];
static uint64_t libc_getpid_off;

static void
test_libc(void)
{
	struct elfsym_table *t;
	struct timespec a, b;
	const char *name;
	uint64_t vaddr;
	size_t i, hits = 0;
	int err;

	self_mapping((const void *)getpid, libc_path, sizeof(libc_path),
	    &libc_getpid_off);
	clock_gettime(CLOCK_MONOTONIC, &a);
	t = load_path(libc_path, &err);
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK(t != NULL, "load libc");
	if (t == NULL)
		return;
	name = lookup_at(t, libc_getpid_off);
	CHECK(name != NULL && (strcmp(name, "getpid") == 0 ||
	    strcmp(name, "__getpid") == 0), "getpid resolves to getpid");
	printf("# libc: %zu symbols, %zu bytes, loaded in %.2f ms; getpid -> "
	    "%s\n", t->nsyms, elfsym_bytes(t), (b.tv_sec - a.tv_sec) * 1e3 +
	    (b.tv_nsec - a.tv_nsec) / 1e6, name ? name : "(null)");
	elfsym_file_to_vaddr(t, libc_getpid_off, &vaddr);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < 1000000; i++)
		hits += elfsym_lookup(t, vaddr + (i & 7), NULL) != NULL;
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK_EQ(hits, 1000000);
	printf("# %.1f ns per lookup\n", ((b.tv_sec - a.tv_sec) * 1e9 +
	    (b.tv_nsec - a.tv_nsec)) / 1e6);
	elfsym_free(t);
}

/*
 * A lazy table (names left in the file) has the same symbols, in the same
 * order, with the same names as a copying one; and holds no names.
 */
static void
test_lazy(const char *path, const char *what)
{
	struct elfsym_table *c = NULL, *l = NULL;
	char buf[4096], msg[128];
	size_t i, same = 0;
	int fd;

	if ((fd = open(path, O_RDONLY)) < 0) {
		CHECK(0, "open for the lazy table");
		return;
	}
	CHECK_EQ(elfsym_load_fd(fd, &c), 0);
	CHECK_EQ(elfsym_load_fd_lazy(fd, &l), 0);
	close(fd);
	if (c == NULL || l == NULL)
		goto out;
	snprintf(msg, sizeof(msg), "%s: lazy table keeps no names", what);
	CHECK(l->names == NULL && l->fd >= 0 && elfsym_bytes(l) <
	    elfsym_bytes(c), msg);
	for (i = 0; i < c->nsyms && i < l->nsyms; i++)
		same += c->syms[i].addr == l->syms[i].addr &&
		    elfsym_name(l, i, buf, sizeof(buf)) != NULL &&
		    strcmp(buf, c->names + c->syms[i].name) == 0;
	printf("# %s: %zu symbols, lazy %zu bytes, copied %zu bytes\n", what,
	    l->nsyms, elfsym_bytes(l), elfsym_bytes(c));
	snprintf(msg, sizeof(msg), "%s: lazy names equal the copied ones",
	    what);
	CHECK(c->nsyms == l->nsyms && same == c->nsyms && c->nsyms > 0, msg);
	CHECK(elfsym_lookup(l, c->syms[0].addr, NULL) == NULL &&
	    elfsym_find(l, c->syms[0].addr) == 0, "lazy: find, not lookup");
out:
	elfsym_free(c);
	elfsym_free(l);
}

/*
 * PLT stubs are named as perf (and objdump) name them: the k-th stub of
 * .plt (after its header) or .plt.sec is "<.rela.plt entry k's symbol>@plt",
 * "@plt" for an IRELATIVE entry; copied and lazy tables alike.
 */
static void
test_plt(const char *path, const char *what, const char *dir)
{
	struct elfsym_table *t[2] = { NULL, NULL };
	Elf *e = NULL;
	Elf_Scn *scn = NULL, *rela = NULL, *dyn;
	Elf_Data *rd, *dd;
	GElf_Shdr sh, dsh;
	GElf_Rela r;
	GElf_Sym sym;
	uint64_t plt = 0, skip = 1, ent = 16;
	size_t shstr, k, last, ks[2], i, good = 0;
	const char *n, *nm;
	char want[2][256], buf[512], msg[640];
	char dbg[256], real[256];
	long j;
	int fd, dfd, pass, sec = 0;

	(void)elf_version(EV_CURRENT);
	if ((fd = open(path, O_RDONLY)) < 0 ||
	    (e = elf_begin(fd, ELF_C_READ, NULL)) == NULL ||
	    elf_getshdrstrndx(e, &shstr) != 0) {
		CHECK(0, "open for the PLT check");
		goto out;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    (n = elf_strptr(e, shstr, sh.sh_name)) == NULL)
			continue;
		if (strcmp(n, ".rela.plt") == 0)
			rela = scn;
		else if ((strcmp(n, ".plt") == 0 && !sec) ||
		    strcmp(n, ".plt.sec") == 0) {
			sec = n[4] != '\0';
			plt = sh.sh_addr;
			skip = sec ? 0 : 1;
			ent = sh.sh_entsize ? sh.sh_entsize : 16;
		}
	}
	if (rela == NULL || plt == 0 || gelf_getshdr(rela, &sh) == NULL ||
	    (rd = elf_getdata(rela, NULL)) == NULL ||
	    (dyn = elf_getscn(e, sh.sh_link)) == NULL ||
	    gelf_getshdr(dyn, &dsh) == NULL ||
	    (dd = elf_getdata(dyn, NULL)) == NULL || sh.sh_entsize == 0 ||
	    (last = rd->d_size / sh.sh_entsize) == 0) {
		printf("# %s: no PLT\n", what);
		goto out;
	}
	ks[0] = 0;
	ks[1] = last - 1;
	for (i = 0; i < 2; i++) {
		nm = "";
		if (gelf_getrela(rd, (int)ks[i], &r) != NULL &&
		    GELF_R_SYM(r.r_info) != 0 &&
		    gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym) != NULL &&
		    (n = elf_strptr(e, dsh.sh_link, sym.st_name)) != NULL)
			nm = n;
		snprintf(want[i], sizeof(want[i]), "%s@plt", nm);
	}
	CHECK_EQ(elfsym_load_fd(fd, &t[0]), 0);
	CHECK_EQ(elfsym_load_fd_lazy(fd, &t[1]), 0);
	/* again once a debug file is merged (a lazy table's names are
	 * copied in then, "@plt" with them) */
	for (pass = 0; pass < 2; pass++) {
		good = 0;
		for (k = 0; k < 2; k++)
			for (i = 0; i < 2 && t[k] != NULL; i++) {
				j = elfsym_find(t[k], plt + (ks[i] + skip) *
				    ent + 4);
				if (j >= 0 && elfsym_name(t[k], (size_t)j, buf,
				    sizeof(buf)) != NULL &&
				    strcmp(buf, want[i]) == 0)
					good++;
				else
					printf("# %s: stub %zu: want %s, got "
					    "%s\n", what, ks[i], want[i],
					    j >= 0 ? buf : "nothing");
			}
		snprintf(msg, sizeof(msg), "%s: PLT stubs named %s, %s "
		    "(copied, lazy%s)", what, want[0], want[1], pass ?
		    ", debug file merged" : "");
		CHECK(good == 4, msg);
		if (pass == 1)
			break;
		snprintf(dbg, sizeof(dbg), "%s/plt.debug", dir);
		/* objcopy runs as another process: the real path */
		memset(real, 0, sizeof(real));
		if (readlink(path, real, sizeof(real) - 1) <= 0)
			snprintf(real, sizeof(real), "%s", path);
		{
			char *a[] = { "objcopy", "--only-keep-debug", real,
			    dbg, NULL };

			if (tsu_run(a) != 0 ||
			    (dfd = open(dbg, O_RDONLY)) < 0) {
				CHECK(0, "objcopy --only-keep-debug ran");
				break;
			}
		}
		CHECK_EQ(elfsym_add_debug_fd(t[0], dfd), 0);
		CHECK_EQ(elfsym_add_debug_fd(t[1], dfd), 0);
		close(dfd);
	}
out:
	elfsym_free(t[0]);
	elfsym_free(t[1]);
	if (e != NULL)
		elf_end(e);
	if (fd >= 0)
		close(fd);
}

/* Truncated and corrupted copies: fail or degrade, never crash. */
static void
test_bad_files(const char *dir)
{
	static const off_t cuts[] = { 0, 16, 63, 64, 1000, 4096, 65536 };
	struct elfsym_table *t;
	struct stat sb;
	char path[256];
	unsigned char junk[512];
	size_t i;
	int err, fd, survived = 0;

	snprintf(path, sizeof(path), "%s/libc.trunc", dir);
	stat(libc_path, &sb);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		tsu_copy(libc_path, path, cuts[i]);
		t = load_path(path, &err);
		if (cuts[i] < 64)
			CHECK(t == NULL && err == -ENOEXEC, "short header");
		if (t != NULL)
			(void)lookup_at(t, libc_getpid_off);
		elfsym_free(t);
		survived++;
	}
	tsu_copy(libc_path, path, sb.st_size / 2);
	t = load_path(path, &err);
	CHECK(t == NULL || lookup_at(t, libc_getpid_off) == NULL,
	    "half a libc (no section headers) resolves nothing");
	elfsym_free(t);
	/* Overwrite the section header table with junk. */
	tsu_copy(libc_path, path, -1);
	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 37 + 11);
	fd = open(path, O_WRONLY);
	CHECK(pwrite(fd, junk, sizeof(junk), sb.st_size - sizeof(junk)) ==
	    (ssize_t)sizeof(junk), "corrupt copy");
	close(fd);
	t = load_path(path, &err);
	if (t != NULL)
		(void)lookup_at(t, libc_getpid_off);
	elfsym_free(t);
	CHECK(elfsym_load_mem("\177ELFjunk", 8, &t) == -ENOEXEC && t == NULL,
	    "8 bytes of 'ELF' in memory");
	CHECK_EQ(survived, 7);
}

static void
test_debuginfo(const char *dir)
{
	struct elfsym_table *t;
	char self[128], stripped[256], dbg[256];
	char other[256];
	uint64_t off;
	int err, fd;

	self_mapping((const char *)elfsym_test_marker + 3, self, sizeof(self),
	    &off);
	/* objcopy runs as another process: give it the real path. */
	memset(self, 0, sizeof(self));
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0)
		return;
	snprintf(stripped, sizeof(stripped), "%s/stripped", dir);
	snprintf(dbg, sizeof(dbg), "%s/self.debug", dir);
	snprintf(other, sizeof(other), "%s/true.debug", dir);
	tsu_copy(self, stripped, -1);
	{
		char *a1[] = { "objcopy", "--only-keep-debug", self, dbg,
		    NULL };
		char *a2[] = { "strip", "--strip-all", stripped, NULL };
		char *a3[] = { "objcopy", "--only-keep-debug", "/bin/true",
		    other, NULL };

		if (tsu_run(a1) != 0 || tsu_run(a2) != 0 || tsu_run(a3) != 0) {
			CHECK(0, "objcopy/strip (binutils) ran");
			return;
		}
	}
	t = load_path(stripped, &err);
	CHECK(t != NULL && !t->has_symtab, "stripped copy has no .symtab");
	if (t == NULL)
		return;
	CHECK(lookup_at(t, off) == NULL, "stripped: marker unknown");
	fd = open(other, O_RDONLY);
	CHECK_EQ(elfsym_add_debug_fd(t, fd), -ESTALE);
	close(fd);
	CHECK(lookup_at(t, off) == NULL, "wrong debug file not merged");
	fd = open(dbg, O_RDONLY);
	CHECK_EQ(elfsym_add_debug_fd(t, fd), 0);
	close(fd);
	CHECK_STREQ(lookup_at(t, off), "elfsym_test_marker",
	    "resolved through the debug file");
	elfsym_free(t);
}

/*
 * PLT stubs of other ABIs, named where objdump puts "<name@plt>": an
 * i386 library (.rel.plt, a .plt whose entry size says 4) and an arm64
 * one (a two-stub header), each built here with what is at hand (skipped
 * without), copied and lazy tables alike (the first stub names .dynstr's
 * last string, which a lazy table could not add "@plt" to).
 */
static void
test_plt_abis(const char *dir)
{
	static const char *const src = "extern int gp_ext_a(int);\n"
	    "extern int gp_ext_b(int);\n"
	    "int gp_lib(int x) { return gp_ext_a(x) * 3 + gp_ext_b(x); }\n";
	static const struct {
		const char *what, *cc, *objdump;
	} b[] = {
		{ "i386", "gcc -m32", "objdump" },
		{ "arm64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-objdump" },
	};
	struct elfsym_table *t[2];
	char path[512], csrc[512], cmd[2048], line[512];
	char name[256], nb[256], msg[256];
	unsigned long long addr;
	FILE *fp;
	size_t i, k, found, asked;
	long j;
	int fd;

	snprintf(csrc, sizeof(csrc), "%s/gpplt.c", dir);
	if ((fp = fopen(csrc, "w")) == NULL)
		return;
	fputs(src, fp);
	fclose(fp);
	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		snprintf(path, sizeof(path), "%s/gpplt.%zu.so", dir, i);
		snprintf(cmd, sizeof(cmd), "%s -O1 -nostdlib -shared -fPIC "
		    "-o %s %s 2>/dev/null", b[i].cc, path, csrc);
		if (tsu_run((char *[]){ "sh", "-c", cmd, NULL }) != 0) {
			printf("# skip: no %s compiler\n", b[i].what);
			continue;
		}
		t[0] = t[1] = NULL;
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		(void)elfsym_load_fd(fd, &t[0]);
		(void)elfsym_load_fd_lazy(fd, &t[1]);
		close(fd);
		snprintf(cmd, sizeof(cmd), "%s -d %s 2>/dev/null", b[i].objdump,
		    path);
		found = asked = 0;
		if (t[0] != NULL && t[1] != NULL &&
		    (fp = popen(cmd, "r")) != NULL) {
			while (fgets(line, sizeof(line), fp) != NULL) {
				if (sscanf(line, "%llx <%255[^>]>:", &addr,
				    name) != 2 || strlen(name) < 4 ||
				    strcmp(name + strlen(name) - 4, "@plt") != 0)
					continue;
				asked++;
				for (k = 0; k < 2; k++)
					if ((j = elfsym_find(t[k], addr)) >= 0 &&
					    elfsym_name(t[k], (size_t)j, nb,
					    sizeof(nb)) != NULL &&
					    strcmp(nb, name) == 0)
						found++;
					else
						printf("# %s: %s: %llx: want %s, "
						    "got %s\n", b[i].what, k ? "lazy" :
						    "copied", addr, name, j >= 0 ? nb :
						    "none");
			}
			pclose(fp);
		}
		snprintf(msg, sizeof(msg), "%s: its PLT stubs named where "
		    "objdump names them (%zu of %zu, copied and lazy)",
		    b[i].what, found, 2 * asked);
		CHECK(asked == 2 && found == 2 * asked, msg);
		elfsym_free(t[0]);
		elfsym_free(t[1]);
	}
}

int
main(void)
{
	char *dir;

	CHECK(elfsym_test_marker(1) == 4 && static_helper(0) == 0x55,
	    "markers run");
	if ((dir = tsu_tmpdir()) == NULL)
		SKIP_ALL("no temporary directory");
	test_self();
	test_libc();
	test_lazy("/proc/self/exe", "own binary");
	test_lazy(libc_path, "libc");
	test_plt("/proc/self/exe", "own binary", dir);
	test_plt(libc_path, "libc", dir);
	test_plt_abis(dir);
	test_bad_files(dir);
	test_debuginfo(dir);
	tsu_rmtree(dir);
	return (testing_done());
}
