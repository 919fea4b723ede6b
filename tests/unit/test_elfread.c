/*
 * The runtime plugins' ELF reader (plugins/common/elf/elfread.c) and its
 * bad-file memo: names compared within their table (none walked past a
 * table without its final NUL), notes, the budget, a file that shrinks or
 * changes while read, and a bad file read once.  Prints what the files
 * that spend the whole budget cost in time (checked in reads and bytes:
 * time depends on the host's load).
 */
#include "config.h"

#include <sys/stat.h>

#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testing.h"
#include "elfread.h"
#include "elfbad.h"

#define TEXT_OFF	4096
#define TEXT_SZ		4096

struct img {
	uint8_t *buf;
	size_t len;
};

/*
 * An x86-64 shared object: .text, .dynsym with nsyms symbols whose
 * st_name is names' offsets (or scattered 1..4096 when names is NULL),
 * .dynstr of strsz bytes (str copied in, the rest 'A', no final NUL
 * unless str puts one), a build-id note.
 */
static void
img_build(struct img *im, size_t nsyms, size_t strsz, const char *str,
    size_t strlen_, const uint32_t *names, size_t nnames)
{
	static const char shstr[] = "\0.dynsym\0.dynstr\0.shstrtab\0.text\0"
	    ".note";
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	Elf64_Shdr *sh;
	Elf64_Sym *sym;
	Elf64_Nhdr *nh;
	size_t dynsym_off, shstr_off, note_off, dynstr_off, shoff, i;

	dynsym_off = TEXT_OFF + TEXT_SZ;
	shstr_off = dynsym_off + nsyms * sizeof(Elf64_Sym);
	note_off = shstr_off + sizeof(shstr);
	note_off = (note_off + 3) & ~(size_t)3;
	dynstr_off = note_off + sizeof(Elf64_Nhdr) + 4 + 20;
	shoff = (dynstr_off + strsz + 7) & ~(size_t)7;
	im->len = shoff + 6 * sizeof(Elf64_Shdr);
	im->buf = calloc(1, im->len);
	eh = (Elf64_Ehdr *)im->buf;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = shoff;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 6;
	eh->e_shstrndx = 3;
	ph = (Elf64_Phdr *)(im->buf + sizeof(*eh));
	ph->p_type = PT_LOAD;
	ph->p_vaddr = 0x1234;
	ph->p_filesz = ph->p_memsz = shoff;
	ph->p_align = 4096;
	memset(im->buf + TEXT_OFF, 0xc3, TEXT_SZ);
	memcpy(im->buf + TEXT_OFF, "\x90ruby 3.1.2\0", 12);
	sym = (Elf64_Sym *)(im->buf + dynsym_off);
	for (i = 1; i < nsyms; i++) {
		sym[i].st_name = names != NULL ? names[(i - 1) % nnames] :
		    (uint32_t)(1 + i % 4096);
		sym[i].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
		sym[i].st_shndx = 1;
		sym[i].st_value = TEXT_OFF + i;
		sym[i].st_size = 64;
	}
	memcpy(im->buf + shstr_off, shstr, sizeof(shstr));
	nh = (Elf64_Nhdr *)(im->buf + note_off);
	nh->n_namesz = 4;
	nh->n_descsz = 20;
	nh->n_type = NT_GNU_BUILD_ID;
	memcpy(im->buf + note_off + sizeof(*nh), "GNU", 4);
	for (i = 0; i < 20; i++)
		im->buf[note_off + sizeof(*nh) + 4 + i] = (uint8_t)(0xa0 + i);
	memset(im->buf + dynstr_off, 'A', strsz);
	if (strlen_ > 0)	/* str may be NULL for an empty table */
		memcpy(im->buf + dynstr_off, str, strlen_);
	sh = (Elf64_Shdr *)(im->buf + shoff);
	sh[1].sh_name = 27;
	sh[1].sh_type = SHT_PROGBITS;
	sh[1].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh[1].sh_addr = TEXT_OFF;
	sh[1].sh_offset = TEXT_OFF;
	sh[1].sh_size = TEXT_SZ;
	sh[2].sh_name = 1;
	sh[2].sh_type = SHT_DYNSYM;
	sh[2].sh_offset = dynsym_off;
	sh[2].sh_size = nsyms * sizeof(Elf64_Sym);
	sh[2].sh_link = 4;
	sh[2].sh_entsize = sizeof(Elf64_Sym);
	sh[3].sh_name = 17;
	sh[3].sh_type = SHT_STRTAB;
	sh[3].sh_offset = shstr_off;
	sh[3].sh_size = sizeof(shstr);
	sh[4].sh_name = 9;
	sh[4].sh_type = SHT_STRTAB;
	sh[4].sh_offset = dynstr_off;
	sh[4].sh_size = strsz;
	sh[5].sh_name = 33;
	sh[5].sh_type = SHT_NOTE;
	sh[5].sh_offset = note_off;
	sh[5].sh_size = sizeof(Elf64_Nhdr) + 4 + 20;
}

