/*
 * An example third-party plugin, built out of tree against the installed
 * <gprofiler/plugin.h>: a metrics collector that records the host's load
 * averages over each cycle in the profile header (metadata.loadavg).
 *
 *	cc -O2 -fPIC $(pkg-config --cflags gprofiler-plugin) -shared \
 *	    -o loadavg.so loadavg.c $(pkg-config --libs gprofiler-plugin)
 *	install -m 0644 loadavg.so loadavg.plugin "$(pkg-config \
 *	    --variable=plugindir gprofiler-plugin)"
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

struct loadavg {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	double avg[3];
	int have;
};

static int
loadavg_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    void **privp)
{
	struct loadavg *l;

	if ((l = calloc(1, sizeof(*l))) == NULL)
		return (-ENOMEM);
	l->ctx = ctx;
	l->api = api;
	*privp = l;
	return (0);
}

static int
loadavg_start(void *priv)
{
	(void)priv;
	return (0);
}

/* /proc/loadavg is a small procfs file: reading it never blocks. */
static int
loadavg_snapshot(void *priv, struct gp_snapshot *snap)
{
	struct loadavg *l = priv;
	char buf[128];
	ssize_t n;
	int fd;

	l->have = 0;
	if ((fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC)) != -1) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			l->have = sscanf(buf, "%lf %lf %lf", &l->avg[0],
			    &l->avg[1], &l->avg[2]) == 3;
		}
	}
	if (!l->have)
		l->api->log(l->ctx, GP_LOG_WARN, "cannot read /proc/loadavg");
	l->api->snapshot_done(snap, 0, NULL);
	return (0);
}

static int
loadavg_metadata(void *priv, struct gp_json *md, struct gp_json *hdr)
{
	struct loadavg *l = priv;

	(void)hdr;
	if (!l->have)
		return (l->api->json_set_null(md, "loadavg_1m"));
	l->api->json_set_double(md, "loadavg_1m", l->avg[0]);
	l->api->json_set_double(md, "loadavg_5m", l->avg[1]);
	l->api->json_set_double(md, "loadavg_15m", l->avg[2]);
	return (0);
}

static int
loadavg_stop(void *priv)
{
	struct loadavg *l = priv;

	l->api->stop_done(l->ctx);
	return (0);
}

static void
loadavg_destroy(void *priv)
{
	free(priv);
}

GP_PLUGIN_EXPORT const struct gp_plugin gprofiler_plugin = {
	GP_PLUGIN_HEADER,
	.name = "loadavg",
	.version = "1.0",
	.build = __DATE__,
	.description = "host load averages in the profile header",
	.kind = GP_KIND_METRICS,
	.modes = GP_MODE_CPU | GP_MODE_GPU,
	.init = loadavg_init,
	.start = loadavg_start,
	.snapshot = loadavg_snapshot,
	.metadata = loadavg_metadata,
	.stop = loadavg_stop,
	.destroy = loadavg_destroy,
};
