/*
 * gProfiler's --log-usage (the agent's CPU and memory use, logged every
 * profiling cycle) and --diagnostics (a line of agent internals at start
 * and every 15 minutes, main.py's DIAGNOSTICS_INTERVAL_S).  gProfiler reads
 * its own cgroup; the agent here reads its own /proc entry, which also
 * works outside containers.
 */
#include "config.h"

#include <sys/resource.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/http.h"
#include "base/log.h"
#include "config/configuration.h"

#define DIAG_PERIOD_S	(15 * 60)

static struct {
	struct event *usage_ev;
	struct event *diag_ev;
	double last_cpu;	/* seconds, at the last usage line */
	struct timespec last_ts;
} cu;

static double
compat_cpu_seconds(void)
{
	struct rusage ru, rc;

	getrusage(RUSAGE_SELF, &ru);
	getrusage(RUSAGE_CHILDREN, &rc);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + rc.ru_utime.tv_sec +
	    rc.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec +
	    rc.ru_utime.tv_usec + rc.ru_stime.tv_usec) / 1e6);
}

/* "VmRSS:" style field of /proc/self/status, in kB; -1 if absent. */
static long
compat_status_kb(const char *field)
{
	FILE *f;
	char line[256];
	size_t n = strlen(field);
	long v = -1;

	if ((f = fopen("/proc/self/status", "re")) == NULL)
		return (-1);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, field, n) == 0) {
			v = strtol(line + n, NULL, 10);
			break;
		}
	fclose(f);
	return (v);
}

static int
compat_count_dir(const char *path, int numeric_only)
{
	DIR *d;
	struct dirent *de;
	int n = 0;

	if ((d = opendir(path)) == NULL)
		return (-1);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && (!numeric_only ||
		    (de->d_name[0] >= '0' && de->d_name[0] <= '9')))
			n++;
	closedir(d);
	return (n);
}

static void
compat_usage_tick(evutil_socket_t fd, short what, void *arg)
{
	struct timespec now;
	double cpu, wall;

	(void)fd;
	(void)what;
	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &now);
	cpu = compat_cpu_seconds();
	wall = (now.tv_sec - cu.last_ts.tv_sec) +
	    (now.tv_nsec - cu.last_ts.tv_nsec) / 1e9;
	log_info("usage: CPU %.3f s over the last %.0f s (%.2f%% of one CPU), "
	    "memory %.1f MiB resident, %.1f MiB peak", cpu - cu.last_cpu, wall,
	    wall > 0 ? 100.0 * (cpu - cu.last_cpu) / wall : 0.0,
	    compat_status_kb("VmRSS:") / 1024.0,
	    compat_status_kb("VmHWM:") / 1024.0);
	cu.last_cpu = cpu;
	cu.last_ts = now;
}

static void
compat_diag_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	log_info("diagnostics: pid %d, memory %.1f MiB resident (peak %.1f), "
	    "%ld threads, %d open files, CPU %.2f s in total, %d processes "
	    "on the host, %u HTTP request(s) pending", (int)getpid(),
	    compat_status_kb("VmRSS:") / 1024.0,
	    compat_status_kb("VmHWM:") / 1024.0, compat_status_kb("Threads:"),
	    compat_count_dir("/proc/self/fd", 0), compat_cpu_seconds(),
	    compat_count_dir("/proc", 1), http_pending());
}

/* Start what --log-usage and --diagnostics ask for. */
int
compat_usage_start(struct event_base *base, const struct config *cfg)
{
	struct timeval tv;
	const char *ext;
	char err[512];
	int64_t d;
	int rc;

	/* gProfiler reads the static section once, and exits if the file
	 * is missing or stale. */
	if ((ext = config_get(cfg, "external-metadata")) != NULL &&
	    (rc = extmeta_load(ext, err, sizeof(err))) != 0) {
		log_warnx("%s", err);
		return (rc);
	}
	if (config_get_bool(cfg, "log-usage") && cu.usage_ev == NULL) {
		d = config_get_num(cfg, "profiling-duration");
		if ((cu.usage_ev = event_new(base, -1, EV_PERSIST,
		    compat_usage_tick, NULL)) == NULL)
			return (-ENOMEM);
		clock_gettime(CLOCK_MONOTONIC, &cu.last_ts);
		cu.last_cpu = compat_cpu_seconds();
		tv.tv_sec = d > 0 ? d : 1;	/* the table's bound */
		tv.tv_usec = 0;
		event_add(cu.usage_ev, &tv);
	}
	if (config_get_bool(cfg, "diagnostics") && cu.diag_ev == NULL) {
		if ((cu.diag_ev = event_new(base, -1, EV_PERSIST,
		    compat_diag_tick, NULL)) == NULL)
			return (-ENOMEM);
		tv.tv_sec = DIAG_PERIOD_S;
		tv.tv_usec = 0;
		event_add(cu.diag_ev, &tv);
		compat_diag_tick(-1, 0, NULL);
	}
	return (0);
}

void
compat_usage_stop(void)
{
	extmeta_free();
	if (cu.usage_ev != NULL)
		event_free(cu.usage_ev);
	if (cu.diag_ev != NULL)
		event_free(cu.diag_ev);
	cu.usage_ev = cu.diag_ev = NULL;
}
