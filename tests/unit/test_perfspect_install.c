/*
 * Unit tests of the PerfSpect installer: archive entry checks, SHA-256,
 * extraction of tarballs built here (good and hostile), and the install
 * state machine (install.c) against a mock host whose http_download
 * writes a tarball into the given fd.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "../../plugins/perfspect/install.h"
#include "../../plugins/perfspect/perfspect.h"
#include "testing.h"

#define S(x)	x, strlen(x)

static char tmp[256];

struct ent {
	const char *path;
	int type;		/* AE_IF* */
	const char *data;	/* file contents or link target */
	int mode;
};

/* Write a .tar.gz of ents to path; returns its size. */
static long
make_tgz(const char *path, const struct ent *ents, size_t n)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e;
	struct stat st;
	size_t i;

	archive_write_add_filter_gzip(a);
	archive_write_set_format_pax_restricted(a);
	archive_write_open_filename(a, path);
	for (i = 0; i < n; i++) {
		e = archive_entry_new();
		archive_entry_set_pathname(e, ents[i].path);
		archive_entry_set_filetype(e, ents[i].type);
		archive_entry_set_perm(e, ents[i].mode);
		if (ents[i].type == AE_IFLNK)
			archive_entry_set_symlink(e, ents[i].data);
		else if (ents[i].type == AE_IFCHR)
			archive_entry_set_rdev(e, makedev(1, 3));
		else if (ents[i].type == AE_IFREG)
			archive_entry_set_size(e, strlen(ents[i].data));
		archive_write_header(a, e);
		if (ents[i].type == AE_IFREG)
			archive_write_data(a, ents[i].data,
			    strlen(ents[i].data));
		archive_entry_free(e);
	}
	archive_write_close(a);
	archive_write_free(a);
	return (stat(path, &st) == 0 ? st.st_size : -1);
}

static const char SCRIPT[] =
    "#!/bin/sh\necho 'perfspect version 3.17.0_2026-04-20_956744c9'\n";

static const struct ent good[] = {
	{ "perfspect", AE_IFDIR, NULL, 0755 },
	{ "perfspect/perfspect", AE_IFREG, SCRIPT, 04777 },
	{ "perfspect/LICENSE", AE_IFREG, "MIT\n", 0644 },
	{ "perfspect/targets.yaml", AE_IFREG, "targets: []\n", 0644 },
	{ "perfspect/tools/x86_64", AE_IFDIR, NULL, 0755 },
	{ "perfspect/tools/aarch64", AE_IFDIR, NULL, 0755 },
	{ "perfspect/tools/lic", AE_IFLNK, "../LICENSE", 0777 },
};

static int
extract(const char *tgz, const char *dir, char *err, size_t errlen)
{
	int fd = open(tgz, O_RDONLY), rc;

	mkdir(dir, 0700);
	rc = ps_archive_extract(fd, dir, err, errlen);
	close(fd);
	return (rc);
}

static void
test_path_check(void)
{
	static const struct {
		const char *path;
		int type;
		const char *link;
		int ok;
	} t[] = {
		{ "perfspect/perfspect", PS_ENT_FILE, NULL, 1 },
		{ "perfspect/", PS_ENT_DIR, NULL, 1 },
		{ "./perfspect/x", PS_ENT_FILE, NULL, 1 },
		{ "/etc/passwd", PS_ENT_FILE, NULL, 0 },
		{ "perfspect/../../x", PS_ENT_FILE, NULL, 0 },
		{ "..", PS_ENT_DIR, NULL, 0 },
		{ "a/..", PS_ENT_DIR, NULL, 0 },
		{ ".", PS_ENT_FILE, NULL, 0 },
		{ "", PS_ENT_FILE, NULL, 0 },
		{ "perfspect/l", PS_ENT_SYMLINK, "perfspect", 1 },
		{ "perfspect/l", PS_ENT_SYMLINK, "../perfspect/x", 1 },
		{ "perfspect/l", PS_ENT_SYMLINK, "../../etc", 0 },
		{ "l", PS_ENT_SYMLINK, "..", 0 },
		{ "perfspect/l", PS_ENT_SYMLINK, "/etc/shadow", 0 },
		{ "c", PS_ENT_SYMLINK, "b/..", 0 },
		{ "perfspect/h", PS_ENT_HARDLINK, "perfspect/perfspect", 1 },
		{ "perfspect/h", PS_ENT_HARDLINK, "/etc/shadow", 0 },
		{ "perfspect/h", PS_ENT_HARDLINK, "../etc/shadow", 0 },
		{ "perfspect/null", PS_ENT_OTHER, NULL, 0 },
		{ "perf\tspect", PS_ENT_FILE, NULL, 0 },
	};
	char why[128], what[256];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(what, sizeof(what), "path check: \"%s\" %d -> %s: %s",
		    t[i].path, t[i].type, t[i].link ? t[i].link : "",
		    t[i].ok ? "accepted" : "refused");
		CHECK((ps_archive_path_check(S(t[i].path), t[i].type,
		    t[i].link ? t[i].link : "", t[i].link ? strlen(t[i].link) :
		    0, why, sizeof(why)) == 0) == t[i].ok, what);
	}
}

