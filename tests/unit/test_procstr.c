/*
 * Unit tests of core/base/procstr.c: the parsers on fixed text, and the
 * guard on live processes, one of them with a page of a file mapped over
 * the strings at the top of its stack (tests/workloads/execfn_fuse; a
 * local file stands in for the FUSE one: the guard refuses any file).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "base/procstr.h"
#include "base/safeopen.h"
#include "testing.h"

static void
test_parse_stat(void)
{
	/* Linux 6.1's /proc/PID/stat of a shell, its name made hostile. */
	static const char stat[] = "4242 (a) b ) 1 2) S 1 4242 4242 34816 "
	    "4242 4194304 120 0 0 0 0 0 0 0 20 0 1 0 1234 8912896 800 "
	    "18446744073709551615 94000000000000 94000000100000 "
	    "140720000000000 0 0 0 65536 3686404 1266761467 0 0 0 17 1 0 0 "
	    "0 0 0 94000000200000 94000000210000 94000001000000 "
	    "140720000001000 140720000001020 140720000001020 140720000004000 "
	    "0\n";
	static const char big[] = "1 (x) S 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	    "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	    "99999999999999999999 1 1 1 0\n";
	struct procstr_ranges r;
	char buf[sizeof(stat)];
	size_t n = sizeof(stat) - 1, cut;

	CHECK_INTEQ(procstr_parse_stat(stat, n, &r), 0, "parse stat");
	CHECK(r.arg_start == 140720000001000ull && r.arg_end ==
	    140720000001020ull && r.env_start == 140720000001020ull &&
	    r.env_end == 140720000004000ull, "fields 48-51, after the last ')'");
	/* A kernel before 3.5 ends at field 44. */
	cut = (size_t)(strstr(stat, " 94000000200000") - stat);
	CHECK_INTEQ(procstr_parse_stat(stat, cut, &r), -EINVAL,
	    "no fields 48-51: refused");
	CHECK_INTEQ(procstr_parse_stat("1 (x", 4, &r), -EINVAL, "no ')'");
	CHECK_INTEQ(procstr_parse_stat(stat, 0, &r), -EINVAL, "empty");
	memcpy(buf, stat, sizeof(buf));
	memcpy(strstr(buf, "140720000001000"), "1407200000x1000", 15);
	CHECK_INTEQ(procstr_parse_stat(buf, n, &r), -EINVAL,
	    "a field that is not a number");
	CHECK_INTEQ(procstr_parse_stat(big, sizeof(big) - 1, &r), -EINVAL,
	    "a number past 64 bits");
	memcpy(buf, stat, sizeof(buf));
	memcpy(strstr(buf, " 140720000004000") + 1, "-", 1);
	CHECK_INTEQ(procstr_parse_stat(buf, n, &r), -EINVAL, "a sign");
}

static void
test_maps_anon(void)
{
	static const char maps[] =
	    "00400000-00401000 r-xp 00000000 08:01 1234 /usr/bin/x\n"
	    "7ffd00000000-7ffd00020000 rw-p 00000000 00:00 0 [stack]\n"
	    "7ffd00020000-7ffd00021000 r--p 00000000 00:2f 77 /mnt/fuse/f\n"
	    "7ffd00021000-7ffd00022000 rw-p 00000000 00:00 0 [stack]\n";
	size_t n = sizeof(maps) - 1;

	CHECK_INTEQ(procstr_maps_anon(maps, n, 0x7ffd00001000, 4096), 1,
	    "inside the stack (the text reached past it)");
	CHECK_INTEQ(procstr_maps_anon(maps, n, 0x7ffd0001f800, 4096),
	    -EREMOTE, "running into a file mapping");
	CHECK_INTEQ(procstr_maps_anon(maps, n, 0x7ffd00020010, 16),
	    -EREMOTE, "inside a file mapping (a FUSE file over the stack)");
	CHECK_INTEQ(procstr_maps_anon(maps, n, 0x7ffd00021000, 4096), 0,
	    "the stack above it, the text ending there");
	CHECK_INTEQ(procstr_maps_anon(maps, n, 0x400800, 16), -EREMOTE,
	    "a binary's mapping");
	CHECK_INTEQ(procstr_maps_anon(maps, n, UINT64_MAX - 8, 4096), 0,
	    "a range wrapping past the top is clamped, not misread");
	CHECK_INTEQ(procstr_maps_anon(maps, n, 0x7ffd00020000 - 8,
	    UINT64_MAX), -EREMOTE, "a huge length still sees the file");
	CHECK_INTEQ(procstr_maps_anon("garbage\nno-maps", 16, 0x1000, 8),
	    0, "lines that do not parse are skipped");
	CHECK_INTEQ(procstr_maps_anon(maps, 0, 0x7ffd00020010, 16), 0,
	    "an empty text");
}