static const char *const wanted[] = { "ruby_version", "ruby_vm",
    "tail_name" };

struct found {
	int n[3];
	uint64_t value[3];
	uint8_t id[64];
	size_t idlen;
	char text[16];
	int truncate_fd;	/* ftruncate it before the walk */
	int walked;
	uint64_t reads, bytes;	/* what the reader spent */
};

static void
on_sym(void *arg, size_t which, const Elf64_Sym *s)
{
	struct found *f = arg;

	f->n[which]++;
	f->value[which] = s->st_value;
}

static int
walk(struct elfread *le, void *arg)
{
	struct found *f = arg;
	int64_t n;
	int rc;

	if (f->truncate_fd >= 0 && ftruncate(f->truncate_fd, 8192) != 0)
		return (-errno);
	f->idlen = elfread_build_id(le, f->id, sizeof(f->id));
	if ((rc = elfread_symbols(le, SHT_DYNSYM, wanted, 3, on_sym, f)) != 0) {
		f->walked++;
		f->reads = le->reads;
		f->bytes = le->bytes;
		return (rc);
	}
	if ((n = elfread_read_vaddr(le, TEXT_OFF + 1, f->text,
	    sizeof(f->text) - 1, 1)) > 0)
		f->text[n] = '\0';
	f->walked++;
	f->reads = le->reads;
	f->bytes = le->bytes;
	return (0);
}

static void
test_name_eq(void)
{
	static const uint8_t t[] = "\0abc\0abcd";	/* 10 bytes, NUL-ended */

	CHECK(elfread_name_eq(t + 1, 9, 1, 10, "abc"), "a name ending in NUL");
	CHECK(!elfread_name_eq(t + 1, 9, 1, 10, "ab"), "a prefix is not it");
	CHECK(!elfread_name_eq(t + 5, 5, 5, 10, "abc"), "a longer one is not");
	/* the table's last 4 bytes "abcd" without their NUL (len 9) */
	CHECK(!elfread_name_eq(t + 5, 4, 5, 9, "abcd"),
	    "a name cut by the table's end (no final NUL) is no name");
	CHECK(elfread_name_eq(t + 5, 5, 5, 10, "abcd"), "with its NUL it is");
	CHECK(!elfread_name_eq(t, 10, 10, 10, ""), "past the end: nothing");
	CHECK(!elfread_name_eq(t + 1, 2, 1, 10, "abc"),
	    "no more than the bytes read are compared");
}

static void
test_notes(void)
{
	uint8_t n[64], out[64];
	Elf64_Nhdr h = { 4, 3, NT_GNU_BUILD_ID };

	memcpy(n, &h, sizeof(h));
	memcpy(n + 12, "GNU\0\x01\x02\x03\0", 8);
	CHECK_INTEQ((int)elfread_note_build_id(n, 20, out, sizeof(out)), 3,
	    "a build-id note");
	CHECK(memcmp(out, "\x01\x02\x03", 3) == 0, "its bytes");
	CHECK_INTEQ((int)elfread_note_build_id(n, 19, out, sizeof(out)), 3,
	    "its padding may be cut");
	CHECK_INTEQ((int)elfread_note_build_id(n, 18, out, sizeof(out)), 0,
	    "its bytes may not");
	h.n_descsz = 0xffffffffu;
	memcpy(n, &h, sizeof(h));
	CHECK_INTEQ((int)elfread_note_build_id(n, 20, out, sizeof(out)), 0,
	    "a descsz past the end");
	h.n_namesz = 0xfffffff0u;
	memcpy(n, &h, sizeof(h));
	CHECK_INTEQ((int)elfread_note_build_id(n, 20, out, sizeof(out)), 0,
	    "a namesz past the end");
	CHECK_INTEQ((int)elfread_note_build_id(n, 5, out, sizeof(out)), 0,
	    "a header cut");
}