static void
test_sha_version(void)
{
	char p[PATH_MAX], hex[65];
	int fd;

	snprintf(p, sizeof(p), "%s/abc", tmp);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(write(fd, "abc", 3) == 3, "write abc");
	CHECK_INTEQ(ps_sha256_fd(fd, hex), 0, "sha256 of a file");
	CHECK_STREQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb4"
	    "10ff61f20015ad", "sha256(abc) is the FIPS 180-2 vector");
	close(fd);
	CHECK_INTEQ(ps_sha256_match(hex, " BA7816BF8F01CFEA414140DE5DAE2223B0"
	    "0361A396177A9CB410FF61F20015AD\n"), 0, "match: case, spaces");
	CHECK_INTEQ(ps_sha256_match(hex, "ca7816bf8f01cfea414140de5dae2223b00"
	    "361a396177a9cb410ff61f20015ad"), -EBADMSG, "mismatch");
	CHECK_INTEQ(ps_sha256_match(hex, "abc"), -EINVAL, "not a digest");
	CHECK(ps_version_line_ok(S("perfspect version 3.17.0_2026-04-20_"
	    "956744c9")), "version line");
	CHECK(!ps_version_line_ok(S("perfspect version ")), "empty version");
	CHECK(!ps_version_line_ok(S("Usage: perfspect")), "not a version");
}

static void
test_extract(void)
{
	struct ent bad[3];
	struct stat st;
	char tgz[PATH_MAX], dir[PATH_MAX], p[PATH_MAX], err[512];
	long size;

	snprintf(tgz, sizeof(tgz), "%s/good.tgz", tmp);
	snprintf(dir, sizeof(dir), "%s/good", tmp);
	size = make_tgz(tgz, good, sizeof(good) / sizeof(good[0]));
	CHECK_INTEQ(extract(tgz, dir, err, sizeof(err)), 0, "good archive");
	snprintf(p, sizeof(p), "%s/perfspect/perfspect", dir);
	CHECK(stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_mode & 07777) == 0755, "binary extracted 0755, no setuid");
	snprintf(p, sizeof(p), "%s/perfspect/tools/lic", dir);
	CHECK(lstat(p, &st) == 0 && S_ISLNK(st.st_mode), "inside link kept");

	/* Truncated in the middle of the binary's data. */
	CHECK(truncate(tgz, size / 2) == 0, "truncate");
	snprintf(dir, sizeof(dir), "%s/trunc", tmp);
	CHECK(extract(tgz, dir, err, sizeof(err)) != 0, "truncated refused");

	bad[0] = good[0];
	bad[1] = (struct ent){ "perfspect/../../escaped", AE_IFREG, "x", 0644 };
	snprintf(tgz, sizeof(tgz), "%s/dotdot.tgz", tmp);
	make_tgz(tgz, bad, 2);
	snprintf(dir, sizeof(dir), "%s/dotdot", tmp);
	CHECK(extract(tgz, dir, err, sizeof(err)) == -EPERM &&
	    strstr(err, "..") != NULL, "\"..\" entry refused");
	snprintf(p, sizeof(p), "%s/escaped", tmp);
	CHECK(access(p, F_OK) != 0, "nothing written outside");

	bad[1] = (struct ent){ "perfspect/esc", AE_IFLNK, "../../..", 0777 };
	bad[2] = (struct ent){ "perfspect/esc/x", AE_IFREG, "x", 0644 };
	snprintf(tgz, sizeof(tgz), "%s/symlink.tgz", tmp);
	make_tgz(tgz, bad, 3);
	snprintf(dir, sizeof(dir), "%s/symlink", tmp);
	CHECK(extract(tgz, dir, err, sizeof(err)) == -EPERM &&
	    strstr(err, "symbolic link") != NULL, "escaping symlink refused");

	bad[1] = (struct ent){ "/tmp/abs-perfspect", AE_IFREG, "x", 0644 };
	snprintf(tgz, sizeof(tgz), "%s/abs.tgz", tmp);
	make_tgz(tgz, bad, 2);
	snprintf(dir, sizeof(dir), "%s/abs", tmp);
	CHECK(extract(tgz, dir, err, sizeof(err)) == -EPERM &&
	    access("/tmp/abs-perfspect", F_OK) != 0, "absolute path refused");

	bad[1] = (struct ent){ "perfspect/null", AE_IFCHR, NULL, 0666 };
	snprintf(tgz, sizeof(tgz), "%s/dev.tgz", tmp);
	make_tgz(tgz, bad, 2);
	snprintf(dir, sizeof(dir), "%s/dev", tmp);
	CHECK(extract(tgz, dir, err, sizeof(err)) == -EPERM &&
	    strstr(err, "device") != NULL, "device node refused");

	snprintf(tgz, sizeof(tgz), "%s/abc", tmp);
	snprintf(dir, sizeof(dir), "%s/notgz", tmp);
	CHECK(extract(tgz, dir, err, sizeof(err)) != 0, "not an archive");
}

