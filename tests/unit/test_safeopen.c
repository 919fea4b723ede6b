/*
 * core/base/safeopen.c against the attacks a local user can mount on a root
 * agent: a FIFO, a symlink to a root-only file, an absolute symlink out of
 * a container's root (a real chroot()ed process, through /proc/PID/root),
 * a device node, a huge file, a file replaced or grown while read.  Every
 * check runs twice: with openat2 and with the per-component walk used on
 * kernels without it.
 */
#include "config.h"

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/safeopen.h"
#include "testing.h"

static char dir[PATH_MAX];

static void
put(const char *rel, const char *text, mode_t mode)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	unlink(p);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode)) < 0 ||
	    write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror(p);
		exit(1);
	}
	fchmod(fd, mode);
	close(fd);
}

static char *
at(const char *rel)
{
	static char p[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, rel);
	return (p[i]);
}

static struct gp_open_spec
spec(const char *root, const char *path, uint32_t flags)
{
	struct gp_open_spec s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.flags = flags;
	s.root = root;
	s.path = path;
	s.owner = -1;
	return (s);
}

/* Read through safeopen into a string ("" on failure); rc in *rcp. */
static const char *
rd(struct gp_open_spec s, int *rcp)
{
	static char buf[256];
	ssize_t n;

	n = safeopen_read(&s, buf, sizeof(buf) - 1);
	*rcp = n < 0 ? (int)n : 0;
	buf[n > 0 ? n : 0] = '\0';
	return (buf);
}

static void
on_alarm(int sig)
{
	(void)sig;
	printf("not ok - safeopen blocked (timed out)\n");
	_exit(1);
}

static void
test_fifo(const char *mode)
{
	struct gp_file_info info;
	struct gp_open_spec s;
	char what[128];
	int rc;

	unlink(at("fifo"));
	mkfifo(at("fifo"), 0644);
	s = spec(NULL, at("fifo"), 0);
	alarm(5);
	rc = safeopen_open(&s, &info);
	alarm(0);
	snprintf(what, sizeof(what), "%s: a FIFO is refused without blocking",
	    mode);
	CHECK_INTEQ(rc, -EINVAL, what);
	CHECK(S_ISFIFO(info.mode), "and info says it is a FIFO");
	CHECK_STREQ(safeopen_strerror(rc, &info), "not a regular file (a FIFO)",
	    "which the log line says");
}

static void
test_symlinks(const char *mode)
{
	struct gp_open_spec s;
	char what[128];
	int rc;

	put("secret", "root only", 0600);
	put("public", "for all", 0644);
	unlink(at("link"));
	symlink(at("secret"), at("link"));
	s = spec(NULL, at("link"), GP_OPEN_NO_SYMLINKS);
	rd(s, &rc);
	snprintf(what, sizeof(what), "%s: NO_SYMLINKS refuses a symlink", mode);
	CHECK_INTEQ(rc, -ELOOP, what);
	s = spec(NULL, at("link"), GP_OPEN_READABLE_BY);
	s.owner = 65534;
	rd(s, &rc);
	CHECK_INTEQ(rc, -EPERM, "a link to a root-only file: refused for a "
	    "user who could not read it");
	s.owner = 0;
	CHECK_STREQ(rd(s, &rc), "root only", "and read for root");
	unlink(at("link"));
	symlink(at("public"), at("link"));
	s.owner = 65534;
	CHECK_STREQ(rd(s, &rc), "for all", "a link to a readable file is fine");

	/* Ownership: a perf map must belong to the process's user or root. */
	s = spec(NULL, at("public"), GP_OPEN_OWNER_OR_ROOT);
	s.owner = 1000;
	CHECK_STREQ(rd(s, &rc), "for all", "root's file: OWNER_OR_ROOT ok");
	chown(at("public"), 1234, 1234);
	rd(s, &rc);
	CHECK_INTEQ(rc, -EPERM, "another user's file: refused");
	chown(at("public"), 1000, 1000);
	CHECK_STREQ(rd(s, &rc), "for all", "the owner's own file: read");
	chown(at("public"), 0, 0);
}

