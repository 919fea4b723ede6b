/*
 * plugins/perf/sampler/execmaps.c: the kernel's mapping records (perf's MMAP2,
 * COMM with COMM_EXEC, FORK, EXIT and LOST, each with a sample_id time
 * last), parsed from literal bytes, and the per-image log they feed.
 */
#include "config.h"

#include <linux/perf_event.h>
#include <sys/mman.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sampler/execmaps.h"
#include "testing.h"

#define CHECK_EQ(a, b)	CHECK_INTEQ(a, b, #a " == " #b)

static uint8_t rec[512];

static void
put32(size_t off, uint32_t v)
{
	memcpy(rec + off, &v, sizeof(v));
}

static void
put64(size_t off, uint64_t v)
{
	memcpy(rec + off, &v, sizeof(v));
}

static size_t
header(uint32_t type, uint16_t misc, size_t body, uint64_t time)
{
	struct perf_event_header h;
	size_t size = sizeof(h) + body + 8;

	memset(rec, 0, sizeof(rec));
	h.type = type;
	h.misc = misc;
	h.size = (uint16_t)size;
	memcpy(rec, &h, sizeof(h));
	put64(size - 8, time);
	return (size);
}

static size_t
mmap2(uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
    uint32_t prot, const char *path)
{
	size_t plen = (strlen(path) + 8) & ~(size_t)7, n;

	n = header(PERF_RECORD_MMAP2, 0, 64 + plen, 7);
	put32(8, pid);
	put32(12, pid);
	put64(16, addr);
	put64(24, len);
	put64(32, pgoff);
	put32(40, 8);		/* maj */
	put32(44, 1);		/* min */
	put64(48, 4242);	/* ino */
	put32(64, prot);
	memcpy(rec + 72, path, strlen(path));
	return (n);
}

static size_t
task(uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid)
{
	size_t n = header(type, 0, 24, 9);

	put32(8, pid);
	put32(12, ppid);
	put32(16, tid);
	put32(20, ppid);
	return (n);
}

static size_t
comm(uint32_t pid, int exec)
{
	size_t n = header(PERF_RECORD_COMM, exec ?
	    PERF_RECORD_MISC_COMM_EXEC : 0, 16, 11);

	put32(8, pid);
	put32(12, pid);
	memcpy(rec + 16, "prog", 5);
	return (n);
}

static void
test_parse(void)
{
	struct execrec r;
	size_t n;

	n = mmap2(10, 0x1000, 0x2000, 0x3000, PROT_READ | PROT_EXEC,
	    "/bin/x");
	CHECK_EQ(execrec_parse(rec, n, &r), 0);
	CHECK(r.type == EXECREC_MMAP && r.pid == 10 && r.addr == 0x1000 &&
	    r.len == 0x2000 && r.pgoff == 0x3000 && r.maj == 8 &&
	    r.min == 1 && r.ino == 4242 && r.time == 7, "mmap2 fields");
	CHECK(r.path_len == 6 && memcmp(r.path, "/bin/x", 6) == 0, "path");
	CHECK_EQ(execrec_parse(rec, n - 1, &r), -EINVAL);
	CHECK_EQ(execrec_parse(rec, 6, &r), -EINVAL);
	/* a name not ended inside the record */
	memset(rec + 72, 'a', n - 72 - 8);
	CHECK_EQ(execrec_parse(rec, n, &r), -EINVAL);
	/* a length that wraps */
	n = mmap2(10, ~0ull - 10, 0x2000, 0, PROT_EXEC, "/bin/x");
	CHECK_EQ(execrec_parse(rec, n, &r), -EINVAL);
	n = comm(11, 1);
	CHECK_EQ(execrec_parse(rec, n, &r), 0);
	CHECK(r.type == EXECREC_EXEC && r.pid == 11 && r.time == 11, "exec");
	n = comm(11, 0);
	CHECK_EQ(execrec_parse(rec, n, &r), 0);
	CHECK_EQ(r.type, EXECREC_OTHER);
	n = task(PERF_RECORD_FORK, 12, 11, 12);
	CHECK_EQ(execrec_parse(rec, n, &r), 0);
	CHECK(r.type == EXECREC_FORK && r.pid == 12 && r.ppid == 11, "fork");
	n = task(PERF_RECORD_FORK, 11, 11, 13);
	CHECK_EQ(execrec_parse(rec, n, &r), 0);
	CHECK_EQ(r.type, EXECREC_OTHER);	/* a thread */
	n = task(PERF_RECORD_EXIT, 12, 11, 12);
	CHECK_EQ(execrec_parse(rec, n, &r), 0);
	CHECK(r.type == EXECREC_EXIT && r.tid == 12, "exit");
	CHECK_EQ(execrec_parse(rec, n - 8, &r), -EINVAL);
	n = header(PERF_RECORD_LOST, 0, 16, 1);
	put64(16, 99);
	CHECK_EQ(execrec_parse(rec, n, &r), 0);
	CHECK(r.type == EXECREC_LOST && r.lost == 99, "lost");
	n = header(PERF_RECORD_SAMPLE, 0, 0, 1);
	CHECK_EQ(execrec_parse(rec, n, &r), 0);
	CHECK_EQ(r.type, EXECREC_OTHER);
}