/* The install state machine against a mock host. */
static struct {
	void (*timer_cb[8])(void *);
	void *timer_arg[8];
	int timer_live[8];
	int ntimers;
	int downloads;
	int dl_fd;
	char dl_url[256];
	void (*dl_done)(void *, int32_t, int32_t, const char *);
	void *dl_arg;
	int spawns;
	struct gp_child_spec spec;
	char argv0[PATH_MAX];
	int done;
	char binary[PATH_MAX];
	char why[1024];
	char lastlog[1024];
} h;

static void
h_log(struct gp_plugin_ctx *ctx, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h.lastlog, sizeof(h.lastlog), fmt, ap);
	va_end(ap);
}

static struct gp_timer *
h_timer_add(struct gp_plugin_ctx *ctx, uint64_t ms, int32_t persist,
    void (*cb)(void *), void *arg)
{
	int i = h.ntimers++;

	h.timer_cb[i] = cb;
	h.timer_arg[i] = arg;
	h.timer_live[i] = 1;
	return ((struct gp_timer *)(uintptr_t)(i + 1));
}

static void
h_timer_del(struct gp_timer *t)
{
	if (t != NULL)
		h.timer_live[(uintptr_t)t - 1] = 0;
}

/* Fire timer i as the loop would (one-shot). */
static void
h_fire(int i)
{
	if (h.timer_live[i]) {
		h.timer_live[i] = 0;
		h.timer_cb[i](h.timer_arg[i]);
	}
}

static int
h_download(struct gp_plugin_ctx *ctx, const char *url, int32_t fd,
    uint32_t timeout_ms, void (*done)(void *, int32_t, int32_t,
    const char *), void *arg)
{
	h.downloads++;
	snprintf(h.dl_url, sizeof(h.dl_url), "%s", url);
	h.dl_fd = fd;
	h.dl_done = done;
	h.dl_arg = arg;
	return (0);
}

static struct gp_child *
h_spawn(struct gp_plugin_ctx *ctx, const struct gp_child_spec *spec)
{
	h.spawns++;
	h.spec = *spec;
	snprintf(h.argv0, sizeof(h.argv0), "%s", spec->argv[0]);
	return ((struct gp_child *)0x1);
}

static int
h_stop(struct gp_child *c, int32_t sig, uint32_t grace)
{
	return (0);
}

static const struct gp_host_api hapi = {
	.size = sizeof(struct gp_host_api),
	.abi_major = GP_ABI_MAJOR,
	.log = h_log,
	.timer_add = h_timer_add,
	.timer_del = h_timer_del,
	.child_spawn = h_spawn,
	.child_stop = h_stop,
	.http_download = h_download,
};

static void
h_installed(void *arg, const char *binary, const char *why)
{
	h.done++;
	snprintf(h.binary, sizeof(h.binary), "%s", binary ? binary : "");
	snprintf(h.why, sizeof(h.why), "%s", why ? why : "");
}

/* Serve the file at path through the pending download. */
static void
h_serve(const char *path, int rc, int status)
{
	char buf[65536];
	ssize_t n;
	int fd;

	if (path != NULL && (fd = open(path, O_RDONLY)) >= 0) {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (write(h.dl_fd, buf, n) != n)
				break;
		close(fd);
	}
	h.dl_done(h.dl_arg, rc, status, rc ? "Connection refused" : NULL);
}

/* Answer the `--version` child. */
static void
h_version(const char *line, int status)
{
	if (line != NULL)
		h.spec.on_stdout_line(h.spec.arg, line, strlen(line));
	h.spec.on_exit(h.spec.arg, status);
}

static char pins[PATH_MAX];

