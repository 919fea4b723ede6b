/*
 * The words every room of the core shares (docs/ARCHITECTURE.md): the
 * agent's version, magic numbers, modes, exit statuses, where a setting
 * came from, the frequency cap and the plugin record.  Nothing else: each
 * room keeps its prototypes in its own header, which a file includes by
 * name ("config/configuration.h", "base/log.h"), and this header includes
 * none of them (scripts/check-rooms.sh checks it), so it can be included
 * from any room without pulling in another.
 * Private to core/; plugins include <gprofiler/plugin.h> only.
 */
#ifndef GPROFILER_INTERNAL_H
#define GPROFILER_INTERNAL_H

#ifdef GP_PLUGIN_BUILD
#error "plugins include <gprofiler/plugin.h> only, never the daemon's core/gprofiler.h"
#endif

#include <sys/queue.h>
#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <gprofiler/plugin.h>

#define GP_AGENT_VERSION	PACKAGE_VERSION

/* Magic numbers of objects that travel as void * (Varnish miniobj). */
#define PLUGIN_MAGIC		0x504c5547u
#define PLUGIN_CTX_MAGIC	0x50435458u
#define SNAPSHOT_MAGIC		0x534e4150u
#define TIMER_MAGIC		0x54494d52u
#define WATCH_MAGIC		0x57415443u
#define CHILD_MAGIC		0x4348494cu
#define JSON_MAGIC		0x4a534f4eu

/* Asserts stay on in release builds: a bad magic is memory corruption.
 * Users include "base/log.h" (fatalx). */
#define CHECK_OBJ(ptr, m) do {						\
	if ((ptr) == NULL || (ptr)->magic != (m))			\
		fatalx("%s:%d: bad object %p (magic %s)", __FILE__,	\
		    __LINE__, (void *)(ptr), #m);			\
} while (0)

/* Profiling modes; the names are the --mode values. */
#define MODE_NONE	0u
#define MODE_CPU	GP_MODE_CPU
#define MODE_ALLOCATION	GP_MODE_ALLOCATION
#define MODE_GPU	GP_MODE_GPU

/* Exit statuses. */
#define EXIT_USAGE	2

/* Where a setting came from (higher wins). */
#define SRC_DEFAULT	0
#define SRC_FILE	1
#define SRC_ENV		2
#define SRC_CLI		3
#define SRC_COMMAND	4	/* a heartbeat command's combined_config */

/*
 * The plugin record: what a plugin declares (its manifest, read by
 * config/manifest.c) and, once the host loads it (host/plugin.c), its code.
 * Here rather than in a room because three rooms walk the same list: the
 * configuration names the plugins' options, the host loads them, runs and
 * commands use the active ones.
 */
struct manifest {
	char *name;
	unsigned kind;	/* GP_KIND_* */
	unsigned modes;	/* GP_MODE_* */
	unsigned abi_major;
	char **options;		/* option names, NULL-terminated */
	int *bool_opts;		/* per option: typed ":bool" */
	char *enabled_by;	/* bool option that switches it on */
};

struct plugin {
	unsigned magic;	/* PLUGIN_MAGIC */
	char *path;	/* the .so */
	struct manifest manifest;
	void *dl;			/* NULL until loaded */
	const struct gp_plugin *desc;	/* NULL until loaded */
	void *priv;
	struct gp_plugin_ctx *ctx;
	int active;	/* loaded for the current mode */
	int started;
	TAILQ_ENTRY(plugin)	 entry;
	int so_fd;	/* the checked .so, while dl */
};
TAILQ_HEAD(plugin_list, plugin);

/*
 * The highest sampling frequency (-f, and a heartbeat command's
 * "frequency"): what the BPF sampler honours on every CPU without taking
 * the host from its workload (measured in docs/PERFORMANCE.md).
 * perf's DWARF and smart modes stop at 100 Hz (docs/specs/gprofiler-compat.md
 * §1.4), the gpu mode (iaprof) at the same 1000 Hz.
 */
#define GP_FREQUENCY_MAX	1000

#endif /* GPROFILER_INTERNAL_H */
