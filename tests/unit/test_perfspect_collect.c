/*
 * Unit tests of plugins/perfspect/collect.c, the per-cycle PerfSpect state
 * machine, against a mock host: child_spawn records the spec, and the test
 * plays PerfSpect (writes its files, prints to stderr, exits) through the
 * recorded callbacks.  The real fake runs in tests/integration/6x-*.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "../../plugins/perfspect/collect.h"
#include "../../plugins/perfspect/perfspect.h"
#include "testing.h"

/* The mock host. */
struct gp_json {
	int n;
	char *key[64];
	char type[64];	/* s, n, o, i, d, b */
	char *str[64];
	struct gp_json *obj[64];
};

static struct {
	int spawns;
	char argv[16][PATH_MAX];
	int argc;
	char cwd[PATH_MAX];
	struct gp_child_spec spec;
	int stops;
	int stop_sig;
	int snap_done;
	int stop_done;
	int fail_spawn;
	char stderr_tail[256];
	char lastlog[1024];
} m;

static struct gp_child *const FAKE_CHILD = (struct gp_child *)0x1;
static struct gp_snapshot *const SNAP = (struct gp_snapshot *)0x2;

static void
mock_log(struct gp_plugin_ctx *ctx, int level, const char *fmt, ...)
{
	va_list ap;

	if (level == GP_LOG_DEBUG)
		return;
	va_start(ap, fmt);
	vsnprintf(m.lastlog, sizeof(m.lastlog), fmt, ap);
	va_end(ap);
}

static struct gp_child *
mock_spawn(struct gp_plugin_ctx *ctx, const struct gp_child_spec *spec)
{
	int i;

	if (m.fail_spawn) {
		errno = ENOENT;
		return (NULL);
	}
	m.spawns++;
	for (i = 0; spec->argv[i] != NULL && i < 16; i++)
		snprintf(m.argv[i], sizeof(m.argv[i]), "%s", spec->argv[i]);
	m.argc = i;
	snprintf(m.cwd, sizeof(m.cwd), "%s", spec->cwd ? spec->cwd : "");
	m.spec = *spec;
	m.stderr_tail[0] = '\0';
	return (FAKE_CHILD);
}

static int
mock_stop(struct gp_child *c, int32_t sig, uint32_t grace)
{
	m.stops++;
	m.stop_sig = sig;
	return (0);
}

static int32_t
mock_pid(struct gp_child *c)
{
	return (4242);
}

static size_t
mock_tail(struct gp_child *c, char *buf, size_t len)
{
	return (snprintf(buf, len, "%s", m.stderr_tail));
}

static void
mock_snapshot_done(struct gp_snapshot *s, int32_t st, const char *err)
{
	m.snap_done++;
}

static void
mock_stop_done(struct gp_plugin_ctx *ctx)
{
	m.stop_done++;
}

static struct gp_json *
mock_json_new(void)
{
	return (calloc(1, sizeof(struct gp_json)));
}

static void
mock_json_free(struct gp_json *j)
{
	int i;

	if (j == NULL)
		return;
	for (i = 0; i < j->n; i++) {
		free(j->key[i]);
		free(j->str[i]);
		mock_json_free(j->obj[i]);
	}
	free(j);
}

static int
json_put(struct gp_json *j, const char *key, char type, const char *s,
    struct gp_json *o)
{
	j->key[j->n] = strdup(key);
	j->type[j->n] = type;
	j->str[j->n] = s ? strdup(s) : NULL;
	j->obj[j->n] = o;
	j->n++;
	return (0);
}

static int
mock_set_string(struct gp_json *j, const char *k, const char *v)
{
	return (json_put(j, k, 's', v, NULL));
}

static int
mock_set_int(struct gp_json *j, const char *k, int64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%lld", (long long)v);
	return (json_put(j, k, 'i', b, NULL));
}

static int
mock_set_double(struct gp_json *j, const char *k, double v)
{
	return (json_put(j, k, 'd', NULL, NULL));
}

