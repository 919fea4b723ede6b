/*
 * The sampling event, opened the same way by every sampler backend: one
 * perf event per online CPU, the event named by --perf-event or, without
 * one, the best the host has.
 */
#include "config.h"

#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sampler_int.h"

#define CPU_ONLINE_PATH	"/sys/devices/system/cpu/online"

static int
sampler_ev_open1(const struct perf_event_attr *tmpl,
    const struct sampler_opts *o, int cpu, uint32_t type, uint64_t config)
{
	struct perf_event_attr attr = *tmpl;
	int fd;

	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	if (o->period > 0)
		attr.sample_period = o->period;
	else {
		attr.freq = 1;
		attr.sample_freq = o->freq;
	}
	fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
	    PERF_FLAG_FD_CLOEXEC);
	return (fd < 0 ? -errno : fd);
}

/* Probe, don't assume: cycles if the host has a PMU, else cpu-clock,
 * else task-clock. */
int
sampler_ev_open(struct sampler_ev *ev, const struct perf_event_attr *tmpl,
    const struct sampler_opts *o, int cpu)
{
	static const struct sampler_ev best[] = {
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles" },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock" },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock" },
	};
	size_t i;
	int fd, rc = -ENOENT;

	if (ev->name != NULL)
		return (sampler_ev_open1(tmpl, o, cpu, ev->type, ev->config));
	for (i = 0; i < sizeof(best) / sizeof(best[0]); i++) {
		fd = sampler_ev_open1(tmpl, o, cpu, best[i].type,
		    best[i].config);
		if (fd >= 0) {
			*ev = best[i];
			return (fd);
		}
		rc = fd;
	}
	return (rc);
}

int
sampler_ev_online(uint8_t *set, int n)
{
	char buf[4096];
	ssize_t len;
	int fd;

	fd = open(CPU_ONLINE_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return (-errno);
	len = read(fd, buf, sizeof(buf));
	close(fd);
	if (len <= 0)
		return (-EIO);
	return (cpulist_parse(buf, (size_t)len, set, (size_t)n));
}

void
sampler_ev_explain(const struct sampler_ev *ev, int rc, char *err,
    size_t errlen)
{
	char hint[320] = "";
	int hw = ev->type == PERF_TYPE_HARDWARE ||
	    ev->type == PERF_TYPE_HW_CACHE || ev->type == PERF_TYPE_RAW;

	if (rc == -EACCES || rc == -EPERM)
		snprintf(hint, sizeof(hint), "; needs root or CAP_PERFMON "
		    "(see kernel.perf_event_paranoid)");
	else if (hw && (rc == -ENOENT || rc == -EOPNOTSUPP ||
	    rc == -ENODEV || rc == -EINVAL))
		snprintf(hint, sizeof(hint), "; this machine exposes no "
		    "hardware PMU that counts it (a VM without a virtual "
		    "PMU?): use a software event such as cpu-clock or "
		    "page-faults, or a host where `perf stat -e %.64s true` "
		    "counts it", ev->name);
	else if (rc == -EOPNOTSUPP)
		snprintf(hint, sizeof(hint), "; the kernel cannot sample it");
	snprintf(err, errlen, "--perf-event %s: cannot sample this %s event "
	    "on any CPU: %s%s", ev->name, ev->type == PERF_TYPE_HARDWARE ?
	    "hardware" : ev->type == PERF_TYPE_SOFTWARE ? "software" :
	    ev->type == PERF_TYPE_HW_CACHE ? "hardware cache" :
	    ev->type == PERF_TYPE_RAW ? "raw hardware" : "tracepoint",
	    strerror(-rc), hint);
}

void
sampler_ev_explain_any(int rc, char *err, size_t errlen)
{
	snprintf(err, errlen, "cannot open a sampling perf event: %s%s",
	    strerror(-rc), rc == -EACCES || rc == -EPERM ?
	    " (needs root or CAP_PERFMON; see kernel.perf_event_paranoid)" :
	    "");
}
