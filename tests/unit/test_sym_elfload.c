/*
 * The symbol-table load in steps (elfsym_load_begin/step), as the perf
 * plugin spreads it over loop turns: the table is the one elfsym_load_fd
 * gives whatever the steps (1, 7, 4096 units, and all at once), copied or
 * lazy, for this program, its libc and any big library at hand; and a
 * file whose section headers lie (a symbol section past the end of the
 * file) loads without it instead of reading past the end; one whose
 * section names lack their final NUL loads with its sections unnamed;
 * 32-bit binaries (i386, armhf: processes of another ABI on a 64-bit
 * host) load with the names and addresses nm gives.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/elfsym.h"
#include "testing.h"
#include "test_sym_util.h"

/* Whether two tables hold the same symbols, attributes and names. */
static int
same_table(const struct elfsym_table *a, const struct elfsym_table *b)
{
	char na[4096], nb[4096];
	size_t i;

	if (a->nsyms != b->nsyms || a->has_symtab != b->has_symtab ||
	    a->nsegs != b->nsegs || a->build_id_len != b->build_id_len ||
	    memcmp(a->build_id, b->build_id, a->build_id_len) != 0 ||
	    a->go_funcs != b->go_funcs || a->symtab_sect != b->symtab_sect)
		return (0);
	for (i = 0; i < a->nsyms; i++) {
		if (a->syms[i].addr != b->syms[i].addr ||
		    a->syms[i].size != b->syms[i].size ||
		    a->attr[i] != b->attr[i])
			return (0);
		if (elfsym_name(a, i, na, sizeof(na)) == NULL ||
		    elfsym_name(b, i, nb, sizeof(nb)) == NULL ||
		    strcmp(na, nb) != 0)
			return (0);
	}
	return (1);
}

/* Load path in steps of budget units: the table, and the step count. */
static struct elfsym_table *
load_steps(int fd, int lazy, size_t budget, size_t *steps)
{
	struct elfsym_load *l;
	struct elfsym_table *t = NULL;
	int r;

	*steps = 0;
	if (elfsym_load_begin(fd, lazy, &l) != 0)
		return (NULL);
	do {
		r = elfsym_load_step(l, budget, &t);
		(*steps)++;
	} while (r == 1);
	elfsym_load_free(l);
	return (r == 0 ? t : NULL);
}

static void
test_same(const char *path, const char *what)
{
	static const size_t budgets[] = { 1, 7, 4096, SIZE_MAX };
	struct elfsym_table *one, *t;
	size_t i, steps;
	char msg[256];
	int fd, lazy;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		printf("# skip: %s: cannot open\n", what);
		return;
	}
	for (lazy = 0; lazy <= 1; lazy++) {
		if ((lazy ? elfsym_load_fd_lazy(fd, &one) :
		    elfsym_load_fd(fd, &one)) != 0) {
			snprintf(msg, sizeof(msg), "%s: loaded", what);
			CHECK(0, msg);
			continue;
		}
		for (i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
			t = load_steps(fd, lazy, budgets[i], &steps);
			snprintf(msg, sizeof(msg), "%s%s: %zu symbols, steps of "
			    "%zu units (%zu steps): the same table", what,
			    lazy ? " (lazy)" : "", one->nsyms,
			    budgets[i] == SIZE_MAX ? 0 : budgets[i], steps);
			CHECK(t != NULL && same_table(one, t), msg);
			if (budgets[i] == 1 && one->nsyms > 0)
				CHECK(steps > one->nsyms, "a unit a step: "
				    "more steps than symbols");
			elfsym_free(t);
		}
		elfsym_free(one);
	}
	close(fd);
}

/* libc's path, from the loader's list. */
static int
find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	char *out = arg;

	(void)size;
	if (strstr(info->dlpi_name, "libc.so") != NULL && out[0] == '\0')
		snprintf(out, 256, "%s", info->dlpi_name);
	return (0);
}

/*
 * A copy of this program whose .symtab claims to lie past the end of the
 * file: refused (that section only), and no read past the end.
 */
static void
test_lying(const char *dir)
{
	struct elfsym_table *t = NULL, *good = NULL;
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	char path[512];
	off_t fsize;
	size_t i, steps;
	int fd, patched = 0, r;

	snprintf(path, sizeof(path), "%s/lying", dir);
	if (tsu_copy("/proc/self/exe", path, -1) != 0 ||
	    (fd = open(path, O_RDWR)) < 0) {
		printf("# skip: no copy of the test program\n");
		return;
	}
	fsize = lseek(fd, 0, SEEK_END);
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64) {
		close(fd);
		printf("# skip: not a 64-bit ELF\n");
		return;
	}
	for (i = 0; i < eh.e_shnum; i++) {
		off_t o = (off_t)(eh.e_shoff + i * eh.e_shentsize);

		if (pread(fd, &sh, sizeof(sh), o) != sizeof(sh) ||
		    sh.sh_type != SHT_SYMTAB)
			continue;
		/* its end 4 KiB past the end of the file */
		sh.sh_offset = (uint64_t)fsize - sh.sh_size + 4096;
		patched = pwrite(fd, &sh, sizeof(sh), o) == sizeof(sh);
	}
	CHECK(patched, "lying: .symtab's header rewritten");
	r = elfsym_load_fd(fd, &t);
	CHECK(r == 0 && t != NULL && !t->has_symtab, "lying: loads without "
	    "the .symtab that lies past the end");
	good = load_steps(fd, 0, 7, &steps);
	CHECK(good != NULL && t != NULL && same_table(t, good),
	    "lying: the same in steps of 7");
	elfsym_free(t);
	elfsym_free(good);
	/* cut short too: every section past the cut refused */
	if (ftruncate(fd, fsize / 2) == 0) {
		t = load_steps(fd, 1, 4096, &steps);
		CHECK(t == NULL || t->nsyms < 1000000, "truncated: fails or "
		    "degrades");
		elfsym_free(t);
	}
	close(fd);
}

