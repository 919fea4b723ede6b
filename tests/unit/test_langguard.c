/*
 * Unit tests for plugins/lang/common/langguard.c: the /proc/PID/mountinfo
 * and /proc/PID/maps parsers and the verdicts they give, then the guard
 * over a live child of ours (its own maps and mounts): what it allows, and
 * the cost of a refresh over a process with 100k mappings.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "testing.h"
#include "langguard.h"

/* The guard's clock (CLOCK_MONOTONIC, ns). */
static uint64_t
langguard_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
}

static int
open_plain(void *arg, const struct gp_open_spec *spec, struct gp_file_info *fi)
{
	int fd;

	(void)arg;
	(void)fi;
	fd = open(spec->path, O_RDONLY | O_CLOEXEC);
	return (fd < 0 ? -errno : fd);
}

static const char mountinfo[] =
    "22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
    "23 22 0:21 / /proc rw,nosuid - proc proc rw\n"
    "40 22 0:45 / /mnt/fuse rw,nosuid,nodev shared:7 master:3 - "
	"fuse.sshfs user@host:/ rw,user_id=0\n"
    "41 22 0:46 / /mnt/nfs rw - nfs4 srv:/x rw\n"
    "42 22 0:47 / /tmp rw - tmpfs tmpfs rw\n"
    "43 22 0:48 / /mnt/with\\040space rw - overlay overlay rw\n"
    "44 22 0:49 / /mnt/fake rw - fuse.ext4 x rw\n"
    "garbage line\n"
    "45 22 0:50 / /x rw no separator here\n";

#define MAPS_SHM	((uint32_t)(0u << 20 | 1))

static const char maps[] =
    "55d0c000-55d0d000 r--p 00000000 fe:01 100 /usr/bin/ruby\n"
    "55d0d000-55d0e000 r-xp 00001000 fe:01 100 /usr/bin/ruby\n"
    "55d0e000-55d2f000 rw-p 00000000 00:00 0 [heap]\n"
    "7f000000-7f001000 r--p 00000000 00:2d 7 /mnt/fuse/f\n"
    "7f001000-7f002000 r--p 00000000 00:2e 8 /mnt/nfs/f\n"
    "7f002000-7f003000 rw-s 00000000 00:01 9 /memfd:x (deleted)\n"
    "7f003000-7f004000 r--p 00000000 00:2f 10 /tmp/x\n"
    "7f004000-7f005000 r--p 00000000 00:63 11 /elsewhere\n"
    "7f006000-7f007000 r--p 00000000 00:31 12 /mnt/fake/f\n"
    "7ffd0000-7ffd2000 rw-p 00000000 00:00 0 [stack]\n";

static int
verdict(const struct langguard_range *r, uint32_t n, uint64_t a, uint64_t l)
{
	const struct langguard_range *b;

	return (langguard_lookup(r, n, a, l, &b));
}

