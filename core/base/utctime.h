/*
 * The agent's wall-clock times in text (base room): every one is UTC and
 * ISO 8601 to the second without a zone, "2025-01-08T11:00:00" (log
 * lines, profile file names, profile headers, the API server's fields).
 * Inline so that the files linked alone (tests, fuzz targets) need
 * nothing more.
 */
#ifndef GP_BASE_UTCTIME_H
#define GP_BASE_UTCTIME_H

#include <stddef.h>
#include <time.h>

/* t in UTC into buf: the length written, 0 if it did not fit. */
static inline size_t
utc_iso_time(char *buf, size_t len, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	return (strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm));
}

#endif