static struct ps_install *
h_begin(const char *dir, const char *sha)
{
	struct ps_install_config ic;
	struct ps_install *in;

	memset(&h, 0, sizeof(h));
	memset(&ic, 0, sizeof(ic));
	ic.pins = pins;
	ic.dir = dir;
	ic.url = "http://127.0.0.1:1/perfspect.tgz";
	ic.sha256 = sha;
	ic.timeout_s = 300;
	in = ps_install_begin(NULL, &hapi, &ic, h_installed, NULL);
	CHECK(in != NULL && h.done == 0, "begin: nothing reported yet");
	h_fire(1);	/* the kick */
	return (in);
}

/* A pin list with hex (or a line with only "ab": no valid digest of it). */
static void
write_pins(const char *path, const char *hex, mode_t mode)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return;
	fprintf(f, "# pins\n\n%064d  3.16.0  other\n", 0);
	if (strlen(hex) == 64)
		fprintf(f, "  %s  3.17.0  perfspect.tgz\n", hex);
	fprintf(f, "nothex  3.0\n");
	fclose(f);
	chmod(path, mode);
}

/* The pin list's parser (pins.c). */
static void
test_pins(void)
{
	static const char list[] =
	    "# comment\n"
	    "\n"
	    "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"
	    "  3.17.0  https://example/perfspect.tgz\r\n"
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015a"
	    "  short\n"
	    "0000000000000000000000000000000000000000000000000000000000000001\n"
	    "0000000000000000000000000000000000000000000000000000000000000002"
	    "\t3.12.1";
	char v[16];
	size_t n;

	CHECK_INTEQ(ps_pins_find(list, sizeof(list) - 1, "ba7816bf8f01cfea41"
	    "4140de5dae2223b00361a396177a9cb410ff61f20015ad", v, sizeof(v),
	    &n), 1, "pins: listed digest found, case-insensitive");
	CHECK_STREQ(v, "3.17.0", "pins: its version");
	CHECK_INTEQ((int)n, 2, "pins: only well-formed lines count (short "
	    "digest, no version: ignored)");
	CHECK_INTEQ(ps_pins_find(list, sizeof(list) - 1, "000000000000000000"
	    "0000000000000000000000000000000000000000000002", v, sizeof(v),
	    NULL), 1, "pins: last line without a newline, tab separated");
	CHECK_INTEQ(ps_pins_find(list, sizeof(list) - 1, "000000000000000000"
	    "0000000000000000000000000000000000000000000001", v, sizeof(v),
	    NULL), 0, "pins: a digest without a version is no pin");
	CHECK_INTEQ(ps_pins_find(list, sizeof(list) - 1, "ba7816bf", v,
	    sizeof(v), NULL), 0, "pins: a prefix never matches");
	CHECK_INTEQ(ps_pins_find(NULL, 0, "ab", v, sizeof(v), &n), 0,
	    "pins: empty list");
	CHECK_INTEQ(ps_pins_find("000000000000000000000000000000000000000000"
	    "0000000000000000000000  3.1\001x\n", 72, "000000000000000000000"
	    "0000000000000000000000000000000000000000000", v, sizeof(v), &n), 0,
	    "pins: a version with a control byte is no pin");
}

