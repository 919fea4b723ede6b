/*
 * The symbolizer against real processes: this program itself, libc,
 * children started from copies of this program (deleted while running,
 * stripped with and without separate debug info, inside their own mount
 * namespace), a C++ program compiled here, a JIT perf map for our own
 * anonymous executable memory (with garbage lines and a PID-reuse guard),
 * and kernel addresses from /proc/kallsyms.
 *
 * Run as "test_sym_symbolize child": print marker addresses, wait for
 * stdin to close.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "sym/symbolize.h"
#include "sym/symbolize_int.h"
#include "testing.h"
#include "test_sym_util.h"
#include "base/mapsread.h"
#include "base/safeopen.h"

/* A symbolizer opening files as the perf plugin does: the daemon's safe
 * open (core/base/safeopen.c). */
static struct symbolizer *
test_sym_new(void (*log)(void *, int, const char *), void *arg)
{
	struct symbolizer *s = symbolizer_new(log, arg);

	if (s != NULL)
		symbolizer_set_opener(s, safeopen_open_cb, NULL);
	return (s);
}

#define CHECK_EQ(a, b)	CHECK_INTEQ(a, b, #a " == " #b)

__attribute__((noinline)) int	sym_test_marker(int);

__attribute__((noinline)) int
sym_test_marker(int x)
{
	return (x * 7 + 3);
}

static int nlogs, nwarns;

static void
test_log(void *arg, int level, const char *msg)
{
	(void)arg;
	nlogs++;
	nwarns += level <= GP_LOG_WARN;
	printf("# log %d: %s\n", level, msg);
}

static int
child_main(void)
{
	char c;

	printf("%" PRIxPTR "\n", (uintptr_t)sym_test_marker + 4);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return (sym_test_marker(0) == 3 ? 0 : 1);
}

static char self_exe[4096];
static char *tmp;

struct child {
	pid_t pid;
	int to;
	int from;
	uint64_t addr;
};

static int
child_start(struct child *c, char *const argv[])
{
	c->pid = tsu_spawn(argv, &c->to, &c->from);
	if (c->pid < 0)
		return (-1);
	c->addr = tsu_read_addr(c->from);
	return (c->addr != 0 ? 0 : -1);
}

static void
child_stop(struct child *c)
{
	int st;

	close(c->to);
	close(c->from);
	waitpid(c->pid, &st, 0);
}

/* The exec generation test_gens says this process is in. */
static uint32_t test_gen_now;

static int
test_cur_gen(void *arg, int32_t pid, uint32_t *gen)
{
	*gen = pid == getpid() ? test_gen_now : 0;
	return (0);
}

/*
 * Process images (PID, exec generation): an image keeps the snapshot
 * taken while it was current after the process "execs" (the resolver
 * moves on), an image never seen current resolves nothing rather than
 * against another image's maps, and old images go at the cycle's end.
 */
static void
test_generations(void)
{
	struct symbolizer *s = test_sym_new(test_log, NULL);
	uintptr_t marker = (uintptr_t)sym_test_marker + 2;
	int32_t me = getpid();

	symbolizer_set_gen_resolver(s, test_cur_gen, NULL);
	test_gen_now = 1;
	CHECK_EQ(symbolizer_process_seen_gen(s, me, 1), 0);
	CHECK_STREQ(symbolizer_user_frame_gen(s, me, 1, marker),
	    "sym_test_marker", "current image resolves");
	test_gen_now = 2;	/* exec */
	CHECK_STREQ(symbolizer_user_frame_gen(s, me, 1, marker),
	    "sym_test_marker", "left image keeps its snapshot");
	CHECK_STREQ(symbolizer_comm_gen(s, me, 1), "test_sym_symbol",
	    "left image keeps its comm");
	CHECK_EQ(symbolizer_process_seen_gen(s, me, 3), -ESTALE);
	CHECK_STREQ(symbolizer_user_frame_gen(s, me, 3, marker), "[unknown]",
	    "an image never current is not resolved with another's maps");
	CHECK(symbolizer_comm_gen(s, me, 3) == NULL, "nor given its comm");
	CHECK_STREQ(symbolizer_user_frame_gen(s, me, 2, marker),
	    "sym_test_marker", "the new image snapshotted on first sight");
	symbolizer_cycle_end(s);
	CHECK(symbolizer_comm_gen(s, me, 1) == NULL,
	    "left image forgotten at cycle end");
	CHECK_STREQ(symbolizer_comm_gen(s, me, 2), "test_sym_symbol",
	    "current image kept");
	symbolizer_free(s);
}

/* The forked child of test_fork_exec has exec'ed (generation 1). */
static int32_t test_forked;

static int
test_child_gen(void *arg, int32_t pid, uint32_t *gen)
{
	*gen = pid == test_forked ? 1 : 0;
	return (0);
}

/*
 * A shell's child sampled in _Fork or execve, drained after its exec: its
 * image before the exec (generation 0) was a copy of its parent's, and is
 * named from the parent's maps as perf names it.  Other images of it that
 * were never current stay unknown.
 */
