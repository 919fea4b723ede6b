/*
 * The collector: gives every profiling cycle hardware metrics of its own.
 *
 * Why one PerfSpect run per cycle rather than one long run whose raw CSV
 * is tailed: the HTML report, which is what Performance Studio shows (it
 * records a metrics row only when `htmlblob` is present), is written by
 * PerfSpect only when a run ends.  A run per cycle gives each cycle its own
 * summary CSV and HTML, computed by PerfSpect itself.  At the end of a
 * cycle the run is stopped with SIGTERM, which PerfSpect handles by writing
 * both summaries from the rows so far (docs/specs/perfspect.md §3.2); they are
 * read only after the child has exited, as they are not written atomically.
 * The next run starts when the previous one has exited: two concurrent runs
 * would fight over the PMUs and the NMI watchdog setting PerfSpect changes and
 * restores.
 *
 * PerfSpect spends several seconds setting up before the first row (7 s
 * measured on 3.17.0), and a run only starts once the previous one has
 * exited, so those seconds at the start of each window go unmeasured.  The
 * set-up of every run is measured (from the launch to its "collecting
 * metrics" status line) and the next run's --interval is chosen so that
 * the rest of the window still holds rows: PerfSpect's 5 s when there is
 * room, down to 1 s for short cycles.  A cycle that ends during set-up
 * stops the run, which then leaves no files, and the header says
 * "not_ready".  The cycle waits for the summary after SIGTERM, bounded by
 * PS_STOP_GRACE_MS (well within the host's snapshot bound), then SIGKILL;
 * a killed run's means are computed here from its raw CSV.
 *
 * A failing run (exit 1, "Error: no targets remain", no files) is logged
 * with its stderr, reported in the header, and retried after a backoff
 * counted in cycles; CPU profiling never waits for it.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect.h"
#include "perfspect.h"

#define PS_STDOUT_KEEP	1024
#define PS_BACKOFF_PENDING	UINT64_MAX

struct ps_result {
	char status[24];	/* ok, not_ready, failed, ... */
	char error[512];
	int valid;
	double seconds;	/* run time */
	double setup;	/* set-up seconds; 0: not seen */
	int interval;	/* its --interval */
	struct ps_report rep;
};

struct ps_collector {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	struct ps_run_config cfg;
	char dir[PATH_MAX / 2];
	char node[65];

	struct gp_child *child;
	struct timespec run_start;
	struct timespec win_mono;	/* window began */
	double setup_s;			/* last measured */
	double run_setup;		/* this run's; 0 */
	int run_interval;
	char out_tail[PS_STDOUT_KEEP];
	char last_error[256];		/* "Error: ..." */
	struct gp_snapshot *snap;	/* waiting for exit */
	int abandoned;
	int term_sent;	/* by us */
	int stopping;
	int started;

	struct ps_result finished;	/* run ended mid-cycle */
	struct ps_result last;		/* the last cycle's */
	char hold_status[24];
	char hold_why[256];

	uint64_t cycle;
	unsigned not_ready;	/* runs in a row */
	int told_short;
	unsigned failures;
	uint64_t next_run_cycle;
};

static void collector_spawn(struct ps_collector *);

static double
ts_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return ((now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9);
}

int
ps_collector_interval(double left, double setup, int max)
{
	double room = left - setup;
	int ivl;

	if (max < 1)
		max = 1;
	if (room >= 2.0 * max)
		return (max);
	/* Two rows if they fit, else one, else PerfSpect's minimum. */
	ivl = room >= 2.0 ? (int)(room / 2.0) : (int)room;
	if (ivl > max)
		ivl = max;
	return (ivl < 1 ? 1 : ivl);
}

static void
result_clear(struct ps_result *r)
{
	ps_report_clear(&r->rep);
	memset(r, 0, sizeof(*r));
}

