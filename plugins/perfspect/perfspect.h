/*
 * The perfspect plugin's internal header: the CSV parsers (csv.c), the
 * report builder (report.c), archive path checks (archive_path.c), the
 * installer's pure steps (install_verify.c) and the collector (collect.c),
 * shared by the plugin's files and their unit tests.  Not an ABI.
 */
#ifndef PERFSPECT_H
#define PERFSPECT_H

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

/* Limits on outside input: keep a hostile or runaway file bounded. */
#define PS_CSV_MAX_COLS		4096
#define PS_CSV_MAX_ROWS		200000
#define PS_CSV_MAX_BYTES	(64u << 20)	/* raw CSV read at most */
#define PS_SUMMARY_MAX_BYTES	(4u << 20)
#define PS_HTML_MAX_BYTES	(32u << 20)	/* larger: not even read */
/*
 * The backend refuses uploads over 4 MiB compressed; base64 of gzip does
 * not compress further, so the blob alone must leave room for the stacks.
 */
#define PS_HTMLBLOB_MAX		(2u << 20)

/* csv.c: PerfSpect's raw CSV (docs/specs/perfspect.md §4.1). */
struct ps_raw_row {
	int64_t ts;
	char group[48];	/* "" (system), "SKT0", "CPU3", cid */
};

struct ps_raw {
	char **names;	/* metric display names */
	size_t nmetrics;
	struct ps_raw_row *rows;
	size_t nrows, cap;	/* rows read, and room for */
	double *vals;	/* nrows * nmetrics; NaN = empty */
	int partial;	/* an unterminated last line was dropped */
};

/* csv.c: PerfSpect's summary CSV (docs/specs/perfspect.md §4.2). */
#define PS_SUMMARY_SYSTEM	1	/* metric,mean,min,max,stddev */
#define PS_SUMMARY_GROUPS	2	/* metric,SKT0,SKT1,... (means) */
#define PS_SUMMARY_ONE_GROUP	3	/* SKT,metric,mean,min,max,stddev */

struct ps_summary_row {
	char *name;
	char *group;	/* PS_SUMMARY_ONE_GROUP only */
	char **text;	/* ncols trimmed fields, as written */
	double *val;	/* ncols numbers; NaN for "NaN" */
};

struct ps_summary {
	int shape;	/* PS_SUMMARY_* */
	char **cols;	/* value column names */
	size_t ncols;
	struct ps_summary_row *rows;
	size_t nrows, cap;	/* rows read, and room for */
};

struct ps_stats {
	size_t n;			/* finite values seen */
	double mean, min, max, stddev;	/* population */
};

/* 0, or -EINVAL with "line N: why" in err, or -ENOMEM.  The result is
 * the caller's, freed with ps_raw_free / ps_summary_free (NULL is fine). */
int ps_raw_parse(const char *buf, size_t len, struct ps_raw *raw,
	    char *err, size_t errlen);
void ps_raw_free(struct ps_raw *raw);
int ps_summary_parse(const char *buf, size_t len, struct ps_summary *sum,
	    char *err, size_t errlen);
void ps_summary_free(struct ps_summary *sum);
/* Statistics of one metric over the rows of `group` (NULL: all rows),
 * skipping NaN and Inf as PerfSpect does. */
void ps_raw_stats(const struct ps_raw *raw, size_t metric,
	    const char *group, struct ps_stats *st);
/* Go's %f, or the literal NaN PerfSpect prints when no value was valid. */
void ps_format_stat(double v, size_t n, char *buf, size_t len);

/* report.c: what a finished run gives the header. */
struct ps_metric {
	char *name;
	char *mean;	/* the summary's text, e.g. "NaN" */
};

struct ps_report {
	struct ps_metric *metrics;	/* NULL: no hwmetrics */
	size_t nmetrics;
	int computed;		/* means computed by us from raw CSV */
	size_t rows;		/* raw CSV rows in the window */
	int64_t ts_first;	/* TS of the first and last rows */
	int64_t ts_last;	/* (0: none) */
	char *htmlblob;		/* base64(gzip(html)); NULL: none */
	size_t html_bytes;	/* size of the HTML file */
	char html_dropped[160];	/* why there is no htmlblob */
};

/* Build from the bytes of the three files (any may be NULL). */
int ps_report_build(struct ps_report *rep, const char *summary,
	    size_t summarylen, const char *raw, size_t rawlen,
	    const char *html, size_t htmllen, size_t blobmax, char *err,
	    size_t errlen);
void ps_report_clear(struct ps_report *rep);
/* base64 (standard, padded, one line) of gzip of buf; caller frees. */
char *ps_gzip_base64(const void *buf, size_t len, size_t *outlen);

/* archive_path.c: may an archive entry be extracted (docs/PERFSPECT.md: the
 * installer rejects absolute paths, "..", links pointing outside, devices)? */
#define PS_ENT_FILE	1
#define PS_ENT_DIR	2
#define PS_ENT_SYMLINK	3
#define PS_ENT_HARDLINK	4
#define PS_ENT_OTHER	5	/* devices, fifos, sockets */
/* 0 if acceptable, else -EPERM with the reason in why. */
int ps_archive_path_check(const char *path, size_t pathlen, int type,
	    const char *link, size_t linklen, char *why, size_t whylen);

/* install_verify.c: the installer's pure steps. */
/* Hex SHA-256 of a file; 0 or -errno. */
int ps_sha256_fd(int fd, char hex[65]);
/* Compare a hex digest with the expected text (case-insensitive, spaces
 * trimmed); 0 on match, -EINVAL when `want` is not a SHA-256, -EBADMSG. */
int ps_sha256_match(const char *got, const char *want);
/* Extract the tarball open on fd into dir (which exists, 0700), checking
 * every entry; 0 or -errno with the reason in err. */
int ps_archive_extract(int fd, const char *dir, char *err, size_t errlen);
/* Whether a `perfspect --version` stdout line looks right. */
int ps_version_line_ok(const char *line, size_t len);

/* pins.c: the digests of known PerfSpect releases, one per line as
 * "<sha256>  <version>  [asset]" ('#' comments; other lines ignored).
 * 1 when hex (64 hex digits) is listed, its version copied out; else 0.
 * npins (may be NULL) counts the valid lines. */
#define PS_PINS_MAX_BYTES	(64u << 10)
int ps_pins_find(const char *buf, size_t len, const char *hex,
	    char *version, size_t vlen, size_t *npins);

#endif