static void
test_fork_exec(void)
{
	struct symbolizer *s = test_sym_new(test_log, NULL);
	uintptr_t marker = (uintptr_t)sym_test_marker + 2;
	pid_t pid;
	int st;

	if ((pid = fork()) == 0) {
		pause();
		_exit(0);
	}
	CHECK(pid > 0, "fork");
	test_forked = pid;
	symbolizer_set_gen_resolver(s, test_child_gen, NULL);
	CHECK_EQ(symbolizer_process_seen_gen(s, pid, 0), -ESTALE);
	CHECK_STREQ(symbolizer_user_frame_gen(s, pid, 0, marker),
	    "sym_test_marker", "a young child's image before its exec: "
	    "resolved in its parent's address space");
	CHECK_EQ(symbolizer_process_seen_gen(s, pid, 2), -ESTALE);
	CHECK_STREQ(symbolizer_user_frame_gen(s, pid, 2, marker), "[unknown]",
	    "a later image never current: not its parent's");
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	symbolizer_free(s);
}

static void
test_self(struct symbolizer *s)
{
	struct symbolizer_stats st0, st1;
	struct sym_mapping m;
	const char *name;
	struct timespec a, b;
	size_t i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK_EQ(symbolizer_process_seen(s, getpid()), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("# first sight of ourselves: %.2f ms\n", (b.tv_sec - a.tv_sec) *
	    1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
	CHECK_STREQ(symbolizer_comm(s, getpid()), "test_sym_symbol",
	    "comm from status");
	CHECK_STREQ(symbolizer_user_frame(s, getpid(),
	    (uintptr_t)sym_test_marker + 2), "sym_test_marker", "own function");
	name = symbolizer_user_frame(s, getpid(), (uintptr_t)getpid);
	CHECK(strcmp(name, "getpid") == 0 || strcmp(name, "__getpid") == 0,
	    "libc getpid");
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), 0x10), "[unknown]",
	    "unmapped address");
	CHECK_EQ(symbolizer_mapping(s, getpid(), (uintptr_t)getpid, &m), 0);
	CHECK(m.path != NULL && strncmp(m.path, "/proc/", 6) == 0 &&
	    access(m.path, R_OK) == 0, "mapping path is openable");
	CHECK(m.start <= (uintptr_t)getpid && (uintptr_t)getpid < m.end,
	    "mapping range");
	CHECK_EQ(symbolizer_mapping(s, getpid(), 0x10, &m), -ENOENT);
	CHECK_EQ(symbolizer_process_seen(s, getpid()), 0);
	symbolizer_stats(s, &st0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < 1000000; i++)
		(void)symbolizer_user_frame(s, getpid(),
		    (uintptr_t)getpid + (i & 3));
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("# %.1f ns per user frame\n", ((b.tv_sec - a.tv_sec) * 1e9 +
	    (b.tv_nsec - a.tv_nsec)) / 1e6);
	symbolizer_stats(s, &st1);
	CHECK_EQ(st1.user_frames - st0.user_frames, 1000000);
	CHECK_EQ(st1.user_resolved - st0.user_resolved, 1000000);
	printf("# %" PRIu64 " tables, %" PRIu64 " bytes\n", st1.binaries,
	    st1.table_bytes);
}

static int nbudget;

static void
test_budget_log(void *arg, int level, const char *msg)
{
	(void)arg;
	nbudget += strstr(msg, "over their budget") != NULL;
	printf("# log %d: %s\n", level, msg);
}

/*
 * The tables' byte budget (here 1 byte: every table over it): a table a
 * lookup used this cycle or the last stays; older ones are evicted, said
 * once, and reloaded when looked up again, naming the same functions:
 * our own, libc's, and a stripped copy's from the debug file its
 * .gnu_debuglink names, read again for a second process after the first
 * one, whose root named it, is gone.
 */