static int
feed(struct execmaps *m, size_t n, uint64_t now)
{
	struct execrec r;

	if (execrec_parse(rec, n, &r) != 0)
		return (-EINVAL);
	return (execmaps_feed(m, &r, now));
}

static void
test_log(void)
{
	struct execmaps *m = execmaps_new();
	struct execmaps_stats st;
	struct execmap x;
	uint64_t s = 1000000000ull;

	CHECK(m != NULL, "new");
	/* a shell forks 100, which execs a program that maps libc */
	CHECK_EQ(feed(m, task(PERF_RECORD_FORK, 100, 50, 100), s), 0);
	CHECK_EQ(execmaps_parent(m, 100, 0), 50);
	CHECK_EQ(execmaps_find(m, 100, 0, 0x1000, &x), -ENOENT);
	CHECK_EQ(feed(m, comm(100, 1), s), 0);
	CHECK_EQ(feed(m, mmap2(100, 0x400000, 0x1000, 0x1000,
	    PROT_READ | PROT_EXEC, "/bin/prog"), s), 0);
	CHECK_EQ(feed(m, mmap2(100, 0x7f0000000000ull, 0x10000, 0x26000,
	    PROT_READ | PROT_EXEC, "/lib/libc.so.6"), s), 0);
	/* data mappings are not kept */
	CHECK_EQ(feed(m, mmap2(100, 0x600000, 0x1000, 0,
	    PROT_READ | PROT_WRITE, "/bin/prog"), s), 0);
	CHECK_EQ(execmaps_find(m, 100, 1, 0x600010, &x), -ENOENT);
	CHECK_EQ(execmaps_find(m, 100, 1, 0x7f0000000100ull, &x), 0);
	CHECK(x.start == 0x7f0000000000ull && x.pgoff == 0x26000 &&
	    x.ino == 4242 && x.maj == 8 && strcmp(x.path,
	    "/lib/libc.so.6") == 0, "libc found in image 1");
	CHECK_EQ(execmaps_find(m, 100, 1, 0x400800, &x), 0);
	CHECK_EQ(execmaps_find(m, 100, 1, 0x401000, &x), -ENOENT);
	CHECK_EQ(execmaps_find(m, 100, 0, 0x400800, &x), -ENOENT);
	CHECK_EQ(execmaps_parent(m, 100, 1), 0);
	/* a MAP_FIXED mapping inside libc's splits it */
	CHECK_EQ(feed(m, mmap2(100, 0x7f0000004000ull, 0x1000, 0,
	    PROT_EXEC, "/tmp/jit"), s), 0);
	CHECK_EQ(execmaps_find(m, 100, 1, 0x7f0000004100ull, &x), 0);
	CHECK_STREQ(x.path, "/tmp/jit", "the newer mapping wins");
	CHECK_EQ(execmaps_find(m, 100, 1, 0x7f0000005000ull, &x), 0);
	CHECK(x.start == 0x7f0000005000ull && x.pgoff == 0x26000 + 0x5000 &&
	    strcmp(x.path, "/lib/libc.so.6") == 0, "libc's tail, offset kept");
	CHECK_EQ(execmaps_find(m, 100, 1, 0x7f0000003fffull, &x), 0);
	CHECK(x.end == 0x7f0000004000ull, "libc's head cut");
	/* a second exec: image 2, image 1 kept for its samples */
	CHECK_EQ(feed(m, comm(100, 1), s + 1), 0);
	CHECK_EQ(feed(m, mmap2(100, 0x500000, 0x1000, 0, PROT_EXEC,
	    "/bin/other"), s + 1), 0);
	CHECK_EQ(execmaps_find(m, 100, 2, 0x500010, &x), 0);
	CHECK_EQ(execmaps_find(m, 100, 2, 0x400800, &x), -ENOENT);
	CHECK_EQ(execmaps_find(m, 100, 1, 0x400800, &x), 0);
	/* the exit; then the PID comes back as another process */
	CHECK_EQ(feed(m, task(PERF_RECORD_EXIT, 100, 50, 100), s + 2), 0);
	CHECK_EQ(feed(m, mmap2(100, 0x800000, 0x1000, 0, PROT_EXEC,
	    "/bin/new"), s + 3), 0);
	CHECK_EQ(execmaps_find(m, 100, 0, 0x800010, &x), 0);
	CHECK_EQ(execmaps_find(m, 100, 2, 0x500010, &x), 0);
	/* a thread's exit is not the process's */
	CHECK_EQ(feed(m, task(PERF_RECORD_EXIT, 100, 50, 101), s + 3), 0);
	/* a lost record is counted */
	CHECK_EQ(feed(m, header(PERF_RECORD_LOST, 0, 16, 1), s + 3), 0);
	execmaps_stats(m, &st);
	CHECK(st.images == 4 && st.maps == 6, "4 images, 6 mappings kept");
	/* 30 s on: the exited images go; the live one's mappings are
	 * left to /proc, its generation kept */
	execmaps_expire(m, s + 3 + EXECMAPS_KEEP_NS + 1);
	execmaps_stats(m, &st);
	CHECK(st.images == 1 && st.maps == 0, "exited images dropped");
	CHECK_EQ(execmaps_find(m, 100, 2, 0x500010, &x), -ENOENT);
	CHECK_EQ(feed(m, comm(100, 1), s + 40 * s), 0);
	CHECK_EQ(feed(m, mmap2(100, 0x900000, 0x1000, 0, PROT_EXEC,
	    "/bin/third"), s + 40 * s), 0);
	CHECK_EQ(execmaps_find(m, 100, 1, 0x900010, &x), 0);
	execmaps_free(m);
	execmaps_free(NULL);
}

