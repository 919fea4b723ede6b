/*
 * libbpf's messages and the kernel verifier's log, read when the BPF
 * sampler cannot load: cut into log lines the agent's log can carry, and
 * searched for the helper the kernel refused, so the operator is told
 * which kernel feature is missing rather than "Invalid argument".
 * Pure functions over bytes (unit tested, fuzzed: fuzz_perf_bpflog.c).
 */
#ifndef GP_PERF_BPFLOG_H
#define GP_PERF_BPFLOG_H

#include <stddef.h>

#define BPFLOG_WIDTH	400	/* bytes per log line; longer are split */
#define BPFLOG_KEEP	20	/* last lines of a verifier log kept */

/*
 * Call emit once per line of MSG (LEN bytes, newlines not passed), lines
 * longer than WIDTH split into pieces; of a verifier log (the lines
 * between libbpf's "-- BEGIN PROG LOAD LOG --" and "-- END PROG LOAD LOG
 * --") only the last KEEP lines, after one line saying how many were left
 * out: the kernel's reason is at its end.  Empty lines are skipped.
 */
void bpflog_lines(const char *msg, size_t len, size_t width, int keep,
	    void (*emit)(void *, const char *, size_t), void *arg);

/*
 * The helper a verifier log says it refused ("invalid func
 * unknown#158", "unknown func bpf_task_pt_regs#175"): its number, its
 * name written into NAME ("bpf_get_current_task_btf"; "helper #N" when
 * the number is past this build's table), or -1 when the log names none.
 * The last such line wins.
 */
int bpflog_refused_helper(const char *msg, size_t len, char *name,
	    size_t namelen);

/* The first Linux release with helper NAME ("5.11"), or NULL if unknown. */
const char *bpflog_helper_since(const char *name);

#endif