static void
test_budget(void)
{
	struct symbolizer *s;
	struct symbolizer_stats st;
	struct child c1, c2;
	char bin[256], dbg[256], addlink[320];
	char *argv[] = { bin, "child", NULL };
	char *keep[] = { "objcopy", "--only-keep-debug",
	    self_exe, dbg, NULL };
	char *strip[] = { "strip", "--strip-all", bin, NULL };
	char *link[] = { "objcopy", addlink, bin, NULL };
	const char *name;
	uint64_t n0, ev;
	int i;

	s = test_sym_new(test_budget_log, NULL);
	symbolizer_set_table_budget(s, 1);
	CHECK_EQ(symbolizer_process_seen(s, getpid()), 0);
	for (i = 0; i < 4; i++) {
		CHECK_STREQ(symbolizer_user_frame(s, getpid(),
		    (uintptr_t)sym_test_marker + 2), "sym_test_marker",
		    "budget: own function (reloaded after the first round)");
		name = symbolizer_user_frame(s, getpid(), (uintptr_t)getpid);
		CHECK(strcmp(name, "getpid") == 0 ||
		    strcmp(name, "__getpid") == 0, "budget: libc getpid");
		symbolizer_stats(s, &st);
		n0 = st.binaries;
		ev = st.table_evictions;
		CHECK(n0 >= 2, "budget: the tables looked up are loaded");
		symbolizer_cycle_end(s);
		symbolizer_stats(s, &st);
		CHECK(st.binaries == n0 && st.table_evictions == ev,
		    "budget: tables used in the last cycle are kept");
		symbolizer_cycle_end(s);
		symbolizer_stats(s, &st);
		CHECK(st.binaries <= n0 - 2 && st.table_evictions >= ev + 2,
		    "budget: tables unused for two cycles are evicted");
		printf("# round %d: %" PRIu64 " tables, then %" PRIu64 "; %"
		    PRIu64 " evictions, %" PRIu64 " bytes left\n", i, n0,
		    st.binaries, st.table_evictions, st.table_bytes);
	}
	CHECK_EQ(nbudget, 1);
	symbolizer_free(s);

	/* A stripped copy named from the debug file beside it. */
	snprintf(bin, sizeof(bin), "%s/budget_linked", tmp);
	snprintf(dbg, sizeof(dbg), "%s/budget_linked.debug", tmp);
	snprintf(addlink, sizeof(addlink), "--add-gnu-debuglink=%s", dbg);
	tsu_copy(self_exe, bin, -1);
	if (tsu_run(keep) != 0 || tsu_run(strip) != 0 || tsu_run(link) != 0) {
		CHECK(0, "objcopy and strip ran");
		return;
	}
	s = test_sym_new(test_budget_log, NULL);
	symbolizer_set_debug_root(s, bin);	/* nothing there */
	symbolizer_set_table_budget(s, 1);
	if (child_start(&c1, argv) != 0) {
		CHECK(0, "start the debuglinked child");
		goto out;
	}
	CHECK_EQ(symbolizer_process_seen(s, c1.pid), 0);
	CHECK_STREQ(symbolizer_user_frame(s, c1.pid, c1.addr),
	    "sym_test_marker", "budget: stripped, named from its debug file");
	if (child_start(&c2, argv) != 0) {
		CHECK(0, "start a second debuglinked child");
		child_stop(&c1);
		goto out;
	}
	CHECK_EQ(symbolizer_process_seen(s, c2.pid), 0);
	child_stop(&c1);
	symbolizer_stats(s, &st);
	ev = st.table_evictions;
	symbolizer_cycle_end(s);
	symbolizer_cycle_end(s);
	symbolizer_stats(s, &st);
	CHECK(st.table_evictions > ev, "budget: the copy's table evicted");
	CHECK_STREQ(symbolizer_user_frame(s, c2.pid, c2.addr),
	    "sym_test_marker", "budget: reloaded with its debug file, seen "
	    "from the process alive");
	child_stop(&c2);
out:
	symbolizer_free(s);
	unlink(bin);
	unlink(dbg);
}

/* A copy of this program, deleted while it runs; stops and is forgotten. */
static void
test_deleted(struct symbolizer *s)
{
	struct symbolizer_stats st0, st1;
	struct child c;
	char bin[256];
	char *argv[] = { bin, "child", NULL };

	snprintf(bin, sizeof(bin), "%s/deleted_copy", tmp);
	tsu_copy(self_exe, bin, -1);
	if (child_start(&c, argv) != 0) {
		CHECK(0, "start child");
		return;
	}
	unlink(bin);
	symbolizer_stats(s, &st0);
	CHECK_EQ(symbolizer_process_seen(s, c.pid), 0);
	symbolizer_stats(s, &st1);
	CHECK_EQ(st1.binaries, st0.binaries);
	CHECK_STREQ(symbolizer_user_frame(s, c.pid, c.addr), "sym_test_marker",
	    "deleted binary resolves (table shared by build-id)");
	CHECK_STREQ(symbolizer_comm(s, c.pid), "deleted_copy", "child comm");
	child_stop(&c);
	/* Known processes are re-checked at most once a second. */
	usleep(1100000);
	CHECK_EQ(symbolizer_process_seen(s, c.pid), -ESRCH);
	CHECK_STREQ(symbolizer_user_frame(s, c.pid, c.addr), "sym_test_marker",
	    "still resolves after exit, until the cycle ends");
	symbolizer_cycle_end(s);
	CHECK(symbolizer_comm(s, c.pid) == NULL, "forgotten at cycle end");
	CHECK_STREQ(symbolizer_user_frame(s, c.pid, c.addr), "[unknown]",
	    "exited process unknown in the next cycle");
}