static int
mock_set_bool(struct gp_json *j, const char *k, int32_t v)
{
	return (json_put(j, k, 'b', v ? "true" : "false", NULL));
}

static int
mock_set_null(struct gp_json *j, const char *k)
{
	return (json_put(j, k, 'n', NULL, NULL));
}

static int
mock_set_object(struct gp_json *j, const char *k, struct gp_json *o)
{
	return (json_put(j, k, 'o', NULL, o));
}

static const struct gp_host_api api = {
	.size = sizeof(struct gp_host_api),
	.abi_major = GP_ABI_MAJOR,
	.log = mock_log,
	.child_spawn = mock_spawn,
	.child_stop = mock_stop,
	.child_pid = mock_pid,
	.child_stderr_tail = mock_tail,
	.snapshot_done = mock_snapshot_done,
	.stop_done = mock_stop_done,
	.json_new = mock_json_new,
	.json_free = mock_json_free,
	.json_set_string = mock_set_string,
	.json_set_int = mock_set_int,
	.json_set_double = mock_set_double,
	.json_set_bool = mock_set_bool,
	.json_set_null = mock_set_null,
	.json_set_object = mock_set_object,
};

static int
json_find(const struct gp_json *j, const char *key)
{
	int i;

	for (i = j->n - 1; i >= 0; i--)
		if (strcmp(j->key[i], key) == 0)
			return (i);
	return (-1);
}

static const char *
json_str(const struct gp_json *j, const char *key)
{
	int i = json_find(j, key);

	return (i >= 0 && j->type[i] == 's' ? j->str[i] : NULL);
}

/* An integer's text. */
static const char *
json_num(const struct gp_json *j, const char *key)
{
	int i = json_find(j, key);

	return (i >= 0 && j->type[i] == 'i' ? j->str[i] : NULL);
}

static char
json_type(const struct gp_json *j, const char *key)
{
	int i = json_find(j, key);

	return (i >= 0 ? j->type[i] : 0);
}

/* Playing PerfSpect. */
static char node[65];

static void
pf_write(const char *dir, const char *suffix, const char *data, size_t len)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s_%s", dir, node, suffix);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		printf("# cannot write %s\n", p);
	close(fd);
}

static const char RAW[] =
    "TS,SKT,CPU,CID,CPI,CPU utilization %,TMA_......MEM_Bandwidth(%)\n"
    "1754500005,,,,1.5,12,\n"
    "1754500010,,,,2.5,14,\n";
static const char SUMMARY[] =
    "metric,mean,min,max,stddev\n"
    "CPI,2.000000,1.500000,2.500000,0.500000\n"
    "CPU utilization %,13.000000,12.000000,14.000000,1.000000\n"
    "TMA_......MEM_Bandwidth(%),NaN,NaN,NaN,NaN\n";
static const char HTML[] = "<html><body>PerfSpect report</body></html>\n";

static void
pf_files(const char *dir, int summary)
{
	pf_write(dir, "metrics.csv", RAW, sizeof(RAW) - 1);
	if (summary) {
		pf_write(dir, "metrics_summary.csv", SUMMARY,
		    sizeof(SUMMARY) - 1);
		pf_write(dir, "metrics_summary.html", HTML, sizeof(HTML) - 1);
	}
}

static void
pf_exit(int status)
{
	m.spec.on_exit(m.spec.arg, status);
}

static int
dir_entries(const char *dir)
{
	char cmd[PATH_MAX + 32];
	FILE *f;
	int n = 0, ch;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	if ((f = popen(cmd, "r")) == NULL)
		return (-1);
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	pclose(f);
	return (n);
}

