/*
 * One PHP process being profiled: where its executor globals are, which
 * layout they have, and how its memory is read.
 */
#ifndef GP_PHP_TARGET_H
#define GP_PHP_TARGET_H

#include <gprofiler/plugin.h>

#include "phpreader.h"

#define PHP_PAGE	4096
#define PHP_PAGES	16	/* 64 KiB per target */

struct php_page {
	uint64_t	 addr;
	uint32_t	 gen;	/* valid when equal to the target's gen */
	int		 bad;	/* -errno: the page could not be read */
	uint8_t		 data[PHP_PAGE];
};

struct php_target {
	pid_t		 pid;
	struct php_page	*pages;	/* NULL: every read goes to the process */
	uint32_t	 gen;
	uint32_t	 next;		/* the page slot to replace next */
	uint64_t	 nreads;	/* process_vm_readv calls, for bench */
	struct php_version ver;
	struct php_offsets off;
	uint64_t	 eg;		/* &executor_globals in the target */
	struct php_mem	 mem;
	struct php_fcache *fcache;	/* frame texts, cleared per snapshot */
	char		 object[512];
};

typedef int	(*php_open_fn)(void *, const struct gp_open_spec *,
		    struct gp_file_info *);

void	php_set_opener(php_open_fn, void *);
ssize_t	php_read_small_file(const char *, char *, size_t);
int	php_target_attach(pid_t, struct php_target *, char *, size_t);
void	php_target_release(struct php_target *);
void	php_target_begin(struct php_target *);
int	php_mem_proc_read(void *, uint64_t, void *, size_t);

#endif