/*
 * Section names without their final NUL: libelf's elf_strptr scanned
 * such a table at every call; the reader compares a name within the
 * table (the last one, cut, names nothing), its symbols still read.
 */
static void
test_shstr_unterminated(const char *dir)
{
	struct elfsym_table *t = NULL;
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	char path[512], c = 'A';
	int fd, r;

	snprintf(path, sizeof(path), "%s/shstr", dir);
	if (tsu_copy("/proc/self/exe", path, -1) != 0 ||
	    (fd = open(path, O_RDWR)) < 0) {
		printf("# skip: no copy of the test program\n");
		return;
	}
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || pread(fd, &sh, sizeof(sh),
	    (off_t)(eh.e_shoff + eh.e_shstrndx * eh.e_shentsize)) !=
	    sizeof(sh) || sh.sh_type != SHT_STRTAB || sh.sh_size == 0) {
		close(fd);
		printf("# skip: no .shstrtab\n");
		return;
	}
	CHECK(pwrite(fd, &c, 1, (off_t)(sh.sh_offset + sh.sh_size - 1)) == 1,
	    "unterminated: .shstrtab's final NUL overwritten");
	r = elfsym_load_fd(fd, &t);
	CHECK(r == 0 && t != NULL && t->nsyms > 0 && t->has_symtab,
	    "unterminated: its symbols load, the sections unnamed");
	elfsym_free(t);
	close(fd);
}

/*
 * A 32-bit build (as a 64-bit host runs i386 and armhf processes): its
 * functions at the addresses nm gives, its build-id, and the same table
 * in steps.  Built here with the compilers at hand, skipped without.
 */
static void
test_32bit(const char *dir)
{
	static const char *const src = "int gp32_alpha(int x) { return x * 3; }\n"
	    "int gp32_beta(int x) { return gp32_alpha(x) + 1; }\n"
	    "void _start(void) { for (;;); }\n";
	static const struct {
		const char *what, *cc;
	} b[] = {
		{ "i386", "gcc -m32 -O1 -nostdlib -static -Wl,--build-id=sha1" },
		{ "i386 shared", "gcc -m32 -O1 -nostdlib -shared -fPIC "
		    "-Wl,--build-id=sha1" },
		{ "armhf", "clang --target=armv7-linux-gnueabihf -O1 "
		    "-nostdlib -static -fuse-ld=lld -Wl,--build-id=sha1" },
	};
	struct elfsym_table *t;
	char path[512], csrc[512], cmd[2048], line[512];
	char name[256], nb[256], what[64], msg[256];
	unsigned long long addr;
	FILE *fp;
	size_t i, found, asked;
	long k;
	int fd;

	snprintf(csrc, sizeof(csrc), "%s/gp32.c", dir);
	if ((fp = fopen(csrc, "w")) == NULL)
		return;
	fputs(src, fp);
	fclose(fp);
	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		snprintf(path, sizeof(path), "%s/gp32.%zu", dir, i);
		snprintf(cmd, sizeof(cmd), "%s -o %s %s 2>/dev/null", b[i].cc,
		    path, csrc);
		if (tsu_run((char *[]){ "sh", "-c", cmd, NULL }) != 0) {
			printf("# skip: no %s compiler\n", b[i].what);
			continue;
		}
		t = NULL;
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		snprintf(msg, sizeof(msg), "%s: a 32-bit file loads",
		    b[i].what);
		CHECK(elfsym_load_fd(fd, &t) == 0 && t != NULL, msg);
		close(fd);
		if (t == NULL)
			continue;
		snprintf(cmd, sizeof(cmd), "nm --defined-only %s", path);
		found = asked = 0;
		if ((fp = popen(cmd, "r")) != NULL) {
			while (fgets(line, sizeof(line), fp) != NULL) {
				if (sscanf(line, "%llx %*s %255s", &addr,
				    name) != 2 || strncmp(name, "gp32_", 5) != 0)
					continue;
				asked++;
				if (b[i].what[0] == 'a')
					addr &= ~1ull;	/* Thumb bit */
				if ((k = elfsym_find(t, addr)) >= 0 &&
				    elfsym_name(t, (size_t)k, nb, sizeof(nb)) !=
				    NULL && strcmp(nb, name) == 0)
					found++;
			}
			pclose(fp);
		}
		snprintf(msg, sizeof(msg), "%s: gp32_alpha and gp32_beta at "
		    "nm's addresses (%zu of %zu)", b[i].what, found, asked);
		CHECK(asked == 2 && found == asked, msg);
		snprintf(msg, sizeof(msg), "%s: its build-id and segments",
		    b[i].what);
		CHECK(t->build_id_len == 20 && t->nsegs > 0, msg);
		elfsym_free(t);
		snprintf(what, sizeof(what), "%s build", b[i].what);
		test_same(path, what);
	}
}

int
main(void)
{
	char libc[256] = "";
	const char *big[] = {
		"/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	};
	char *dir;
	size_t i;

	if ((dir = tsu_tmpdir()) == NULL)
		SKIP_ALL("no temporary directory");
	test_same("/proc/self/exe", "own binary");
	dl_iterate_phdr(find_libc, libc);
	if (libc[0] != '\0')
		test_same(libc, "libc");
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		if (access(big[i], R_OK) == 0)
			test_same(big[i], strrchr(big[i], '/') + 1);
	test_lying(dir);
	test_shstr_unterminated(dir);
	test_32bit(dir);
	tsu_rmtree(dir);
	return (testing_done());
}
