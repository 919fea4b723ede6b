/*
 * PerfSpect's CSV files (docs/specs/perfspect.md §4.1, §4.2) as pure functions
 * over bytes: the raw per-interval CSV and the end-of-run summary in its three
 * shapes. Nothing is quoted and names never contain commas, so a field is
 * whatever lies between two commas; names are opaque (spaces, '(', '%').
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfspect.h"

struct field {
	const char *p;
	size_t len;
};

struct lines {
	const char *buf;
	size_t len;
	size_t pos;
	size_t lineno;
};

static int
csv_err(char *err, size_t errlen, size_t lineno, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (err == NULL || errlen == 0)
		return (-EINVAL);
	n = snprintf(err, errlen, "line %zu: ", lineno);
	if (n < 0 || (size_t)n >= errlen)
		return (-EINVAL);
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return (-EINVAL);
}

/*
 * The next line without its "\n" (or "\r\n").  Returns 1 for a terminated
 * line, 2 for an unterminated last line, 0 at the end.
 */
static int
lines_next(struct lines *l, const char **line, size_t *len)
{
	const char *start, *nl;
	size_t left;
	int rc = 1;

	if (l->pos >= l->len)
		return (0);
	start = l->buf + l->pos;
	left = l->len - l->pos;
	nl = memchr(start, '\n', left);
	if (nl == NULL) {
		*len = left;
		l->pos = l->len;
		rc = 2;
	} else {
		*len = nl - start;
		l->pos += *len + 1;
	}
	*line = start;
	if (*len > 0 && start[*len - 1] == '\r')
		(*len)--;
	l->lineno++;
	return (rc);
}

/* Split on ','; -1 when there are more than max fields. */
static int
csv_split(const char *line, size_t len, struct field *f, size_t max)
{
	size_t n = 0, i, start = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && line[i] != ',')
			continue;
		if (n == max)
			return (-1);
		f[n].p = line + start;
		f[n].len = i - start;
		n++;
		start = i + 1;
	}
	return ((int)n);
}

/*
 * Each record of a CSV file to rec(arg, fields, count, line number, err,
 * errlen), blank lines passed over, until rec returns other than 0 (that,
 * or 0).  With partial, an unterminated last line is not a record: it is
 * dropped and *partial set.  *lineno: the last line read.
 */
static int
csv_each(const char *buf, size_t len, int *partial,
    int (*rec)(void *, struct field *, int, size_t, char *, size_t),
    void *arg, size_t *lineno, char *err, size_t errlen)
{
	struct lines l = { buf, len, 0, 0 };
	struct field *f;
	const char *line;
	size_t linelen;
	int n, more, rc = 0;

	if ((f = calloc(PS_CSV_MAX_COLS, sizeof(*f))) == NULL)
		return (-ENOMEM);
	while ((more = lines_next(&l, &line, &linelen)) != 0) {
		if (more == 2 && partial != NULL) {
			*partial = 1;
			break;
		}
		if (linelen == 0)
			continue;
		n = csv_split(line, linelen, f, PS_CSV_MAX_COLS);
		if (n < 0) {
			rc = csv_err(err, errlen, l.lineno, "too many columns");
			break;
		}
		if ((rc = rec(arg, f, n, l.lineno, err, errlen)) != 0)
			break;
	}
	*lineno = l.lineno;
	free(f);
	return (rc);
}

static void
field_trim(struct field *f)
{
	while (f->len > 0 && (f->p[0] == ' ' || f->p[0] == '\t')) {
		f->p++;
		f->len--;
	}
	while (f->len > 0 && (f->p[f->len - 1] == ' ' ||
	    f->p[f->len - 1] == '\t'))
		f->len--;
}

static int
field_eq(const struct field *f, const char *s)
{
	return (f->len == strlen(s) && memcmp(f->p, s, f->len) == 0);
}

/* A %g / %f number, "NaN", "+Inf" or "-Inf"; empty is NaN when allowed. */
static int
field_number(struct field f, int empty_nan, double *v)
{
	char tmp[64], *end;

	field_trim(&f);
	if (f.len == 0) {
		*v = NAN;
		return (empty_nan ? 0 : -1);
	}
	if (f.len >= sizeof(tmp))
		return (-1);
	memcpy(tmp, f.p, f.len);
	tmp[f.len] = '\0';
	/* strtod also takes hex and "infinity"; PerfSpect writes neither. */
	if (strchr(tmp, 'x') != NULL || strchr(tmp, 'X') != NULL)
		return (-1);
	errno = 0;
	*v = strtod(tmp, &end);
	if (end == tmp || *end != '\0')
		return (-1);
	if (isnan(*v))
		*v = NAN;	/* drop the sign and payload of "-nan" */
	return (0);
}

