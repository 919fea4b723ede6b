/*
 * The Python plugin's state, shared by its two parts: python.c (the
 * plugin: options, sampling, snapshots) and py_procs.c (its process
 * table: which processes are Python, attached, sampled).
 */
#ifndef PY_PLUGIN_H
#define PY_PLUGIN_H

#include <sys/types.h>

#include <stdint.h>

#include <gprofiler/plugin.h>

#include "langagg.h"
#include "langcpu.h"
#include "langfind.h"
#include "langtab.h"
#include "py_mixed.h"
#include "py_discover.h"
#include "py_pkgver.h"
#include "py_target.h"

#define PYP_RESCAN_MS	1000	/* new processes show up within a second */
#define PYP_MAX_FREQ	100
#define PYP_FAIL_LIMIT	20	/* consecutive failed samples: an error */
/* A thread without a thread state is looked at again after this long:
 * it may call into Python later (PyGILState_Ensure). */
#define PYP_NATIVE_NS	1000000000ull

#define PYP(lp)		((struct pyp_proc *)(lp))
#define PYP_AT(p, i)	PYP((p)->tab.procs[i])

struct pyp_proc {
	struct langtab_proc lp;		/* first: the table's entry */
	uint32_t fails;
	struct langcpu cpu;
	int chosen;	/* among the top N by CPU (sampled) */
	int watched;	/* host sample_watch on */
	int walking;	/* and sample_walk: frames come walked */
	char comm[64];
	char reason[256];
	char appid[1024];
	uint64_t mntns;	/* package versions are per mount ns */
	struct py_target t;
};

struct pyp {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	int enabled;
	uint32_t freq;
	uint32_t max_procs;	/* top N by CPU; 0: every process */
	struct gp_timer *sample_timer;
	struct langtab tab;	/* of struct pyp_proc */
	struct langfind find;	/* how its processes are found */
	struct langagg *agg;
	uint64_t nsamples, nfailed, nwalked;
	int subscribed;	/* sample reports from the host */
	int by_reports;	/* watched PIDs sampled on reports */
	uint64_t count;	/* samples the stack being emitted is */
	/* The report being read: its native frames join the Python ones. */
	const struct gp_sample_stack *st;
	int emitted;		/* a stack of this report went out */
	const char **mixed;	/* PY_MAX_FRAMES + PY_MIXED_MAX_EXTRA */
	char mixed_buf[16384];	/* their "name_[pn]" texts */
	struct py_pkgidx *pkgs;	/* NULL: --no-python-versions */
	char *deco;		/* decorated frames at delivery */
	const char **decop;
};

/* py_procs.c */
struct pyp_proc *pyp_find(struct pyp *, pid_t);
void pyp_release(void *, struct langtab_proc *);
/* Its finder (langfind.h) set up, with the table. */
void pyp_find_init(struct pyp *);
void pyp_scan(struct pyp *);
void pyp_timer_sync(struct pyp *);

/* python.c */
void pyp_sample_cb(void *);
void pyp_walk_set(struct pyp *, struct pyp_proc *, int);

#endif /* PY_PLUGIN_H */
