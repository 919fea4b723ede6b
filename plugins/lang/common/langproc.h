/*
 * A profiled process seen from outside, for the runtime plugins' readers:
 * its /proc files and mapped objects opened only through the host's safe
 * opener (never a plain open of what a user controls), and its memory read
 * with process_vm_readv through a small per-sample page cache.  Compiled
 * into each reader (each plugin keeps its own opener).
 */
#ifndef GP_LANGPROC_H
#define GP_LANGPROC_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

#include "langguard.h"

#define LANGPROC_MAPS_MAX	(16u << 20)	/* /proc/PID/maps read */
#define LANGPROC_MAX_OBJECT	(4ull << 30)	/* an interpreter's ELF */
#define LANGPROC_PAGE		4096
#define LANGPROC_PAGES		16	/* 64 KiB per process */

typedef int (*langproc_open_fn)(void *, const struct gp_open_spec *,
		    struct gp_file_info *);

/* The host's file_open (gp_host_api), or a test's: -ENOSYS until set
 * (langfile.h's, which the guard's reads go through too). */
void langproc_set_opener(langproc_open_fn, void *);
/* fd or -errno; root NULL for the host's "/" (langfile_open). */
int langproc_open(const char *root, const char *path, uint32_t flags,
	    uint64_t max_size);
/* A /proc file, at most len - 1 bytes, NUL-terminated: the count. */
ssize_t langproc_read_small_file(const char *path, char *buf, size_t len);
/* The same of an open file, which it closes: the count (>= 0). */
size_t langproc_read_fd(int fd, char *buf, size_t len);
/* The whole of /proc/PID/maps (at most LANGPROC_MAPS_MAX), NUL-terminated;
 * the caller frees it.  NULL when unreadable: errno EAGAIN while the
 * host's budget of maps reads defers it (ask again later). */
char *langproc_read_maps(pid_t, size_t *lenp);
/* The object mapped at [start, end) with this path: through the kernel's
 * map_files link (or, for the executable, its exe link), else the path
 * in the process's root without links. */
int langproc_open_object(pid_t, uint64_t start, uint64_t end,
	    const char *path, int is_exe);
/*
 * A process's identity across scans: its start time (ticks since boot)
 * and its executable's (dev, inode) mixed into one number (a wrapper
 * exec'ing the interpreter keeps its PID and start time).  0 or -ESRCH.
 */
int langproc_stat(pid_t, uint64_t *start, uint64_t *exe_id);
/* And its virtual size (field 23; 0 if unreadable): it changes when the
 * process maps a library. */
int langproc_stat_vsize(pid_t, uint64_t *start, uint64_t *exe_id,
	    uint64_t *vsize);
/* And its CPU time (utime + stime, ticks; -EINVAL if unreadable). */
int langproc_stat_cpu(pid_t, uint64_t *start, uint64_t *exe_id,
	    uint64_t *vsize, uint64_t *ticks);
/* The text of /proc/PID/stat (as langproc_read_small_file: the count),
 * and *exe_id as langproc_stat's, for a caller parsing more of it. */
ssize_t langproc_read_stat(pid_t, char *buf, size_t len, uint64_t *exe_id);
/*
 * One /proc/PID/maps line, "start-end perms offset dev inode path" (no
 * newline): its numbers, and the path within s (NULL: anonymous).
 * 0, or -EINVAL if malformed.  Pure over bytes.
 */
int langproc_parse_map_line(const char *s, size_t len, uint64_t *start,
	    uint64_t *end, uint64_t *off, uint64_t *ino, const char **path,
	    size_t *plen);
/* /proc/PID/comm without its newline: 0 or -ESRCH. */
int langproc_comm(pid_t, char *out, size_t len);
/* process_vm_readv of exactly len bytes: 0, -ESRCH, -EPERM or -EFAULT.
 * Unguarded: langproc_pages_read checks the range first. */
int langproc_read(pid_t, uint64_t addr, void *buf, size_t len);

struct langproc_page {
	uint64_t addr;
	uint32_t gen;	/* valid when equal to the cache's gen */
	uint32_t used;	/* the gen that last used it (the hints) */
	int bad;	/* -errno: the page could not be read */
	uint8_t data[LANGPROC_PAGE];
};

/*
 * A walk reads a few small fields per frame, mostly from the same few
 * pages (the VM stack, the function, interned strings): whole pages are
 * read once per sample and served from here, one syscall instead of ten.
 */
struct langproc_pages {
	pid_t pid;
	struct langproc_page *pages;	/* NULL: every read goes out */
	uint32_t gen;
	uint32_t next;		/* the slot to replace next */
	uint64_t nreads;	/* process_vm_readv calls */
	struct langguard guard;	/* where reads may go */
	/* The pages the last sample used, read together by the next
	 * (langproc_pages_begin): one call instead of one a page. */
	uint64_t seen[LANGPROC_PAGES];
	uint32_t nseen;
	int stale;		/* a sample began: refresh at its first read */
	uint64_t prefetched;	/* batches read, for the tests */
};

/* 0, -ENOMEM, or -ESRCH when the process's maps cannot be read. */
int langproc_pages_init(struct langproc_pages *, pid_t);
void langproc_pages_free(struct langproc_pages *);
/* An idle process's pages let go, its guard kept (reads go straight out
 * meanwhile); made again for its next sample: 0, or -ENOMEM. */
void langproc_pages_idle(struct langproc_pages *);
int langproc_pages_wake(struct langproc_pages *);
/* A new sample: whatever was cached may have changed since (looked at
 * again by the sample's first read). */
void langproc_pages_begin(struct langproc_pages *);
/* 0, -ESRCH, -EPERM, -EFAULT, or -EREMOTE: refused by the guard, the
 * reason in c->guard.why. */
int langproc_pages_read(struct langproc_pages *, uint64_t addr,
	    void *buf, size_t len);

#endif