/* The container: a real process chroot()ed into dir/ct. */
static void
test_container(const char *mode, pid_t ct)
{
	struct gp_open_spec s;
	char root[64], what[160];
	int rc;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)ct);
	s = spec(root, "/tmp/escape", 0);
	rd(s, &rc);
	snprintf(what, sizeof(what), "%s: an absolute link in a container "
	    "resolves in its root, not the host's", mode);
	CHECK_INTEQ(rc, -ENOENT, what);
	s = spec(root, "/tmp/inside", 0);
	CHECK_STREQ(rd(s, &rc), "container file", "a link inside the root "
	    "still works");
	s = spec(root, "/../../../../hostfile", 0);
	rd(s, &rc);
	CHECK_INTEQ(rc, -ENOENT, "\"..\" stops at the container's root");
	s = spec(root, "/tmp/escape", GP_OPEN_NO_SYMLINKS);
	rd(s, &rc);
	CHECK_INTEQ(rc, -ELOOP, "NO_SYMLINKS in a root");
	snprintf(what, sizeof(what), "/proc/%d/root%s/hostfile", (int)ct, dir);
	s = spec(NULL, what, 0);
	rd(s, &rc);
	CHECK_INTEQ(rc, -ELOOP, "a path through the /proc/PID/root magic link "
	    "is refused");
	s = spec(NULL, at("hostfile"), 0);
	CHECK_STREQ(rd(s, &rc), "host secret", "(the host file is there)");
}

static void
test_device(const char *mode)
{
	struct gp_file_info info;
	struct gp_open_spec s;
	char what[128];
	int rc;

	s = spec(NULL, "/dev/null", 0);
	rc = safeopen_open(&s, &info);
	snprintf(what, sizeof(what), "%s: a device node is refused", mode);
	CHECK_INTEQ(rc, -EINVAL, what);
	CHECK(S_ISCHR(info.mode), "(a character device)");
	/* A planted node of a tty: O_PATH never opens it. */
	unlink(at("tty"));
	if (mknod(at("tty"), S_IFCHR | 0666, makedev(5, 0)) == 0) {
		s = spec(NULL, at("tty"), 0);
		CHECK_INTEQ(safeopen_open(&s, &info), -EINVAL,
		    "a planted tty node is refused");
	}
}

static void
test_huge(const char *mode)
{
	struct gp_open_spec s;
	char buf[4096], what[128];
	ssize_t n;
	int fd;

	fd = open(at("huge"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)1 << 32) == 0, "a 4 GiB file");
	close(fd);
	s = spec(NULL, at("huge"), 0);
	s.max_size = 64u << 20;
	snprintf(what, sizeof(what), "%s: over max_size is refused", mode);
	CHECK_INTEQ(safeopen_read(&s, buf, sizeof(buf)), -EFBIG, what);
	s.max_size = 0;
	n = safeopen_read(&s, buf, sizeof(buf));
	CHECK_INTEQ(n, sizeof(buf), "without a cap, reads stop at the buffer");
	unlink(at("huge"));
}

static void
test_replaced(const char *mode)
{
	struct gp_open_spec s;
	char buf[64], what[128], victim[PATH_MAX];
	ssize_t n;
	int fd, w;

	put("victim", "original", 0644);
	snprintf(victim, sizeof(victim), "%s", at("victim"));
	s = spec(NULL, victim, 0);
	fd = safeopen_open(&s, NULL);
	CHECK(fd >= 0, "opened");
	put("replacement", "replaced by a symlink target", 0644);
	unlink(at("evil"));
	symlink("/etc/shadow", at("evil"));
	rename(at("evil"), at("victim"));
	n = safeopen_pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	snprintf(what, sizeof(what), "%s: a file replaced by a symlink while "
	    "read: the inode checked is the one read", mode);
	CHECK_STREQ(buf, "original", what);
	close(fd);
	s.flags = GP_OPEN_NO_SYMLINKS;
	fd = safeopen_open(&s, NULL);
	CHECK_INTEQ(fd, -ELOOP, "and reopening it now refuses the link");
	/* Growing while read: never more than asked. */
	put("grow", "0123456789", 0644);
	s = spec(NULL, at("grow"), 0);
	fd = safeopen_open(&s, NULL);
	w = open(at("grow"), O_WRONLY | O_APPEND);
	CHECK(write(w, "abcdefghij", 10) == 10, "the file grows");
	close(w);
	CHECK_INTEQ(safeopen_pread(fd, buf, 12, 0), 12, "reads stay bounded");
	close(fd);
}

