/*
 * The PerfSpect auto-installer (install.c): download, verify, extract into
 * a root-owned directory, check `--version`, cache; bounded in time.
 */
#ifndef PERFSPECT_INSTALL_H
#define PERFSPECT_INSTALL_H

#include <gprofiler/plugin.h>

#define PS_INSTALL_DIR		"/var/lib/gprofiler/perfspect"
#define PS_INSTALL_URL		\
	"https://github.com/intel/PerfSpect/releases/latest/download/perfspect.tgz"
#define PS_INSTALL_TIMEOUT	300	/* seconds */
/* The digests of the PerfSpect releases the agent knows (pins.c). */
#define PS_PINS_FILE		PKGDATADIR "/perfspect-releases.sha256"

struct ps_install_config {
	const char *dir;	/* PS_INSTALL_DIR */
	const char *url;
	const char *sha256;	/* NULL: a pinned release only */
	const char *pins;	/* NULL: PS_PINS_FILE */
	unsigned timeout_s;
};

/* binary is the installed executable, or NULL with why set.  Called once,
 * never from within ps_install_begin. */
typedef void ps_install_done_fn(void *arg, const char *binary,
		    const char *why);

struct ps_install;

/* NULL (logged, done not called) only when out of memory. */
struct ps_install *ps_install_begin(struct gp_plugin_ctx *ctx,
		    const struct gp_host_api *api,
		    const struct ps_install_config *cfg, ps_install_done_fn *done,
		    void *arg);
/* No callback after this.  A download in flight keeps a small record
 * alive until the host reports it (there is no cancel in the ABI). */
void ps_install_cancel(struct ps_install *in);
/* The plugin goes: those records freed (the host drops its callbacks to
 * them right after destroy); how many. */
unsigned ps_install_reap(void);

#endif
