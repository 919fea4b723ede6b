/*
 * One PHP process being profiled: where its executor globals are, which
 * layout they have, and how its memory is read.
 */
#ifndef GP_PHP_TARGET_H
#define GP_PHP_TARGET_H

#include <gprofiler/plugin.h>

#include "langproc.h"
#include "phpreader.h"

struct php_target {
	pid_t pid;
	struct langproc_pages pg;	/* its memory, cached per sample */
	struct php_version ver;
	struct php_offsets off;
	uint64_t eg;	/* &executor_globals in the target */
	struct php_mem mem;
	struct php_fcache *fcache;	/* frame texts, cleared per snapshot */
	char object[512];
};

int php_target_attach(pid_t, struct php_target *, char *, size_t);
void php_target_release(struct php_target *);
/* Caches let go while the process gives no sample; made again before its
 * next (0, or -ENOMEM). */
void php_target_idle(struct php_target *);
int php_target_wake(struct php_target *);
void php_target_begin(struct php_target *);
int php_mem_proc_read(void *, uint64_t, void *, size_t);

#endif