/*
 * Files read on a process's behalf (reader): the process's user must be
 * able to read them.  The owner tests alone let a root-only file pass
 * (mounted at a perf map's path, it is "root's").
 */
static void
test_reader(const char *mode)
{
	struct gp_file_info info;
	struct gp_open_spec s;
	char what[128];
	int rc;

	put("rootonly", "root secret", 0600);
	put("rootpub", "root public", 0644);
	put("mine", "my map", 0600);
	chown(at("mine"), 1000, 1000);
	s = spec(NULL, at("rootonly"), GP_OPEN_OWNER_OR_ROOT);
	s.owner = 1000;
	CHECK_STREQ(rd(s, &rc), "root secret", "(owner or root alone lets a "
	    "root-only file pass)");
	s.reader = 1000;
	rd(s, &rc);
	snprintf(what, sizeof(what), "%s: a root-only file is refused to a "
	    "reader who could not read it", mode);
	CHECK_INTEQ(rc, -EACCES, what);
	CHECK_INTEQ(safeopen_open(&s, &info), -EACCES, "(open too)");
	CHECK(strstr(safeopen_strerror(-EACCES, &info), "not readable by the "
	    "process's own user") != NULL, "and the log line says why");
	s = spec(NULL, at("rootpub"), GP_OPEN_OWNER_OR_ROOT);
	s.owner = 1000;
	s.reader = 1000;
	CHECK_STREQ(rd(s, &rc), "root public", "a root file everyone may read "
	    "is read (/usr/lib/debug)");
	s = spec(NULL, at("mine"), 0);
	s.owner = 1000;
	s.reader = 1000;
	CHECK_STREQ(rd(s, &rc), "my map", "the reader's own 0600 file is read");
	s = spec(NULL, at("rootonly"), 0);
	s.reader = 0;
	CHECK_STREQ(rd(s, &rc), "root secret", "reader root (0) reads all");
	s.reader = -1;
	rd(s, &rc);
	CHECK_INTEQ(rc, -EACCES, "an unknown reader: the others' bits");
	s = spec(NULL, at("rootonly"), 0);
	s.size = GP_OPEN_SPEC_SIZE_1_1;
	s.reader = 1000;	/* beyond a 1.1 spec: not looked at */
	CHECK_STREQ(rd(s, &rc), "root secret", "a 1.1 spec (no reader) still "
	    "works");
	s.size = GP_OPEN_SPEC_SIZE_1_1 - 8;
	rd(s, &rc);
	CHECK_INTEQ(rc, -EINVAL, "a spec smaller than 1.1 is refused");
}

/*
 * The host's /proc: its files open (through its own links, "self"), and a
 * path that crosses a mount below /proc (a tmpfs on binfmt_misc's
 * directory, in a mount namespace of the test's own) is still judged by
 * that mount, not taken for procfs.
 */
