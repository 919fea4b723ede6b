/*
 * The iaprof plugin's process handling against the fake iaprof, through a
 * mock host with a real event loop (tests/unit/iaprof_host_mock.c):
 * docs/specs/iaprof.md §6 and §7.  Deadlines are shortened via the
 * GP_IAPROF_*_TIMEOUT_MS variables the plugin honours for tests.
 */
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testing.h"
#include "iaprof_host_mock.h"
#include "iaprof_model.h"
#include "../../plugins/iaprof/iaprof.h"

extern const struct gp_plugin gprofiler_plugin;
static const struct gp_plugin *P = &gprofiler_plugin;
static char fake[PATH_MAX], logpath[PATH_MAX], state[PATH_MAX];
static char tmpdir[] = "/tmp/iaproftest.XXXXXX";

static char *
slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (f != NULL) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return (buf);
}

static unsigned
count_of(const char *hay, const char *needle)
{
	unsigned n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay++;
	}
	return (n);
}

/* A fresh plugin instance with the fake in `mode`. */
static struct iaprof *
setup(const char *mode)
{
	void *priv = NULL;

	unlink(logpath);
	unlink(state);
	unsetenv("FAKE_IAPROF_MODE_RUNS");
	unsetenv("FAKE_IAPROF_VERSION");
	unsetenv("FAKE_IAPROF_VERSION_STDOUT");
	unsetenv("FAKE_IAPROF_BLOCKS");
	setenv("FAKE_IAPROF_MODE", mode, 1);
	mock_options_clear();
	mock_option("iaprof-path", fake);
	mock_log[0] = '\0';
	mock_stop_done = 0;
	if (P->init(mock_ctx, &mock_api, &priv) != 0)
		abort();
	return (priv);
}

static void
teardown(struct iaprof *ia)
{
	if (!mock_stop_done && P->stop(ia) == 0)
		mock_run(&mock_stop_done, 15000);
	P->destroy(ia);
	mock_run(NULL, 20);
}

/* Run a cycle of `ms`, then a snapshot until it completes. */
static struct gp_snapshot *
cycle(struct iaprof *ia, unsigned ms)
{
	struct gp_snapshot *s = mock_snapshot_new();

	mock_run(NULL, ms);
	P->snapshot(ia, s);
	mock_run(&s->done, 20000);
	return (s);
}

/*
 * Until iaprof's first interval has arrived (at most 20 s): a loaded host
 * (ASan, a parallel suite) can take longer than a test's window to start
 * the fake, and the window is meant to measure the stream, not start-up.
 */
static void
wait_running(struct iaprof *ia)
{
	int i;

	for (i = 0; i < 2000 && ia->state != IAP_RUNNING; i++)
		mock_run(NULL, 10);
}

static void
test_check(void)
{
	static const int freq[] = { 1, 3, 7, 11, 16, 80, 100, 400, 1000 };
	static const int ms[] = { 1000, 333, 143, 91, 62, 12, 10, 2, 1 };
	static const char *bad[] = { "0", "1001", "-5", "abc", "10x" };
	struct iaprof *ia = setup("normal");
	char err[256];
	size_t i;
	int ok = 1;

	CHECK(P->check(ia, err, sizeof(err)) == 0, "defaults pass check()");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mock_option("profiling-frequency", bad[i]);
		err[0] = '\0';
		ok &= P->check(ia, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "--profiling-frequency") != NULL;
	}
	CHECK(ok, "-f outside 1..1000 or not a number is a usage error");
	mock_option("profiling-frequency", "1000");
	mock_option("iaprof-eu-stall-subsample", "0");
	CHECK(P->check(ia, err, sizeof(err)) == -EINVAL &&
	    strstr(err, "subsample") != NULL, "subsample 0 refused");
	for (i = 0, ok = 1; i < sizeof(freq) / sizeof(freq[0]); i++)
		ok &= iaprof_interval_ms(freq[i]) == ms[i];
	CHECK(ok, "interval_ms = round(1000/f), halves to even");
	CHECK(P->kind == GP_KIND_SYSTEM && P->modes == GP_MODE_GPU,
	    "a system profiler for gpu mode");
	teardown(ia);
}