/* The record just built, with its time set to t. */
static size_t
at(size_t n, uint64_t t)
{
	put64(n - 8, t);
	return (n);
}

/* What /proc showed of the processes running when the log began. */
static void
test_seed(void)
{
	struct execmaps *m = execmaps_new();
	struct execmaps_stats st;
	struct execmap x, v[3] = {
		{ 0x400000, 0x401000, 0x1000, 77, 8, 1, "/bin/old" },
		{ 0x7f0000000000ull, 0x7f0000010000ull, 0x26000, 78, 8, 1,
		    "/lib/libc.so.6" },
		{ 0x500000, 0x500000, 0, 79, 8, 1, "/empty" },
	};
	uint64_t t = 1000;

	CHECK(m != NULL, "new");
	CHECK_EQ(execmaps_seed(m, 200, 0, v, 3, t), 0);
	CHECK_EQ(execmaps_find(m, 200, 0, 0x400800, &x), 0);
	CHECK(x.start == 0x400000 && x.pgoff == 0x1000 && x.ino == 77 &&
	    strcmp(x.path, "/bin/old") == 0, "a seeded mapping found");
	CHECK_EQ(execmaps_find(m, 200, 0, 0x7f0000000100ull, &x), 0);
	CHECK_EQ(execmaps_find(m, 200, 0, 0x500000, &x), -ENOENT);
	execmaps_stats(m, &st);
	CHECK(st.images == 1 && st.maps == 2, "an empty range is not kept");
	/* records older than the seed are in what /proc showed already:
	 * an exec, a fork, a mapping, an exit */
	CHECK_EQ(feed(m, at(comm(200, 1), t - 5), t + 1), 0);
	CHECK_EQ(feed(m, at(task(PERF_RECORD_FORK, 200, 50, 200), t - 9),
	    t + 1), 0);
	CHECK_EQ(feed(m, at(mmap2(200, 0x600000, 0x1000, 0, PROT_EXEC,
	    "/bin/before"), t - 3), t + 1), 0);
	CHECK_EQ(feed(m, at(task(PERF_RECORD_EXIT, 200, 50, 200), t - 2),
	    t + 1), 0);
	CHECK_EQ(execmaps_find(m, 200, 1, 0x400800, &x), -ENOENT);
	CHECK_EQ(execmaps_find(m, 200, 0, 0x600800, &x), -ENOENT);
	CHECK_EQ(execmaps_find(m, 200, 0, 0x400800, &x), 0);
	CHECK_EQ(execmaps_parent(m, 200, 0), 0);
	/* a newer mapping joins it; a newer exec starts the next image */
	CHECK_EQ(feed(m, at(mmap2(200, 0x700000, 0x1000, 0, PROT_EXEC,
	    "/lib/late.so"), t + 2), t + 2), 0);
	CHECK_EQ(execmaps_find(m, 200, 0, 0x700800, &x), 0);
	CHECK_EQ(feed(m, at(comm(200, 1), t + 3), t + 3), 0);
	CHECK_EQ(feed(m, at(mmap2(200, 0x800000, 0x1000, 0, PROT_EXEC,
	    "/bin/next"), t + 4), t + 4), 0);
	CHECK_EQ(execmaps_find(m, 200, 1, 0x800800, &x), 0);
	CHECK_EQ(execmaps_find(m, 200, 0, 0x400800, &x), 0);
	/* seeded at the sampler's generation; only once per live image */
	CHECK_EQ(execmaps_seed(m, 300, 3, v, 1, t), 0);
	CHECK_EQ(execmaps_find(m, 300, 3, 0x400800, &x), 0);
	CHECK_EQ(execmaps_seed(m, 300, 3, v + 1, 1, t), -EEXIST);
	CHECK_EQ(execmaps_find(m, 300, 3, 0x7f0000000100ull, &x), -ENOENT);
	CHECK_EQ(feed(m, at(comm(300, 1), t + 5), t + 5), 0);
	CHECK_EQ(feed(m, at(mmap2(300, 0x900000, 0x1000, 0, PROT_EXEC,
	    "/bin/fourth"), t + 6), t + 6), 0);
	CHECK_EQ(execmaps_find(m, 300, 4, 0x900800, &x), 0);
	/* nothing seeded: the records apply whatever their time */
	CHECK_EQ(feed(m, at(mmap2(400, 0xa00000, 0x1000, 0, PROT_EXEC,
	    "/bin/x"), 1), t), 0);
	CHECK_EQ(execmaps_find(m, 400, 0, 0xa00800, &x), 0);
	/* untouched for EXECMAPS_KEEP_NS, a live seeded image's mappings
	 * are left to /proc, its generation kept */
	execmaps_expire(m, t + 6 + EXECMAPS_KEEP_NS + 1);
	CHECK_EQ(execmaps_find(m, 300, 4, 0x900800, &x), -ENOENT);
	CHECK_EQ(feed(m, at(comm(300, 1), t + 7 + EXECMAPS_KEEP_NS),
	    t + 7 + EXECMAPS_KEEP_NS), 0);
	CHECK_EQ(feed(m, at(mmap2(300, 0x900000, 0x1000, 0, PROT_EXEC,
	    "/bin/fifth"), t + 8 + EXECMAPS_KEEP_NS),
	    t + 8 + EXECMAPS_KEEP_NS), 0);
	CHECK_EQ(execmaps_find(m, 300, 5, 0x900800, &x), 0);
	execmaps_free(m);
}