/* base64 -> gunzip, to compare the blob with the file. */
static int
unblob(const char *b64, char *out, size_t outlen)
{
	static const char a[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char *bin = malloc(strlen(b64));
	size_t n = 0, i;
	uint32_t acc = 0;
	int bits = 0;
	z_stream zs;
	const char *p;

	for (i = 0; b64[i] != '\0' && b64[i] != '='; i++) {
		if ((p = strchr(a, b64[i])) == NULL)
			return (-1);
		acc = acc << 6 | (p - a);
		if ((bits += 6) >= 8) {
			bits -= 8;
			bin[n++] = acc >> bits & 0xff;
		}
	}
	memset(&zs, 0, sizeof(zs));
	inflateInit2(&zs, 15 + 16);
	zs.next_in = bin;
	zs.avail_in = n;
	zs.next_out = (unsigned char *)out;
	zs.avail_out = outlen - 1;
	i = inflate(&zs, Z_FINISH);
	out[zs.total_out] = '\0';
	inflateEnd(&zs);
	free(bin);
	return (i == Z_STREAM_END ? (int)zs.total_out : -1);
}

static void
meta(struct ps_collector *c, struct gp_json **md, struct gp_json **hdr)
{
	*md = mock_json_new();
	*hdr = mock_json_new();
	ps_collector_metadata(c, *md, *hdr);
}

static struct ps_collector *
start(const char *bin)
{
	struct ps_run_config rc;
	struct ps_collector *c = ps_collector_new(NULL, &api);

	memset(&rc, 0, sizeof(rc));
	snprintf(rc.binary, sizeof(rc.binary), "%s", bin);
	rc.duration = 60;
	rc.interval = 5;
	rc.tmpdir = "/tmp";
	CHECK_INTEQ(ps_collector_start(c, &rc), 0, "start");
	return (c);
}

static void
test_normal_cycles(void)
{
	struct ps_collector *c;
	struct gp_json *md, *hdr, *hw;
	struct stat st;
	char dir[PATH_MAX], html[256];
	int i;

	memset(&m, 0, sizeof(m));
	c = start("/opt/perfspect/perfspect");
	snprintf(dir, sizeof(dir), "%s", ps_collector_dir(c));
	CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700,
	    "output dir is private (0700)");
	CHECK_INTEQ(m.spawns, 1, "PerfSpect launched at start");
	CHECK(m.argc == 11 && strcmp(m.argv[1], "metrics") == 0 &&
	    strcmp(m.argv[2], "--duration") == 0 &&
	    strcmp(m.argv[3], "60") == 0 && strcmp(m.argv[5], "5") == 0 &&
	    strcmp(m.argv[7], dir) == 0 &&
	    strcmp(m.argv[8], "--tempdir") == 0 &&
	    strcmp(m.argv[9], dir) == 0 &&
	    strcmp(m.argv[10], "--noupdate") == 0, "argv as documented");
	CHECK_STREQ(m.cwd, dir, "cwd is the private dir (perfspect.log)");

	for (i = 0; i < 2; i++) {
		ps_collector_snapshot(c, SNAP);
		CHECK(m.stops == i + 1 && m.stop_sig == SIGTERM,
		    "cycle end: SIGTERM so that it writes its summary");
		CHECK_INTEQ(m.snap_done, i, "snapshot waits for the exit");
		pf_files(dir, 1);
		pf_exit(0);
		CHECK_INTEQ(m.snap_done, i + 1, "snapshot done at exit");
		CHECK_INTEQ(m.spawns, i + 2, "next cycle's run launched");
		CHECK_INTEQ(dir_entries(dir), 0, "files removed after reading");
		meta(c, &md, &hdr);
		CHECK(json_type(hdr, "hwmetrics") == 'o', "hwmetrics object");
		hw = hdr->obj[json_find(hdr, "hwmetrics")];
		CHECK_STREQ(json_str(hw, "CPI"), "2.000000", "mean as text");
		CHECK_STREQ(json_str(hw, "CPU utilization %"), "13.000000",
		    "name with spaces and %");
		CHECK_STREQ(json_str(hw, "TMA_......MEM_Bandwidth(%)"), "NaN",
		    "NaN kept as a string");
		CHECK(json_str(hdr, "htmlblob") != NULL &&
		    unblob(json_str(hdr, "htmlblob"), html, sizeof(html)) ==
		    (int)sizeof(HTML) - 1 && strcmp(html, HTML) == 0,
		    "htmlblob: base64 of gzip of the file");
		CHECK_STREQ(json_str(md, "perfspect_status"), "ok", "md status ok");
		mock_json_free(md);
		mock_json_free(hdr);
	}

	/* Stopped during set-up: no files, exit 0. */
	ps_collector_snapshot(c, SNAP);
	pf_exit(0);
	meta(c, &md, &hdr);
	CHECK(json_type(hdr, "hwmetrics") == 'n' &&
	    json_type(hdr, "htmlblob") == 'n', "not ready: both null");
	CHECK_STREQ(json_str(md, "perfspect_status"), "not_ready", "md says not ready");
	CHECK_INTEQ(m.spawns, 4, "not ready is no failure: next run");
	mock_json_free(md);
	mock_json_free(hdr);

	/* Killed after the grace: means from the raw CSV. */
	ps_collector_snapshot(c, SNAP);
	pf_files(dir, 0);
	pf_exit(SIGKILL);
	meta(c, &md, &hdr);
	hw = json_type(hdr, "hwmetrics") == 'o' ?
	    hdr->obj[json_find(hdr, "hwmetrics")] : NULL;
	CHECK(hw != NULL && json_str(hw, "CPI") != NULL &&
	    strcmp(json_str(hw, "CPI"), "2.000000") == 0,
	    "killed run: mean computed from the raw CSV");
	CHECK_STREQ(json_str(md, "perfspect_status"), "partial", "md says partial");
	CHECK(json_type(md, "perfspect_computed_means") == 'b', "md: computed means");
	mock_json_free(md);
	mock_json_free(hdr);

	/* Stop: SIGTERM, reaped, dir removed, stop_done. */
	m.stops = 0;
	ps_collector_stop(c);
	CHECK(m.stops == 1 && m.stop_sig == SIGTERM, "stop: SIGTERM");
	CHECK_INTEQ(m.stop_done, 0, "stop waits for the exit");
	pf_files(dir, 1);
	pf_exit(0);
	CHECK_INTEQ(m.stop_done, 1, "stop done after the exit");
	CHECK(stat(dir, &st) != 0, "private dir removed at stop");
	CHECK(strstr(m.lastlog, "Finished hardware metrics collection with "
	    "PerfSpect") != NULL, "stop log line");
	ps_collector_free(c);
}