/* Stripped and deleted: the dso with its tag; with debug info: the name. */
static void
test_stripped(void)
{
	struct symbolizer *s;
	struct child c;
	char bin[256], dbg[256], root[256], want[300];
	char bid_dir[300], link[400];
	char *argv[] = { bin, "child", NULL };
	char *strip[] = { "strip", "--strip-all", bin, NULL };
	char *keep[] = { "objcopy", "--only-keep-debug",
	    self_exe, dbg, NULL };
	FILE *f;
	char line[512], bid[64] = "";
	char *rargv[] = { "readelf", "-n", self_exe, NULL };
	int to = -1, from = -1;
	pid_t pid;

	snprintf(bin, sizeof(bin), "%s/stripped_copy", tmp);
	snprintf(dbg, sizeof(dbg), "%s/self.debug", tmp);
	tsu_copy(self_exe, bin, -1);
	if (tsu_run(strip) != 0 || tsu_run(keep) != 0) {
		CHECK(0, "strip and objcopy ran");
		return;
	}
	/* Without debug info: "(path (deleted))". */
	s = test_sym_new(test_log, NULL);
	if (child_start(&c, argv) != 0) {
		CHECK(0, "start stripped child");
		symbolizer_free(s);
		return;
	}
	unlink(bin);
	CHECK_EQ(symbolizer_process_seen(s, c.pid), 0);
	snprintf(want, sizeof(want), "(%s (deleted))", bin);
	CHECK_STREQ(symbolizer_user_frame(s, c.pid, c.addr), want,
	    "stripped + deleted: dso keeps (deleted)");
	child_stop(&c);
	symbolizer_free(s);

	/* Debug info by build-id under an overridden debug root. */
	pid = tsu_spawn(rargv, &to, &from);
	close(to);
	f = fdopen(from, "r");
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, " Build ID: %63s", bid) == 1)
			break;
	fclose(f);
	waitpid(pid, NULL, 0);
	CHECK(strlen(bid) == 40, "readelf shows our build-id");
	snprintf(root, sizeof(root), "%s/debugroot", tmp);
	snprintf(bid_dir, sizeof(bid_dir), "%s/.build-id/%.2s", root, bid);
	mkdir(root, 0755);
	snprintf(bid_dir, sizeof(bid_dir), "%s/.build-id", root);
	mkdir(bid_dir, 0755);
	snprintf(bid_dir, sizeof(bid_dir), "%s/.build-id/%.2s", root, bid);
	mkdir(bid_dir, 0755);
	snprintf(link, sizeof(link), "%s/%s.debug", bid_dir, bid + 2);
	rename(dbg, link);
	tsu_copy(self_exe, bin, -1);
	tsu_run(strip);
	s = test_sym_new(test_log, NULL);
	CHECK_EQ(symbolizer_set_debug_root(s, root), 0);
	if (child_start(&c, argv) == 0) {
		CHECK_EQ(symbolizer_process_seen(s, c.pid), 0);
		CHECK_STREQ(symbolizer_user_frame(s, c.pid, c.addr),
		    "sym_test_marker", "stripped: resolved by build-id");
		child_stop(&c);
	}
	symbolizer_free(s);
	unlink(bin);
}

static void
debuglink_alarm(int sig)
{
	(void)sig;
	printf("not ok - the symbolizer blocked on a debug link\n");
	_exit(1);
}

/*
 * A stripped binary whose .gnu_debuglink names a file beside it that its
 * owner replaced: by a FIFO (a plain open() blocked the agent forever),
 * by a symlink to a file elsewhere.  Refused with one warning; the real
 * file still works.
 */
static void
test_debuglink(void)
{
	struct symbolizer *s;
	struct child c;
	char dir[256], bin[300], dbg[300], away[300];
	char want[400];
	char *argv[] = { bin, "child", NULL };
	char *keep[] = { "objcopy", "--only-keep-debug",
	    self_exe, dbg, NULL };
	char *strip[] = { "strip", "--strip-all", bin, NULL };
	char addlink[320];
	char *link[] = { "objcopy", addlink, bin, NULL };
	int before, i;
	const char *name;
	static const char *const what[] = { "a FIFO", "a symlink",
	    "the real file" };

	snprintf(dir, sizeof(dir), "%s/dl", tmp);
	mkdir(dir, 0755);
	snprintf(bin, sizeof(bin), "%s/linked", dir);
	snprintf(dbg, sizeof(dbg), "%s/linked.debug", dir);
	snprintf(away, sizeof(away), "%s/elsewhere.debug", tmp);
	snprintf(addlink, sizeof(addlink), "--add-gnu-debuglink=%s", dbg);
	tsu_copy(self_exe, bin, -1);
	if (tsu_run(keep) != 0 || tsu_run(strip) != 0 || tsu_run(link) != 0) {
		CHECK(0, "objcopy and strip ran");
		return;
	}
	rename(dbg, away);
	signal(SIGALRM, debuglink_alarm);
	for (i = 0; i < 3; i++) {
		unlink(dbg);
		if (i == 0)
			mkfifo(dbg, 0644);
		else if (i == 1)
			symlink(away, dbg);
		else
			tsu_copy(away, dbg, -1);
		s = test_sym_new(test_log, NULL);
		symbolizer_set_debug_root(s, tmp);	/* nothing there */
		if (child_start(&c, argv) != 0) {
			CHECK(0, "start the debuglinked child");
			symbolizer_free(s);
			break;
		}
		before = nwarns;
		alarm(10);
		CHECK_EQ(symbolizer_process_seen(s, c.pid), 0);
		name = symbolizer_user_frame(s, c.pid, c.addr);
		alarm(0);
		snprintf(want, sizeof(want), "(%s)", bin);
		snprintf(addlink, sizeof(addlink), "debug link to %s: %s",
		    what[i], i < 2 ? "refused, the frame is the dso" :
		    "resolved");
		CHECK_STREQ(name, i < 2 ? want : "sym_test_marker", addlink);
		if (i < 2)
			CHECK(nwarns == before + 1, "with one warning");
		child_stop(&c);
		symbolizer_free(s);
	}
	signal(SIGALRM, SIG_DFL);
	unlink(dbg);
	unlink(bin);
	unlink(away);
}

