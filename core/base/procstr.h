/*
 * procstr.c: reads the kernel makes from a process's own memory on the
 * agent's behalf — its argument and environment strings
 * (/proc/PID/cmdline, /proc/PID/environ) and its AT_EXECFN string
 * (process_vm_readv) — happen only when that memory is anonymous.
 *
 * A local user can map a page of a file on their FUSE mount over those
 * strings; a read of it then waits, uninterruptibly and deaf to SIGTERM,
 * for that user's server.  Linux 4.18 made the two /proc files skip pages
 * of files; older kernels and process_vm_readv do not.  So the agent
 * checks the process's maps first, whatever the kernel (base room).
 */
#ifndef GP_BASE_PROCSTR_H
#define GP_BASE_PROCSTR_H

#include <stddef.h>
#include <stdint.h>

/* /proc/PID/stat fields 48-51 (Linux 3.5): where the strings are. */
struct procstr_ranges {
	uint64_t arg_start, arg_end;
	uint64_t env_start, env_end;
};

/* Bytes of /proc/PID/maps read for one check at most (some 40,000
 * mappings; a process with more is refused, not read). */
#define PROCSTR_MAPS_MAX	(4u << 20)

/* The four fields of a /proc/PID/stat text: 0, or -EINVAL (malformed, or
 * a kernel older than 3.5 that does not show them).  Pure. */
int procstr_parse_stat(const char *, size_t, struct procstr_ranges *);
/*
 * Whether [addr, addr + len) touches only anonymous mappings in a
 * /proc/PID/maps text (whole lines): 0, -EREMOTE if a file mapping is
 * there, or 1 when the text has reached past the range (the rest of the
 * maps cannot touch it: they are sorted).  Pure.
 */
int procstr_maps_anon(const char *, size_t, uint64_t addr, uint64_t len);
/* The same over pid's live maps: asked by address where the kernel
 * answers that (Linux 6.11, PROCMAP_QUERY), else read a chunk at a time
 * up to PROCSTR_MAPS_MAX under the maps budget (mapsread.h): 0,
 * -EREMOTE, -E2BIG, -EAGAIN (deferred) or -errno. */
int procstr_range_anon(int pid, uint64_t addr, uint64_t len);
/* Whether to ask by address where the kernel answers (default 1; tests
 * compare both ways). */
void procstr_set_query(int);
/*
 * For safeopen, on an O_PATH fd it resolved (st: its fstat): 0 if it is
 * not a process's cmdline or environ, or if that process's strings are
 * in anonymous memory; else -EREMOTE (a file is mapped there), -EPERM (a
 * cmdline or environ outside the host's /proc: its process cannot be
 * checked), -ENOTSUP (a kernel before 3.5) or -errno.
 */
struct stat;
int procstr_guard_fd(int fd, const struct stat *st);
/* The pid the last guard refused (0: none since the last call), for the
 * one line that says so. */
int procstr_refused(void);

#endif