static void
test_normal(const char *mode, unsigned ms)
{
	struct iaprof *ia = setup(mode);
	struct gp_snapshot *s;
	struct gp_json md;
	char why[512] = "", what[128], *log;
	int k;

	CHECK(P->start(ia) == 0, "start");
	wait_running(ia);
	s = cycle(ia, ms);
	snprintf(what, sizeof(what), "%s: snapshot succeeds", mode);
	CHECK(s->done && s->status == 0, what);
	k = model_check(s->stacks, 1, why, sizeof(why));
	snprintf(what, sizeof(what), "%s: folded exactly as the model (%s)",
	    mode, why);
	CHECK(k > 0, what);
	if (k <= 0)
		printf("# %s\n", s->stacks);
	mock_snapshot_free(s);
	s = cycle(ia, ms);
	k = model_check(s->stacks, 1, why, sizeof(why));
	snprintf(what, sizeof(what), "%s: second snapshot too (%s)", mode,
	    why);
	CHECK(s->status == 0 && k > 0, what);
	mock_snapshot_free(s);
	memset(&md, 0, sizeof(md));
	P->metadata(ia, &md, NULL);
	CHECK_STREQ(md.text, "iaprof_version=\"2026.3\"\n"
	    "iaprof_output_interval_ms=10\n"
	    "iaprof_eu_stall_subsample=100\n"
	    "iaprof_malformed_records=0\n", "metadata keys");
	teardown(ia);
	log = slurp(logpath);
	CHECK(strstr(log, "--interval=10 --eu-stall-subsample=100\n") != NULL,
	    "argv is --interval=<ms> --eu-stall-subsample=<N>");
	CHECK(count_of(log, "signal") == 1 && strstr(log, " INT\n") != NULL,
	    "stopped with SIGINT only");
	CHECK(mock_children() == 0 && mock_zombies() == 0, "reaped");
}

static void
test_version(const char *out, const char *err, const char *expect)
{
	struct iaprof *ia = setup("normal");
	struct gp_snapshot *s;
	char what[256];

	if (out != NULL)
		setenv("FAKE_IAPROF_VERSION_STDOUT", out, 1);
	setenv("FAKE_IAPROF_VERSION", err, 1);
	CHECK(P->start(ia) == 0, "start returns (the gate runs async)");
	if (expect == NULL)
		wait_running(ia);
	s = cycle(ia, 100);
	snprintf(what, sizeof(what), "version '%s'/'%s': %s", out ? out : "",
	    err, expect ? expect : "accepted");
	if (expect != NULL) {
		CHECK(s->status < 0 && strcmp(s->err, expect) == 0, what);
		CHECK(strstr(slurp(logpath), "start ") == NULL,
		    "the profiling child is never launched");
	} else
		CHECK(s->status == 0, what);
	if (expect != NULL && strcmp(s->err, expect) != 0)
		printf("# got: %s\n", s->err);
	mock_snapshot_free(s);
	teardown(ia);
}

static void
test_nogpu(void)
{
	struct iaprof *ia = setup("nogpu");
	struct gp_snapshot *s;

	P->start(ia);
	s = cycle(ia, 100);
	CHECK(s->status < 0 && strncmp(s->err, "iaprof failed to start: ",
	    24) == 0 && strstr(s->err, "WARNING: Failed to open device: "
	    "/dev/dri/card15\n") != NULL && strlen(s->err) > 34 &&
	    strcmp(s->err + strlen(s->err) - 34,
	    "ERROR: Failed to open any drivers.") == 0,
	    "no GPU: iaprof failed to start: ...Failed to open any drivers.");
	mock_snapshot_free(s);
	teardown(ia);
}

