/*
 * --perf-event names resolved as gProfiler resolves them: an event perf
 * knows (perfevent.c), else a custom event of --hw-events-file for this
 * host's platform (hwevents.c), whose raw code is then parsed the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gprofiler/plugin.h>

#include "hwevents.h"
#include "perf_int.h"

/*
 * The platform names a --hw-events-file entry may be keyed by: the CPU
 * model as /proc/cpuinfo names it, then the core PMU's name (icelake,
 * sapphire_rapids, ...).
 */
static void
perf_platforms(struct perf *p, char *model, size_t modellen, char *pmu,
    size_t pmulen)
{
	static const char *const pmus[] = {
		"/sys/devices/cpu/caps/pmu_name",
		"/sys/devices/cpu_core/caps/pmu_name",
	};
	struct gp_open_spec spec;
	char buf[16384];
	int64_t n;
	size_t i;

	model[0] = pmu[0] = '\0';
	spec = (struct gp_open_spec){
		.size = sizeof(spec),
		.owner = -1,
		.path = "/proc/cpuinfo",
	};
	/* the first processor's block holds the model name */
	if ((n = p->api->file_read(p->ctx, &spec, buf, sizeof(buf))) > 0)
		hwevents_cpuinfo_model(buf, (size_t)n, model, modellen);
	for (i = 0; i < sizeof(pmus) / sizeof(pmus[0]) && pmu[0] == '\0';
	    i++) {
		spec.path = pmus[i];
		if ((n = p->api->file_read(p->ctx, &spec, buf,
		    sizeof(buf))) > 0)
			hwevents_first_line(buf, (size_t)n, pmu, pmulen);
	}
}

/*
 * --perf-event NAME into ev, as gProfiler resolves it: an event perf knows
 * first, then NAME in --hw-events-file for this host's platform, whose
 * "raw" value is parsed like a --perf-event.  0, or -errno with one line
 * in err.  The source of a custom event goes to `from` ("" otherwise).
 */
int
perf_event_resolve(struct perf *p, const char *name, struct perfevent *ev,
    char *from, size_t fromlen, char *err, size_t errlen)
{
	struct gp_open_spec spec;
	const char *file, *plats[2];
	char model[128], pmu[64], raw[PERFEVENT_NAME_LEN], why[384];
	char *buf = NULL;
	int64_t n;
	int rc;

	from[0] = '\0';
	if (perfevent_parse(name, ev, err, errlen) == 0)
		return (0);
	file = p->api->option_get(p->ctx, "hw-events-file");
	if (file == NULL || file[0] == '\0')
		return (-EINVAL);	/* perf's own list: err says it */
	spec = (struct gp_open_spec){
		.size = sizeof(spec),
		.owner = -1,
		.path = file,
		.max_size = HWEVENTS_MAX_FILE,
	};
	if ((buf = malloc(HWEVENTS_MAX_FILE)) == NULL)
		return (-ENOMEM);
	if ((n = p->api->file_read(p->ctx, &spec, buf,
	    HWEVENTS_MAX_FILE)) < 0) {
		snprintf(err, errlen, "--perf-event %s: not an event perf "
		    "knows, and --hw-events-file %s cannot be read: %s",
		    name, file, n == -EFBIG ? "larger than 1 MiB" :
		    strerror((int)-n));
		rc = (int)n;
		goto out;
	}
	perf_platforms(p, model, sizeof(model), pmu, sizeof(pmu));
	plats[0] = model;
	plats[1] = pmu;
	if ((rc = hwevents_lookup(buf, (size_t)n, name, plats, 2, raw,
	    sizeof(raw), why, sizeof(why))) != 0) {
		snprintf(err, errlen, "--perf-event %s: not an event perf "
		    "knows, and --hw-events-file %s: %s", name, file, why);
		goto out;
	}
	if ((rc = perfevent_parse(raw, ev, why, sizeof(why))) != 0) {
		snprintf(err, errlen, "--perf-event %s: its raw code in "
		    "--hw-events-file %s for '%s': %s", name, file,
		    model[0] != '\0' ? model : pmu, why);
		goto out;
	}
	snprintf(from, fromlen, "%s from %s", raw, file);
	/* metadata and logs name the event as the user did */
	snprintf(ev->name, sizeof(ev->name), "%s", name);
out:
	free(buf);
	return (rc);
}