static void
test_failures(void)
{
	struct ps_collector *c;
	struct gp_json *md, *hdr;
	char dir[PATH_MAX];
	static const char no_targets[] = "Error: no targets remain";
	int i;

	memset(&m, 0, sizeof(m));
	c = start("/opt/perfspect/perfspect");
	snprintf(dir, sizeof(dir), "%s", ps_collector_dir(c));
	/* Leftovers are removed before a launch (docs/specs/perfspect.md §6
	 * #10). */
	pf_files(dir, 1);
	ps_collector_snapshot(c, SNAP);
	pf_exit(0);
	CHECK_INTEQ(dir_entries(dir), 0, "leftover files removed");

	/* Fails on its own mid-cycle: exit 1, stderr says why. */
	m.spec.on_stderr_line(m.spec.arg, no_targets, sizeof(no_targets) - 1);
	snprintf(m.stderr_tail, sizeof(m.stderr_tail), "%s", no_targets);
	pf_exit(1 << 8);
	CHECK_INTEQ(m.spawns, 2, "no relaunch until the cycle ends");
	CHECK(strstr(m.lastlog, "no targets remain") != NULL,
	    "failure logged with its stderr");
	ps_collector_snapshot(c, SNAP);
	CHECK_INTEQ(m.snap_done, 2, "failed run: snapshot done at once");
	meta(c, &md, &hdr);
	CHECK_STREQ(json_str(md, "perfspect_status"), "failed", "md: failed");
	CHECK(json_str(md, "perfspect_error") != NULL &&
	    strstr(json_str(md, "perfspect_error"), "no targets remain") != NULL,
	    "md: the error");
	CHECK(json_type(hdr, "hwmetrics") == 'n', "failed: hwmetrics null");
	mock_json_free(md);
	mock_json_free(hdr);
	CHECK_INTEQ(m.spawns, 3, "first failure: retried next cycle");

	/* Second failure: one cycle skipped, then retried. */
	pf_exit(1 << 8);
	ps_collector_snapshot(c, SNAP);
	CHECK_INTEQ(m.spawns, 3, "second failure: backoff");
	ps_collector_snapshot(c, SNAP);
	meta(c, &md, &hdr);
	CHECK_STREQ(json_str(md, "perfspect_status"), "backoff", "md: backoff");
	mock_json_free(md);
	mock_json_free(hdr);
	CHECK_INTEQ(m.spawns, 4, "retried after the backoff");

	/* Success resets the count. */
	ps_collector_snapshot(c, SNAP);
	pf_files(dir, 1);
	pf_exit(0);
	pf_exit(1 << 8);
	ps_collector_snapshot(c, SNAP);
	CHECK_INTEQ(m.spawns, 6, "success reset the backoff");

	/* Abandoned snapshot: the late exit only relaunches. */
	ps_collector_snapshot(c, SNAP);
	i = m.snap_done;
	ps_collector_abandon(c, SNAP);
	pf_files(dir, 1);
	pf_exit(0);
	CHECK_INTEQ(m.snap_done, i, "abandoned: no snapshot_done");
	CHECK_INTEQ(m.spawns, 7, "abandoned: next run launched");

	/* Cannot exec at all. */
	ps_collector_snapshot(c, SNAP);
	m.fail_spawn = 1;
	pf_exit(0);
	ps_collector_snapshot(c, SNAP);
	meta(c, &md, &hdr);
	CHECK(json_str(md, "perfspect_error") != NULL &&
	    strstr(json_str(md, "perfspect_error"), "cannot run") != NULL,
	    "spawn failure reported");
	mock_json_free(md);
	mock_json_free(hdr);
	ps_collector_stop(c);
	CHECK_INTEQ(m.stop_done, 1, "stop with no child: done at once");
	ps_collector_free(c);
}