/* Its own mount namespace, its binary on a tmpfs we cannot see. */
static void
test_mount_ns(struct symbolizer *s)
{
	struct child c;
	struct stat sb;
	char mnt[256], nsbin[300];
	char *argv[] = { "unshare", "-m", "sh", "-c",
	    "mount -t tmpfs none \"$1\" && cp \"$2\" \"$1/nsbin\" && "
	    "exec \"$1/nsbin\" child", "sh", mnt, self_exe, NULL };

	snprintf(mnt, sizeof(mnt), "%s/mnt", tmp);
	snprintf(nsbin, sizeof(nsbin), "%s/nsbin", mnt);
	mkdir(mnt, 0755);
	if (child_start(&c, argv) != 0) {
		printf("# unshare -m failed: no mount namespaces here\n");
		return;
	}
	CHECK(stat(nsbin, &sb) != 0, "binary invisible from our namespace");
	CHECK_EQ(symbolizer_process_seen(s, c.pid), 0);
	CHECK_STREQ(symbolizer_comm(s, c.pid), "nsbin", "comm");
	CHECK_STREQ(symbolizer_user_frame(s, c.pid, c.addr), "sym_test_marker",
	    "resolved through map_files in another mount namespace");
	child_stop(&c);
}

static const char cxx_src[] =
    "#include <cstdio>\n#include <unistd.h>\n"
    "namespace ns { struct Widget { static int spin(int x); }; }\n"
    "__attribute__((noinline)) int ns::Widget::spin(int x) "
    "{ return x * 2; }\n"
    "int main() { std::printf(\"%lx\\n\", (unsigned long)"
    "(&ns::Widget::spin) + 4); std::fflush(stdout); char c;\n"
    "while (read(0, &c, 1) > 0) {} return ns::Widget::spin(0); }\n";

static void
test_cxx(struct symbolizer *s)
{
	struct child c;
	char src[256], bin[256];
	char *cc[] = { "g++", "-O0", "-o", bin, src, NULL };
	char *argv[] = { bin, NULL };
	FILE *f;

	snprintf(src, sizeof(src), "%s/w.cc", tmp);
	snprintf(bin, sizeof(bin), "%s/cxx", tmp);
	if ((f = fopen(src, "w")) == NULL)
		return;
	fputs(cxx_src, f);
	fclose(f);
	if (tsu_run(cc) != 0) {
		printf("# g++ failed or missing: C++ check skipped\n");
		return;
	}
	if (child_start(&c, argv) != 0) {
		CHECK(0, "start C++ child");
		return;
	}
	CHECK_EQ(symbolizer_process_seen(s, c.pid), 0);
	CHECK_STREQ(symbolizer_user_frame(s, c.pid, c.addr),
	    "ns::Widget::spin", "C++ name demangled (as perf shows it)");
	child_stop(&c);
}

static void
write_map(const char *path, const char *text, time_t mtime)
{
	struct timespec ts[2];
	FILE *f = fopen(path, "a");

	fputs(text, f);
	fclose(f);
	if (mtime != 0) {
		ts[0].tv_sec = ts[1].tv_sec = mtime;
		ts[0].tv_nsec = ts[1].tv_nsec = 0;
		utimensat(AT_FDCWD, path, ts, 0);
	}
}

/* Our own "JIT": anonymous executable memory named by a perf map. */
static void
test_perfmap(void)
{
	struct symbolizer *s;
	struct symbolizer_stats st;
	char path[64], line[256];
	uint8_t *code;
	uint64_t base;

	code = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		CHECK(0, "mmap executable memory");
		return;
	}
	base = (uintptr_t)code;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	snprintf(line, sizeof(line), "%" PRIx64 " 40 LazyCompile:*hot "
	    "app.js:1\nnot a perf map line\n0x%" PRIx64 " 0x20 "
	    "long Hot.fib(int)\n", base, base + 0x100);

	/* A file older than the process is a previous owner's: ignored. */
	write_map(path, line, time(NULL) - 86400 * 30);
	s = test_sym_new(test_log, NULL);
	CHECK_EQ(symbolizer_process_seen(s, getpid()), 0);
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), base + 8), "[unknown]",
	    "stale perf map (PID reuse) not used");
	symbolizer_free(s);

	unlink(path);
	write_map(path, line, 0);
	s = test_sym_new(test_log, NULL);
	CHECK_EQ(symbolizer_process_seen(s, getpid()), 0);
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), base + 8),
	    "LazyCompile:*hot app.js:1_[j]", "JIT frame");
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), base + 0x110),
	    "long Hot.fib(int)_[j]", "0x form");
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), base + 0x80),
	    "[unknown]", "anonymous memory outside the map");
	symbolizer_stats(s, &st);
	CHECK_EQ(st.perfmap_bad_lines, 1);

	/* The file grows; re-read (after the once-a-second check). */
	snprintf(line, sizeof(line), "%" PRIx64 " 10 grown\n???\n",
	    base + 0x200);
	write_map(path, line, 0);
	sleep(1);
	usleep(100000);
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), base + 0x204),
	    "grown_[j]", "appended entry read");
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), base + 8),
	    "LazyCompile:*hot app.js:1_[j]", "old entry kept");
	symbolizer_stats(s, &st);
	CHECK_EQ(st.perfmap_bad_lines, 2);

	/* Over the byte budget, a map no sample looked at this cycle or the
	 * last is freed, and read again from the start at the next look. */
	symbolizer_set_table_budget(s, 1);
	symbolizer_cycle_end(s);
	symbolizer_stats(s, &st);
	CHECK(st.perfmap_bytes > 0, "budget: a perf map used last cycle kept");
	symbolizer_cycle_end(s);
	symbolizer_stats(s, &st);
	CHECK(st.perfmap_bytes == 0 && st.table_evictions > 0,
	    "budget: an idle perf map freed");
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), base + 0x204),
	    "grown_[j]", "budget: the perf map read again");
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), base + 8),
	    "LazyCompile:*hot app.js:1_[j]", "budget: from its start");
	symbolizer_free(s);
	unlink(path);
	munmap(code, 8192);
}