static void
test_nointerval(void)
{
	struct iaprof *ia = setup("nointerval");
	struct gp_snapshot *s;

	setenv("GP_IAPROF_START_TIMEOUT_MS", "600", 1);
	P->start(ia);
	s = cycle(ia, 50);
	CHECK(s->status < 0 && strncmp(s->err, "iaprof failed to start: ",
	    24) == 0 && strstr(s->err, "INFO: waiting for a kernel") != NULL,
	    "no interval: start times out with the stderr tail");
	CHECK(strstr(slurp(logpath), " INT\n") != NULL &&
	    strstr(slurp(logpath), "exit ") != NULL, "the child was stopped");
	CHECK(mock_zombies() == 0, "and reaped");
	mock_snapshot_free(s);
	teardown(ia);
	unsetenv("GP_IAPROF_START_TIMEOUT_MS");
}

/* The seed's bug: a snapshot timeout must leave nothing stale behind. */
static void
test_stall(void)
{
	struct iaprof *ia = setup("stall");
	struct gp_snapshot *s;
	char why[512] = "", *log;
	int k;

	setenv("FAKE_IAPROF_MODE_RUNS", "1", 1);
	setenv("FAKE_IAPROF_STATE", state, 1);
	setenv("FAKE_IAPROF_BLOCKS", "2", 1);
	setenv("GP_IAPROF_SNAPSHOT_TIMEOUT_MS", "500", 1);
	P->start(ia);
	wait_running(ia);
	s = cycle(ia, 200);
	CHECK(s->status < 0 && strncmp(s->err, "iaprof snapshot timed out: ",
	    27) == 0, "stalled: snapshot timed out");
	CHECK(mock_zombies() == 0, "the stalled child is reaped, no zombie");
	mock_snapshot_free(s);
	wait_running(ia);
	s = cycle(ia, 300);
	k = model_check(s->stacks, 2, why, sizeof(why));
	CHECK(s->status == 0 && k > 0, "the next cycle succeeds with the "
	    "restarted child's texts only");
	if (k <= 0)
		printf("# %s (%s) %s\n", why, s->err, s->stacks);
	log = slurp(logpath);
	CHECK(count_of(log, "start ") == 2 && strstr(log, " 2 --interval") !=
	    NULL, "a fresh child (second run)");
	mock_snapshot_free(s);
	teardown(ia);
	unsetenv("FAKE_IAPROF_STATE");
	unsetenv("GP_IAPROF_SNAPSHOT_TIMEOUT_MS");
}

static void
test_dies(void)
{
	struct iaprof *ia = setup("dies");
	struct gp_snapshot *s;
	char why[512] = "";
	int k;

	setenv("FAKE_IAPROF_MODE_RUNS", "1", 1);
	setenv("FAKE_IAPROF_STATE", state, 1);
	P->start(ia);
	wait_running(ia);
	s = cycle(ia, 300);
	CHECK(s->status < 0 && strncmp(s->err, "iaprof snapshot failed: ",
	    24) == 0 && strlen(s->err) > 11 &&
	    strcmp(s->err + strlen(s->err) - 11, "device lost") == 0,
	    "died: iaprof snapshot failed: ...device lost");
	mock_snapshot_free(s);
	wait_running(ia);
	s = cycle(ia, 300);
	k = model_check(s->stacks, 2, why, sizeof(why));
	CHECK(s->status == 0 && k > 0 && strstr(s->stacks, "python3;") ==
	    NULL, "restarted: new ids, no stale text");
	if (k <= 0)
		printf("# %s (%s)\n", why, s->err);
	CHECK(strstr(mock_log, "iaprof not running (unexpectedly), "
	    "restarting... kernels loaded before the restart may not be "
	    "attributed") != NULL, "the restart is logged");
	mock_snapshot_free(s);
	teardown(ia);
	unsetenv("FAKE_IAPROF_STATE");
}