static void
test_hold_and_cap(void)
{
	struct ps_collector *c;
	struct gp_json *md, *hdr;
	char dir[PATH_MAX], *big;
	size_t i, len = 3u << 20;

	memset(&m, 0, sizeof(m));
	c = start("");
	CHECK_INTEQ(m.spawns, 0, "no binary yet: nothing launched");
	ps_collector_hold(c, "installing", "PerfSpect is being installed");
	ps_collector_snapshot(c, SNAP);
	meta(c, &md, &hdr);
	CHECK_STREQ(json_str(md, "perfspect_status"), "installing", "md: installing");
	CHECK(json_type(hdr, "htmlblob") == 'n', "installing: null blob");
	mock_json_free(md);
	mock_json_free(hdr);
	ps_collector_use(c, "/var/lib/gprofiler/perfspect/perfspect/perfspect");
	CHECK_INTEQ(m.spawns, 1, "installed: launched");

	/* A huge report: hwmetrics stay, htmlblob is dropped, md says so. */
	snprintf(dir, sizeof(dir), "%s", ps_collector_dir(c));
	big = malloc(len);
	srand(7);
	for (i = 0; i < len; i++)
		big[i] = 'a' + rand() % 26;
	ps_collector_snapshot(c, SNAP);
	pf_files(dir, 1);
	pf_write(dir, "metrics_summary.html", big, len);
	pf_exit(0);
	free(big);
	meta(c, &md, &hdr);
	CHECK(json_type(hdr, "hwmetrics") == 'o', "cap: hwmetrics kept");
	CHECK(json_type(hdr, "htmlblob") == 'n', "cap: htmlblob dropped");
	CHECK(json_str(md, "perfspect_htmlblob_dropped") != NULL,
	    "cap: md says why");
	mock_json_free(md);
	mock_json_free(hdr);
	ps_collector_stop(c);
	pf_exit(0);
	ps_collector_free(c);
}