static void
test_mem(void)
{
	/* "\0ruby_version\0ruby_vm\0tail_name" without the final NUL */
	static const char str[] = "\0ruby_version\0ruby_vm\0tail_name";
	uint32_t names[] = { 1, 14, 22 };
	struct img im;
	struct found f;
	int rc;

	img_build(&im, 10, sizeof(str) - 1, str, sizeof(str) - 1, names, 3);
	memset(&f, 0, sizeof(f));
	f.truncate_fd = -1;
	rc = elfread_read_mem(im.buf, im.len, walk, &f);
	CHECK_INTEQ(rc, 0, "a small image reads");
	CHECK(f.n[0] == 3 && f.n[1] == 3, "its names found, each symbol");
	CHECK_INTEQ(f.n[2], 0, "a last name without its NUL is none");
	CHECK_INTEQ((int)f.idlen, 20, "its build-id");
	CHECK(f.id[0] == 0xa0 && f.id[19] == 0xb3, "its build-id's bytes");
	CHECK_STREQ(f.text, "ruby 3.1.2", "bytes at an address of .text");
	free(im.buf);

	/* the same names in a table larger than ELFREAD_STR_WHOLE: read a
	 * name at a time */
	img_build(&im, 100, ELFREAD_STR_WHOLE + 4096, str, sizeof(str) - 1,
	    names, 3);
	memset(&f, 0, sizeof(f));
	f.truncate_fd = -1;
	rc = elfread_read_mem(im.buf, im.len, walk, &f);
	CHECK_INTEQ(rc, 0, "a large table reads");
	CHECK(f.n[0] == 33 && f.n[1] == 33, "its names found a read each");
	free(im.buf);

	/* names past the end, a lying header */
	names[0] = 1u << 30;
	img_build(&im, 10, sizeof(str) - 1, str, sizeof(str) - 1, names, 3);
	memset(&f, 0, sizeof(f));
	f.truncate_fd = -1;
	CHECK_INTEQ(elfread_read_mem(im.buf, im.len, walk, &f), 0,
	    "offsets past the table are skipped");
	CHECK_INTEQ(f.n[0], 0, "and name nothing");
	((Elf64_Ehdr *)im.buf)->e_shoff = im.len;
	CHECK_INTEQ(elfread_read_mem(im.buf, im.len, walk, &f), -EBADMSG,
	    "section headers past the end: malformed");
	((Elf64_Ehdr *)im.buf)->e_ident[EI_CLASS] = ELFCLASS32;
	CHECK_INTEQ(elfread_read_mem(im.buf, im.len, walk, &f), -ENOEXEC,
	    "a 32-bit ELF is not read");
	CHECK_INTEQ(elfread_read_mem(im.buf, 10, walk, &f), -ENOEXEC,
	    "nor 10 bytes");
	free(im.buf);
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec * 1e3 + ts.tv_nsec / 1e6);
}

static int nlogs;
static char lastlog[1024];

static void
on_log(void *arg, const char *msg)
{
	(void)arg;
	nlogs++;
	snprintf(lastlog, sizeof(lastlog), "%s", msg);
}

static int
write_file(const char *path, const struct img *im)
{
	int fd;

	if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0)
		return (-1);
	if (write(fd, im->buf, im->len) != (ssize_t)im->len) {
		close(fd);
		return (-1);
	}
	return (fd);
}

/* One read in a turn of its own (the turn's bound is test_turn's). */
static int
read_fd(int fd, struct found *f)
{
	elfread_turn_clear();
	return (elfread_read_fd(fd, walk, f));
}

