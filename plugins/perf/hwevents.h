/*
 * --hw-events-file: gProfiler's custom PMU event definitions, a JSON object
 * naming events by platform:
 *
 *	{ "_comment": "keys starting with _ are metadata",
 *	  "MY_EVENT": { "<platform>": { "raw": "r01c2" }, ... }, ... }
 *
 * gProfiler resolves --perf-event NAME against perf's own event list first
 * and only then against this file, on the host's platform; the "raw" value
 * is what it hands to perf record -e.  A pure function over the file's bytes
 * (hwevents.c); the caller reads the file and names the platforms.
 */
#ifndef GP_PERF_HWEVENTS_H
#define GP_PERF_HWEVENTS_H

#include <stddef.h>

#define HWEVENTS_MAX_FILE	(1u << 20)	/* larger: refused */

/*
 * The "raw" value of `event` for the first of `platforms` (nplatforms
 * strings; NULL or empty ones skipped) the file defines it for, into raw.
 * 0; -ENOENT when the file does not define the event; -ENODEV when it does,
 * but for none of the platforms; -EINVAL when the file is not such a JSON
 * object or the entry has no usable "raw".  Every failure leaves one line
 * in err naming the event, and the platforms the file knows for it.
 */
int hwevents_lookup(const char *buf, size_t len, const char *event,
	    const char *const *platforms, size_t nplatforms, char *raw,
	    size_t rawlen, char *err, size_t errlen);

/*
 * The first "model name" value of a /proc/cpuinfo text, trimmed, into out
 * ("" when absent or not printable ASCII); the platform gProfiler keys its
 * custom events by.
 */
void hwevents_cpuinfo_model(const char *buf, size_t len, char *out,
	    size_t outlen);
/* The first line of buf, trimmed (a sysfs pmu_name), into out; "" when
 * not printable ASCII. */
void hwevents_first_line(const char *buf, size_t len, char *out,
	    size_t outlen);

#endif
