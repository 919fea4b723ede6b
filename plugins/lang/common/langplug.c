/*
 * The runtime plugins' common dealings with the host (langplug.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "langplug.h"

/*
 * The host's table of functions, the one every plugin is handed: kept
 * here so that the callbacks need only the plugin's ctx as their
 * argument (each plugin links its own copy of this file).
 */
static const struct gp_host_api *langplug_api;

void *
langplug_new(const struct gp_host_api *api, size_t size, int *rcp)
{
	void *p;

	if (api->abi_major != GP_ABI_MAJOR) {
		*rcp = -EINVAL;
		return (NULL);
	}
	if (!GP_API_HAS(api, file_open)) {
		*rcp = -ENOTSUP;	/* never an unsafe open instead */
		return (NULL);
	}
	if ((p = calloc(1, size)) == NULL) {
		*rcp = -ENOMEM;
		return (NULL);
	}
	langplug_api = api;
	*rcp = 0;
	return (p);
}

int
langplug_open(void *ctx, const struct gp_open_spec *spec,
    struct gp_file_info *info)
{
	return (langplug_api->file_open(ctx, spec, info));
}

int
langplug_maps(void *ctx, int32_t pid, size_t max, char **text, size_t *len)
{
	uint64_t n = 0;
	int rc;

	if (!GP_API_HAS(langplug_api, maps_read))
		return (-ENOSYS);
	rc = langplug_api->maps_read(ctx, pid, max, text, &n);
	*len = (size_t)n;
	return (rc);
}

void
langplug_warn(void *ctx, const char *msg)
{
	langplug_api->log(ctx, GP_LOG_WARN, "%s", msg);
}