static void
test_fd(void)
{
	char path[] = "/tmp/test_elfread.XXXXXX";
	struct img im;
	struct found f;
	struct timespec ts[2];
	double t0, worst;
	int fd, rc;

	if ((fd = mkstemp(path)) < 0) {
		CHECK(0, "a temporary file");
		return;
	}
	close(fd);
	elfread_set_log(on_log, NULL);
	elfbad_clear();

	/* The F1 file: 40,000 symbols over 64 MB without a final NUL. */
	img_build(&im, 40000, 64u << 20, "", 0, NULL, 0);
	fd = write_file(path, &im);
	memset(&f, 0, sizeof(f));
	f.truncate_fd = -1;
	t0 = now_ms();
	rc = read_fd(fd, &f);
	worst = now_ms() - t0;
	CHECK_INTEQ(rc, -E2BIG, "40,000 names in 64 MB: over the budget");
	printf("# 40,000 names in 64 MB without a NUL: %.1f ms\n", worst);
	CHECK(f.reads <= ELFREAD_BUDGET_READS &&
	    f.bytes <= ELFREAD_BUDGET_BYTES, "and costs no more than it");
	CHECK_INTEQ(nlogs, 1, "one line says so");
	CHECK(strstr(lastlog, path) != NULL &&
	    strstr(lastlog, "over its read budget") != NULL,
	    "naming the file and the reason");
	f.walked = 0;
	rc = read_fd(fd, &f);
	CHECK_INTEQ(rc, -E2BIG, "asked again: the same answer");
	CHECK_INTEQ(f.walked, 0, "without reading it");
	CHECK_INTEQ(nlogs, 1, "and without another line");
	/* changed (another mtime): read again */
	ts[0].tv_sec = ts[1].tv_sec = 1000000000;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	CHECK(futimens(fd, ts) == 0, "touched");
	rc = read_fd(fd, &f);
	CHECK(rc == -E2BIG && nlogs == 2, "a changed file is read again");
	close(fd);
	free(im.buf);

	/* The other bound: 350,000 symbols (8 MB) over a small table. */
	img_build(&im, 350000, 4096, "", 0, NULL, 0);
	fd = write_file(path, &im);
	memset(&f, 0, sizeof(f));
	f.truncate_fd = -1;
	t0 = now_ms();
	rc = read_fd(fd, &f);
	worst = now_ms() - t0;
	printf("# 350,000 symbols, 8 MB: %.1f ms\n", worst);
	CHECK_INTEQ(rc, -E2BIG, "350,000 symbols: over the budget");
	CHECK(f.reads <= ELFREAD_BUDGET_READS &&
	    f.bytes <= ELFREAD_BUDGET_BYTES, "and costs no more than it");
	close(fd);
	free(im.buf);

	/* 400 of them fit the budget (and find nothing). */
	img_build(&im, 400, 64u << 20, "", 0, NULL, 0);
	fd = write_file(path, &im);
	memset(&f, 0, sizeof(f));
	f.truncate_fd = -1;
	t0 = now_ms();
	rc = read_fd(fd, &f);
	printf("# 400 names in 64 MB: %.1f ms\n", now_ms() - t0);
	CHECK_INTEQ(rc, 0, "400 names in 64 MB: read");
	CHECK(f.n[0] + f.n[1] + f.n[2] == 0, "naming nothing");
	/* shrunk while read: short reads, given up on, once */
	f.truncate_fd = fd;
	rc = read_fd(fd, &f);
	CHECK(rc == -EIO || rc == -ESTALE, "truncated while read: given up");
	CHECK_INTEQ(nlogs, 4, "one line says so");
	CHECK(strstr(lastlog, "truncated while read") != NULL ||
	    strstr(lastlog, "changed while read") != NULL, "and why");
	f.truncate_fd = -1;
	CHECK(read_fd(fd, &f) == rc && nlogs == 4,
	    "the truncated file is not read again");
	close(fd);
	free(im.buf);
	elfread_set_log(NULL, NULL);
	unlink(path);
}

/*
 * A loop turn begins files only while it has spent less than its share:
 * files that each cost most of their budget, read one after the other as
 * a scan attaching to many processes would, are not all read in one turn;
 * the rest are read in later turns.
 */
