/*
 * procfs.c: pure parsers of /proc, os-release, auxv and ELF header
 * bytes, and the small-file reader (base room).
 */
#ifndef GP_BASE_PROCFS_H
#define GP_BASE_PROCFS_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

struct cpu_times {
	uint64_t total;	/* without guest time */
	uint64_t idle;	/* idle + iowait */
};
struct os_release {
	char name[128];
	char release[64];
	char codename[64];
};
struct cpu_info {
	char model_name[256];
	char flags[4096];
	int family;	/* -1: unknown */
	int model;
};
int procfs_stat_ppid(const char *, size_t, int32_t *ppid);
int procfs_cpu_times(const char *, size_t, struct cpu_times *);
int procfs_meminfo(const char *, size_t, uint64_t *total_kb,
		    uint64_t *avail_kb);
int procfs_os_release(const char *, size_t, struct os_release *);
int procfs_cpuinfo(const char *, size_t, struct cpu_info *);
int procfs_auxv_execfn(const unsigned char *, size_t,
		    uint64_t *addr);
const char *procfs_elf_arch(const unsigned char *, size_t);
/* A file of /proc or /sys, which no user serves, into buf (NUL-terminated,
 * cut at cap - 1 bytes): its length, or -errno.  No allocation, no log
 * and no safe open: for the stop guard's thread (stopguard.c, fusebreak.c)
 * while the loop may hold anything. */
ssize_t procfs_read_buf(const char *path, char *buf, size_t cap);
/* Read a small file whole (NUL-terminated); caller frees.  -errno. */
int procfs_read(const char *path, char **bufp, size_t *lenp,
		    size_t max);

#endif
