/*
 * Unit tests of core/base/mapsread.c: the bucket's arithmetic and the
 * status parser on fixed input, then the budget against the real kernel:
 * a child running as nobody with 20,000 mappings (maps of ~1 MB) read
 * until its user's budget defers it, while root's processes and another
 * user's are still read and procstr's questions by address (Linux 6.11)
 * need no budget at all.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/mapsread.h"
#include "base/procstr.h"
#include "testing.h"

#define NOBODY		65534
#define OTHER		65533	/* a second user, without a name */
#define CHILD_MAPS	20000
#define SEC		1000000000ull

static void
test_bucket(void)
{
	struct mapsread_bucket b = { 0, 0, 16u << 20, 512u << 10 };
	uint64_t t = 5 * SEC, i;

	CHECK(mapsread_bucket_may(&b, t) == 0, "a new bucket is full");
	CHECK(b.tokens == b.burst, "(the whole burst)");
	mapsread_bucket_spend(&b, b.burst - 1);
	CHECK(mapsread_bucket_may(&b, t) == 0, "one byte left: a read may "
	    "start");
	mapsread_bucket_spend(&b, 3u << 20);	/* that read was long */
	CHECK(mapsread_bucket_may(&b, t) == -EAGAIN, "in debt: deferred");
	/* 3 MiB - 1 owed: repaid in (3 MiB - 1) / rate seconds */
	i = ((3ull << 20) - 1) * SEC / b.rate;
	CHECK(mapsread_bucket_may(&b, t + i - SEC) == -EAGAIN, "a second "
	    "before the debt is repaid: still deferred");
	CHECK(mapsread_bucket_may(&b, t + i + SEC / 10) == 0,
	    "the debt repaid at the rate: allowed again");
	/* Calls a microsecond apart must refill as one call would. */
	b.tokens = 0;
	b.t_ns = t = 100 * SEC;
	for (i = 1; i <= 1000000; i++)
		(void)mapsread_bucket_may(&b, t + i * 1000);
	CHECK(b.tokens >= b.rate / 1000 * 999 &&
	    b.tokens <= (int64_t)b.rate,
	    "a million calls over a second refill the rate, none lost");
	mapsread_bucket_spend(&b, UINT64_MAX);
	CHECK(b.tokens < 0, "a huge charge does not wrap");
	CHECK(mapsread_bucket_may(&b, t + 3600 * SEC) == 0 &&
	    b.tokens == b.burst, "an hour idle: full, not more");
	CHECK(mapsread_bucket_may(&b, t) == 0, "a clock going back is "
	    "not a refill");
}

static void
test_users(void)
{
	static struct mapsread_users t;
	struct mapsread_bucket *a, *b, *rest;
	uint64_t now = 7 * SEC;
	uint32_t u;

	a = mapsread_user(&t, 1000, now);
	CHECK(a->tokens == MAPSREAD_USER_BURST && a->rate ==
	    MAPSREAD_USER_RATE, "a new user: a full bucket of a user's size");
	mapsread_bucket_spend(a, MAPSREAD_USER_BURST + 1);
	b = mapsread_user(&t, 1001, now);
	CHECK(b != a && b->tokens == MAPSREAD_USER_BURST, "another user: "
	    "its own, full, while the first is in debt");
	CHECK(mapsread_user(&t, 1000, now) == a && a->tokens < 0,
	    "the first user finds its debt again");
	for (u = 2000; u < 2000 + MAPSREAD_USERS; u++)
		mapsread_bucket_spend(mapsread_user(&t, u, now), 1);
	rest = mapsread_user(&t, 5000, now);
	CHECK(rest == &t.b[MAPSREAD_USERS], "every place in debt: a new "
	    "user has the rest's bucket");
	CHECK(mapsread_user(&t, 5001, now) == rest, "shared by the rest");
	CHECK(mapsread_user(&t, 1000, now) == a && a->tokens < 0,
	    "a user in debt keeps its place");
	now += 60 * SEC;	/* 32 places refilled; user 1000's too */
	b = mapsread_user(&t, 5000, now);
	CHECK(b != rest && b->tokens == MAPSREAD_USER_BURST, "once a "
	    "user's bucket is full again, a new one takes its place");
}

static void
test_status(void)
{
	static const char root[] = "Name:\tsshd\nUmask:\t0022\nState:\tS\n"
	    "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n";
	static const char user[] = "Name:\tpython3\nUid:\t65534\t65534\t"
	    "65534\t65534\n";
	static const char suid[] = "Uid:\t1000\t0\t0\t0\n";
	static const char saved[] = "Uid:\t0\t0\t1000\t0\n";
	static const char noline[] = "Name:\tx\nGid:\t0\t0\t0\t0\n";
	static const char cut[] = "Uid:\t0\t0";
	static const char huge[] = "Uid:\t99999999999999999999999\t0\t0\t0\n";

	uint32_t uid;

	CHECK(mapsread_status_root(root, sizeof(root) - 1, &uid) == 1 &&
	    uid == 0, "root");
	CHECK(mapsread_status_root(user, sizeof(user) - 1, &uid) == 0 &&
	    uid == 65534, "nobody, its uid");
	CHECK(mapsread_status_root(suid, sizeof(suid) - 1, &uid) == 0 &&
	    uid == 1000, "a setuid program a user ran is the user's");
	CHECK(mapsread_status_root(saved, sizeof(saved) - 1, &uid) == 0,
	    "a saved uid not root: not root's");
	CHECK(mapsread_status_root(noline, sizeof(noline) - 1, &uid) ==
	    -EINVAL, "no Uid line");
	CHECK(mapsread_status_root(cut, sizeof(cut) - 1, &uid) == -EINVAL,
	    "a line cut short");
	CHECK(mapsread_status_root(huge, sizeof(huge) - 1, &uid) == 0 &&
	    uid == UINT32_MAX, "a number past 64 bits is not 0");
	CHECK(mapsread_status_root("", 0, &uid) == -EINVAL, "empty");
}

