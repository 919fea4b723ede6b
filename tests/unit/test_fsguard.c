/*
 * Unit tests for lib/fsguard.c: the mount table and fdinfo parsers and
 * the verdicts on filesystems and paths, then against our own mount
 * table and fds (real /proc).
 */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testing.h"
#include "../lib/fsguard.h"

static const char table[] =
    "22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "23 22 0:22 / /proc rw,nosuid - proc proc rw\n"
    "30 22 0:40 / /mnt/fz rw,nosuid,nodev shared:9 - fuse.fuse_stall st rw\n"
    "31 22 0:41 / /srv/my\\040dir rw - nfs4 host:/x rw\n"
    "32 22 0:42 / /tmp rw master:3 - tmpfs tmpfs rw\n"
    "33 30 0:43 / /mnt/fz/in rw - tmpfs tmpfs rw\n"
    "34 22 0:44 / /over rw - fuse.x x rw\n"
    "35 22 0:45 / /over rw - ext4 /dev/sdb rw\n"
    "garbage line\n"
    "36 22 0:46 / /w rw - 9p w rw";

int
main(void)
{
	struct fsguard_mount m[16];
	const struct fsguard_mount *bad, *x;
	char buf[sizeof(table)], fi[512], path[64];
	ssize_t n;
	uint32_t nm, id;
	int fd, f, i, local;

	CHECK(fsguard_fs_local("ext4", 4) == 1, "ext4 is local");
	/* an initramfs-only system's root (a VM, an installer, a
	 * diskless node before its switch_root): memory */
	CHECK(fsguard_fs_local("rootfs", 6) == 1, "rootfs is local");
	CHECK(fsguard_fs_local("fuse", 4) == 0, "fuse is not");
	CHECK(fsguard_fs_local("fuse.sshfs", 10) == 0, "fuse.sshfs is not");
	CHECK(fsguard_fs_local("nfs4", 4) == 0, "nfs4 is not");
	CHECK(fsguard_fs_local("ext", 3) == 0, "a prefix of a local type is not");
	CHECK(fsguard_fs_local("unknownfs", 9) == 0, "an unknown type is not");

	memcpy(buf, table, sizeof(table));
	nm = fsguard_parse_mountinfo(buf, sizeof(table) - 1, NULL, 0);
	CHECK_INTEQ(nm, 9, "counts the well-formed lines");
	memcpy(buf, table, sizeof(table));
	nm = fsguard_parse_mountinfo(buf, sizeof(table) - 1, m, 16);
	CHECK_INTEQ(nm, 9, "parses them");
	CHECK(m[2].id == 30 && m[2].dev == (0u << 20 | 40) && !m[2].local &&
	    strcmp(m[2].fstype, "fuse.fuse_stall") == 0, "a FUSE mount");
	CHECK(m[3].pointlen == 11 && memcmp(buf + m[3].point, "/srv/my dir",
	    11) == 0, "an escaped mount point is unescaped");
	CHECK(m[8].id == 36 && !m[8].local, "the last line without newline");
	/* as every caller does: count, then parse the same text */
	memcpy(buf, table, sizeof(table));
	nm = fsguard_parse_mountinfo(buf, sizeof(table) - 1, NULL, 0);
	nm = fsguard_parse_mountinfo(buf, sizeof(table) - 1, m, nm);
	CHECK(nm == 9 && m[3].pointlen == 11 && memcmp(buf + m[3].point,
	    "/srv/my dir", 11) == 0, "a count leaves the text for the parse");
	x = fsguard_by_id(m, nm, 32);
	CHECK(x != NULL && x->local && strcmp(x->fstype, "tmpfs") == 0,
	    "by mount id");
	CHECK(fsguard_by_id(m, nm, 99) == NULL, "an unknown id");
	CHECK(fsguard_by_dev(m, nm, 41) == &m[3], "by device");

	CHECK_INTEQ(fsguard_path_check(buf, m, nm, "/tmp/perf-1.map", &bad),
	    0, "a file on tmpfs under ext4");
	bad = NULL;
	CHECK(fsguard_path_check(buf, m, nm, "/mnt/fz/stall", &bad) ==
	    -EREMOTE && bad == &m[2], "a file on FUSE");
	CHECK_INTEQ(fsguard_path_check(buf, m, nm, "/mnt/fz", &bad), -EREMOTE,
	    "the FUSE mount's root");
	CHECK_INTEQ(fsguard_path_check(buf, m, nm, "/mnt/fz/in/x", &bad),
	    -EREMOTE, "a local mount under FUSE: the walk passes FUSE");
	CHECK_INTEQ(fsguard_path_check(buf, m, nm, "/mnt/fzz/x", &bad), 0,
	    "a name that only starts like a mount point");
	CHECK_INTEQ(fsguard_path_check(buf, m, nm,
	    "/tmp/../mnt/./fz//stall", &bad), -EREMOTE, "dot-dot and dots");
	CHECK_INTEQ(fsguard_path_check(buf, m, nm, "/../../mnt/fz", &bad),
	    -EREMOTE, "dot-dot stops at the root");
	CHECK_INTEQ(fsguard_path_check(buf, m, nm, "/srv/my dir/f", &bad),
	    -EREMOTE, "NFS under an escaped name");
	CHECK_INTEQ(fsguard_path_check(buf, m, nm, "/over/f", &bad), 0,
	    "a local mount on top of a FUSE one");
	CHECK_INTEQ(fsguard_path_check(buf, m, nm, "/w", &bad), -EREMOTE,
	    "9p");
	CHECK_INTEQ(fsguard_path_check(buf, m, nm, "rel", &bad), -EINVAL,
	    "a relative path");

	CHECK(fsguard_fdinfo_mnt_id("pos:\t0\nflags:\t02\nmnt_id:\t27\n", 30,
	    &id) == 0 && id == 27, "fdinfo's mnt_id");
	CHECK(fsguard_fdinfo_mnt_id("pos:\t0\nxmnt_id:\t27\n", 20, &id) ==
	    -EINVAL, "only at a line start");
	CHECK(fsguard_fdinfo_mnt_id("mnt_id:\t", 8, &id) == -EINVAL,
	    "no number");

	/* Ours: the mount of an fd on / is in our table, and local here. */
	{
		static char text[1 << 20];
		struct fsguard_mount *all;

		f = open("/proc/self/mountinfo", O_RDONLY);
		n = 0;
		if (f >= 0) {
			ssize_t r;

			while ((r = read(f, text + n, sizeof(text) - 1 -
			    (size_t)n)) > 0)
				n += r;
			close(f);
		}
		CHECK(n > 0, "read our mountinfo");
		nm = fsguard_parse_mountinfo(text, (size_t)n, NULL, 0);
		all = calloc(nm + 1, sizeof(*all));
		nm = fsguard_parse_mountinfo(text, (size_t)n, all, nm);
		fd = open("/proc/self/status", O_PATH);
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
		f = open(path, O_RDONLY);
		n = read(f, fi, sizeof(fi) - 1);
		close(f);
		CHECK(n > 0 && fsguard_fdinfo_mnt_id(fi, (size_t)n, &id) == 0,
		    "our fdinfo has a mnt_id");
		x = fsguard_by_id(all, nm, id);
		CHECK(x != NULL && strcmp(x->fstype, "proc") == 0,
		    "its mount is procfs, found by id");
		local = x != NULL && x->local;
		CHECK(local, "and procfs is local");
		for (i = 0; i < (int)nm; i++)
			if (all[i].pointlen == 1)
				break;
		CHECK(i < (int)nm, "our table has a root");
		close(fd);
		free(all);
	}
	return (testing_done());
}
