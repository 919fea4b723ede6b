/*
 * Parsers for the /proc files the symbolizer reads: /proc/PID/maps,
 * /proc/PID/status and /proc/PID/stat.  Pure functions over bytes (no I/O),
 * so they are unit tested and fuzzed; the caller reads the files.
 */
#ifndef PERF_PROCMAPS_H
#define PERF_PROCMAPS_H

#include <stddef.h>
#include <stdint.h>

/* One executable mapping of /proc/PID/maps. */
struct procmaps_entry {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t path_off;	/* into procmaps.paths; path_len 0: none */
	uint32_t path_len;
	uint32_t deleted;	/* path ended in " (deleted)" (kept) */
};

/* The executable mappings of one process, sorted by start. */
struct procmaps {
	struct procmaps_entry *v;
	size_t n;
	char *paths;	/* NUL-terminated paths, one blob */
	size_t paths_len;
	size_t bad_lines;
};

/*
 * Parse a maps file.  Only executable mappings are kept (those are the only
 * ones that can hold a sampled instruction pointer).  Lines that do not parse
 * are counted in bad_lines and skipped.  Returns 0 or -ENOMEM; free with
 * procmaps_free.
 */
int procmaps_parse(const char *, size_t, struct procmaps *);
void procmaps_free(struct procmaps *);
const char *procmaps_path(const struct procmaps *,
		    const struct procmaps_entry *);
/* Index of the mapping holding addr, or -1. */
long procmaps_find(const struct procmaps *, uint64_t);
/* Whether two parses list the same mappings of the same files. */
int procmaps_same(const struct procmaps *, const struct procmaps *);
/*
 * from (NULL: none) with e added (its path, NULL: none) into out; what
 * overlaps e is left out.  src[i] (room for from->n + 1) is out->v[i]'s
 * index in from, SIZE_MAX for e.  0 or -ENOMEM; free out with
 * procmaps_free.
 */
int procmaps_add(const struct procmaps *from,
		    const struct procmaps_entry *e, const char *path,
		    struct procmaps *out, size_t *src);

/* What the symbolizer needs from /proc/PID/status. */
struct procstatus {
	char name[64];	/* Name:, "" when absent */
	int32_t nspid;	/* last NSpid: value, 0 when absent */
	int32_t tgid;	/* Tgid:, 0 when absent */
	int64_t euid;	/* Uid: (effective), -1 when absent */
};
int procstatus_parse(const char *, size_t, struct procstatus *);

/* Field 22 (starttime, clock ticks since boot) of /proc/PID/stat. */
int procstat_starttime(const char *, size_t, uint64_t *);
/* Field 4 (ppid) of /proc/PID/stat. */
int procstat_ppid(const char *, size_t, int32_t *);

#endif
