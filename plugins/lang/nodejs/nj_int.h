/*
 * The nodejs plugin's own declarations, shared by its files: nodejs.c
 * (the plugin, the process table and the attach helpers it runs) and
 * nj_netns.c (which users share a process's network namespace).
 */
#ifndef NJ_INT_H
#define NJ_INT_H

#include <limits.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

#include "langfind.h"
#include "langtab.h"

#define NJ_SCAN_MS	2000	/* new node processes are seen within this */
#define NJ_HELPER_MS	8000	/* one helper run (its own limit is 6 s),
				 * then it is stopped */
#define NJ_TERM_GRACE	1500	/* SIGTERM: it closes the inspector and
				 * removes its copy, then SIGKILL */
#define NJ_NEXT_MS	50	/* the next process, after a helper ends */
#define NJ_SLOTS	4	/* helpers at once */
#define NJ_SLOTS_PER_UID 2	/* ... for processes of one user */
#define NJ_RETRY_MS	60000	/* a failed attach, again after this */
#define NJ_TRIES	3
#define NJ_YOUNG_MS	1000	/* a node without SIGUSR1 handler yet: */
#define NJ_YOUNG_LOOKS	5	/* looked at again, this many times */
#define NJ_MAX_NETNS	4096
#define NJ_READ_MAX	(256 * 1024)
#define NJ_NOUID	UINT32_MAX

#define NJ_MODE_PERF	1
#define NJ_MODE_ATTACH	2

#define NJ_WAIT		0	/* to be attached to */
#define NJ_RUN		1	/* its helper runs */
#define NJ_DONE		2	/* attached, refused, or given up */

/* A node process: its entry in the table (langtab.h; LANGTAB_NEW while
 * its namespace could not be read) and where its attach stands. */
struct nj_proc {
	struct langtab_proc lp;
	int att;	/* NJ_WAIT, ... */
	uint32_t tries;
	uint64_t seq;		/* first seen: the oldest goes first */
	uint64_t not_before;	/* NJ_WAIT: ms, monotonic */
	uint64_t netns;		/* its ns/net inode, at first sight */
	uint32_t uid;		/* its effective uid, at first sight */
	uint32_t young_looks;	/* without a SIGUSR1 handler yet */
};

/* A network namespace seen in one scan of /proc: the users in it. */
struct nj_netns {
	uint64_t dev, ino;
	uint32_t uid;	/* a non-root uid in it, or NJ_NOUID */
	int32_t pid;	/* ... and a process of that uid */
	int multi;	/* two non-root uids or more */
};

struct nj;

struct nj_slot {
	struct nj *n;
	struct gp_child *child;
	struct gp_timer *kill_timer;
	int32_t pid;	/* the target */
	uint64_t start;
	uint64_t netns;
	uint32_t uid;
	char comm[64];
	char line[512];	/* the helper's result */
	int tmpfd;	/* the target's /tmp, O_PATH */
	char copy[64];	/* its copy of the writer */
	int copy_said;
	unsigned long long copy_dev, copy_ino;
};

struct nj {
	struct gp_plugin_ctx *ctx;
	const struct gp_host_api *api;
	int mode;
	int shared_ok;	/* --nodejs-attach-shared-netns */
	int usable;	/* helper and writer found */
	char helper[PATH_MAX];
	char writer[PATH_MAX];
	struct gp_timer *scan_timer;
	struct gp_timer *next_timer;
	int stopping;	/* stop_done when helpers end */
	struct nj_slot slots[NJ_SLOTS];
	uint32_t running;
	/* The node processes seen (langfind: a walk of /proc each
	 * NJ_SCAN_MS, idle ones too -- an attach is once a process). */
	struct langtab tab;
	struct langfind find;
	uint64_t seq;
	int full_said;
	uint32_t attached, left_alone;
	struct nj_netns *ns;	/* the scan's, built on demand */
	uint32_t nns;
	int ns_valid;	/* for this scan */
	int ns_full;
	char *rbuf;
};

/* nodejs.c */
/* nj_proc.c */
int64_t nj_read_proc(struct nj *, int32_t, const char *);
int nj_is_node(int32_t);
void nj_comm(struct nj *, int32_t, char *, size_t);
/* Why pid must be left alone (a line), or NULL to attach. */
const char *nj_reason(struct nj *, int32_t, int *);
/* The target's /tmp in its root, O_PATH: an fd or -errno. */
int nj_open_tmp(int32_t);

/* nj_netns.c */
int nj_proc_ns_uid(struct nj *, int32_t, uint64_t *, uint32_t *, int *);
int nj_netns_shared(struct nj *, int32_t, uint32_t, uint32_t *,
	    int32_t *);

#endif
