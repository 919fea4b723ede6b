/*
 * procmaps.c: /proc/PID/maps, status and stat parsers, on literal bytes
 * and on this process's own /proc files.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/procmaps.h"
#include "testing.h"

#define CHECK_EQ(a, b)	CHECK_INTEQ(a, b, #a " == " #b)

static const char maps_text[] =
    "55d0b7a00000-55d0b7a02000 r--p 00000000 fd:01 1234                       /usr/bin/cat\n"
    "55d0b7a02000-55d0b7a07000 r-xp 00002000 fd:01 1234                       /usr/bin/cat\n"
    "55d0b7a07000-55d0b7a09000 rw-p 00007000 fd:01 1234                       /usr/bin/cat\n"
    "this is not a mapping\n"
    "7f0000000000-7f0000001000 rwxp 00000000 00:00 0 \n"
    "7f1000000000-7f1000010000 r-xp 00010000 08:02 99 /tmp/my lib.so (deleted)\n"
    "7ffd1000-7ffd3000 r-xp 00000000 00:00 0                          [vdso]\n"
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n"
    "10-5 r-xp 00000000 00:00 0 /bad/range\n"
    "7f2000000000-7f2000001000 r-xp 00000000 fd:01 77 /no/newline";

/* A re-read that finds the same mappings keeps its snapshot; any change
 * in a range, file or name is a new one. */
static void
test_maps_same(const struct procmaps *m)
{
	struct procmaps b;
	char *t = strdup(maps_text), *c;

	CHECK_EQ(procmaps_parse(t, strlen(t), &b), 0);
	CHECK(procmaps_same(m, &b), "the same text: the same mappings");
	procmaps_free(&b);
	for (c = t; (c = strstr(c, " 1234 ")) != NULL; c++)
		c[4] = '5';	/* another inode */
	CHECK_EQ(procmaps_parse(t, strlen(t), &b), 0);
	CHECK(!procmaps_same(m, &b), "another file at the same range");
	procmaps_free(&b);
	for (c = t; (c = strstr(c, " 1235 ")) != NULL; c++)
		c[4] = '4';
	CHECK_EQ(procmaps_parse(t, strlen(t), &b), 0);
	CHECK(procmaps_same(m, &b), "the same again");
	procmaps_free(&b);
	for (c = t; (c = strstr(c, "/usr/bin/cat")) != NULL; c++)
		c[9] = 'd';	/* /usr/bin/dat */
	CHECK_EQ(procmaps_parse(t, strlen(t), &b), 0);
	CHECK(!procmaps_same(m, &b), "another name");
	procmaps_free(&b);
	CHECK_EQ(procmaps_parse(t, strstr(t, "\n") + 1 - t, &b), 0);
	CHECK(!procmaps_same(m, &b), "fewer mappings");
	procmaps_free(&b);
	free(t);
}

static void
test_maps_literal(void)
{
	struct procmaps m;
	long i;

	CHECK_EQ(procmaps_parse(maps_text, sizeof(maps_text) - 1, &m), 0);
	CHECK_EQ(m.n, 6);
	CHECK_EQ(m.bad_lines, 2);
	CHECK(m.v[0].start == 0x55d0b7a02000ull && m.v[0].end ==
	    0x55d0b7a07000ull && m.v[0].pgoff == 0x2000, "exec range");
	CHECK_STREQ(procmaps_path(&m, &m.v[0]), "/usr/bin/cat", "path");
	CHECK(m.v[0].dev_major == 0xfd && m.v[0].dev_minor == 1 &&
	    m.v[0].inode == 1234, "dev and inode");
	CHECK(procmaps_path(&m, &m.v[1]) == NULL, "anonymous: no path");
	CHECK_STREQ(procmaps_path(&m, &m.v[2]), "/tmp/my lib.so (deleted)",
	    "path with spaces keeps (deleted)");
	CHECK(m.v[2].deleted && !m.v[0].deleted, "deleted flag");
	CHECK_STREQ(procmaps_path(&m, &m.v[3]), "[vdso]", "vdso");
	CHECK_STREQ(procmaps_path(&m, &m.v[5]), "/no/newline", "last line");
	i = procmaps_find(&m, 0x55d0b7a03456ull);
	CHECK_EQ(i, 0);
	CHECK_EQ(procmaps_find(&m, 0x55d0b7a07000ull), -1);
	CHECK_EQ(procmaps_find(&m, 0x7f1000000000ull), 2);
	test_maps_same(&m);
	procmaps_free(&m);
	procmaps_free(&m);
	CHECK_EQ(procmaps_parse("", 0, &m), 0);
	CHECK_EQ(m.n, 0);
	procmaps_free(&m);
}

static char *
slurp(const char *path, size_t *len)
{
	char *buf = malloc(1 << 20);
	FILE *f = fopen(path, "r");

	*len = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	return (buf);
}

/* Our own code must lie in an executable mapping of our own binary. */
static void
test_maps_self(void)
{
	struct procmaps m;
	char *buf, exe[4096];
	size_t len;
	long i;
	ssize_t n;

	buf = slurp("/proc/self/maps", &len);
	CHECK_EQ(procmaps_parse(buf, len, &m), 0);
	CHECK_EQ(m.bad_lines, 0);
	i = procmaps_find(&m, (uint64_t)(uintptr_t)test_maps_self);
	CHECK(i >= 0, "own function is in an exec mapping");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (i >= 0)
		CHECK_STREQ(procmaps_path(&m, &m.v[i]), exe, "own binary");
	i = procmaps_find(&m, (uint64_t)(uintptr_t)getpid);
	CHECK(i >= 0 && strstr(procmaps_path(&m, &m.v[i]), "libc") != NULL,
	    "getpid is in libc");
	procmaps_free(&m);
	free(buf);
}