static void
test_turn(void)
{
	char path[] = "/tmp/test_elfread.XXXXXX";
	struct img im;
	struct found f;
	struct stat st;
	uint64_t b0, r0, b1, r1;
	double t0, worst = 0, t;
	int fd, i, rc, read = 0, deferred = 0;

	if ((fd = mkstemp(path)) < 0) {
		CHECK(0, "a temporary file");
		return;
	}
	close(fd);
	elfbad_clear();
	/* 40,000 symbols: 960 KB read, within a file's budget */
	img_build(&im, 40000, 4096, "", 0, NULL, 0);
	fd = write_file(path, &im);
	memset(&f, 0, sizeof(f));
	f.truncate_fd = -1;
	elfread_turn_clear();
	elfread_spent(&b0, &r0);
	t0 = now_ms();
	for (i = 0; i < 8; i++) {
		t = now_ms();
		rc = elfread_read_fd(fd, walk, &f);
		t = now_ms() - t;
		if (t > worst)
			worst = t;
		if (rc == -EINPROGRESS)
			deferred++;
		else if (rc == 0)
			read++;
	}
	elfread_spent(&b1, &r1);
	printf("# 8 files of 40,000 symbols at once: %d read (%llu KB, "
	    "%.1f ms; the longest %.1f ms), %d deferred\n", read,
	    (unsigned long long)(b1 - b0) >> 10, now_ms() - t0, worst,
	    deferred);
	CHECK(deferred > 0, "a turn does not read them all");
	CHECK(b1 - b0 <= (uint64_t)ELFREAD_TURN_BYTES + ELFREAD_BUDGET_BYTES ||
	    now_ms() - t0 >= ELFREAD_TURN_MS,
	    "it reads at most its share and one file's budget");
	CHECK_STREQ(elfread_strerror(-EINPROGRESS),
	    "deferred to a later loop turn", "the reason given");
	CHECK(fstat(fd, &st) == 0 && elfbad_find(&st) == 0,
	    "a deferred file is not bad");
	elfread_turn_clear();
	CHECK_INTEQ(elfread_read_fd(fd, walk, &f), 0,
	    "read in a later turn");
	close(fd);
	free(im.buf);
	unlink(path);
}

static void
test_memo(void)
{
	struct stat a, b;
	int i;

	elfbad_clear();
	memset(&a, 0, sizeof(a));
	a.st_dev = 1;
	a.st_ino = 2;
	a.st_size = 3;
	a.st_mtim.tv_sec = 4;
	b = a;
	CHECK_INTEQ(elfbad_find(&a), 0, "not bad at first");
	CHECK_INTEQ(elfbad_mark(&a, -E2BIG), 1, "marked: new");
	CHECK_INTEQ(elfbad_mark(&a, -E2BIG), 0, "marked again: known");
	CHECK_INTEQ(elfbad_find(&a), -E2BIG, "its answer");
	b.st_mtim.tv_nsec = 1;
	CHECK_INTEQ(elfbad_find(&b), 0, "another mtime: another file");
	b = a;
	b.st_size = 4;
	CHECK_INTEQ(elfbad_find(&b), 0, "another size: another file");
	b = a;
	b.st_ino = 5;
	CHECK_INTEQ(elfbad_find(&b), 0, "another inode: another file");
	for (i = 0; i < ELFBAD_SLOTS; i++) {
		b.st_ino = 100 + (ino_t)i;
		(void)elfbad_mark(&b, -EIO);
	}
	CHECK_INTEQ(elfbad_find(&a), 0, "the oldest forgotten");
	CHECK_INTEQ(elfbad_find(&b), -EIO, "the newest kept");
	elfbad_clear();
}

/*
 * A reader held across loop turns (perf's symbol loader): symbols read a
 * chunk at a time as they are in the file; a 32-bit file's headers and
 * symbols in the 64-bit forms (the runtime readers' calls still refuse
 * it); a file over the budget its caller gave answers that, is marked
 * bad by identity with one line, and is not read again until it changes.
 */
