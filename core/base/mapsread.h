/*
 * mapsread.c: every read of a process's /proc/PID/maps, for the core and
 * (through gp_host_api.maps_read) for the plugins, under one budget
 * (base room).
 *
 * The process's owner chooses how long its maps are: up to 65,530
 * mappings (vm.max_map_count), each a line the kernel writes at every
 * read, 13 ns a byte here -- 25 ms for 20,000 anonymous mappings, more
 * with long paths.  Each reader reads a new image's maps once; a user
 * who starts processes with huge maps makes every one of them pay
 * again.  So reads of the maps of processes not run by root share one
 * token bucket: MAPSREAD_BURST bytes, refilled at MAPSREAD_RATE a
 * second.  While it is empty such a read is deferred (-EAGAIN): the
 * reader tries again later, and an attacker's cost to the agent stays
 * linear in time and capped.  Root's processes are not budgeted: root
 * can stop the agent anyway, and a large host's services must not wait.
 */
#ifndef GP_BASE_MAPSREAD_H
#define GP_BASE_MAPSREAD_H

#include <stddef.h>
#include <stdint.h>

#define MAPSREAD_BURST	(16u << 20)	/* some 0.25 s of kernel time */
#define MAPSREAD_RATE	(512u << 10)	/* bytes a second: ~1% of a core */

/* The bucket, pure: tokens may go below zero (a read is charged what it
 * read, after it), and a read may start only while they are above. */
struct mapsread_bucket {
	int64_t tokens;
	uint64_t t_ns;	/* of the last refill; 0: never (full) */
};
/* Refilled up to now: 0 when a read may start, else -EAGAIN. */
int mapsread_bucket_may(struct mapsread_bucket *, uint64_t now_ns);
void mapsread_bucket_spend(struct mapsread_bucket *, uint64_t bytes);

/* Whether a /proc/PID/status text says real, effective and saved uid
 * are all 0: 1, 0, or -EINVAL (no such line).  Pure. */
int mapsread_status_root(const char *, size_t);

/*
 * Before reading pid's maps: 1 root's (not budgeted), 0 go ahead,
 * -EAGAIN the budget is spent (try again later), -ESRCH gone.  After
 * the read, mapsread_end with what begin returned and the bytes read.
 */
int mapsread_begin(int pid);
void mapsread_end(int begun, uint64_t bytes);

/*
 * pid's maps, at most max bytes (cut after the last whole line that
 * fits), NUL-terminated, in *text (the caller frees it) of *len bytes:
 * 0 whole, 1 cut, -EAGAIN deferred, -ESRCH gone or -errno.
 */
int mapsread(int pid, size_t max, char **text, size_t *len);

/* Reads deferred and bytes read budgeted, since the agent started. */
struct mapsread_stats {
	uint64_t deferred;
	uint64_t bytes;
};
void mapsread_stats(struct mapsread_stats *);

#endif
