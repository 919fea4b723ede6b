/*
 * One Ruby process being profiled: where its VM pointer is, which
 * layout they have, and how its memory is read.
 */
#ifndef GP_RUBY_TARGET_H
#define GP_RUBY_TARGET_H

#include <gprofiler/plugin.h>

#include "langproc.h"
#include "rubyreader.h"

struct ruby_target {
	pid_t pid;
	struct langproc_pages pg;	/* its memory, cached per sample */
	struct ruby_version ver;
	struct ruby_offsets off;
	uint64_t root;	/* &ruby_current_vm_ptr (or ec) */
	/* Each thread's own execution context, ruby_current_ec, in its
	 * TLS (3.x with glibc): the block's module ID (0: unknown, the
	 * system profiler cannot walk this process) and the offset. */
	uint32_t tls_module;
	uint64_t tls_ec;
	struct ruby_mem mem;
	struct ruby_fcache *fcache;	/* cleared per snapshot */
	char object[512];
	/* application metadata, as gProfiler's Ruby keys */
	char description[128];	/* ruby_version */
	char exe_elfid[160];	/* "" : none */
	char lib_elfid[160];	/* "": none, no libruby */
};

int ruby_target_attach(pid_t, struct ruby_target *, char *, size_t);
void ruby_target_release(struct ruby_target *);
/* Caches let go while the process gives no sample; made again before its
 * next (0, or -ENOMEM). */
void ruby_target_idle(struct ruby_target *);
int ruby_target_wake(struct ruby_target *);
void ruby_target_begin(struct ruby_target *);
int ruby_mem_proc_read(void *, uint64_t, void *, size_t);

#endif
