/*
 * A local user against the root daemon (issue 12): planted links and FIFOs
 * where the agent writes or reads its own files, writable directories,
 * header injection, a token file that is not the daemon's, spool records
 * cut short, stale snapshot handles.  Each check here failed before the
 * fix it covers.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/fileio.h"
#include "base/http.h"
#include "base/log.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "host/host.h"
#include "output/output.h"
#include "profile/profile.h"
#include "studio/studio.h"
#include "testing.h"

static char tmp[] = "/tmp/gptest-harden.XXXXXX";

static void
set(struct config *c, const char *k, const char *v)
{
	char err[256];

	if (config_set(c, k, v, SRC_CLI, "test", err, sizeof(err)) != 0)
		printf("# config_set %s: %s\n", k, err);
}

static void
put_file(const char *path, const char *text, mode_t mode)
{
	int fd;

	unlink(path);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, mode);
	if (fd == -1 || write(fd, text, strlen(text)) < 0)
		printf("# cannot write %s\n", path);
	close(fd);
	chmod(path, mode);
}

static char *
read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY)) == -1)
		return (buf);
	n = read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	return (buf);
}

/* Names starting with prefix in dir. */
static int
count_prefix(const char *dir, const char *prefix)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	if ((d = opendir(dir)) == NULL)
		return (-1);
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(d);
	return (n);
}

/* Defect 11: a hard link or symlink planted at the temporary name. */
static void
test_atomic_write(void)
{
	char d[PATH_MAX], victim[PATH_MAX], planted[PATH_MAX * 2];
	char buf[256];
	int dfd;

	snprintf(d, sizeof(d), "%s/atomic", tmp);
	mkdir(d, 0700);
	snprintf(victim, sizeof(victim), "%s/victim", tmp);
	put_file(victim, "precious\n", 0644);
	snprintf(planted, sizeof(planted), "%s/" FILE_TMP_PREFIX "x.col", d);
	CHECK(link(victim, planted) == 0, "hard link planted at the old "
	    "temporary name");
	dfd = open(d, O_RDONLY | O_DIRECTORY);
	CHECK_INTEQ(file_write_atomic(dfd, "x.col", "profile", 7, 0600), 0,
	    "the write succeeds beside the planted link");
	CHECK_STREQ(read_file(victim, buf, sizeof(buf)), "precious\n",
	    "the hard link's target is not overwritten");
	snprintf(planted, sizeof(planted), "%s/x.col", d);
	CHECK_STREQ(read_file(planted, buf, sizeof(buf)), "profile",
	    "the profile has its content");

	snprintf(planted, sizeof(planted), "%s/" FILE_TMP_PREFIX "y.col", d);
	CHECK(symlink(victim, planted) == 0, "symlink planted at the old "
	    "temporary name");
	CHECK_INTEQ(file_write_atomic(dfd, "y.col", "profile", 7, 0600), 0,
	    "a planted symlink does not block the output");
	CHECK_STREQ(read_file(victim, buf, sizeof(buf)), "precious\n",
	    "and its target is untouched");
	CHECK_INTEQ(count_prefix(d, FILE_TMP_PREFIX), 2,
	    "no temporary left behind (only the two planted names)");
	close(dfd);
}

/* Defects 9 and 11: modes, and directories others can write. */
static void
test_output_dir(void)
{
	struct config *cfg = config_new();
	struct stat st;
	char d[PATH_MAX], err[1024];
	int rc;

	snprintf(d, sizeof(d), "%s/out-ww", tmp);
	mkdir(d, 0777);
	chmod(d, 01777);
	set(cfg, "output-dir", d);
	err[0] = '\0';
	rc = output_check_dir(cfg, err, sizeof(err));
	CHECK(rc == -EPERM, "a world-writable (1777) output directory is "
	    "refused");
	CHECK(strstr(err, d) != NULL && strstr(err, "chmod go-w") != NULL,
	    "naming the directory and the fix");
	printf("# %s\n", err);

	snprintf(d, sizeof(d), "%s/out-other", tmp);
	mkdir(d, 0700);
	if (geteuid() == 0) {
		CHECK(chown(d, 65534, 65534) == 0, "chown to nobody");
		set(cfg, "output-dir", d);
		CHECK(output_check_dir(cfg, err, sizeof(err)) == -EPERM,
		    "an output directory owned by another user is refused");
		printf("# %s\n", err);
	}

	snprintf(d, sizeof(d), "%s/out-new/sub", tmp);
	set(cfg, "output-dir", d);
	CHECK_INTEQ(output_check_dir(cfg, err, sizeof(err)), 0,
	    "a new output directory is accepted");
	CHECK(stat(d, &st) == 0 && (st.st_mode & 07777) == 0700,
	    "and created 0700 by default");
	snprintf(d, sizeof(d), "%s/out-grp", tmp);
	set(cfg, "output-dir", d);
	set(cfg, "output-group-readable", "true");
	CHECK_INTEQ(output_check_dir(cfg, err, sizeof(err)), 0,
	    "--output-group-readable");
	CHECK(stat(d, &st) == 0 && (st.st_mode & 07777) == 0750,
	    "creates it 0750");
	config_free(cfg);
}