static size_t
lost(uint64_t count)
{
	size_t n = header(PERF_RECORD_LOST, 0, 16, 1);

	put64(8, 1);
	put64(16, count);
	return (n);
}

/*
 * Whether an image provably mapped no code since a time: the symbolizer's
 * test before it reads a process's maps again for an address no mapping
 * held (execmaps_quiet_since).
 */
static void
test_quiet(void)
{
	struct execmaps *m = execmaps_new();
	struct execmap v = { 0x400000, 0x401000, 0, 77, 8, 1, "/bin/q" };
	uint64_t t = 1000;

	CHECK_EQ(execmaps_seed(m, 500, 2, &v, 1, t), 0);
	CHECK_EQ(execmaps_quiet_since(m, 500, 2, t + 1), 1);
	CHECK_EQ(execmaps_quiet_since(m, 500, 2, t), 0);
	CHECK_EQ(execmaps_quiet_since(m, 500, 1, t + 1), -ENOENT);
	CHECK_EQ(execmaps_quiet_since(m, 501, 0, t + 1), -ENOENT);
	/* data is no code */
	CHECK_EQ(feed(m, at(mmap2(500, 0x600000, 0x1000, 0, PROT_READ,
	    "/data"), t + 2), t + 2), 0);
	CHECK_EQ(execmaps_quiet_since(m, 500, 2, t + 1), 1);
	/* code mapped at t + 3 */
	CHECK_EQ(feed(m, at(mmap2(500, 0x700000, 0x1000, 0, PROT_EXEC,
	    "/lib/late.so"), t + 3), t + 3), 0);
	CHECK_EQ(execmaps_quiet_since(m, 500, 2, t + 1), 0);
	CHECK_EQ(execmaps_quiet_since(m, 500, 2, t + 4), 1);
	/* records lost at t + 5: nothing is known of anyone since */
	CHECK_EQ(feed(m, at(lost(3), t + 5), t + 5), 0);
	CHECK_EQ(execmaps_quiet_since(m, 500, 2, t + 4), 0);
	CHECK_EQ(execmaps_quiet_since(m, 500, 2, t + 6), 1);
	/* an exec: the old image is no longer current, the new one is */
	CHECK_EQ(feed(m, at(comm(500, 1), t + 7), t + 7), 0);
	CHECK_EQ(execmaps_quiet_since(m, 500, 2, t + 8), 0);
	CHECK_EQ(execmaps_quiet_since(m, 500, 3, t + 8), 1);
	/* one the seed left out, followed from t + 9: what /proc shows
	 * after is its own until a record says otherwise */
	CHECK_EQ(execmaps_follow(m, 501, 0, t + 9), 0);
	CHECK_EQ(execmaps_follow(m, 501, 0, t + 9), -EEXIST);
	CHECK_EQ(execmaps_follow(m, 500, 4, t + 9), -EEXIST);
	CHECK_EQ(execmaps_quiet_since(m, 501, 0, t + 9), 0);
	CHECK_EQ(execmaps_quiet_since(m, 501, 0, t + 10), 1);
	CHECK_EQ(feed(m, at(mmap2(501, 0x700000, 0x1000, 0, PROT_EXEC,
	    "/lib/dl.so"), t + 11), t + 11), 0);
	CHECK_EQ(execmaps_quiet_since(m, 501, 0, t + 10), 0);
	execmaps_free(m);
}

/* One image holds EXECMAPS_MAX_PER mappings; more are counted. */
static void
test_bounds(void)
{
	struct execmaps *m = execmaps_new();
	struct execmaps_stats st;
	uint64_t i;

	for (i = 0; i < EXECMAPS_MAX_PER + 10; i++)
		(void)feed(m, mmap2(7, 0x10000000 + i * 0x2000, 0x1000, 0,
		    PROT_EXEC, "/lib/many.so"), 1);
	execmaps_stats(m, &st);
	CHECK(st.maps == EXECMAPS_MAX_PER && st.dropped == 10,
	    "bounded per image, the rest counted");
	execmaps_free(m);
}

int
main(void)
{
	test_parse();
	test_log();
	test_seed();
	test_quiet();
	test_bounds();
	return (testing_done());
}
