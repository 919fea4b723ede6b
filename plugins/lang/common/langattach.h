/*
 * Attaching a runtime's reader to a process (langattach.c): the steps the
 * Python, Ruby and PHP readers take alike, each failure said in why as
 * the plugin reports it.  The interpreter's object is found in the
 * process's maps, its file opened (langproc_open_object) and its ELF
 * facts read, once per file where the reader keeps them; the reader's
 * memory is set up and a trial read judged.  Compiled into each reader.
 */
#ifndef GP_LANGATTACH_H
#define GP_LANGATTACH_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "langguard.h"
#include "langproc.h"

/*
 * Whether maps (a /proc/PID/maps text) holds the interpreter, exe_ino
 * being the executable's inode (0: unknown): 0 with what was found kept
 * in arg, or -ENOENT.
 */
typedef int (*langattach_find_fn)(void *arg, const char *maps, size_t len,
		    uint64_t exe_ino);

/*
 * pid's maps read and searched by find: 0; -ESRCH, they cannot be read;
 * -ENOENT, no interpreter ("no <what> found"); -EAGAIN, none yet (the
 * dynamic linker at work, *linking set); -EINPROGRESS, the read deferred
 * by the host's budget of maps reads (tried again).
 */
int langattach_find(pid_t, langattach_find_fn, void *arg, const char *what,
	    int *linking, char *why, size_t whylen);
/* The interpreter's file, as langproc_open_object: fd, or -errno. */
int langattach_open(pid_t, uint64_t start, uint64_t end, const char *path,
	    int is_exe, char *why, size_t whylen);

/*
 * How a reader reads its interpreter's ELF facts, and what it found in
 * the last files it read, by their identity (device, inode, size and
 * modification time): the processes of a host mostly run one or two
 * interpreters (a php-fpm pool's workers map one binary; a libpython's
 * symbol tables hold tens of thousands of symbols), read once rather
 * than per process, so that the ELF reader's share of a loop turn
 * (elfread.h) attaches many at once.  Without facts, nothing is kept.
 */
#define LANGATTACH_CACHE	8

struct langattach_elf {
	int (*read)(int fd, void *facts);
	size_t size;	/* of one reader's facts */
	void *facts;	/* LANGATTACH_CACHE of them, or NULL */
	struct {
		int used;
		dev_t dev;
		ino_t ino;
		off_t size;
		struct timespec mtim;
		int rc;
	} file[LANGATTACH_CACHE];
	unsigned int next;
};

/* The facts of the file fd into facts: the read's result. */
int langattach_elf_read(struct langattach_elf *, int fd, void *facts);
/*
 * The same, fd closed, and the ELF reader's answers said: 0; 1, the read
 * failed otherwise (the file holds no interpreter: for the caller to
 * say); -EINPROGRESS, the ELF reader's turn spent (try again); -ENOENT,
 * a file it refused.
 */
int langattach_read(struct langattach_elf *, int fd, const char *path,
	    void *facts, char *why, size_t whylen);

/* The reader's guard could not be set up (rc): -ENOMEM or -ESRCH. */
int langattach_guard_failed(int rc, char *why, size_t whylen);
/*
 * The reader's memory for a trial read: pg's guard and page cache, and a
 * zeroed frame text cache of size bytes (returned), the first sample
 * begun.  NULL with *rcp -ENOMEM or -ESRCH.
 */
void *langattach_memory(struct langproc_pages *pg, pid_t, size_t size,
	    int *rcp, char *why, size_t whylen);
/* A reader's frame callback that counts the frames (uint32_t *arg). */
int langattach_count_frame(void *arg, const char *text);
/*
 * A trial read failed (rc, the guard's reason for -EREMOTE): "<fmt>: why";
 * -ESRCH (gone, nothing said), -EPERM, or -EIO.
 */
int langattach_trial_failed(int rc, const struct langguard *, char *why,
	    size_t whylen, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));

#endif