/* The child: nobody, CHILD_MAPS mappings that do not merge, a page of a
 * file; sends that page's address and one of its stack's, then waits. */
static pid_t
spawn_child(uid_t uid, uint64_t addrs[2])
{
	int fds[2], fd;
	uint64_t a[2];
	char *p;
	pid_t pid;
	int i;

	if (pipe(fds) != 0)
		return (-1);
	if ((pid = fork()) == 0) {
		close(fds[0]);
		if (setresgid(uid, uid, uid) != 0 ||
		    setresuid(uid, uid, uid) != 0)
			_exit(1);
		for (i = 0; i < CHILD_MAPS; i++)
			if (mmap(NULL, 4096, i % 2 ? PROT_READ : PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
				_exit(1);
		if ((fd = open("/etc/passwd", O_RDONLY)) < 0 ||
		    (p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0)) ==
		    MAP_FAILED)
			_exit(1);
		a[0] = (uint64_t)(uintptr_t)p;
		a[1] = (uint64_t)(uintptr_t)&fd;
		if (write(fds[1], a, sizeof(a)) != sizeof(a))
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], addrs, 2 * sizeof(*addrs)) !=
	    (ssize_t)(2 * sizeof(*addrs))) {
		close(fds[0]);
		return (-1);
	}
	close(fds[0]);
	return (pid);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + ts.tv_nsec / 1e9);
}

static void
test_live(void)
{
	struct mapsread_stats st0, st;
	uint64_t addrs[2], addrs2[2];
	size_t len, first, n;
	pid_t other;
	char *text;
	double t0;
	pid_t pid;
	int rc, reads;

	if (getuid() != 0) {
		CHECK(1, "# SKIP not root: no nobody child");
		return;
	}
	pid = spawn_child(NOBODY, addrs);
	CHECK(pid > 0, "a child of nobody with 20,000 mappings");
	if (pid <= 0)
		return;
	mapsread_stats(&st0);
	rc = mapsread(pid, 64u << 20, &text, &first);
	CHECK(rc == 0 && first > CHILD_MAPS * 45 && text[first] == '\0' &&
	    text[first - 1] == '\n', "its maps read whole");
	free(text);
	mapsread_stats(&st);
	CHECK(st.bytes - st0.bytes == first, "and charged what was read");
	rc = mapsread(pid, 1000, &text, &len);
	CHECK(rc == 1 && len <= 1000 && len > 0 && text[len - 1] == '\n' &&
	    strlen(text) == len, "cut at max, after a whole line");
	free(text);
	mapsread_stats(&st0);
	CHECK(st0.bytes - st.bytes > 1000 && st0.bytes - st.bytes <= 1001,
	    "charged what the kernel wrote (one byte past max)");

	/* procstr both ways, before the budget is spent */
	CHECK(procstr_range_anon(pid, addrs[1], 8) == 0, "by address: its "
	    "stack is anonymous");
	CHECK(procstr_range_anon(pid, addrs[0], 8) == -EREMOTE, "by "
	    "address: the file page is not");
	procstr_set_query(0);
	CHECK(procstr_range_anon(pid, addrs[1], 8) == 0, "by text: its "
	    "stack is anonymous");
	CHECK(procstr_range_anon(pid, addrs[0], 8) == -EREMOTE, "by text: "
	    "the file page is not");
	procstr_set_query(1);

	/* Spend the budget. */
	for (reads = 0; reads < 100; reads++) {
		if ((rc = mapsread(pid, 64u << 20, &text, &len)) != 0)
			break;
		free(text);
	}
	CHECK(rc == -EAGAIN, "read after read, the budget defers one");
	n = MAPSREAD_USER_BURST / first;
	CHECK((size_t)reads + 3 >= n && (size_t)reads <= n + 1,
	    "after about a burst's worth");
	mapsread_stats(&st);
	CHECK(st.deferred > st0.deferred, "counted as deferred");
	CHECK(mapsread(getpid(), 64u << 20, &text, &len) == 0 && len > 0,
	    "root's process is still read");
	free(text);
	other = spawn_child(OTHER, addrs2);
	CHECK(other > 0 && mapsread(other, 64u << 20, &text, &len) == 0 &&
	    len > CHILD_MAPS * 45, "another user's process is still read "
	    "whole: it has its own budget");
	free(text);
	if (other > 0) {
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
	}
	procstr_set_query(0);
	CHECK(procstr_range_anon(pid, addrs[1], 8) == -EAGAIN, "by text: "
	    "deferred too");
	procstr_set_query(1);
	CHECK(procstr_range_anon(pid, addrs[1], 8) == 0, "by address: "
	    "answered, at no cost to the budget");

	/* It refills at the rate: within the debt's time plus a second. */
	t0 = now_s();
	while ((rc = mapsread(pid, 4096, &text, &len)) == -EAGAIN &&
	    now_s() - t0 < 12)
		usleep(100000);
	free(text);
	CHECK(rc == 1 && now_s() - t0 <= 1.0 + (double)first /
	    MAPSREAD_USER_RATE + 0.5, "read again once the rate repaid the "
	    "debt");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(mapsread(pid, 4096, &text, &len) == -ESRCH && text == NULL,
	    "a gone process: -ESRCH");
}

int
main(void)
{
	test_bucket();
	test_users();
	test_status();
	test_live();
	return (testing_done());
}