static int
field_int(struct field f, int64_t *v)
{
	char tmp[32], *end;

	field_trim(&f);
	if (f.len == 0 || f.len >= sizeof(tmp))
		return (-1);
	memcpy(tmp, f.p, f.len);
	tmp[f.len] = '\0';
	errno = 0;
	*v = strtoll(tmp, &end, 10);
	return (*end != '\0' || errno != 0 ? -1 : 0);
}

static char *
field_dup(const struct field *f)
{
	return (strndup(f->p, f->len));
}

static void
strv_free(char **v, size_t n)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Names from fields[first..n): non-empty, no control characters. */
static int
names_take(const struct field *f, size_t first, size_t n, char ***out,
    size_t lineno, char *err, size_t errlen)
{
	char **v;
	size_t i, j;

	if ((v = calloc(n - first + 1, sizeof(*v))) == NULL)
		return (-ENOMEM);
	for (i = first; i < n; i++) {
		for (j = 0; j < f[i].len; j++)
			if ((unsigned char)f[i].p[j] < 0x20)
				break;
		if (f[i].len == 0 || j < f[i].len) {
			strv_free(v, i - first);
			return (csv_err(err, errlen, lineno,
			    "column %zu: empty name or control character",
			    i + 1));
		}
		if ((v[i - first] = field_dup(&f[i])) == NULL) {
			strv_free(v, i - first);
			return (-ENOMEM);
		}
	}
	*out = v;
	return (0);
}

void
ps_raw_free(struct ps_raw *raw)
{
	if (raw == NULL)
		return;
	strv_free(raw->names, raw->nmetrics);
	free(raw->rows);
	free(raw->vals);
	memset(raw, 0, sizeof(*raw));
}

static int
raw_header(struct ps_raw *raw, const struct field *f, int n, size_t lineno,
    char *err, size_t errlen)
{
	static const char *const fixed[] = { "TS", "SKT", "CPU", "CID" };
	int i;

	if (n < 5)
		return (csv_err(err, errlen, lineno,
		    "header has no metric columns"));
	for (i = 0; i < 4; i++)
		if (!field_eq(&f[i], fixed[i]))
			return (csv_err(err, errlen, lineno,
			    "header must start TS,SKT,CPU,CID"));
	raw->nmetrics = n - 4;
	return (names_take(f, 4, n, &raw->names, lineno, err, errlen));
}

/* A repeated header (a leftover file appended to) must name the same
 * metrics, or rows could not be compared. */
static int
raw_same_header(const struct ps_raw *raw, const struct field *f, int n)
{
	size_t i;

	if ((size_t)n != raw->nmetrics + 4 || !field_eq(&f[0], "TS"))
		return (0);
	for (i = 0; i < raw->nmetrics; i++)
		if (!field_eq(&f[i + 4], raw->names[i]))
			return (0);
	return (1);
}

static int
raw_grow(struct ps_raw *raw)
{
	struct ps_raw_row *r;
	double *v;
	size_t ncap = raw->cap ? raw->cap * 2 : 64;

	if (ncap > PS_CSV_MAX_ROWS)
		ncap = PS_CSV_MAX_ROWS;
	if ((r = realloc(raw->rows, ncap * sizeof(*r))) == NULL)
		return (-ENOMEM);
	raw->rows = r;
	if ((v = realloc(raw->vals, ncap * raw->nmetrics * sizeof(*v))) ==
	    NULL)
		return (-ENOMEM);
	raw->vals = v;
	raw->cap = ncap;
	return (0);
}

/* The group a row belongs to: whichever of SKT, CPU, CID is set. */
static int
raw_group(const struct field *f, char *group, size_t len)
{
	static const char *const prefix[] = { "SKT", "CPU", "" };
	int i, set = -1;

	for (i = 0; i < 3; i++) {
		if (f[i + 1].len == 0)
			continue;
		if (set >= 0 || f[i + 1].len > 24)
			return (-1);
		set = i;
	}
	if (set < 0) {
		group[0] = '\0';
		return (0);
	}
	snprintf(group, len, "%s%.*s", prefix[set], (int)f[set + 1].len,
	    f[set + 1].p);
	return (0);
}