static void
test_install(void)
{
	char dir[PATH_MAX], tgz[PATH_MAX], bin[PATH_MAX], hex[65];
	struct stat st;
	int fd;

	snprintf(dir, sizeof(dir), "%s/var/perfspect", tmp);
	snprintf(tgz, sizeof(tgz), "%s/serve.tgz", tmp);
	snprintf(bin, sizeof(bin), "%s/perfspect/perfspect", dir);
	make_tgz(tgz, good, sizeof(good) / sizeof(good[0]));
	fd = open(tgz, O_RDONLY);
	ps_sha256_fd(fd, hex);
	close(fd);

	/* Fresh install with the right checksum. */
	h_begin(dir, hex);
	CHECK_INTEQ(h.downloads, 1, "no cache: download");
	CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0755 &&
	    st.st_uid == 0, "install dir root-owned 0755");
	h_serve(tgz, 0, 200);
	CHECK(h.spawns == 1 && strstr(h.argv0, "/.staging.") != NULL,
	    "--version run on the extracted binary before it is used");
	h_version("perfspect version 3.17.0_2026-04-20_956744c9", 0);
	CHECK(h.done == 1 && strcmp(h.binary, bin) == 0, "installed");
	CHECK(stat(bin, &st) == 0 && (st.st_mode & 0111) != 0, "binary");

	/* Cached: only --version. */
	h_begin(dir, NULL);
	CHECK(h.downloads == 0 && h.spawns == 1, "cache: no download");
	h_version("perfspect version 3.17.0_2026-04-20_956744c9", 0);
	CHECK(h.done == 1 && strcmp(h.binary, bin) == 0, "cache used");

	/* Cached but broken: reinstalled, without a checksum given, as the
	 * download is a pinned release. */
	snprintf(pins, sizeof(pins), "%s/pins", tmp);
	write_pins(pins, hex, 0644);
	h_begin(dir, NULL);
	h_version(NULL, 1 << 8);
	CHECK_INTEQ(h.downloads, 1, "broken cache: download again");
	h_serve(tgz, 0, 200);
	CHECK(strstr(h.lastlog, "is PerfSpect 3.17.0 (sha256") != NULL,
	    "no checksum given: a pinned release, said so");
	h_version("perfspect version 3.17.0_2026-04-20_956744c9", 0);
	CHECK(h.done == 1 && h.binary[0] != '\0', "reinstalled");

	/* From here on, no cache. */
	snprintf(dir, sizeof(dir), "%s/var/empty", tmp);
	write_pins(pins, "ab", 0644);
	h_begin(dir, NULL);
	h_serve(tgz, 0, 200);
	CHECK(h.done == 1 && h.binary[0] == '\0' && h.spawns == 0 &&
	    strstr(h.why, "not a PerfSpect release this agent knows (1 "
	    "pinned") != NULL && strstr(h.why, "--perfspect-sha256 ") != NULL &&
	    strstr(h.why, hex) != NULL, "neither given nor pinned: refused "
	    "before extraction, naming the digest and the option");
	write_pins(pins, hex, 0664);
	h_begin(dir, NULL);
	h_serve(tgz, 0, 200);
	CHECK(h.done == 1 && h.binary[0] == '\0' &&
	    strstr(h.why, "writable only by it") != NULL,
	    "a pin list others can write is not trusted");
	write_pins(pins, hex, 0644);
	CHECK(stat(dir, &st) == 0 && rmdir(dir) == 0 && mkdir(dir, 0755) == 0,
	    "staging removed after the refusals");
	h_begin(dir, "0000000000000000000000000000000000000000000000000000000"
	    "000000000");
	h_serve(tgz, 0, 200);
	CHECK(h.done == 1 && h.binary[0] == '\0' &&
	    strstr(h.why, "checksum mismatch") != NULL && h.spawns == 0,
	    "wrong checksum refused before extraction");
	CHECK(stat(dir, &st) == 0 && rmdir(dir) == 0 && mkdir(dir, 0755) == 0,
	    "staging removed after a refusal");

	h_begin(dir, NULL);
	h_serve(NULL, -ECONNREFUSED, 0);
	CHECK(h.done == 1 && strstr(h.why, "Connection refused") != NULL,
	    "server down reported");

	h_begin(dir, NULL);
	h_serve(tgz, 0, 404);
	CHECK(h.done == 1 && strstr(h.why, "HTTP 404") != NULL, "HTTP 404");

	h_begin(dir, NULL);
	h_serve(tgz, 0, 200);
	h_version("Usage: perfspect", 0);
	snprintf(bin, sizeof(bin), "%s/perfspect/perfspect", dir);
	CHECK(h.done == 1 && strstr(h.why, "does not run") != NULL &&
	    access(bin, F_OK) != 0, "bad --version: not installed");

	/* Gives up at the timeout; the late download is then ignored. */
	h_begin(dir, NULL);
	h_fire(0);
	CHECK(h.done == 1 && strstr(h.why, "gave up after 300 s") != NULL,
	    "timeout reported");
	h_serve(tgz, 0, 200);
	CHECK(h.done == 1 && h.spawns == 0, "late download ignored");

	/* Cancelled in the middle of a download, then the plugin goes
	 * before the host reports it (it never will): the record is freed
	 * with the plugin (ASan's leak check at exit says if not). */
	ps_install_cancel(h_begin(dir, NULL));
	CHECK(h.done == 0 && h.downloads == 1, "cancelled while the "
	    "download runs: nothing reported");
	CHECK_INTEQ(ps_install_reap(), 1, "the plugin goes: its waiting "
	    "record freed");
}

int
main(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/test_perfspect_install.XXXXXX");
	if (mkdtemp(tmp) == NULL)
		SKIP_ALL("mkdtemp");
	if (geteuid() != 0)
		SKIP_ALL("the installer tests run as root");
	test_path_check();
	test_sha_version();
	test_extract();
	test_pins();
	test_install();
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			printf("# cleanup of %s failed\n", tmp);
	}
	return (testing_done());
}
