/*
 * Which parts of a profiled process's memory the runtime readers may read
 * with process_vm_readv (langguard.c).  A remote read faults the target's
 * pages in from the agent's side: a page of a file on FUSE or on a network
 * file system makes the agent wait, in an uninterruptible sleep that
 * SIGTERM does not end, for whoever serves that file (a local user can
 * serve one that never answers).  So a read is allowed only into
 * mappings that are anonymous or shared memory, or of a file on a
 * filesystem known to be local, as the target's own /proc/PID/maps and
 * /proc/PID/mountinfo say.  Compiled into each reader (Python, Ruby,
 * PHP); the parsers are pure over bytes.
 */
#ifndef GP_LANGGUARD_H
#define GP_LANGGUARD_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

/*
 * Bounds on one refresh, whatever the target: the bytes of its maps and
 * mount table read (a process with 100k mappings has 7 MiB of maps, and
 * the kernel takes about 0.1 s to write each MiB of them; past the cap a
 * process's higher mappings are not known, and reads there are refused:
 * a Python process with numpy has some 100 KiB), the ranges kept, and how
 * often: a read outside the known mappings (one made since, as a runtime
 * maps memory as it goes) reads them again at most every 100 ms per
 * process, so a process is not taken out for a new mapping (20 failed
 * samples in a row do that, 0.2 s at 99 Hz), and never more than 1% of
 * the agent's CPU (the next refresh waits 100 times the CPU time the last
 * one took).
 */
#define LANGGUARD_MAPS_MAX	(512u << 10)
#define LANGGUARD_MOUNTS_MAX	(512u << 10)
#define LANGGUARD_RANGES_MAX	16384u
#define LANGGUARD_BAD_MAX	64u	/* refused mounts named in reasons */
#define LANGGUARD_REFRESH_NS	100000000ull	/* per process */
#define LANGGUARD_REFRESH_COST	100	/* times the last refresh's cost */
/* All processes together: bytes of /proc read for refreshes per second. */
#define LANGGUARD_BUDGET_BYTES	(1u << 20)
/*
 * A read of pages not resident in the target (not faulted in, nor in
 * swap: /proc/PID/pagemap) faults them in from whatever is mapped there
 * at that moment, which the maps read earlier may no longer show: such a
 * read is judged by maps read again just before it (at most this long
 * before, and a refresh for it at most this often per process).
 */
#define LANGGUARD_FRESH_NS	10000000ull	/* 10 ms */
#define LANGGUARD_NONRES_NS	100000000ull	/* 100 ms */
#define LANGGUARD_PAGEMAP_MAX	64u	/* pages looked up per check */

#define LANGGUARD_FSTYPE	24

/* Why the host's opener said -EREMOTE of a file (core/base/safefs.c). */
#define LANGGUARD_FILE_REFUSED	"on FUSE or a network filesystem, whose " \
	"reads can block (refused)"

/* A mount: its device (major << 20 | minor, as the kernel's dev_t). */
struct langguard_mount {
	uint32_t dev;
	uint8_t local;
	char fstype[LANGGUARD_FSTYPE];
};

#define LANGGUARD_OK		0
#define LANGGUARD_REFUSED	1	/* a file on a filesystem not local */

/* A run of mappings, sorted by start; allowed runs that touch merge. */
struct langguard_range {
	uint64_t start, end;
	uint32_t dev;
	uint32_t verdict;
};

struct langguard {
	pid_t pid;
	struct langguard_range *r;
	uint32_t n;
	int truncated;			/* maps past the cap: unknown */
	struct langguard_mount *bad;	/* mounts refused, for reasons */
	uint32_t nbad;
	uint64_t refreshed;	/* CLOCK_MONOTONIC ns, 0: never */
	uint64_t nonres;	/* the last refresh for pages
				 * not resident, ns */
	uint64_t cost_ns;	/* of the last refresh, CPU */
	uint64_t nrefresh;
	char why[192];	/* the last refusal */
};

typedef int (*langguard_open_fn)(void *, const struct gp_open_spec *,
		    struct gp_file_info *);

/* The host's file_open (or a test's): -ENOSYS until set.  It is
 * langfile_set_opener's, every file of the plugin's. */
void langguard_set_opener(langguard_open_fn, void *);

/* Whether a filesystem type is one whose pages come from local memory or
 * a local disk: 1 or 0 (FUSE, NFS, CIFS, 9p, Ceph, unknown ones...). */
int langguard_fs_local(const char *fstype, size_t len);
/*
 * The mounts of a /proc/PID/mountinfo text, at most max into out (out may
 * be NULL to count): their number.  Malformed lines are skipped.
 */
uint32_t langguard_parse_mountinfo(const char *buf, size_t len,
	    struct langguard_mount *out, uint32_t max);
/*
 * One /proc/PID/maps line: its range, device and inode.  0 or -EINVAL.
 */
int langguard_parse_map_line(const char *s, size_t len, uint64_t *start,
	    uint64_t *end, uint32_t *dev, uint64_t *ino);
/*
 * The ranges of a /proc/PID/maps text with their verdicts against the
 * process's mounts (shm_dev: the kernel's internal shared memory mount,
 * which no mount table lists).  At most max ranges into out; *more set
 * when the text had more.  Their number.  Pure over bytes.
 */
uint32_t langguard_parse_maps(const char *buf, size_t len,
	    const struct langguard_mount *mounts, uint32_t nmounts,
	    uint32_t shm_dev, struct langguard_range *out, uint32_t max,
	    int *more);
/*
 * The verdict on [addr, addr + len) over sorted ranges: 0 when allowed,
 * -EREMOTE when a part is refused (*bad names it), -ENOENT when a part is
 * in no range.  Pure.
 */
int langguard_lookup(const struct langguard_range *, uint32_t n,
	    uint64_t addr, uint64_t len, const struct langguard_range **bad);

/* A target's guard, its mounts read now, and its maps (or the text given,
 * when the caller has just read them): 0 or -errno. */
int langguard_init(struct langguard *, pid_t, const char *maps,
	    size_t len);
void langguard_free(struct langguard *);
/*
 * Whether [addr, addr + len) may be read: 0; -EREMOTE, refused (the
 * reason in g->why); -EFAULT, not mapped as far as known (the maps are
 * read again when one falls outside them, at most every 100 ms);
 * -EAGAIN, pages not resident that could not be judged now (the maps
 * were read again for another less than LANGGUARD_NONRES_NS ago).
 */
int langguard_check(struct langguard *, uint64_t addr, uint64_t len);
/*
 * langguard_batch(1) before the checks of pages read together right
 * after (one process_vm_readv), langguard_batch(0) after them: their
 * pagemap lookups share reads of nearby entries.
 */
void langguard_batch(int on);

#endif