static int
raw_row(struct ps_raw *raw, const struct field *f, int n, size_t lineno,
    char *err, size_t errlen)
{
	struct ps_raw_row *row = &raw->rows[raw->nrows];
	double *v = &raw->vals[raw->nrows * raw->nmetrics];
	size_t i;

	if ((size_t)n != raw->nmetrics + 4)
		return (csv_err(err, errlen, lineno,
		    "%d fields, the header has %zu", n, raw->nmetrics + 4));
	if (field_int(f[0], &row->ts) != 0)
		return (csv_err(err, errlen, lineno, "TS is not an integer"));
	if (raw_group(f, row->group, sizeof(row->group)) != 0)
		return (csv_err(err, errlen, lineno, "bad SKT/CPU/CID"));
	for (i = 0; i < raw->nmetrics; i++)
		if (field_number(f[i + 4], 1, &v[i]) != 0)
			return (csv_err(err, errlen, lineno,
			    "column %zu (%s): not a number", i + 5,
			    raw->names[i]));
	raw->nrows++;
	return (0);
}

static int
raw_record(void *arg, struct field *f, int n, size_t lineno, char *err,
    size_t errlen)
{
	struct ps_raw *raw = arg;
	int rc;

	if (raw->names == NULL)
		return (raw_header(raw, f, n, lineno, err, errlen));
	if (raw_same_header(raw, f, n))
		return (0);
	if (raw->nrows == PS_CSV_MAX_ROWS)
		return (csv_err(err, errlen, lineno, "too many rows"));
	if (raw->nrows == raw->cap && (rc = raw_grow(raw)) != 0)
		return (rc);
	return (raw_row(raw, f, n, lineno, err, errlen));
}

int
ps_raw_parse(const char *buf, size_t len, struct ps_raw *raw, char *err,
    size_t errlen)
{
	size_t lineno = 0;
	int rc;

	memset(raw, 0, sizeof(*raw));
	/* The file is appended to while PerfSpect runs: a last line without
	 * its newline is still being written. */
	rc = csv_each(buf, len, &raw->partial, raw_record, raw, &lineno, err,
	    errlen);
	if (rc == 0 && raw->names == NULL)
		rc = csv_err(err, errlen, lineno, "no header");
	if (rc != 0)
		ps_raw_free(raw);
	return (rc);
}

void
ps_raw_stats(const struct ps_raw *raw, size_t metric, const char *group,
    struct ps_stats *st)
{
	double v, sum = 0, sq = 0;
	size_t i;

	memset(st, 0, sizeof(*st));
	st->mean = st->min = st->max = st->stddev = NAN;
	if (metric >= raw->nmetrics)
		return;
	for (i = 0; i < raw->nrows; i++) {
		if (group != NULL && strcmp(raw->rows[i].group, group) != 0)
			continue;
		v = raw->vals[i * raw->nmetrics + metric];
		if (!isfinite(v))
			continue;
		if (st->n == 0 || v < st->min)
			st->min = v;
		if (st->n == 0 || v > st->max)
			st->max = v;
		sum += v;
		st->n++;
	}
	if (st->n == 0)
		return;
	st->mean = sum / st->n;
	for (i = 0; i < raw->nrows; i++) {
		if (group != NULL && strcmp(raw->rows[i].group, group) != 0)
			continue;
		v = raw->vals[i * raw->nmetrics + metric];
		if (isfinite(v))
			sq += (v - st->mean) * (v - st->mean);
	}
	st->stddev = sqrt(sq / st->n);
}

void
ps_format_stat(double v, size_t n, char *buf, size_t len)
{
	if (n == 0 || !isfinite(v))
		snprintf(buf, len, "NaN");
	else
		snprintf(buf, len, "%f", v);
}

void
ps_summary_free(struct ps_summary *sum)
{
	size_t i;

	if (sum == NULL)
		return;
	for (i = 0; i < sum->nrows; i++) {
		free(sum->rows[i].name);
		free(sum->rows[i].group);
		strv_free(sum->rows[i].text, sum->ncols);
		free(sum->rows[i].val);
	}
	free(sum->rows);
	strv_free(sum->cols, sum->ncols);
	memset(sum, 0, sizeof(*sum));
}