/* Open /proc/PID/WHAT through the safe open; a "task/" in WHAT is
 * followed by PID again (the main thread). */
static int
open_proc(int pid, const char *what)
{
	struct gp_open_spec spec;
	char path[128];

	if (strncmp(what, "task/", 5) == 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", pid, pid,
		    what + 5);
	else
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	memset(&spec, 0, sizeof(spec));
	spec.size = sizeof(spec);
	spec.path = path;
	spec.owner = -1;
	return (safeopen_open(&spec, NULL));
}

/* A process whose strings have a page of a local file over them. */
static pid_t
spawn_victim(const char *dir, char *ready, size_t len)
{
	char file[256], pad[32768], *envp[2], *argv[5];
	int fd, i;
	pid_t pid;

	snprintf(file, sizeof(file), "%s/page", dir);
	snprintf(ready, len, "%s/ready", dir);
	if ((fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 ||
	    ftruncate(fd, 65536) != 0)
		return (-1);
	close(fd);
	/* A large environment puts our frames pages below the strings. */
	memcpy(pad, "PAD=", 4);
	memset(pad + 4, 'x', sizeof(pad) - 5);
	pad[sizeof(pad) - 1] = '\0';
	envp[0] = pad;
	envp[1] = NULL;
	argv[0] = "tests/workloads/execfn_fuse";
	argv[1] = file;
	argv[2] = ready;
	argv[3] = "30";
	argv[4] = NULL;
	if ((pid = fork()) == 0) {
		execve(argv[0], argv, envp);
		_exit(127);
	}
	for (i = 0; i < 100 && access(ready, F_OK) != 0; i++)
		usleep(50000);
	return (pid);
}

static void
test_guard(void)
{
	char dir[] = "/tmp/test_procstr.XXXXXX", ready[300], link[300];
	pid_t v;
	int fd;

	fd = open_proc((int)getpid(), "cmdline");
	CHECK(fd >= 0, "our own cmdline is read");
	if (fd >= 0)
		close(fd);
	fd = open_proc((int)getpid(), "environ");
	CHECK(fd >= 0, "our own environ is read");
	if (fd >= 0)
		close(fd);
	CHECK_INTEQ(procstr_refused(), 0, "no refusal");
	fd = open_proc((int)getpid(), "task/cmdline");
	CHECK(fd >= 0, "a thread's cmdline is read");
	if (fd >= 0)
		close(fd);
	fd = open_proc(1, "cmdline");
	CHECK(fd >= 0 || fd == -EACCES, "init's cmdline");
	if (fd >= 0)
		close(fd);

	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		return;
	}
	v = spawn_victim(dir, ready, sizeof(ready));
	CHECK(v > 0 && access(ready, F_OK) == 0, "the victim mapped a file "
	    "page over its strings");
	if (v > 0 && access(ready, F_OK) == 0) {
		CHECK_INTEQ(open_proc((int)v, "environ"), -EREMOTE,
		    "its environ is refused");
		CHECK_INTEQ(procstr_refused(), (int)v, "the refusal names it");
		CHECK_INTEQ(procstr_refused(), 0, "once");
		CHECK_INTEQ(open_proc((int)v, "cmdline"), -EREMOTE,
		    "its cmdline too (it may run on into the environment)");
		CHECK_INTEQ(open_proc((int)v, "task/environ"),
		    -EREMOTE, "through its thread");
		/* A symlink a user planted on a path the agent reads. */
		snprintf(link, sizeof(link), "%s/perf-1.map", dir);
		snprintf(ready, sizeof(ready), "/proc/%d/environ", (int)v);
		CHECK(symlink(ready, link) == 0, "symlink");
		{
			struct gp_open_spec spec = { .size = sizeof(spec),
			    .path = link, .owner = -1 };

			CHECK_INTEQ(safeopen_open(&spec, NULL), -EREMOTE,
			    "through a symlink to it");
		}
		fd = open_proc((int)v, "stat");
		CHECK(fd >= 0, "its other /proc files are read");
		if (fd >= 0)
			close(fd);
		procstr_refused();
	}
	if (v > 0) {
		kill(v, SIGKILL);
		waitpid(v, NULL, 0);
	}
	snprintf(link, sizeof(link), "rm -rf %s", dir);
	CHECK(system(link) == 0, "cleanup");
}

int
main(void)
{
	test_parse_stat();
	test_maps_anon();
	test_guard();
	return (testing_done());
}
