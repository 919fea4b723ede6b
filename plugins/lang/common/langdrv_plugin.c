/*
 * A sampling runtime plugin's entry points (langdrv.h): init, snapshot,
 * abandon, stop and destroy are the driver's, for a plugin whose state
 * begins with its struct langdrv; each plugin keeps only its start (what
 * its options mean) and its ops.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "langdrv.h"
#include "langplug.h"

int
langdrv_plugin_init(struct gp_plugin_ctx *ctx, const struct gp_host_api *api,
    size_t size, const struct langdrv_ops *ops, void **privp)
{
	struct langdrv *d;
	int rc;

	if ((d = langplug_new(api, size, &rc)) == NULL)
		return (rc);
	/* d is the state's first member: the state is its ops' arg */
	if (langdrv_init(d, ctx, api, ops, d) != 0) {
		free(d);
		return (-ENOMEM);
	}
	*privp = d;
	return (0);
}

void
langdrv_plugin_destroy(void *priv)
{
	struct langdrv *d = priv;

	if (d == NULL)
		return;
	langdrv_reset(d);
	langdrv_free(d);
	free(d);
}

int
langdrv_plugin_enable(struct langdrv *d, const char *option,
    const char *value)
{
	const char *mode = d->api->option_get(d->ctx, option);

	langdrv_reset(d);
	d->enabled = mode != NULL && strcmp(mode, value) == 0;
	return (d->enabled);
}

int
langdrv_plugin_stop(void *priv)
{
	struct langdrv *d = priv;

	langdrv_reset(d);
	d->api->stop_done(d->ctx);
	return (0);
}

int
langdrv_plugin_snapshot(void *priv, struct gp_snapshot *snap)
{
	struct langdrv *d = priv;

	if (!d->enabled) {
		d->api->snapshot_done(snap, 0, NULL);
		return (0);
	}
	return (langdrv_snapshot(d, snap));
}

void
langdrv_plugin_abandon(void *priv, struct gp_snapshot *snap)
{
	(void)snap;
	langdrv_abandon(priv);
}
