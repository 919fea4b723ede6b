/*
 * The time window a .col states in its header line ("# {...}"): this
 * agent's cycles write "start_time" and "end_time"; gProfiler's files have
 * metadata.current_time (the cycle's end).  upload-file dates the upload
 * with it, as gProfiler's upload-file does: the backend files a profile
 * under its start time (the S3 key), so "now" would misfile an old file.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "output/col_header.h"

/* n decimal digits at s; -1 if any is not a digit. */
static long
col_digits(const char *s, size_t n)
{
	long v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return (-1);
		v = v * 10 + (s[i] - '0');
	}
	return (v);
}

int
col_time_parse(const char *s, size_t len, struct timespec *ts)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };
	struct tm tm;
	long y, mo, d, h, mi, sec, oh, om, ns = 0, scale;
	size_t i = 19;
	time_t t;
	int sign;

	if (len < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' &&
	    s[10] != ' ') || s[13] != ':' || s[16] != ':')
		return (-EINVAL);
	y = col_digits(s, 4);
	mo = col_digits(s + 5, 2);
	d = col_digits(s + 8, 2);
	h = col_digits(s + 11, 2);
	mi = col_digits(s + 14, 2);
	sec = col_digits(s + 17, 2);
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60)
		return (-EINVAL);
	if (i < len && s[i] == '.') {
		for (i++, scale = 100000000; i < len && s[i] >= '0' &&
		    s[i] <= '9'; i++, scale /= 10)
			if (scale > 0)
				ns += (s[i] - '0') * scale;
		if (s[i - 1] == '.')
			return (-EINVAL);
	}
	oh = om = 0;
	if (i < len && s[i] == 'Z')
		i++;
	else if (i < len && (s[i] == '+' || s[i] == '-')) {
		sign = s[i] == '-' ? -1 : 1;
		if (len - i != 6 || s[i + 3] != ':' ||
		    (oh = col_digits(s + i + 1, 2)) < 0 || oh > 23 ||
		    (om = col_digits(s + i + 4, 2)) < 0 || om > 59)
			return (-EINVAL);
		oh *= sign;
		om *= sign;
		i += 6;
	}
	if (i != len)
		return (-EINVAL);
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = (int)y - 1900;
	tm.tm_mon = (int)mo - 1;
	tm.tm_mday = (int)d;
	tm.tm_hour = (int)h;
	tm.tm_min = (int)mi;
	tm.tm_sec = (int)sec;
	if ((t = timegm(&tm)) == (time_t)-1)
		return (-EINVAL);
	ts->tv_sec = t - (oh * 3600 + om * 60);
	ts->tv_nsec = ns;
	return (0);
}

/* A string member of o parsed as a time; 1 absent, 0 ok, -EINVAL bad. */
static int
col_header_time(struct json_object *o, const char *key, struct timespec *ts,
    char *err, size_t errlen)
{
	struct json_object *v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) || v == NULL)
		return (1);
	if (!json_object_is_type(v, json_type_string) ||
	    col_time_parse(json_object_get_string(v),
	    (size_t)json_object_get_string_len(v), ts) != 0) {
		snprintf(err, errlen, "the header's %s %.40s is not an "
		    "ISO-8601 time", key, json_object_to_json_string(v));
		return (-EINVAL);
	}
	return (0);
}

int
col_header_window(const char *buf, size_t len, struct timespec *start,
    struct timespec *end, char *err, size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *h = NULL, *md = NULL;
	const char *nl;
	size_t n;
	int rs, re, rc = -EINVAL;

	if (len < 2 || buf[0] != '#') {
		snprintf(err, errlen, "no \"# {...}\" header line");
		return (-EINVAL);
	}
	n = (nl = memchr(buf, '\n', len)) != NULL ? (size_t)(nl - buf) : len;
	if (n - 1 > INT32_MAX) {
		snprintf(err, errlen, "the header line is too long");
		return (-EINVAL);
	}
	tok = json_tokener_new();
	h = json_tokener_parse_ex(tok, buf + 1, (int)(n - 1));
	if (h != NULL && json_tokener_get_parse_end(tok) < n - 1 &&
	    strspn(buf + 1 + json_tokener_get_parse_end(tok), " \t\r") !=
	    n - 1 - json_tokener_get_parse_end(tok)) {
		json_object_put(h);
		h = NULL;
	}
	json_tokener_free(tok);
	if (h == NULL || !json_object_is_type(h, json_type_object)) {
		snprintf(err, errlen, "the header line is not a JSON object");
		goto out;
	}
	if ((rs = col_header_time(h, "start_time", start, err, errlen)) < 0 ||
	    (re = col_header_time(h, "end_time", end, err, errlen)) < 0)
		goto out;
	if (rs == 0 && re == 0) {
		if (end->tv_sec < start->tv_sec || (end->tv_sec ==
		    start->tv_sec && end->tv_nsec < start->tv_nsec)) {
			snprintf(err, errlen, "the header's end_time is "
			    "before its start_time");
			goto out;
		}
		rc = 0;
		goto out;
	}
	if (re == 0) {
		*start = *end;
		rc = 1;
		goto out;
	}
	json_object_object_get_ex(h, "metadata", &md);
	if ((re = col_header_time(json_object_is_type(md, json_type_object) ?
	    md : NULL, "current_time", end, err, errlen)) < 0)
		goto out;
	if (rs == 0) {
		/* A start alone: the cycle ended at current_time, if any. */
		if (re > 0 || end->tv_sec < start->tv_sec) {
			*end = *start;
			rc = 1;
		} else
			rc = 0;
	} else if (re == 0) {
		*start = *end;
		rc = 1;
	} else
		snprintf(err, errlen, "the header has no start_time, end_time "
		    "or metadata.current_time");
out:
	json_object_put(h);
	return (rc);
}