/* Defect 9: an existing spool directory others can write. */
static void
test_spool_dir(void)
{
	char d[PATH_MAX];

	snprintf(d, sizeof(d), "%s/spool-ww", tmp);
	mkdir(d, 0777);
	chmod(d, 0777);
	spool_open(d, 0);
	spool_put("{}\nbody", 7);
	CHECK_INTEQ(count_prefix(d, "0"), 0, "a world-writable spool "
	    "directory is not used (the record stays in memory)");
	CHECK_INTEQ(spool_count(), 1, "and the record is kept");
	spool_close();
}

/* Defect 11: a spool record cut short is found before the upload. */
static void
test_spool_checksum(void)
{
	struct spool_entry *e;
	unsigned char *r;
	char d[PATH_MAX], path[PATH_MAX * 2];
	const char *rec = "{\"hostname\":\"h\"}\nGZIPPEDBODY";
	struct stat st;
	size_t len;

	snprintf(d, sizeof(d), "%s/spool", tmp);
	spool_open(d, 0);
	spool_put(rec, strlen(rec));
	e = spool_first();
	snprintf(path, sizeof(path), "%s/%s", d, e->name);
	r = spool_read(e, &len);
	CHECK(r != NULL && len == strlen(rec) && memcmp(r, rec, len) == 0,
	    "a whole record reads back as written");
	free(r);
	CHECK(stat(path, &st) == 0 && truncate(path, st.st_size - 4) == 0,
	    "cut the record's file short");
	r = spool_read(e, &len);
	CHECK(r == NULL, "a record cut short is detected, not uploaded");
	free(r);
	spool_close();

	/* A record of an earlier version: the bare bytes, no header. */
	put_file(path, rec, 0600);
	spool_open(d, 0);
	r = spool_read(spool_first(), &len);
	CHECK(r != NULL && len == strlen(rec) && memcmp(r, rec, len) == 0,
	    "a record of an earlier version (no checksum) is still read");
	free(r);
	spool_close();
}

/* Defect 11: --log-file through a planted symlink or hard link. */
static void
test_log_file(void)
{
	char victim[PATH_MAX], lnk[PATH_MAX], buf[256];
	int rc;

	snprintf(victim, sizeof(victim), "%s/victim-log", tmp);
	put_file(victim, "root's file\n", 0600);
	snprintf(lnk, sizeof(lnk), "%s/gprofiler.log", tmp);
	symlink(victim, lnk);
	rc = log_open_file(lnk, 0, 0);
	CHECK(rc == -EMLINK, "a log file that is a symlink is refused");
	printf("# %s\n", log_file_refusal(rc));
	log_warnx("this line must not reach the symlink's target");
	CHECK_STREQ(read_file(victim, buf, sizeof(buf)), "root's file\n",
	    "and nothing is appended to its target");
	unlink(lnk);
	CHECK(link(victim, lnk) == 0, "plant a hard link instead");
	CHECK(log_open_file(lnk, 0, 0) == -EMLINK,
	    "a log file with another name (hard link) is refused");
	unlink(lnk);
	CHECK_INTEQ(log_open_file(lnk, 0, 0), 0, "a fresh log file opens");
	log_close_file();
}

/* Defect 11: a config file that is a FIFO must not hang start-up. */
static void
test_config_fifo(void)
{
	struct plugin_list none = TAILQ_HEAD_INITIALIZER(none);
	struct cmdline cl;
	struct config *cfg = NULL;
	char fifo[PATH_MAX], err[1024];
	char *argv[] = { "gprofiler", NULL };
	pid_t pid;
	int status = 0;

	snprintf(fifo, sizeof(fifo), "%s/gprofiler.conf", tmp);
	CHECK(mkfifo(fifo, 0600) == 0, "config file planted as a FIFO");
	if ((pid = fork()) == 0) {
		/* A hang is the failure: SIGALRM ends it. */
		alarm(5);
		setenv("GPROFILER_CONFIG", fifo, 1);
		if (cmdline_parse(&cl, 1, argv, &none, err, sizeof(err)) != 0)
			_exit(3);
		_exit(config_load(&cfg, &cl, &none, err, sizeof(err)) != 0 &&
		    strstr(err, "not a regular file") != NULL ? 0 : 4);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "config_load refuses the FIFO at once (no hang)");
	if (WIFSIGNALED(status))
		printf("# killed by signal %d (hung on the FIFO)\n",
		    WTERMSIG(status));
}