/* Rewrite the perf map at path with one line naming base. */
static void
rewrite_map(const char *path, uint64_t base, const char *name)
{
	char line[256];

	unlink(path);
	snprintf(line, sizeof(line), "%" PRIx64 " 40 %s\n", base, name);
	write_map(path, line, 0);
}

/*
 * A perf map rewritten again and again (each time read from the start):
 * the superseded reads' names are freed at once unless a name of theirs
 * was returned this cycle, then kept until the cycle ends.
 */
static void
test_perfmap_reread(void)
{
	struct symbolizer *s;
	struct symbolizer_stats st;
	const char *name;
	char path[64];
	uint8_t *code;
	uint64_t base;

	code = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		CHECK(0, "mmap executable memory");
		return;
	}
	base = (uintptr_t)code;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	rewrite_map(path, base, "first");
	s = test_sym_new(test_log, NULL);
	CHECK_EQ(symbolizer_process_seen(s, getpid()), 0);
	/* Read, but no name of it returned. */
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), base + 0x80),
	    "[unknown]", "outside the map");
	rewrite_map(path, base, "second");
	usleep(1100000);
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), base + 0x80),
	    "[unknown]", "outside the rewritten map");
	symbolizer_stats(s, &st);
	CHECK_EQ(st.perfmap_retired_bytes, 0);
	/* A name returned: its read is kept until the cycle ends. */
	name = symbolizer_user_frame(s, getpid(), base + 8);
	CHECK_STREQ(name, "second_[j]", "the rewritten map's name");
	rewrite_map(path, base, "third");
	usleep(1100000);
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), base + 8),
	    "third_[j]", "the map rewritten again");
	symbolizer_stats(s, &st);
	CHECK(st.perfmap_retired_bytes > 0, "lent names kept");
	CHECK_STREQ(name, "second_[j]", "a returned name stays valid");
	symbolizer_cycle_end(s);
	symbolizer_stats(s, &st);
	CHECK_EQ(st.perfmap_retired_bytes, 0);
	symbolizer_free(s);
	unlink(path);
	munmap(code, 8192);
}

/* Our own process, symbolized once and past its young re-reads, a
 * second after its maps were read (re-reads are once a second); NULL
 * (said) if it is not known. */
static struct sym_proc *
test_own_settled(struct symbolizer *s)
{
	struct sym_proc *p;

	(void)symbolizer_user_frame(s, getpid(), (uintptr_t)test_own_settled);
	p = sym_proc_find(s, getpid(), sym_gen_now(s, getpid()));
	if (p == NULL || p->snap == NULL) {
		CHECK(0, "our own image");
		return (NULL);
	}
	p->rereads = SYM_YOUNG_REREADS;	/* not young: once a second */
	usleep(1100000);
	return (p);
}

/*
 * Addresses no mapping holds (a frame-pointer walk through code built
 * without them makes some up at every sample): the maps are read again
 * once a second, the snapshot kept while they are unchanged, each such
 * read twice as late as the last; a new mapping starts over.
 */