static void
result_set(struct ps_result *r, const char *status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
result_set(struct ps_result *r, const char *status, const char *fmt, ...)
{
	va_list ap;

	r->valid = 1;
	snprintf(r->status, sizeof(r->status), "%s", status);
	if (fmt != NULL) {
		va_start(ap, fmt);
		vsnprintf(r->error, sizeof(r->error), fmt, ap);
		va_end(ap);
	}
}

struct ps_collector *
ps_collector_new(struct gp_plugin_ctx *ctx, const struct gp_host_api *api)
{
	struct ps_collector *c;
	struct utsname u;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return (NULL);
	c->ctx = ctx;
	c->api = api;
	/* The files are named for the nodename PerfSpect inherits from us. */
	if (uname(&u) == 0)
		snprintf(c->node, sizeof(c->node), "%s", u.nodename);
	return (c);
}

const char *
ps_collector_dir(const struct ps_collector *c)
{
	return (c->dir);
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	if (f->level == 0)
		return (0);
	if (remove(path) != 0 && errno != ENOENT)
		return (-1);
	return (0);
}

/* Empty the private directory (leftover files, PerfSpect's log). */
static void
collector_clean(struct ps_collector *c)
{
	if (c->dir[0] != '\0')
		nftw(c->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Read a whole regular file of at most max bytes; caller frees *buf. */
static int
read_capped(const char *path, size_t max, char **buf, size_t *len)
{
	struct stat st;
	ssize_t n;
	size_t got = 0;
	int fd, rc = 0;

	*buf = NULL;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return (-errno);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		goto out;
	}
	if ((size_t)st.st_size > max) {
		*len = st.st_size;
		rc = -EFBIG;
		goto out;
	}
	if ((*buf = malloc(st.st_size + 1)) == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size &&
	    (n = read(fd, *buf + got, st.st_size - got)) > 0)
		got += n;
	(*buf)[got] = '\0';
	*len = got;
out:
	close(fd);
	return (rc);
}

static void
collector_file(struct ps_collector *c, const char *suffix, char *path,
    size_t len)
{
	snprintf(path, len, "%s/%s_%s", c->dir, c->node, suffix);
}

/* Build the result of a run that has exited, from the files it left. */
static void
collector_read(struct ps_collector *c, struct ps_result *r, int killed)
{
	char p[PATH_MAX], err[256], *sum = NULL, *raw = NULL, *html = NULL;
	size_t sumlen = 0, rawlen = 0, htmllen = 0;
	int hrc;

	/* A killed run may have left its summary half written. */
	if (!killed) {
		collector_file(c, "metrics_summary.csv", p, sizeof(p));
		read_capped(p, PS_SUMMARY_MAX_BYTES, &sum, &sumlen);
	}
	collector_file(c, "metrics.csv", p, sizeof(p));
	read_capped(p, PS_CSV_MAX_BYTES, &raw, &rawlen);
	collector_file(c, "metrics_summary.html", p, sizeof(p));
	hrc = killed ? -ENOENT : read_capped(p, PS_HTML_MAX_BYTES, &html,
	    &htmllen);
	if (ps_report_build(&r->rep, sum, sumlen, raw, rawlen, html, htmllen,
	    PS_HTMLBLOB_MAX, err, sizeof(err)) != 0)
		result_set(r, "failed", "%s: %s", p, err);
	else if (hrc == -EFBIG)
		snprintf(r->rep.html_dropped, sizeof(r->rep.html_dropped),
		    "HTML report of %zu bytes is over %u: not attached",
		    htmllen, PS_HTML_MAX_BYTES);
	free(sum);
	free(raw);
	free(html);
}

/*
 * Count a failure; the cycles to skip are settled when the failure is
 * reported at a cycle's end (collector_snapshot_done), wherever in the
 * cycle it happened.
 */
static void
collector_backoff(struct ps_collector *c)
{
	c->failures++;
	c->next_run_cycle = PS_BACKOFF_PENDING;
}

static void
collector_backoff_settle(struct ps_collector *c)
{
	unsigned skip;

	if (c->next_run_cycle != PS_BACKOFF_PENDING)
		return;
	skip = c->failures > 4 ? PS_BACKOFF_MAX_CYCLES - 1 :
	    (1u << (c->failures - 1)) - 1;
	c->next_run_cycle = c->cycle + skip;
}

/* Classify how the run ended (status as from waitpid). */
static void
collector_judge(struct ps_collector *c, struct ps_result *r, int status,
    const char *tail)
{
	int killed = WIFSIGNALED(status);

	collector_read(c, r, killed);
	if (r->valid)
		return;		/* unreadable output: already "failed" */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		if (r->rep.metrics != NULL)
			result_set(r, "ok", NULL);
		else
			result_set(r, "not_ready", "PerfSpect collected no "
			    "metrics before the cycle ended (still starting)");
		c->failures = 0;
		return;
	}
	/* Stopped by our SIGTERM during set-up: not an error (the exit
	 * status of that case is not pinned down, §3.2). */
	if (c->term_sent && r->rep.metrics == NULL &&
	    c->last_error[0] == '\0' &&
	    !(killed && WTERMSIG(status) == SIGKILL)) {
		result_set(r, "not_ready", "PerfSpect collected no "
		    "metrics before the cycle ended (still starting)");
		return;
	}
	if (killed)
		result_set(r, r->rep.metrics != NULL ? "partial" : "failed",
		    "PerfSpect did not exit %u ms after SIGTERM and was killed "
		    "(signal %d)%s", c->cfg.grace_ms, WTERMSIG(status),
		    r->rep.metrics != NULL ? "; means computed from its raw "
		    "CSV" : "");
	else
		result_set(r, "failed", "PerfSpect exited with status %d: %s",
		    WEXITSTATUS(status), c->last_error[0] != '\0' ?
		    c->last_error : tail[0] != '\0' ? tail : "no message");
	collector_backoff(c);
	c->api->log(c->ctx, GP_LOG_WARN, "%s (failure %u in a row; retried "
	    "with backoff); stderr:\n%s", r->error, c->failures, tail);
}

static void
collector_snapshot_done(struct ps_collector *c)
{
	struct gp_snapshot *snap = c->snap;

	c->snap = NULL;
	collector_backoff_settle(c);
	if (!c->stopping && c->cfg.binary[0] != '\0' &&
	    c->cycle >= c->next_run_cycle)
		collector_spawn(c);
	c->api->snapshot_done(snap, 0, NULL);
}

static void
collector_finish_stop(struct ps_collector *c)
{
	collector_clean(c);
	if (c->dir[0] != '\0' && rmdir(c->dir) != 0)
		c->api->log(c->ctx, GP_LOG_WARN, "removing %s: %s", c->dir,
		    strerror(errno));
	c->dir[0] = '\0';
	c->started = 0;
	c->api->stop_done(c->ctx);
}

/*
 * A cycle shorter than PerfSpect's set-up never gets a row: say so once,
 * with the cycle length that would, rather than send null forever with
 * only the header's not_ready to tell.
 */
static void
collector_note_short(struct ps_collector *c, const struct ps_result *r)
{
	if (strcmp(r->status, "not_ready") != 0) {
		c->not_ready = 0;
		return;
	}
	if (++c->not_ready < 3 || c->told_short)
		return;
	c->told_short = 1;
	c->api->log(c->ctx, GP_LOG_WARN, "PerfSpect wrote no metrics in %u "
	    "runs in a row: its set-up (about %.0f s) does not fit in the "
	    "%.0f s a cycle gives each run, so no cycle will carry hardware "
	    "metrics; cycles (-d) of 20 s or more carry them from the "
	    "second cycle on", c->not_ready, PS_SETUP_GUESS_S, r->seconds);
}

static void
on_exit_cb(void *arg, int status)
{
	struct ps_collector *c = arg;
	struct ps_result r;
	struct timespec now;
	char tail[2048] = "";

	memset(&r, 0, sizeof(r));
	c->api->child_stderr_tail(c->child, tail, sizeof(tail));
	c->child = NULL;
	clock_gettime(CLOCK_MONOTONIC, &now);
	collector_judge(c, &r, status, tail);
	r.seconds = (now.tv_sec - c->run_start.tv_sec) +
	    (now.tv_nsec - c->run_start.tv_nsec) / 1e9;
	r.setup = c->run_setup;
	r.interval = c->run_interval;
	collector_clean(c);
	if (c->stopping) {
		/* Its stderr is a progress spinner, one line per frame: the
		 * operator's INFO line says how it ended; the output is
		 * there at DEBUG for whoever looks into a failure. */
		c->api->log(c->ctx, GP_LOG_DEBUG, "PerfSpect's last output: "
		    "stdout: %s, stderr: %s", c->out_tail, tail);
		c->api->log(c->ctx, GP_LOG_INFO, "Finished hardware metrics "
		    "collection with PerfSpect (exit status %d, %s)",
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1, r.status);
		result_clear(&r);
		collector_finish_stop(c);
		return;
	}
	c->api->log(c->ctx, GP_LOG_DEBUG, "PerfSpect run ended: %s, %zu "
	    "rows, %.1f s (set-up %.1f s)", r.status, r.rep.rows, r.seconds,
	    r.setup);
	collector_note_short(c, &r);
	if (c->snap != NULL) {
		result_clear(&c->last);
		c->last = r;
		collector_snapshot_done(c);
	} else if (c->abandoned && c->next_run_cycle != PS_BACKOFF_PENDING) {
		/* Too late for its cycle and no failure: just go on. */
		c->abandoned = 0;
		result_clear(&r);
		if (c->cycle >= c->next_run_cycle)
			collector_spawn(c);
	} else {
		c->abandoned = 0;
		/* Ended on its own mid-cycle: the cycle's end reports it. */
		result_clear(&c->finished);
		c->finished = r;
	}
}

static void
on_stdout_cb(void *arg, const char *line, size_t len)
{
	struct ps_collector *c = arg;
	size_t have = strlen(c->out_tail);

	/* Keep the start of the "Metric files:" block for the stop log. */
	if (have + len + 2 < sizeof(c->out_tail))
		snprintf(c->out_tail + have, sizeof(c->out_tail) - have,
		    "%s%.*s", have ? " " : "", (int)len, line);
}

static void
on_stderr_cb(void *arg, const char *line, size_t len)
{
	struct ps_collector *c = arg;
	const char *e;

	/* The end of set-up: the status turns to "collecting metrics ...". */
	if (c->run_setup == 0 &&
	    memmem(line, len, "collecting metrics", 18) != NULL) {
		c->run_setup = ts_since(&c->run_start);
		c->setup_s = c->run_setup;
	}
	/* Progress lines are "<host>  <glyph>  <status>": keep errors. */
	if ((e = memmem(line, len, "Error: ", 7)) != NULL) {
		len -= e - line;
		while (len > 0 && e[len - 1] == ' ')
			len--;
		snprintf(c->last_error, sizeof(c->last_error), "%.*s",
		    (int)len, e);
	}
}

static void
collector_spawn(struct ps_collector *c)
{
	struct gp_child_spec spec;
	char dur[16], ivl[16];
	const char *argv[16];
	double left;
	int n = 0;

	collector_clean(c);
	/* The run is stopped when the window ends, or ends by itself after
	 * its --duration of collection. */
	left = c->cfg.cycle > 0 ? c->cfg.cycle - ts_since(&c->win_mono) :
	    c->cfg.duration + c->setup_s;
	if (left > c->cfg.duration + c->setup_s)
		left = c->cfg.duration + c->setup_s;
	c->run_interval = ps_collector_interval(left, c->setup_s,
	    c->cfg.interval);
	c->run_setup = 0;
	snprintf(dur, sizeof(dur), "%d", c->cfg.duration);
	snprintf(ivl, sizeof(ivl), "%d", c->run_interval);
	argv[n++] = c->cfg.binary;
	argv[n++] = "metrics";
	argv[n++] = "--duration";
	argv[n++] = dur;
	argv[n++] = "--interval";
	argv[n++] = ivl;
	argv[n++] = "--output";
	argv[n++] = c->dir;
	/* The tools it unpacks go there too: removed with the rest whatever
	 * becomes of the run (killed, it would leave them), and written
	 * where the agent may write (the unit's /tmp is read-only). */
	argv[n++] = "--tempdir";
	argv[n++] = c->dir;
	argv[n++] = "--noupdate";
	if (c->cfg.debug)
		argv[n++] = "--debug";
	argv[n] = NULL;
	spec = (struct gp_child_spec){
		.size = sizeof(spec),
		.argv = argv,
	};
	spec.cwd = c->dir;	/* perfspect.log is written to the cwd */
	spec.on_stdout_line = on_stdout_cb;
	spec.on_stderr_line = on_stderr_cb;
	spec.on_exit = on_exit_cb;
	spec.arg = c;
	c->out_tail[0] = '\0';
	c->last_error[0] = '\0';
	c->term_sent = 0;
	clock_gettime(CLOCK_MONOTONIC, &c->run_start);
	if ((c->child = c->api->child_spawn(c->ctx, &spec)) == NULL) {
		result_clear(&c->finished);
		result_set(&c->finished, "failed", "cannot run %s: %s",
		    c->cfg.binary, strerror(errno));
		collector_backoff(c);
		c->api->log(c->ctx, GP_LOG_WARN, "%s", c->finished.error);
		return;
	}
	c->api->log(c->ctx, GP_LOG_DEBUG, "PerfSpect started (pid %d): "
	    "metrics --duration %s --interval %s --output %s --tempdir %s",
	    c->api->child_pid(c->child), dur, ivl, c->dir, c->dir);
}

int
ps_collector_start(struct ps_collector *c, const struct ps_run_config *cfg)
{
	char tmpl[PATH_MAX];

	c->cfg = *cfg;
	if (c->cfg.grace_ms == 0)
		c->cfg.grace_ms = PS_STOP_GRACE_MS;
	c->stopping = c->abandoned = 0;
	c->cycle = c->failures = c->next_run_cycle = 0;
	if (c->cfg.interval < 1)
		c->cfg.interval = 5;
	c->setup_s = PS_SETUP_GUESS_S;
	clock_gettime(CLOCK_MONOTONIC, &c->win_mono);
	result_clear(&c->last);
	result_clear(&c->finished);
	snprintf(tmpl, sizeof(tmpl), "%s/gprofiler-perfspect.XXXXXX",
	    cfg->tmpdir != NULL ? cfg->tmpdir : "/tmp");
	/* mkdtemp makes it 0700: the metrics are nobody else's business. */
	if (mkdtemp(tmpl) == NULL) {
		c->api->log(c->ctx, GP_LOG_ERR, "creating %s: %s", tmpl,
		    strerror(errno));
		return (-errno);
	}
	snprintf(c->dir, sizeof(c->dir), "%.2000s", tmpl);
	c->started = 1;
	if (c->cfg.binary[0] != '\0')
		collector_spawn(c);
	return (0);
}

void
ps_collector_hold(struct ps_collector *c, const char *status,
    const char *why)
{
	snprintf(c->hold_status, sizeof(c->hold_status), "%s", status);
	snprintf(c->hold_why, sizeof(c->hold_why), "%s", why);
}

void
ps_collector_use(struct ps_collector *c, const char *binary)
{
	snprintf(c->cfg.binary, sizeof(c->cfg.binary), "%s", binary);
	c->hold_status[0] = '\0';
	if (c->started && !c->stopping && c->child == NULL &&
	    c->snap == NULL)
		collector_spawn(c);
}

/*
 * The running PerfSpect asked to stop (SIGTERM, then SIGKILL after the
 * grace), once: already stopping (an abandoned cycle), signalling again
 * would push the SIGKILL back.  Whether one runs.
 */
static int
collector_term(struct ps_collector *c)
{
	if (c->child == NULL)
		return (0);
	if (!c->term_sent)
		c->api->child_stop(c->child, SIGTERM, c->cfg.grace_ms);
	c->term_sent = 1;
	return (1);
}

void
ps_collector_snapshot(struct ps_collector *c, struct gp_snapshot *snap)
{
	c->cycle++;
	c->snap = snap;
	/* The cycle's window ends now; the next one begins. */
	clock_gettime(CLOCK_MONOTONIC, &c->win_mono);
	if (collector_term(c))
		return;
	result_clear(&c->last);
	if (c->finished.valid) {
		c->last = c->finished;
		memset(&c->finished, 0, sizeof(c->finished));
	} else if (c->cfg.binary[0] == '\0')
		result_set(&c->last, c->hold_status[0] ? c->hold_status :
		    "unavailable", "%s", c->hold_why);
	else
		result_set(&c->last, "backoff", "PerfSpect failed %u time(s) "
		    "in a row; next attempt after cycle %llu", c->failures,
		    (unsigned long long)c->next_run_cycle);
	collector_snapshot_done(c);
}

void
ps_collector_abandon(struct ps_collector *c, struct gp_snapshot *snap)
{
	if (c->snap != snap)
		return;
	c->snap = NULL;
	c->abandoned = 1;
	result_clear(&c->last);
	result_set(&c->last, "not_ready", "PerfSpect did not finish its "
	    "summary before the cycle's deadline");
}

static void
metadata_hdr(struct ps_collector *c, struct gp_json *hdr)
{
	const struct gp_host_api *api = c->api;
	struct ps_report *rep = &c->last.rep;
	struct gp_json *m;
	size_t i;

	if (rep->metrics != NULL && (m = api->json_new()) != NULL) {
		for (i = 0; i < rep->nmetrics; i++)
			api->json_set_string(m, rep->metrics[i].name,
			    rep->metrics[i].mean);
		api->json_set_object(hdr, "hwmetrics", m);
	} else
		api->json_set_null(hdr, "hwmetrics");
	if (rep->htmlblob != NULL)
		api->json_set_string(hdr, "htmlblob", rep->htmlblob);
	else
		api->json_set_null(hdr, "htmlblob");
}

void
ps_collector_metadata(struct ps_collector *c, struct gp_json *md,
    struct gp_json *hdr)
{
	const struct gp_host_api *api = c->api;
	struct ps_result *r = &c->last;

	/* md is merged flat into "metadata": hence the prefix. */
	metadata_hdr(c, hdr);
	api->json_set_string(md, "perfspect_status", r->valid ? r->status :
	    "not_ready");
	if (r->error[0] != '\0')
		api->json_set_string(md, "perfspect_error", r->error);
	api->json_set_int(md, "perfspect_rows", (int64_t)r->rep.rows);
	api->json_set_double(md, "perfspect_seconds", r->seconds);
	if (r->interval > 0)
		api->json_set_int(md, "perfspect_interval", r->interval);
	if (r->setup > 0)
		api->json_set_double(md, "perfspect_setup_seconds", r->setup);
	/* The rows' own times: which window the values are of. */
	if (r->rep.rows > 0) {
		api->json_set_int(md, "perfspect_first_row_ts",
		    r->rep.ts_first);
		api->json_set_int(md, "perfspect_last_row_ts", r->rep.ts_last);
	}
	if (r->rep.computed)
		api->json_set_bool(md, "perfspect_computed_means", 1);
	if (r->rep.html_dropped[0] != '\0')
		api->json_set_string(md, "perfspect_htmlblob_dropped",
		    r->rep.html_dropped);
}

void
ps_collector_stop(struct ps_collector *c)
{
	c->stopping = 1;
	if (c->snap != NULL) {
		result_clear(&c->last);
		result_set(&c->last, "not_ready", "the run is stopping");
		collector_snapshot_done(c);
	}
	if (collector_term(c))
		return;
	collector_finish_stop(c);
}

void
ps_collector_free(struct ps_collector *c)
{
	if (c == NULL)
		return;
	/* The host reaps a child still running at destroy time, but only
	 * after this: killed now, it cannot write its perfspect.log into
	 * the directory after the removal below (seen in test 610). */
	if (c->child != NULL)
		c->api->child_stop(c->child, SIGKILL, 0);
	collector_clean(c);
	if (c->dir[0] != '\0')
		rmdir(c->dir);
	result_clear(&c->last);
	result_clear(&c->finished);
	free(c);
}
