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
 * again.  So reads of the maps of processes not run by root are
 * budgeted by token buckets: each user's own (MAPSREAD_USER_*), so one
 * user's huge maps delay only that user's processes, and one for all
 * users together (MAPSREAD_ALL_*), so many users cannot multiply the
 * cost.  A read needs both; while either is empty it is deferred
 * (-EAGAIN): the reader tries again later, and an attacker's cost to the
 * agent stays linear in time and capped.  The users are those of the
 * processes' real uid, MAPSREAD_USERS at a time; a user whose bucket is
 * full again gives up its place, and while every place is taken the
 * others share one more bucket.  Root's processes are not budgeted: root
 * can stop the agent anyway, and a large host's services must not wait.
 */
#ifndef GP_BASE_MAPSREAD_H
#define GP_BASE_MAPSREAD_H

#include <stddef.h>
#include <stdint.h>

/* Bytes, and bytes a second: 13 ns of kernel time a byte. */
#define MAPSREAD_USER_BURST	(8u << 20)	/* 0.1 s */
#define MAPSREAD_USER_RATE	(256u << 10)	/* 0.3% of a core */
#define MAPSREAD_ALL_BURST	(32u << 20)	/* 0.4 s */
#define MAPSREAD_ALL_RATE	(1u << 20)	/* 1.4% of a core */
#define MAPSREAD_USERS		32

/* A bucket, pure: tokens may go below zero (a read is charged what it
 * read, after it), and a read may start only while they are above. */
struct mapsread_bucket {
	int64_t tokens;
	uint64_t t_ns;	/* of the last refill; 0: never (full) */
	uint32_t burst;
	uint32_t rate;
};
/* Refilled up to now: 0 when a read may start, else -EAGAIN. */
int mapsread_bucket_may(struct mapsread_bucket *, uint64_t now_ns);
void mapsread_bucket_spend(struct mapsread_bucket *, uint64_t bytes);

/* The users' buckets, pure: MAPSREAD_USERS places and the rest's. */
struct mapsread_users {
	struct mapsread_bucket b[MAPSREAD_USERS + 1];
	uint32_t uid[MAPSREAD_USERS];
	uint8_t used[MAPSREAD_USERS];
};
/* uid's bucket, refilled up to now: its own place, a free one, one a
 * user left full, else the rest's. */
struct mapsread_bucket *mapsread_user(struct mapsread_users *, uint32_t uid,
    uint64_t now_ns);

/* From a /proc/PID/status text: whether real, effective and saved uid
 * are all 0 (1, 0, or -EINVAL: no such line), the real uid in *uid.
 * Pure. */
int mapsread_status_root(const char *, size_t, uint32_t *uid);

/*
 * Before reading pid's maps: 0 go ahead, -EAGAIN the budget is spent
 * (try again later), -ESRCH gone.  After a read begun, mapsread_end
 * with the ticket and the bytes the kernel wrote.
 */
struct mapsread_ticket {
	int root;	/* not budgeted */
	uint32_t uid;
};
int mapsread_begin(int pid, struct mapsread_ticket *);
void mapsread_end(const struct mapsread_ticket *, uint64_t bytes);

/*
 * pid's maps, at most max bytes (cut after the last whole line that
 * fits), NUL-terminated, in *text (the caller frees it) of *len bytes:
 * 0 whole, 1 cut, -EAGAIN deferred, -ESRCH gone or -errno.
 */
int mapsread(int pid, size_t max, char **text, size_t *len);

/* Reads deferred and bytes read budgeted, since the agent started, and
 * the user of the last read deferred. */
struct mapsread_stats {
	uint64_t deferred;
	uint64_t bytes;
	uint32_t last_uid;
	int last_all;	/* by the all-users bucket, not the user's own */
};
void mapsread_stats(struct mapsread_stats *);

#endif