/*
 * Short cycles: the interval shrinks so that the window, after PerfSpect's
 * set-up, still holds rows; the set-up is measured from the status line;
 * the header says which seconds the rows cover.
 */
static void
test_interval_and_window(void)
{
	struct ps_run_config rc;
	struct ps_collector *c;
	struct gp_json *md, *hdr;
	static const char line[] = "myhost                \xe2\xa3\xbd  "
	    "collecting metrics for 20 seconds        ";
	char dir[PATH_MAX];

	CHECK_INTEQ(ps_collector_interval(60, 7, 5), 5, "60 s cycle: 5 s");
	CHECK_INTEQ(ps_collector_interval(20, 7, 5), 5, "20 s cycle: 5 s");
	CHECK_INTEQ(ps_collector_interval(15, 7, 5), 4, "15 s cycle: two "
	    "rows of 4 s");
	CHECK_INTEQ(ps_collector_interval(10, 7, 5), 1, "10 s cycle: 1 s");
	CHECK_INTEQ(ps_collector_interval(5, 7, 5), 1, "set-up longer than "
	    "the cycle: PerfSpect's minimum");
	CHECK_INTEQ(ps_collector_interval(60, 0.5, 1), 1, "never over max");

	memset(&m, 0, sizeof(m));
	c = ps_collector_new(NULL, &api);
	memset(&rc, 0, sizeof(rc));
	snprintf(rc.binary, sizeof(rc.binary), "/bin/perfspect");
	rc.duration = 10;
	rc.interval = 5;
	rc.cycle = 10;
	rc.tmpdir = "/tmp";
	CHECK_INTEQ(ps_collector_start(c, &rc), 0, "start (10 s cycles)");
	CHECK(m.argc >= 6 && strcmp(m.argv[4], "--interval") == 0 &&
	    strcmp(m.argv[5], "1") == 0, "first run, set-up guessed at 7 s: "
	    "--interval 1");
	snprintf(dir, sizeof(dir), "%s", ps_collector_dir(c));
	m.spec.on_stderr_line(m.spec.arg, line, sizeof(line) - 1);
	ps_collector_snapshot(c, SNAP);
	pf_files(dir, 1);
	pf_exit(0);
	meta(c, &md, &hdr);
	CHECK(json_type(md, "perfspect_setup_seconds") == 'd',
	    "set-up measured from the status line");
	CHECK(json_num(md, "perfspect_first_row_ts") != NULL &&
	    json_num(md, "perfspect_last_row_ts") != NULL &&
	    strcmp(json_num(md, "perfspect_first_row_ts"), "1754500005") == 0 &&
	    strcmp(json_num(md, "perfspect_last_row_ts"), "1754500010") == 0,
	    "the rows' first and last TS in the metadata");
	CHECK(json_num(md, "perfspect_interval") != NULL &&
	    strcmp(json_num(md, "perfspect_interval"), "1") == 0,
	    "the run's interval in the metadata");
	mock_json_free(md);
	mock_json_free(hdr);
	/* Measured set-up (instant here): the whole window is room. */
	CHECK_INTEQ(m.spawns, 2, "next run launched");
	CHECK(strcmp(m.argv[5], "4") == 0, "measured short set-up: "
	    "two rows of 4 s fit in the 10 s window");
	ps_collector_stop(c);
	pf_exit(0);
	ps_collector_free(c);
}

int
main(void)
{
	gethostname(node, sizeof(node));
	test_normal_cycles();
	test_failures();
	test_hold_and_cap();
	test_interval_and_window();
	return (testing_done());
}