static void
test_reread_backoff(void)
{
	struct symbolizer *s = test_sym_new(test_log, NULL);
	struct sym_proc *p;
	struct sym_snap *snap;
	const uint64_t nowhere = 0x10000;	/* below any mapping */
	char path[256];
	void *m;
	int fd;

	if ((p = test_own_settled(s)) == NULL) {
		symbolizer_free(s);
		return;
	}
	snap = p->snap;
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), nowhere), "[unknown]",
	    "an address nothing maps");
	CHECK(p->snap == snap && p->stable == 1, "re-read, unchanged: the "
	    "snapshot kept, the next read later");
	usleep(1100000);
	(void)symbolizer_user_frame(s, getpid(), nowhere);
	CHECK(p->stable == 1, "not again after one second");
	/* a library mapped now: found at the next read, which starts over */
	snprintf(path, sizeof(path), "%s/libbackoff.so", tmp);
	tsu_copy(self_exe, path, -1);
	fd = open(path, O_RDONLY);
	m = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	CHECK(m != MAP_FAILED, "map a library");
	usleep(1200000);
	CHECK(symbolizer_user_frame(s, getpid(), (uintptr_t)m + 0x100) !=
	    NULL && p->snap != snap && p->stable == 0, "after two seconds: "
	    "a new mapping, a new snapshot");
	if (m != MAP_FAILED)
		munmap(m, 8192);
	symbolizer_free(s);
}

static int test_quiet_answer;
static uint64_t test_quiet_since;

static int
test_no_record(void *arg, int32_t pid, uint32_t gen, uint64_t addr,
    struct procmaps_entry *e, const char **path, int32_t *parent)
{
	(void)arg;
	(void)pid;
	(void)gen;
	(void)addr;
	(void)e;
	(void)path;
	*parent = 0;
	return (-ENOENT);
}

static int
test_quiet(void *arg, int32_t pid, uint32_t gen, uint64_t since_ns)
{
	(void)arg;
	(void)pid;
	(void)gen;
	test_quiet_since = since_ns;
	return (test_quiet_answer);
}

/*
 * An address no mapping holds, in an image the kernel's records prove
 * mapped no code since its maps were read: no code at all, and the maps
 * are not read again for it (each read of a large process's maps is
 * thousands of lines of kernel work); while the records cannot tell, they
 * are, at the usual pace.
 */
static void
test_reread_quiet(void)
{
	struct symbolizer *s = test_sym_new(test_log, NULL);
	struct symbolizer_stats st;
	struct sym_proc *p;
	const uint64_t nowhere = 0x10000;	/* below any mapping */

	symbolizer_set_map_log(s, test_no_record, test_quiet, NULL);
	if ((p = test_own_settled(s)) == NULL) {
		symbolizer_free(s);
		return;
	}
	test_quiet_answer = 1;
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), nowhere), "[unknown]",
	    "quiet: an address nothing maps");
	symbolizer_stats(s, &st);
	CHECK(st.maps_rereads == 0 && test_quiet_since == p->snap->read_ns &&
	    test_quiet_since != 0, "quiet since the maps were read: not read "
	    "again");
	test_quiet_answer = 0;
	(void)symbolizer_user_frame(s, getpid(), nowhere);
	symbolizer_stats(s, &st);
	CHECK(st.maps_rereads == 1, "the records cannot tell: read again");
	symbolizer_free(s);
}

static int test_defer_left;	/* maps reads still to be deferred */
static int test_defer_calls;

/* The host's maps_read, its budget spent for test_defer_left reads. */
static int
test_defer_maps(void *arg, int32_t pid, size_t max, char **text,
    size_t *len)
{
	(void)arg;
	test_defer_calls++;
	if (test_defer_left > 0) {
		test_defer_left--;
		return (-EAGAIN);
	}
	return (mapsread(pid, max, text, len));
}

/*
 * The maps budget spent (a user's processes with huge maps): the image is
 * known, not taken for gone; a sample's frames wait (the kernel's records
 * meanwhile) and the read is asked again at the re-read pace, not at every
 * sample; once the budget allows, they resolve.
 */
static void
test_maps_deferred(void)
{
	struct symbolizer *s = test_sym_new(test_log, NULL);
	struct sym_proc *p;
	const char *name;
	int i, calls;

	symbolizer_set_map_log(s, test_no_record, test_quiet, NULL);
	symbolizer_set_maps_reader(s, test_defer_maps, NULL);
	test_quiet_answer = 0;
	test_defer_left = 1000;
	CHECK(symbolizer_process_seen(s, getpid()) == 0, "maps deferred: "
	    "the process is known");
	p = sym_proc_find(s, getpid(), sym_gen_now(s, getpid()));
	CHECK(p != NULL && !p->gone && p->snap == NULL, "not gone, no "
	    "snapshot yet");
	calls = test_defer_calls;
	for (i = 0; i < 1000; i++)
		name = symbolizer_user_frame(s, getpid(),
		    (uintptr_t)test_maps_deferred);
	CHECK_STREQ(name, "[unknown]", "its frames wait");
	CHECK(test_defer_calls - calls <= 2, "asked again at the re-read "
	    "pace, not at each of 1000 samples");
	test_defer_left = 0;
	usleep(20000);	/* past a young image's 5 ms */
	name = symbolizer_user_frame(s, getpid(),
	    (uintptr_t)test_maps_deferred);
	CHECK_STREQ(name, "test_maps_deferred", "the budget back: resolved");
	symbolizer_free(s);
}

