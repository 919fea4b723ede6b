/*
 * One Ruby process being profiled: where its VM pointer is, which
 * layout they have, and how its memory is read.
 */
#ifndef GP_RUBY_TARGET_H
#define GP_RUBY_TARGET_H

#include <gprofiler/plugin.h>

#include "rubyreader.h"

#define RUBY_PAGE	4096
#define RUBY_PAGES	16	/* 64 KiB per target */

struct ruby_page {
	uint64_t	 addr;
	uint32_t	 gen;	/* valid when equal to the target's gen */
	int		 bad;	/* -errno: the page could not be read */
	uint8_t		 data[RUBY_PAGE];
};

struct ruby_target {
	pid_t		 pid;
	struct ruby_page *pages;	/* NULL: every read to the process */
	uint32_t	 gen;
	uint32_t	 next;		/* the page slot to replace */
	uint64_t	 nreads;	/* process_vm_readv calls, for bench */
	struct ruby_version ver;
	struct ruby_offsets off;
	uint64_t	 root;		/* &ruby_current_vm_ptr (or ec) */
	struct ruby_mem	 mem;
	struct ruby_fcache *fcache;	/* cleared per snapshot */
	char		 object[512];
	/* application metadata, as gProfiler's Ruby keys */
	char		 description[128];	/* ruby_version */
	char		 exe_elfid[160];	/* "" : none */
	char		 lib_elfid[160];	/* "": none, no libruby */
};

typedef int	(*ruby_open_fn)(void *, const struct gp_open_spec *,
		    struct gp_file_info *);

void	ruby_set_opener(ruby_open_fn, void *);
ssize_t	ruby_read_small_file(const char *, char *, size_t);
int	ruby_target_attach(pid_t, struct ruby_target *, char *, size_t);
void	ruby_target_release(struct ruby_target *);
void	ruby_target_begin(struct ruby_target *);
int	ruby_mem_proc_read(void *, uint64_t, void *, size_t);

#endif