/* Whether f[first..first+4) is mean,min,max,stddev. */
static int
summary_is_stats(const struct field *f, int n, int first)
{
	static const char *const stats[] = { "mean", "min", "max", "stddev" };
	int i;

	if (n != first + 4)
		return (0);
	for (i = 0; i < 4; i++)
		if (!field_eq(&f[first + i], stats[i]))
			return (0);
	return (1);
}

static int
summary_header(struct ps_summary *sum, const struct field *f, int n,
    size_t lineno, char *err, size_t errlen)
{
	int first = 1;

	if (n >= 1 && field_eq(&f[0], "metric") && summary_is_stats(f, n, 1))
		sum->shape = PS_SUMMARY_SYSTEM;
	else if (n >= 2 && field_eq(&f[0], "metric"))
		sum->shape = PS_SUMMARY_GROUPS;
	else if (n >= 2 && field_eq(&f[1], "metric") &&
	    (field_eq(&f[0], "SKT") || field_eq(&f[0], "CPU") ||
	    field_eq(&f[0], "CID")) && summary_is_stats(f, n, 2)) {
		sum->shape = PS_SUMMARY_ONE_GROUP;
		first = 2;
	} else
		return (csv_err(err, errlen, lineno,
		    "not a PerfSpect summary header"));
	sum->ncols = n - first;
	return (names_take(f, first, n, &sum->cols, lineno, err, errlen));
}

static int
summary_row(struct ps_summary *sum, struct field *f, int n, size_t lineno,
    char *err, size_t errlen)
{
	struct ps_summary_row *r = &sum->rows[sum->nrows];
	size_t i, first = sum->shape == PS_SUMMARY_ONE_GROUP;
	struct field name;

	if ((size_t)n != sum->ncols + first + 1)
		return (csv_err(err, errlen, lineno, "%d fields, expected %zu",
		    n, sum->ncols + first + 1));
	memset(r, 0, sizeof(*r));
	name = f[first];
	if (name.len == 0)
		return (csv_err(err, errlen, lineno, "empty metric name"));
	r->text = calloc(sum->ncols, sizeof(*r->text));
	r->val = calloc(sum->ncols, sizeof(*r->val));
	r->name = field_dup(&name);
	if (first)
		r->group = field_dup(&f[0]);
	sum->nrows++;	/* owned by sum from here: freed on error */
	if (r->text == NULL || r->val == NULL || r->name == NULL ||
	    (first && r->group == NULL))
		return (-ENOMEM);
	for (i = 0; i < sum->ncols; i++) {
		field_trim(&f[first + 1 + i]);
		if (field_number(f[first + 1 + i], 0, &r->val[i]) != 0)
			return (csv_err(err, errlen, lineno,
			    "%s: column %s is not a number", r->name,
			    sum->cols[i]));
		if ((r->text[i] = field_dup(&f[first + 1 + i])) == NULL)
			return (-ENOMEM);
	}
	return (0);
}

static int
summary_record(void *arg, struct field *f, int n, size_t lineno, char *err,
    size_t errlen)
{
	struct ps_summary *sum = arg;
	struct ps_summary_row *nr;
	size_t ncap;

	if (sum->cols == NULL)
		return (summary_header(sum, f, n, lineno, err, errlen));
	if (sum->nrows == PS_CSV_MAX_ROWS)
		return (csv_err(err, errlen, lineno, "too many rows"));
	if (sum->nrows == sum->cap) {
		ncap = sum->cap ? sum->cap * 2 : 64;
		if ((nr = realloc(sum->rows, ncap * sizeof(*nr))) == NULL)
			return (-ENOMEM);
		sum->rows = nr;
		sum->cap = ncap;
	}
	return (summary_row(sum, f, n, lineno, err, errlen));
}

int
ps_summary_parse(const char *buf, size_t len, struct ps_summary *sum,
    char *err, size_t errlen)
{
	size_t lineno = 0;
	int rc;

	memset(sum, 0, sizeof(*sum));
	rc = csv_each(buf, len, NULL, summary_record, sum, &lineno, err,
	    errlen);
	if (rc == 0 && sum->cols == NULL)
		rc = csv_err(err, errlen, lineno, "no header");
	if (rc != 0)
		ps_summary_free(sum);
	return (rc);
}