static void
test_proc(const char *mode, pid_t ct)
{
	struct gp_open_spec s;
	char path[64], want[32], what[128];
	const char *got;
	pid_t pid;
	int rc, st;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)ct);
	snprintf(want, sizeof(want), "%d (", (int)ct);
	s = spec(NULL, path, 0);
	got = rd(s, &rc);
	snprintf(what, sizeof(what), "%s: a process's /proc file", mode);
	CHECK(rc == 0 && strncmp(got, want, strlen(want)) == 0, what);
	/* The walk (kernels without openat2) cannot tell a procfs link
	 * from a magic one: it refuses them all. */
	s = spec(NULL, "/proc/self/status", 0);
	got = rd(s, &rc);
	snprintf(what, sizeof(what), "%s: through /proc/self", mode);
	if (strcmp(mode, "walk") == 0)
		CHECK_INTEQ(rc, -ELOOP, what);
	else
		CHECK(rc == 0 && strncmp(got, "Name:", 5) == 0, what);
	if ((pid = fork()) == 0) {
		if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL,
		    MS_REC | MS_PRIVATE, NULL) != 0 || mount("none",
		    "/proc/sys/fs/binfmt_misc", "tmpfs", 0, NULL) != 0)
			_exit(77);
		/* the /proc judged before is the parent namespace's */
		safeopen_set_fallback(strcmp(mode, "walk") == 0);
		rc = open("/proc/sys/fs/binfmt_misc/f", O_WRONLY | O_CREAT,
		    0644);
		if (rc < 0 || write(rc, "tmpfs file", 10) != 10)
			_exit(78);
		close(rc);
		s = spec(NULL, "/proc/sys/fs/binfmt_misc/f", 0);
		got = rd(s, &rc);
		_exit(rc == 0 && strcmp(got, "tmpfs file") == 0 ? 0 :
		    rc < 0 && rc > -70 ? -rc : 1);
	}
	st = -1;
	if (pid > 0)
		waitpid(pid, &st, 0);
	snprintf(what, sizeof(what), "%s: a mount below /proc judged as "
	    "itself (a local tmpfs: read; %d)", mode, WEXITSTATUS(st));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		CHECK(1, "# SKIP no mount namespace here");
	else
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, what);
}

static void
run_all(const char *mode, pid_t ct)
{
	test_fifo(mode);
	test_symlinks(mode);
	test_container(mode, ct);
	test_device(mode);
	test_huge(mode);
	test_replaced(mode);
	test_reader(mode);
	test_proc(mode, ct);
}

/* A process in its own root: dir/ct, with links pointing out of it. */
static pid_t
container_start(void)
{
	int p[2];
	pid_t pid;
	char c;

	mkdir(at("ct"), 0755);
	mkdir(at("ct/tmp"), 0755);
	put("hostfile", "host secret", 0600);
	put("ct/file", "container file", 0644);
	unlink(at("ct/tmp/escape"));
	unlink(at("ct/tmp/inside"));
	/* Absolute in the container: the host file only from outside. */
	symlink(at("hostfile"), at("ct/tmp/escape"));
	symlink("/file", at("ct/tmp/inside"));
	if (pipe(p) != 0)
		return (-1);
	if ((pid = fork()) == 0) {
		if (chroot(at("ct")) != 0 || chdir("/") != 0)
			_exit(1);
		(void)write(p[1], "x", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return (pid);
}

static int
rm_one(const char *path, const struct stat *sb, int type, struct FTW *f)
{
	(void)sb;
	(void)type;
	(void)f;
	return (remove(path) != 0 ? 0 : 0);
}

int
main(void)
{
	char tmpl[] = "/tmp/test_safeopen.XXXXXX";
	pid_t ct;

	if (geteuid() != 0)
		SKIP_ALL("needs root (chroot, chown, mknod)");
	signal(SIGALRM, on_alarm);
	if (mkdtemp(tmpl) == NULL)
		return (1);
	snprintf(dir, sizeof(dir), "%s", tmpl);
	chmod(dir, 0755);
	if ((ct = container_start()) < 0)
		return (1);
	run_all("openat2", ct);
	safeopen_set_fallback(1);
	run_all("walk", ct);
	kill(ct, SIGKILL);
	waitpid(ct, NULL, 0);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return (testing_done());
}
