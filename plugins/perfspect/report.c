/*
 * What one finished PerfSpect run gives a cycle's header
 * (docs/specs/perfspect.md §5.3): `hwmetrics` from the summary CSV (name ->
 * mean, as written) and `htmlblob`, base64 of gzip of the HTML report, capped
 * so that the upload stays under the backend's limit.  Pure: the caller reads
 * the files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "perfspect.h"

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void
base64_encode(const unsigned char *in, size_t len, char *out)
{
	size_t i;
	uint32_t v;

	for (i = 0; i + 2 < len; i += 3) {
		v = in[i] << 16 | in[i + 1] << 8 | in[i + 2];
		*out++ = b64[v >> 18 & 63];
		*out++ = b64[v >> 12 & 63];
		*out++ = b64[v >> 6 & 63];
		*out++ = b64[v & 63];
	}
	if (i < len) {
		v = in[i] << 16 | (i + 1 < len ? in[i + 1] << 8 : 0);
		*out++ = b64[v >> 18 & 63];
		*out++ = b64[v >> 12 & 63];
		*out++ = i + 1 < len ? b64[v >> 6 & 63] : '=';
		*out++ = '=';
	}
	*out = '\0';
}

char *
ps_gzip_base64(const void *buf, size_t len, size_t *outlen)
{
	z_stream zs;
	unsigned char *gz;
	char *out = NULL;
	size_t bound;

	memset(&zs, 0, sizeof(zs));
	/* windowBits 15 + 16: a gzip wrapper, as Python's gzip.compress. */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		return (NULL);
	bound = deflateBound(&zs, len) + 32;
	if ((gz = malloc(bound)) == NULL)
		goto out;
	zs.next_in = (unsigned char *)(uintptr_t)buf;
	zs.avail_in = len;
	zs.next_out = gz;
	zs.avail_out = bound;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
		goto out;
	if ((out = malloc((zs.total_out + 2) / 3 * 4 + 1)) == NULL)
		goto out;
	base64_encode(gz, zs.total_out, out);
	if (outlen != NULL)
		*outlen = strlen(out);
out:
	deflateEnd(&zs);
	free(gz);
	return (out);
}

void
ps_report_clear(struct ps_report *rep)
{
	size_t i;

	if (rep == NULL)
		return;
	for (i = 0; i < rep->nmetrics; i++) {
		free(rep->metrics[i].name);
		free(rep->metrics[i].mean);
	}
	free(rep->metrics);
	free(rep->htmlblob);
	memset(rep, 0, sizeof(*rep));
}

static int
report_add(struct ps_report *rep, const char *name, const char *mean)
{
	struct ps_metric *m = &rep->metrics[rep->nmetrics];

	m->name = strdup(name);
	m->mean = strdup(mean);
	rep->nmetrics++;
	return (m->name == NULL || m->mean == NULL ? -ENOMEM : 0);
}

/* The spec's mapping: field 0 -> field 1, as text (the system mean). */
static int
report_from_summary(struct ps_report *rep, const struct ps_summary *sum)
{
	size_t i;
	int rc;

	if (sum->nrows == 0 || sum->ncols == 0)
		return (0);
	if ((rep->metrics = calloc(sum->nrows, sizeof(*rep->metrics))) ==
	    NULL)
		return (-ENOMEM);
	for (i = 0; i < sum->nrows; i++)
		if ((rc = report_add(rep, sum->rows[i].name,
		    sum->rows[i].text[0])) != 0)
			return (rc);
	return (0);
}

/*
 * Without a summary (PerfSpect killed before writing it), the means are
 * ours, computed over the raw rows as PerfSpect would (%f, NaN skipped).
 */
static int
report_from_raw(struct ps_report *rep, const struct ps_raw *raw)
{
	struct ps_stats st;
	char mean[64];
	size_t i;
	int rc;

	if (raw->nrows == 0)
		return (0);
	if ((rep->metrics = calloc(raw->nmetrics, sizeof(*rep->metrics))) ==
	    NULL)
		return (-ENOMEM);
	for (i = 0; i < raw->nmetrics; i++) {
		ps_raw_stats(raw, i, NULL, &st);
		ps_format_stat(st.mean, st.n, mean, sizeof(mean));
		if ((rc = report_add(rep, raw->names[i], mean)) != 0)
			return (rc);
	}
	rep->computed = 1;
	return (0);
}

static void
report_html(struct ps_report *rep, const char *html, size_t htmllen,
    size_t blobmax)
{
	size_t bloblen;

	rep->html_bytes = htmllen;
	if (htmllen > PS_HTML_MAX_BYTES) {
		snprintf(rep->html_dropped, sizeof(rep->html_dropped),
		    "HTML report of %zu bytes is over %u: not attached",
		    htmllen, PS_HTML_MAX_BYTES);
		return;
	}
	if ((rep->htmlblob = ps_gzip_base64(html, htmllen, &bloblen)) ==
	    NULL) {
		snprintf(rep->html_dropped, sizeof(rep->html_dropped),
		    "HTML report could not be compressed");
		return;
	}
	if (bloblen > blobmax) {
		snprintf(rep->html_dropped, sizeof(rep->html_dropped),
		    "htmlblob of %zu bytes is over the %zu-byte cap that "
		    "keeps the upload under the backend's limit: dropped",
		    bloblen, blobmax);
		free(rep->htmlblob);
		rep->htmlblob = NULL;
	}
}

int
ps_report_build(struct ps_report *rep, const char *summary,
    size_t summarylen, const char *raw, size_t rawlen, const char *html,
    size_t htmllen, size_t blobmax, char *err, size_t errlen)
{
	struct ps_summary sum;
	struct ps_raw r;
	int rc = 0;

	memset(rep, 0, sizeof(*rep));
	if (raw != NULL && ps_raw_parse(raw, rawlen, &r, NULL, 0) == 0) {
		rep->rows = r.nrows;
		if (r.nrows > 0) {
			rep->ts_first = r.rows[0].ts;
			rep->ts_last = r.rows[r.nrows - 1].ts;
		}
		if (summary == NULL)
			rc = report_from_raw(rep, &r);
		ps_raw_free(&r);
	}
	if (summary != NULL) {
		rc = ps_summary_parse(summary, summarylen, &sum, err, errlen);
		if (rc == 0) {
			rc = report_from_summary(rep, &sum);
			ps_summary_free(&sum);
		}
	}
	if (rc == 0 && html != NULL)
		report_html(rep, html, htmllen, blobmax);
	if (rc != 0)
		ps_report_clear(rep);
	return (rc);
}