static void
test_status(void)
{
	static const char st[] = "Name:\tmy prog\nUmask:\t0022\n"
	    "Tgid:\t4242\nNSpid:\t4242\t17\t3\nPPid:\t1\n";
	struct procstatus ps;
	char *buf;
	size_t len;

	CHECK_EQ(procstatus_parse(st, sizeof(st) - 1, &ps), 0);
	CHECK_STREQ(ps.name, "my prog", "Name with a space");
	CHECK_EQ(ps.nspid, 3);
	CHECK_EQ(ps.tgid, 4242);
	CHECK(procstatus_parse("Tgid: 1\n", 8, &ps) != 0, "no Name: fails");
	CHECK_EQ(procstatus_parse("Name:\tx\nNSpid:\t12 junk\n", 23, &ps),
	    0);
	CHECK_EQ(ps.nspid, 0);
	buf = slurp("/proc/self/status", &len);
	CHECK_EQ(procstatus_parse(buf, len, &ps), 0);
	CHECK_STREQ(ps.name, "test_sym_procma", "own comm (15 chars)");
	CHECK_EQ(ps.nspid, getpid());
	free(buf);
}

static void
test_stat(void)
{
	static const char st[] = "1234 (a) b) c) S 1 2 3 4 5 6 7 8 9 10 11 "
	    "12 13 14 15 16 17 18 987654 20 21\n";
	uint64_t t = 0, t2 = 0;
	int32_t pp = 0;
	char *buf, path[64];
	size_t len;

	CHECK_EQ(procstat_starttime(st, sizeof(st) - 1, &t), 0);
	CHECK_EQ(t, 987654);
	CHECK_EQ(procstat_ppid(st, sizeof(st) - 1, &pp), 0);
	CHECK_EQ(pp, 1);
	CHECK(procstat_ppid("1 (x) S", 7, &pp) != 0, "no ppid");
	CHECK(procstat_ppid("1 (x) S 99999999999 2", 21, &pp) != 0,
	    "ppid out of range");
	CHECK(procstat_starttime("1 (x) S 1 2", 11, &t) != 0, "short stat");
	CHECK(procstat_starttime("no paren", 8, &t) != 0, "no comm");
	buf = slurp("/proc/self/stat", &len);
	CHECK_EQ(procstat_starttime(buf, len, &t), 0);
	CHECK_EQ(procstat_ppid(buf, len, &pp), 0);
	CHECK_EQ(pp, (int32_t)getppid());
	free(buf);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)getppid());
	buf = slurp(path, &len);
	CHECK_EQ(procstat_starttime(buf, len, &t2), 0);
	CHECK(t > 0 && t2 > 0 && t2 <= t, "parent started before us");
	free(buf);
}

/* A mapping the kernel reported, added to what /proc showed. */
static void
test_maps_add(void)
{
	struct procmaps m, out, out2;
	struct procmaps_entry e;
	size_t src[8];

	CHECK_EQ(procmaps_parse(maps_text, sizeof(maps_text) - 1, &m), 0);
	memset(&e, 0, sizeof(e));
	e.start = 0x7f0800000000ull;
	e.end = 0x7f0800010000ull;
	e.pgoff = 0x26000;
	e.inode = 5;
	CHECK_EQ(procmaps_add(&m, &e, "/lib/libc.so.6", &out, src), 0);
	CHECK_EQ(out.n, m.n + 1);
	CHECK_EQ(src[2], SIZE_MAX);
	CHECK(src[0] == 0 && src[1] == 1 && src[3] == 2 && src[6] == 5,
	    "the others keep their order and say where they came from");
	CHECK_STREQ(procmaps_path(&out, &out.v[2]), "/lib/libc.so.6",
	    "its path");
	CHECK_STREQ(procmaps_path(&out, &out.v[0]), "/usr/bin/cat",
	    "an old path, copied");
	CHECK(procmaps_path(&out, &out.v[1]) == NULL, "anonymous stays so");
	CHECK_EQ(procmaps_find(&out, 0x7f0800000100ull), 2);
	CHECK_EQ(procmaps_find(&out, 0x55d0b7a03456ull), 0);
	/* newer than what it overlaps: those go */
	e.start = 0x55d0b7a06000ull;
	e.end = 0x7f0000000800ull;
	CHECK_EQ(procmaps_add(&out, &e, NULL, &out2, src), 0);
	CHECK_EQ(out2.n, out.n - 1);
	CHECK_EQ(procmaps_find(&out2, 0x55d0b7a06100ull), 0);
	CHECK(procmaps_path(&out2, &out2.v[0]) == NULL, "no path given");
	CHECK(src[0] == SIZE_MAX && src[1] == 2, "overlapped ones left out");
	procmaps_free(&out2);
	procmaps_free(&out);
	/* into nothing */
	CHECK_EQ(procmaps_add(NULL, &e, "/x", &out, src), 0);
	CHECK(out.n == 1 && src[0] == SIZE_MAX, "from none");
	CHECK_STREQ(procmaps_path(&out, &out.v[0]), "/x", "path from none");
	procmaps_free(&out);
	procmaps_free(&m);
}

int
main(void)
{
	test_maps_literal();
	test_maps_add();
	test_maps_self();
	test_status();
	test_stat();
	return (testing_done());
}