static void
test_ignoreint(void)
{
	struct iaprof *ia = setup("ignoreint");
	struct gp_snapshot *s;
	char *log;

	setenv("GP_IAPROF_STOP_TIMEOUT_MS", "400", 1);
	P->start(ia);
	wait_running(ia);
	s = cycle(ia, 100);
	CHECK(s->status == 0, "ignoreint runs");
	mock_snapshot_free(s);
	P->stop(ia);
	CHECK(mock_run(&mock_stop_done, 5000) == 0 && mock_children() == 0,
	    "SIGINT ignored: SIGKILL after the stop timeout, stop completes");
	log = slurp(logpath);
	CHECK(strstr(log, " INT\n") != NULL && strstr(log, "TERM") == NULL,
	    "never SIGTERM");
	CHECK(strstr(mock_log, "killed by signal 9") != NULL,
	    "Stopped iaprof logged with the kill");
	teardown(ia);
	unsetenv("GP_IAPROF_STOP_TIMEOUT_MS");
}

static void
test_malformed(void)
{
	struct iaprof *ia = setup("malformed");
	struct gp_snapshot *s;
	struct gp_json md;
	char why[512] = "", *p;
	int k;
	long n;

	P->start(ia);
	wait_running(ia);
	s = cycle(ia, 200);
	k = model_check(s->stacks, 1, why, sizeof(why));
	CHECK(s->status == 0 && k > 0, "good lines fold around bad ones");
	memset(&md, 0, sizeof(md));
	P->metadata(ia, &md, NULL);
	p = strstr(md.text, "iaprof_malformed_records=");
	n = p != NULL ? strtol(p + 25, NULL, 10) : -1;
	CHECK(k > 0 && n == 9L * k, "9 malformed lines per block counted");
	CHECK(strstr(mock_log, "malformed iaprof records (showing up to 8):")
	    != NULL && strstr(mock_log, "bogus\trecord") != NULL,
	    "the warning shows the lines");
	mock_snapshot_free(s);
	teardown(ia);
}

static void
test_notroot(void)
{
	struct iaprof *ia = setup("normal");
	int status = -1;
	pid_t pid;

	if ((pid = fork()) == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(3);
		_exit(P->start(ia) == -EPERM && mock_children() == 0 ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "not root: start fails before spawning");
	CHECK(strstr(slurp(logpath), "start") == NULL &&
	    strstr(slurp(logpath), "version") == NULL, "nothing was run");
	teardown(ia);
}

int
main(void)
{
	const char *b = getenv("top_builddir");
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/tests/fakes/fake_iaprof",
	    b != NULL ? b : ".");
	if (realpath(path, fake) == NULL)
		SKIP_ALL("tests/fakes/fake_iaprof not built");
	if (geteuid() != 0)
		SKIP_ALL("iaprof needs root");
	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(tmpdir) == NULL)
		return (99);
	snprintf(logpath, sizeof(logpath), "%s/log", tmpdir);
	snprintf(state, sizeof(state), "%s/state", tmpdir);
	setenv("FAKE_IAPROF_LOG", logpath, 1);
	test_check();
	test_normal("normal", 200);
	test_normal("chunked", 300);
	test_normal("bytewise", 200);
	test_normal("midblock", 200);
	test_version(NULL, "2026.2", "iaprof 2026.2 is unsupported; minimum "
	    "version is 2026.3");
	test_version(NULL, "invalid", "Invalid version: 'invalid'");
	test_version(NULL, "", "Invalid version: ''");
	test_version(NULL, "iaprof 2026.3", "Invalid version: 'iaprof "
	    "2026.3'");
	test_version("2026.3", "", NULL);
	test_version("2026.4", "2026.1", NULL);
	test_nogpu();
	test_nointerval();
	test_stall();
	test_dies();
	test_ignoreint();
	test_malformed();
	test_notroot();
	unlink(logpath);
	unlink(state);
	rmdir(tmpdir);
	return (testing_done());
}