static void
test_held(void)
{
	char path[] = "/tmp/test_elfread.XXXXXX";
	struct {
		Elf32_Ehdr eh;
		Elf32_Shdr sh[4];
		Elf32_Sym sym[3];
		char str[16];
		char shstr[32];
	} e32;
	struct elfread *le;
	struct img im;
	struct found f;
	Elf64_Sym got[64];
	const Elf64_Sym *want;
	uint64_t b0, r0, b1, r1;
	size_t i, ok;
	int fd, rc, logs;

	img_build(&im, 3000, 65536, NULL, 0, NULL, 0);
	CHECK_INTEQ(elfread_open_mem(im.buf, im.len, 1u << 20, 1u << 10,
	    &le), 0, "held: an image opens");
	CHECK(le != NULL && elfread_nsyms(le, 2) == 3000,
	    "held: its .dynsym's count");
	want = (const Elf64_Sym *)(im.buf + TEXT_OFF + TEXT_SZ);
	ok = le != NULL && elfread_read_syms(le, 2, 2950, got, 64) == 50;
	for (i = 0; ok && i < 50; i++)
		ok = memcmp(&got[i], &want[2950 + i], sizeof(got[i])) == 0;
	CHECK(ok, "held: a chunk of symbols as in the file, cut at the end");
	CHECK_INTEQ(elfread_free(le), 0, "held: freed, nothing wrong");

	/* a 32-bit relocatable file: .symtab, .strtab, .shstrtab */
	memset(&e32, 0, sizeof(e32));
	memcpy(e32.eh.e_ident, ELFMAG, SELFMAG);
	e32.eh.e_ident[EI_CLASS] = ELFCLASS32;
	e32.eh.e_ident[EI_DATA] = ELFDATA2LSB;
	e32.eh.e_ident[EI_VERSION] = EV_CURRENT;
	e32.eh.e_type = ET_EXEC;
	e32.eh.e_machine = EM_386;
	e32.eh.e_shoff = offsetof(__typeof__(e32), sh);
	e32.eh.e_shentsize = sizeof(Elf32_Shdr);
	e32.eh.e_shnum = 4;
	e32.eh.e_shstrndx = 3;
	e32.eh.e_ehsize = sizeof(Elf32_Ehdr);
	memcpy(e32.str, "\0alpha\0beta", 12);
	memcpy(e32.shstr, "\0.symtab\0.strtab\0.shstrtab", 27);
	e32.sh[1].sh_name = 1;
	e32.sh[1].sh_type = SHT_SYMTAB;
	e32.sh[1].sh_offset = offsetof(__typeof__(e32), sym);
	e32.sh[1].sh_size = sizeof(e32.sym);
	e32.sh[1].sh_entsize = sizeof(Elf32_Sym);
	e32.sh[1].sh_link = 2;
	e32.sh[2].sh_name = 9;
	e32.sh[2].sh_type = SHT_STRTAB;
	e32.sh[2].sh_offset = offsetof(__typeof__(e32), str);
	e32.sh[2].sh_size = 12;
	e32.sh[3].sh_name = 17;
	e32.sh[3].sh_type = SHT_STRTAB;
	e32.sh[3].sh_offset = offsetof(__typeof__(e32), shstr);
	e32.sh[3].sh_size = 27;
	e32.sym[1].st_name = 1;
	e32.sym[1].st_value = 0x8049000;
	e32.sym[1].st_size = 16;
	e32.sym[1].st_info = ELF32_ST_INFO(STB_GLOBAL, STT_FUNC);
	e32.sym[1].st_shndx = 1;
	e32.sym[2].st_name = 7;
	e32.sym[2].st_value = 0xfffffff0;
	e32.sym[2].st_size = 8;
	e32.sym[2].st_info = ELF32_ST_INFO(STB_WEAK, STT_FUNC);
	e32.sym[2].st_shndx = 1;
	CHECK_INTEQ(elfread_read_mem(&e32, sizeof(e32), walk, &f), -ENOEXEC,
	    "32-bit: the runtime readers' calls refuse it");
	CHECK_INTEQ(elfread_open_mem(&e32, sizeof(e32), 1u << 20, 64, &le),
	    0, "32-bit: held, it opens");
	ok = le != NULL && le->nsh == 4 && le->sh[1].sh_type == SHT_SYMTAB &&
	    le->sh[1].sh_entsize == sizeof(Elf64_Sym) &&
	    le->sh[1].sh_offset == e32.sh[1].sh_offset &&
	    elfread_section_is(le, 2, ".strtab") &&
	    elfread_nsyms(le, 1) == 3 &&
	    elfread_read_syms(le, 1, 0, got, 8) == 3 &&
	    got[1].st_name == 1 && got[1].st_value == 0x8049000 &&
	    got[1].st_size == 16 && got[1].st_shndx == 1 &&
	    ELF64_ST_TYPE(got[1].st_info) == STT_FUNC &&
	    got[2].st_name == 7 && got[2].st_value == 0xfffffff0 &&
	    ELF64_ST_BIND(got[2].st_info) == STB_WEAK;
	CHECK(ok, "32-bit: its section headers and symbols, widened");
	(void)elfread_free(le);

	/* over the budget the caller gave */
	if ((fd = mkstemp(path)) < 0) {
		CHECK(0, "a temporary file");
		free(im.buf);
		return;
	}
	close(fd);
	elfbad_clear();
	elfread_set_log(on_log, NULL);
	if ((fd = write_file(path, &im)) < 0) {
		CHECK(0, "the image written");
		goto out;
	}
	CHECK_INTEQ(elfread_open_fd(fd, 8192, 64, &le), 0,
	    "held: a file opens within a budget of 8 KB");
	logs = nlogs;
	rc = -1;
	for (i = 0; le != NULL && i < 3000; i += 64)
		if (elfread_read_syms(le, 2, i, got, 64) < 0)
			break;
	CHECK(le != NULL && le->error == -E2BIG,
	    "held: its symbols spend the budget");
	if (le != NULL)
		rc = elfread_free(le);
	CHECK_INTEQ(rc, -E2BIG, "held: freed, it says so");
	CHECK(nlogs == logs + 1 && strstr(lastlog, "over its read budget"),
	    "held: one line says so");
	elfread_spent(&b0, &r0);
	CHECK_INTEQ(elfread_open_fd(fd, 8192, 64, &le), -E2BIG,
	    "held: asked again, the same answer");
	elfread_spent(&b1, &r1);
	CHECK(b1 == b0 && r1 == r0 && nlogs == logs + 1,
	    "held: without reading it, nor another line");
	close(fd);
out:
	unlink(path);
	free(im.buf);
	elfread_set_log(NULL, NULL);
}

