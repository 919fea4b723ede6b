/*
 * The stop guard (stopguard.c): SIGTERM ends the agent within seconds
 * even when the event loop cannot run.
 *
 * The loop can be held in a kernel wait that a caught signal does not
 * end: a page fault on a file whose FUSE server never answers, taken
 * inside process_vm_readv in the instant between a runtime reader's
 * check of a mapping and its read, when the process's owner swaps the
 * mapping for such a file.  Such waits are killable, so the process's
 * own exit ends them.  One thread besides the loop takes SIGTERM, SIGINT
 * and SIGHUP (blocked in every other thread) and hands them to the loop
 * through a pipe.  After a stop signal the loop must keep turning: if it
 * does not for STOPGUARD_WAIT_MS while it sleeps in the kernel, or for
 * STOPGUARD_BUSY_MS while it computes, the thread says so in one line,
 * naming where the loop waits, and ends the process; a wait for a user's
 * FUSE server is first ended as below, and the loop given one more beat
 * to end its run (a process cannot exit while one of its threads waits
 * for FUSE: the agent would linger, unkillable, until the server
 * answers).  Either way the agent is gone within 2 s of the signal.  A
 * stop signal within STOPGUARD_REPEAT_MS of the first is dropped: one
 * sender's signal to the agent and to its process group is one request.  While the agent
 * runs, a loop asleep in the kernel at two looks STOPGUARD_WATCH_MS apart
 * is looked at too: a wait for a FUSE server that a user mounted is ended
 * by aborting its connection (fusebreak.h), and the loop logs one line
 * when it turns.
 */
#ifndef GP_STOPGUARD_H
#define GP_STOPGUARD_H

#include <stddef.h>

#include <event2/event.h>

#define STOPGUARD_WAIT_MS	1500	/* the loop asleep in the kernel */
#define STOPGUARD_BUSY_MS	10000	/* the loop on CPU (one long turn) */
#define STOPGUARD_BEAT_MS	250	/* the loop's beat while it stops */
#define STOPGUARD_WATCH_MS	5000	/* its look at a running loop (the
					 * tick grid's memory sampling): one
					 * asleep in the kernel at two looks
					 * in a row may be held by a FUSE
					 * server (fusebreak.h) */
#define STOPGUARD_EXIT		1	/* the status it ends the process with */
#define STOPGUARD_REPEAT_MS	1000	/* a stop signal this soon after the
					 * first is the same stop */

/*
 * Take the three signals from now on; cb(sig, arg) runs in the loop for
 * each.  Call before any other thread is made (they inherit the mask).
 * 0 or -errno (then the signals are left as they were).
 */
int stopguard_start(struct event_base *, void (*cb)(int, void *),
	    void *arg);
/* The thread ended and the signals given back (at the loop's end). */
void stopguard_stop(void);
/* The state letter of a task's /proc/.../stat text (after the last ')'
 * of its command), or 0. */
char stopguard_task_state(const char *stat, size_t len);
/* A task's /proc/.../syscall text: its call's number and six arguments
 * (0), or -1 when it is in none ("running", "-1 sp pc", malformed). */
int stopguard_parse_syscall(const char *text, size_t len, long *nr,
	    unsigned long long args[6]);

#endif
