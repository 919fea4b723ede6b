/*
 * fusebreak.c: the event loop let go of a FUSE server that holds it.
 *
 * The runtime readers and the safe open refuse files on FUSE, but races
 * remain: microseconds between a reader's look at a page and its read
 * (docs/RUNTIMES.md), up to a second between the safe open's look at a
 * process's mount table (cached that long) and its walk of a path.  A
 * local user who wins one leaves the loop waiting in the kernel for their
 * FUSE server, in a wait that only a fatal signal ends, for as long as
 * the server likes.  The stop guard's thread (stopguard.c) sees the loop
 * stop turning in a read or a look-up; this finds the FUSE connections it
 * may wait on and aborts them through the
 * FUSE control filesystem, as an administrator would (echo 1 >
 * /sys/fs/fuse/connections/N/abort): the waiting read fails, the loop
 * turns again.  Only a connection that a user other than root mounted is
 * aborted (its control directory belongs to the mounting user): a root
 * mount's server (an sshfs) is the host's, never ended by the agent.  (A
 * mount made in a user namespace cannot hold the agent: the kernel
 * refuses a FUSE request from a caller that namespace does not map.)
 * Runs in the guard's thread: it reads /proc and /sys only,
 * never the target's memory map (a read of /proc/PID/maps could queue
 * behind that process's own mmap_lock writer, held up by the same wait).
 */
#ifndef GP_BASE_FUSEBREAK_H
#define GP_BASE_FUSEBREAK_H

#include <stddef.h>

/* Where the FUSE control filesystem is (the kernel's documented place). */
#define FUSEBREAK_CTL	"/sys/fs/fuse/connections"

/*
 * The loop's thread, asleep in the kernel in system call nr with args (its
 * /proc/.../syscall), has not run for a while: abort the FUSE connection
 * it waits on.  For a read of a descriptor (read, pread64, readv, preadv,
 * getdents64), the descriptor's mount's, when that is FUSE.  For
 * process_vm_readv, each
 * connection with requests waiting that the target's user mounted: the
 * page itself cannot be looked up without the target's mmap_lock, and the
 * loop's kernel stack does not tell either (the fault started the FUSE
 * read and waits on the page's lock, in folio_wait_bit_common).  1:
 * aborted (what says which); 0: no FUSE wait found; -EPERM: root's mount
 * or process, left alone; -errno.  what: one phrase for the log, set for
 * 1 and -EPERM.  For a look-up of a path (openat, openat2, statx, ...)
 * on behalf of a process (the safe open's, safeopen_target, or a path
 * "/proc/PID/..."), the FUSE mount the path passes through in that
 * process's mount namespace if it has requests waiting; else, as for
 * process_vm_readv, each connection with requests waiting that the
 * process's user mounted (a mount unmounted lazily while the look-up
 * waits in it is in no mount table, but its connection is still there).
 */
int fusebreak_run(long nr, const unsigned long long args[6], char *what,
	    size_t wlen);
/* The path system call nr looks up, read from the loop's own memory
 * (process_vm_readv: a bad pointer fails, never faults), cut at len - 1:
 * 0, -EINVAL for a call that looks up none, -errno. */
int fusebreak_lookup_path(long nr, const unsigned long long args[6],
	    char *out, size_t len);

#endif