/* Defects 8 and 11: the token file, header injection. */
static void
test_token(struct event_base *base)
{
	struct config *cfg = config_new();
	char path[PATH_MAX], lnk[PATH_MAX], err[1024];
	char *tok = NULL;

	CHECK(!http_header_value_ok("abc\r\nX-Evil: 1"), "CR/LF refused in a "
	    "header value");
	CHECK(!http_header_value_ok("a\001b"), "other controls refused");
	CHECK(http_header_value_ok("a b\tc-_=/+"), "printable text passes");

	set(cfg, "token", "abc\r\nX-Evil: 1");
	CHECK(studio_token_load(cfg, &tok, err, sizeof(err)) == -EINVAL &&
	    tok == NULL, "--token with CR/LF is refused");
	printf("# %s\n", err);
	config_free(cfg);

	cfg = config_new();
	set(cfg, "token", "good-token");
	set(cfg, "service-name", "svc\r\nX-Evil: 1");
	CHECK(studio_init(base, cfg) == -EINVAL,
	    "--service-name with CR/LF is refused");
	config_free(cfg);

	snprintf(path, sizeof(path), "%s/token", tmp);
	put_file(path, "secret-token\n", 0600);
	snprintf(lnk, sizeof(lnk), "%s/token-link", tmp);
	symlink(path, lnk);
	cfg = config_new();
	set(cfg, "token-file", lnk);
	CHECK(studio_token_load(cfg, &tok, err, sizeof(err)) == -EINVAL &&
	    tok == NULL, "a token file that is a symlink is refused");
	printf("# %s\n", err);
	set(cfg, "token-file", path);
	CHECK(studio_token_load(cfg, &tok, err, sizeof(err)) == 0 &&
	    tok != NULL && strcmp(tok, "secret-token") == 0,
	    "the token file itself is read");
	free(tok);
	tok = NULL;
	if (geteuid() == 0) {
		CHECK(chown(path, 65534, 65534) == 0, "chown token to nobody");
		CHECK(studio_token_load(cfg, &tok, err, sizeof(err)) ==
		    -EINVAL && tok == NULL, "a token file owned by another "
		    "user is refused");
		printf("# %s\n", err);
	}
	put_file(path, "abc\001def\n", 0600);
	CHECK(studio_token_load(cfg, &tok, err, sizeof(err)) == -EINVAL,
	    "a token file holding a control character is refused");
	config_free(cfg);
}

/* Defect 10: a late answer on a snapshot the host gave up on. */
static int done_calls;

static void
on_done(void *arg, struct gp_snapshot *s, int status, const char *err)
{
	done_calls++;
}

static int
nop_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	return (0);
}

static void
test_snapshot_handles(struct event_base *base)
{
	static const struct gp_plugin d = { GP_PLUGIN_HEADER, .name = "late",
	    .kind = GP_KIND_PROCESS, .modes = GP_MODE_CPU,
	    .init = nop_init };
	const struct gp_host_api *api = host_api();
	const char *frames[] = { "late_frame" };
	struct plugin p;
	struct gp_snapshot *old, *cur;
	struct profile *prof;

	memset(&p, 0, sizeof(p));
	p.magic = PLUGIN_MAGIC;
	p.manifest.name = "late";
	p.desc = &d;
	p.ctx = host_ctx_new(&p, base);
	old = snapshot_new(p.ctx, on_done, NULL);
	snapshot_free(old);	/* the cycle gave up on it */
	cur = snapshot_new(p.ctx, on_done, NULL);
	CHECK(cur != old, "the next snapshot gets another handle, even at "
	    "the same slot");
	CHECK(api->snapshot_add_stack(old, 1, "late", frames, 1, 5) ==
	    -EINVAL, "adding to an abandoned snapshot is refused");
	api->snapshot_done(old, 0, NULL);
	CHECK_INTEQ(done_calls, 0, "a late snapshot_done does not complete "
	    "the next cycle's snapshot");
	prof = snapshot_take_profile(cur);
	CHECK(profile_total(prof) == 0, "nothing leaked into the next "
	    "cycle's stacks");
	profile_free(prof);
	api->snapshot_done(cur, 0, NULL);
	CHECK_INTEQ(done_calls, 1, "the live snapshot completes");
	snapshot_free(cur);
	host_ctx_free(p.ctx);
}

int
main(void)
{
	struct event_base *base;
	char cmd[PATH_MAX + 16];

	log_init(0, "test_harden");
	if (mkdtemp(tmp) == NULL)
		SKIP_ALL("mkdtemp");
	umask(022);
	base = event_base_new();
	test_atomic_write();
	test_output_dir();
	test_spool_dir();
	test_spool_checksum();
	test_log_file();
	test_config_fifo();
	test_token(base);
	test_snapshot_handles(base);
	event_base_free(base);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", tmp);
	return (testing_done());
}