/* A truncated ELF mapped executable: "(dso)", not a crash. */
static void
test_truncated(struct symbolizer *s)
{
	char path[256], want[300], libc[4096] = "";
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096 + 128], p[4096];
	void *m;
	int fd;

	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%*s %*s %*s %*s %*s %4095s", p) == 1 &&
		    strstr(p, "/libc.so") != NULL)
			snprintf(libc, sizeof(libc), "%s", p);
	fclose(f);
	snprintf(path, sizeof(path), "%s/libtrunc.so", tmp);
	tsu_copy(libc, path, 200000);
	fd = open(path, O_RDONLY);
	m = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		CHECK(0, "map truncated libc");
		return;
	}
	snprintf(want, sizeof(want), "(%s)", path);
	/* A miss re-reads our maps, at most once a second. */
	usleep(1100000);
	CHECK_STREQ(symbolizer_user_frame(s, getpid(), (uintptr_t)m + 0x100),
	    want, "truncated ELF degrades to the dso");
	munmap(m, 8192);
}

static void
test_kernel(struct symbolizer *s)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type, want[300];
	unsigned long long addr, found = 0;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    strcmp(name, "do_syscall_64") == 0 && addr != 0)
			found = addr;
	if (f != NULL)
		fclose(f);
	if (found == 0) {
		printf("# no do_syscall_64 address in /proc/kallsyms\n");
		return;
	}
	snprintf(want, sizeof(want), "do_syscall_64_[k]");
	CHECK_STREQ(symbolizer_kernel_frame(s, found), want, "kernel symbol");
	CHECK_STREQ(symbolizer_kernel_frame(s, found + 3), want, "inside");
	CHECK_STREQ(symbolizer_kernel_frame(s, 0x1000), "[unknown]",
	    "not a kernel address");
}

/* libiberty: C++, Rust legacy and v0; plain C names untouched. */
static void
test_demangle(void)
{
	struct symbolizer *s = test_sym_new(NULL, NULL);

	CHECK_STREQ(sym_demangle(s, "_ZN2ns6Widget4spinEi"),
	    "ns::Widget::spin", "C++ as perf shows it: no parameters");
	/* As `perf script` prints them on this machine (perf 6.1). */
	CHECK_STREQ(sym_demangle(s,
	    "_ZN6gpworkL9isra_leafERKNS_3BigEm.constprop.0.isra.0"),
	    "gpwork::isra_leaf", "clone suffixes merge into the function");
	CHECK_STREQ(sym_demangle(s, "_ZN3foo3barEv.cold"), "foo::bar",
	    ".cold part merges into its function");
	CHECK_STREQ(sym_demangle(s, "_Z3fooIiEvT_"), "foo<int>",
	    "template: no return type");
	CHECK_STREQ(sym_demangle(s,
	    "_ZNK6gpwork6MatrixIlE3sumERKSt6vectorIlSaIlEEi"),
	    "gpwork::Matrix<long>::sum", "const member of a class template");
	CHECK_STREQ(sym_demangle(s, "_ZZ4mainENKUlvE_clEv"),
	    "main::{lambda()#1}::operator()", "lambda");
	CHECK_STREQ(sym_demangle(s, "_ZN3foo3bar17h05af221e174051e9E"),
	    "foo::bar", "Rust legacy (hash dropped)");
	CHECK_STREQ(sym_demangle(s, "_RNvNtCs1234_7mycrate3foo3bar"),
	    "mycrate::foo::bar", "Rust v0");
	CHECK_STREQ(sym_demangle(s, "_Zgarbage"), "_Zgarbage", "not mangled");
	CHECK_STREQ(sym_demangle(s, "main"), "main", "C");
	symbolizer_free(s);
}

static void
test_bad_kallsyms(void)
{
	struct symbolizer *s = test_sym_new(test_log, NULL);
	char path[256];
	int before = nlogs;

	snprintf(path, sizeof(path), "%s/no-such-kallsyms", tmp);
	symbolizer_set_kallsyms_path(s, path);
	CHECK_STREQ(symbolizer_kernel_frame(s, 0xffffffff81000000ull),
	    "[unknown]", "no kallsyms: [unknown]");
	CHECK_STREQ(symbolizer_kernel_frame(s, 0xffffffff81000000ull),
	    "[unknown]", "again");
	CHECK_EQ(nlogs - before, 1);
	symbolizer_free(s);
}

int
main(int argc, char **argv)
{
	struct symbolizer *s;
	ssize_t n;

	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return (child_main());
	if (geteuid() != 0)
		SKIP_ALL("needs root (map_files, mount namespaces)");
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0 || (tmp = tsu_tmpdir()) == NULL)
		SKIP_ALL("no /proc/self/exe or temporary directory");
	self_exe[n] = '\0';
	s = test_sym_new(test_log, NULL);
	test_self(s);
	test_deleted(s);
	test_mount_ns(s);
	test_cxx(s);
	test_truncated(s);
	test_kernel(s);
	symbolizer_cycle_end(s);
	symbolizer_free(s);
	test_generations();
	test_reread_backoff();
	test_reread_quiet();
	test_maps_deferred();
	test_fork_exec();
	test_stripped();
	test_debuglink();
	test_perfmap();
	test_perfmap_reread();
	test_bad_kallsyms();
	test_budget();
	test_demangle();
	tsu_rmtree(tmp);
	return (testing_done());
}