/*
 * A user who plants many bad files: each is marked, but the log has at most
 * ten lines a minute about them; the next line counts the rest.
 */
static void
test_log_burst(void)
{
	char path[] = "/tmp/test_elfread.XXXXXX";
	struct timespec ts[2];
	struct found f;
	struct img im;
	int fd, i, logs, marked = 0;

	if ((fd = mkstemp(path)) < 0) {
		CHECK(0, "a temporary file");
		return;
	}
	close(fd);
	/* its section headers past its end: malformed */
	img_build(&im, 10, 4096, "", 0, NULL, 0);
	fd = write_file(path, &im);
	free(im.buf);
	CHECK(fd >= 0 && ftruncate(fd, 4096) == 0, "a file cut short");
	elfbad_clear();
	elfread_log_clear();
	elfread_set_log(on_log, NULL);
	logs = nlogs;
	/* each mtime a new identity: a new bad file */
	for (i = 0; i < 14; i++) {
		ts[0].tv_sec = ts[1].tv_sec = 1000000000 + i;
		ts[0].tv_nsec = ts[1].tv_nsec = 0;
		if (futimens(fd, ts) != 0)
			break;
		memset(&f, 0, sizeof(f));
		f.truncate_fd = -1;
		marked += elfread_is_bad(read_fd(fd, &f));
	}
	CHECK_INTEQ(marked, 14, "14 bad files, each given up on");
	CHECK_INTEQ(nlogs - logs, 10, "ten lines in the minute");
	elfread_log_clear();	/* the next minute */
	ts[0].tv_sec = ts[1].tv_sec = 2000000000;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	(void)futimens(fd, ts);
	memset(&f, 0, sizeof(f));
	f.truncate_fd = -1;
	(void)read_fd(fd, &f);
	CHECK(nlogs - logs == 11 &&
	    strstr(lastlog, "and 4 more files given up on before") != NULL,
	    "the next line counts the four not named");
	elfread_set_log(NULL, NULL);
	elfread_log_clear();
	close(fd);
	unlink(path);
}

int
main(void)
{
	test_name_eq();
	test_notes();
	test_mem();
	test_memo();
	test_fd();
	test_turn();
	test_held();
	test_log_burst();
	return (testing_done());
}
