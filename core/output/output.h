/*
 * Local outputs (core/output/): the .col file, the flame graph page and
 * subcommand, pprof.
 */
#ifndef GP_OUTPUT_OUTPUT_H
#define GP_OUTPUT_OUTPUT_H

#include <stddef.h>
#include <time.h>

struct config;
struct cycle_output;

/* col.c */
/* The .col text (header line, stacks, no trailing newline). Caller frees. */
char *col_render(const struct cycle_output *, size_t *lenp);

/* output.c */
/* Local files for one cycle under --output-dir: .col, .html, .pb.gz,
 * last_* symlinks, rotation.  0 / -errno (logged). */
int output_write_cycle(const struct cycle_output *);
/* Create --output-dir (0755) and check it is writable, at start-up: a bad
 * one is one line in err naming the dir and the fix.  0 / -errno. */
int output_check_dir(const struct config *, char *err,
		    size_t errlen);
/* --output-format names only formats that have a writer: 0, or -EINVAL
 * with one line naming the option and the fix (exit 2). */
int output_check_formats(const struct config *, char *err,
		    size_t errlen);
/* Whether the --output-format comma list (default "col") names fmt. */
int output_format_has(const struct config *, const char *fmt);
/* Ad-hoc runs (co->adhoc, flamegraph on): set header["flamegraph_html"]
 * to the cycle's page before the upload's col_render.  1 if set. */
int output_embed_flamegraph(const struct cycle_output *);

/* flamegraph.c */
/* Self-contained HTML flame graph of a .col text (its header gives times,
 * host, mode).  Caller frees. */
char *flamegraph_render(const char *col, size_t collen, size_t *lenp);
/* The same with the cycle's times for the page header (NULL: from the
 * .col header's start_time/end_time or metadata.current_time). */
char *flamegraph_render_times(const char *col, size_t collen,
		    const struct timespec *start, const struct timespec *end,
		    size_t *lenp);
/* Just the page's JSON ({"meta", "tree"}), for tests and the fuzzer. */
char *flamegraph_json(const char *col, size_t collen,
		    const struct timespec *start, const struct timespec *end,
		    size_t *lenp);

/* flamegraph_main.c */
/* `gprofiler flamegraph FILE.col [-o out.html]`: exit status. */
int flamegraph_main(int argc, char **argv);

/* pprof.c */
/* gzip'd perftools.profiles.Profile of the cycle.  Caller frees. */
unsigned char *pprof_render(const struct cycle_output *, size_t *lenp);

#endif