static void
test_parsers(void)
{
	struct langguard_mount m[16];
	struct langguard_range r[16];
	uint64_t s, e, ino;
	uint32_t nm, n, dev;
	int more;

	nm = langguard_parse_mountinfo(mountinfo, sizeof(mountinfo) - 1, m, 16);
	CHECK_INTEQ(nm, 7, "mountinfo: 7 mounts, malformed lines skipped");
	CHECK(m[0].dev == (254u << 20 | 1) && m[0].local &&
	    strcmp(m[0].fstype, "ext4") == 0, "ext4 on 254:1, local");
	CHECK(m[1].dev == 21 && m[1].local, "proc: the kernel answers, local");
	CHECK(m[2].dev == 45 && !m[2].local &&
	    strcmp(m[2].fstype, "fuse.sshfs") == 0, "fuse.sshfs after "
	    "optional fields: refused");
	CHECK(m[3].dev == 46 && !m[3].local, "nfs4: refused");
	CHECK(m[4].local && m[5].local, "tmpfs and overlay (an escaped "
	    "mount point) are local");
	CHECK(!m[6].local, "fuse whose subtype names a local filesystem: "
	    "refused");
	CHECK_INTEQ(langguard_parse_mountinfo(mountinfo, sizeof(mountinfo) - 1,
	    NULL, 0), 7, "counting without storing");
	CHECK_INTEQ(langguard_parse_mountinfo(mountinfo, sizeof(mountinfo) - 1,
	    m, 2), 2, "at most max");

	CHECK(langguard_parse_map_line("7f00a000-7f00b000 r-xp 00002000 "
	    "fd:01 1234567   /usr/lib/x", 54, &s, &e, &dev, &ino) == 0 &&
	    s == 0x7f00a000 && e == 0x7f00b000 && dev == (0xfdu << 20 | 1) &&
	    ino == 1234567, "a maps line: range, hexadecimal device, inode");
	CHECK_INTEQ(langguard_parse_map_line("7f00b000-7f00a000 r-xp 0 0:0 1",
	    30, &s, &e, &dev, &ino), -EINVAL, "end before start");
	CHECK_INTEQ(langguard_parse_map_line("7f00a000-7f00b000 r-xp 0 0", 26,
	    &s, &e, &dev, &ino), -EINVAL, "no device");
	CHECK_INTEQ(langguard_parse_map_line("fffffffffffffffff-1 r 0 0:0 0",
	    30, &s, &e, &dev, &ino), -EINVAL, "a number over 64 bits");
	CHECK_INTEQ(langguard_parse_map_line("1000-2000 r 0 1000:0 0", 22, &s,
	    &e, &dev, &ino), -EINVAL, "a major over 12 bits");

	/* The test's devices: 0:2d is fuse, 0:2e nfs, 0:2f tmpfs. */
	m[2].dev = 0x2d;
	m[3].dev = 0x2e;
	m[4].dev = 0x2f;
	m[6].dev = 0x31;
	m[0].dev = 0xfeu << 20 | 1;
	n = langguard_parse_maps(maps, sizeof(maps) - 1, m, nm, MAPS_SHM, r,
	    16, &more);
	CHECK(n > 0 && !more, "maps parsed, all kept");
	CHECK(r[0].start == 0x55d0c000 && r[0].end == 0x55d2f000 &&
	    r[0].verdict == LANGGUARD_OK, "the executable and the heap "
	    "after it: one allowed range");
	CHECK_INTEQ(verdict(r, n, 0x55d0e000, 8), 0, "the heap: allowed");
	CHECK_INTEQ(verdict(r, n, 0x55d0dff8, 16), 0, "a read across two "
	    "allowed mappings");
	CHECK_INTEQ(verdict(r, n, 0x7f000010, 8), -EREMOTE, "a FUSE file: "
	    "refused");
	CHECK_INTEQ(verdict(r, n, 0x7f001000, 4096), -EREMOTE, "an NFS file: "
	    "refused");
	CHECK_INTEQ(verdict(r, n, 0x7f002000, 4096), 0, "a memfd (shared "
	    "memory): allowed");
	CHECK_INTEQ(verdict(r, n, 0x7f003000, 4096), 0, "tmpfs: allowed");
	CHECK_INTEQ(verdict(r, n, 0x7f002ff8, 16), 0, "shm then tmpfs");
	CHECK_INTEQ(verdict(r, n, 0x7f003ff8, 16), -EREMOTE, "a read running "
	    "from an allowed mapping into a refused one");
	CHECK_INTEQ(verdict(r, n, 0x7f004000, 8), -EREMOTE, "a device not "
	    "in the mount table: refused");
	CHECK_INTEQ(verdict(r, n, 0x7f006000, 8), -EREMOTE, "fuse.ext4: "
	    "refused");
	CHECK_INTEQ(verdict(r, n, 0x7f005000, 8), -ENOENT, "a hole: unknown");
	CHECK_INTEQ(verdict(r, n, 0x7f003ff8, 0x1010), -EREMOTE, "over a "
	    "refused mapping into a hole: refused");
	CHECK_INTEQ(verdict(r, n, 0x1000, 8), -ENOENT, "below everything");
	CHECK_INTEQ(verdict(r, n, 0x7ffd1ff8, 16), -ENOENT, "past the end");
	CHECK_INTEQ(verdict(r, n, 0x7ffd1ff8, 8), 0, "the stack's last word");
	CHECK_INTEQ(verdict(r, n, UINT64_MAX - 4, 8), -ENOENT, "a range that "
	    "wraps");
	CHECK_INTEQ(verdict(r, 0, 0x1000, 8), -ENOENT, "no ranges");
	n = langguard_parse_maps(maps, sizeof(maps) - 1, m, nm, MAPS_SHM, r, 2,
	    &more);
	CHECK(n == 2 && more, "at most max ranges, and says there were more");
	n = langguard_parse_maps(maps, sizeof(maps) - 1, m, nm, 0, r, 16,
	    &more);
	CHECK_INTEQ(verdict(r, n, 0x7f002000, 8), -EREMOTE, "without the "
	    "shared memory device, a memfd is a device of no mount");
	{
		static const char unsorted[] =
		    "2000-3000 rw-p 0 00:00 0\n"
		    "1000-4000 r--p 0 00:2d 7 /mnt/fuse/f\n";

		n = langguard_parse_maps(unsorted, sizeof(unsorted) - 1, m, nm,
		    0, r, 16, &more);
		CHECK_INTEQ(verdict(r, n, 0x1000, 8), -ENOENT, "a line out of "
		    "order is ignored, not merged");
	}
	CHECK(langguard_fs_local("ext4", 4) && !langguard_fs_local("ext", 3) &&
	    !langguard_fs_local("fuse", 4) && !langguard_fs_local("9p", 2) &&
	    !langguard_fs_local("cifs", 4) && !langguard_fs_local("ceph", 4) &&
	    !langguard_fs_local("virtiofs", 8),
	    "local filesystems by exact name; FUSE, 9p, CIFS, Ceph, virtiofs "
	    "are not");
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

/* A child with n one-page mappings that cannot merge: its PID. */
static pid_t
spawn_mapper(uint32_t n, int fd)
{
	char c = 0;
	uint8_t *p;
	uint32_t i;
	pid_t pid;
	int pfd[2];

	if (pipe(pfd) != 0)
		return (-1);
	if ((pid = fork()) != 0) {
		close(pfd[1]);
		if (pid > 0 && read(pfd[0], &c, 1) != 1)
			pid = -1;
		close(pfd[0]);
		return (pid);
	}
	close(pfd[0]);
	p = mmap(NULL, (size_t)n * 2 * 4096, PROT_NONE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		_exit(1);
	/* Every other page: anonymous, then a file; they never merge. */
	for (i = 0; i < n; i++)
		if (mmap(p + (size_t)i * 2 * 4096, 4096, PROT_READ, MAP_PRIVATE |
		    MAP_FIXED | (i % 2 ? 0 : MAP_ANONYMOUS), i % 2 ? fd : -1,
		    0) == MAP_FAILED)
			break;
	if (write(pfd[1], &c, 1) != 1)
		_exit(1);
	pause();
	_exit(0);
}

static void
test_live(void)
{
	struct langguard g;
	static int onstack;
	uint8_t *heap;
	volatile char *fresh;
	double t0, t;
	pid_t pid;
	int fd, rc, status;

	langguard_set_opener(open_plain, NULL);
	heap = malloc(64);
	CHECK_INTEQ(langguard_init(&g, getpid(), NULL, 0), 0, "our own guard");
	CHECK(g.n > 0, "ranges from our maps");
	CHECK_INTEQ(langguard_check(&g, (uint64_t)(uintptr_t)heap, 64), 0,
	    "the heap may be read");
	CHECK_INTEQ(langguard_check(&g, (uint64_t)(uintptr_t)&onstack, 4), 0,
	    "our .bss (a file's private mapping on a local disk) may be read");
	CHECK_INTEQ(langguard_check(&g, 4096, 8), -EFAULT, "page 1 is not "
	    "mapped");
	CHECK_INTEQ(g.nrefresh, 1, "a miss just after a refresh does not "
	    "read the maps again");
	g.refreshed = 0;	/* as if long ago */
	CHECK_INTEQ(langguard_check(&g, 4096, 8), -EFAULT, "again unmapped");
	CHECK_INTEQ(g.nrefresh, 2, "a miss a while after does");
	CHECK_INTEQ(langguard_check(&g, 4096, 8), -EFAULT, "again unmapped");
	CHECK_INTEQ(g.nrefresh, 2, "but only once in 100 ms");

	/*
	 * A page mapped since, never touched: not resident, so judged by
	 * maps read just then; once the maps are older and a refresh for
	 * pages not resident was made less than 100 ms ago, not judged
	 * (-EAGAIN); once touched, resident, read without a refresh.
	 */
	fresh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (fresh == MAP_FAILED) {
		CHECK(0, "mmap a page");
		return;
	}
	g.refreshed = 0;
	CHECK_INTEQ(langguard_check(&g, (uint64_t)(uintptr_t)fresh, 8), 0,
	    "a page mapped since the maps were read: read again, allowed");
	CHECK_INTEQ(g.nrefresh, 3, "(the maps read again once)");
	g.refreshed = 0;
	g.nonres = langguard_now_ns();
	CHECK_INTEQ(langguard_check(&g, (uint64_t)(uintptr_t)fresh, 8),
	    -EAGAIN, "not resident, maps old, a refresh just made: not "
	    "judged now");
	CHECK_INTEQ(g.nrefresh, 3, "(nor the maps read again)");
	fresh[0] = 1;
	CHECK_INTEQ(langguard_check(&g, (uint64_t)(uintptr_t)fresh, 8), 0,
	    "touched, so resident: allowed without a refresh");
	CHECK_INTEQ(g.nrefresh, 3, "(no refresh)");
	munmap((void *)(uintptr_t)fresh, 4096);
	langguard_free(&g);
	free(heap);

	/* The cost of a refresh over a hostile number of mappings. */
	if ((fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) < 0) {
		CHECK(0, "open our executable");
		return;
	}
	pid = spawn_mapper(100000, fd);
	close(fd);
	if (pid <= 0) {
		CHECK(0, "a child with 100k mappings");
		return;
	}
	t0 = now_s();
	rc = langguard_init(&g, pid, NULL, 0);
	t = now_s() - t0;
	printf("# refresh of a process with 100k mappings: %.1f ms, %u "
	    "ranges, truncated %d\n", t * 1e3, g.n, g.truncated);
	CHECK(rc == 0 && g.truncated && g.n <= LANGGUARD_RANGES_MAX,
	    "100k mappings: read up to the cap, the rest unknown");
	CHECK(t < 0.5, "a refresh over 100k mappings is bounded");
	CHECK_INTEQ(langguard_check(&g, 0x7ffffffff000ull, 8), -EREMOTE,
	    "a read past the known part is refused, not guessed");
	printf("# %s\n", g.why);
	CHECK(strstr(g.why, "KiB of its maps") != NULL, "and says why");
	langguard_free(&g);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

int
main(void)
{
	test_parsers();
	test_live();
	return (testing_done());
}
