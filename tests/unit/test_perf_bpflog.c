/*
 * Unit tests for plugins/perf/sampler/bpflog.c: libbpf's messages cut into log
 * lines (the verifier log's last lines kept, long lines split) and the
 * refused helper read out of a verifier log, as Linux 5.10 and later
 * kernels word it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"
#include "sampler/bpflog.h"

struct lines {
	char out[64][512];
	int n;
};

static void
collect(void *arg, const char *line, size_t len)
{
	struct lines *l = arg;

	if (l->n < 64)
		snprintf(l->out[l->n], sizeof(l->out[0]), "%.*s", (int)len, line);
	l->n++;
}

static void
run(struct lines *l, const char *msg, size_t width, int keep)
{
	memset(l, 0, sizeof(*l));
	bpflog_lines(msg, strlen(msg), width, keep, collect, l);
}

/* A verifier log of Linux 5.10 refusing bpf_get_current_task_btf: 40
 * lines of listing, then the reason as that kernel gave it. */
static char *
log_510(void)
{
	static char buf[8192];
	size_t off = 0;
	int i;

	off += (size_t)snprintf(buf + off, sizeof(buf) - off,
	    "prog 'on_sample': -- BEGIN PROG LOAD LOG --\n");
	for (i = 0; i < 40; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off,
		    "%d: (85) call bpf_get_smp_processor_id#8\n", i);
	/* the end of the log Debian 11's 5.10.223 wrote for the sampler */
	snprintf(buf + off, sizeof(buf) - off,
	    "; long p = bpf_task_pt_regs(bpf_get_current_task_btf());\n"
	    "179: (85) call unknown#158\ninvalid func unknown#158\n"
	    "processed 208 insns (limit 1000000) max_states_per_insn 1 "
	    "total_states 19 peak_states 19 mark_read 6\n"
	    "-- END PROG LOAD LOG --\n");
	return (buf);
}

int
main(void)
{
	struct lines l;
	char name[64], big[2000];
	int id;

	run(&l, "libbpf: failed to load object 'sampler_bpf'\n", 400, 20);
	CHECK_INTEQ(l.n, 1, "one line, its newline dropped");
	CHECK_STREQ(l.out[0], "libbpf: failed to load object 'sampler_bpf'",
	    "text kept");
	run(&l, "a\n\nb\r\nc", 400, 20);
	CHECK_INTEQ(l.n, 3, "empty lines skipped, last line without newline");
	CHECK_STREQ(l.out[1], "b", "carriage return dropped");

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[1000] = 'T';
	run(&l, big, 400, 20);
	CHECK_INTEQ(l.n, 5, "a 1999-byte line split into 400-byte pieces");
	CHECK(strlen(l.out[4]) == 399 && l.out[2][200] == 'T',
	    "nothing lost in the split");

	run(&l, log_510(), 400, 20);
	CHECK_INTEQ(l.n, 23, "BEGIN line, a note, 20 last lines, END line");
	CHECK(strstr(l.out[0], "BEGIN PROG LOAD LOG") != NULL, "BEGIN kept");
	CHECK_STREQ(l.out[1], "  ... (24 earlier lines of the verifier's "
	    "log left out)", "the note counts what was left out");
	CHECK_STREQ(l.out[20], "invalid func unknown#158",
	    "the kernel's reason is among the kept lines");
	CHECK(strstr(l.out[22], "END PROG LOAD LOG") != NULL, "END kept");
	run(&l, log_510(), 400, 0);
	CHECK_INTEQ(l.n, 46, "keep 0: the whole log");
	run(&l, "prog 'x': -- BEGIN PROG LOAD LOG --\nonly line\n", 400, 20);
	CHECK_INTEQ(l.n, 2, "a log without its END line: every line shown");

	id = bpflog_refused_helper(log_510(), strlen(log_510()), name,
	    sizeof(name));
	CHECK_INTEQ(id, 158, "5.10's \"invalid func unknown#158\"");
	CHECK_STREQ(name, "bpf_get_current_task_btf", "named from the table");
	CHECK_STREQ(bpflog_helper_since(name), "5.11", "and its release");
	id = bpflog_refused_helper("unknown func bpf_task_pt_regs#175\n", 34,
	    name, sizeof(name));
	CHECK_INTEQ(id, 175, "a newer kernel's wording");
	CHECK_STREQ(name, "bpf_task_pt_regs", "the kernel's own name kept");
	CHECK_STREQ(bpflog_helper_since(name), "5.15", "5.15");
	id = bpflog_refused_helper("invalid func unknown#99999\n", 27, name,
	    sizeof(name));
	CHECK_INTEQ(id, 99999, "a number past the table");
	CHECK_STREQ(name, "helper #99999", "named by number");
	CHECK_INTEQ(bpflog_refused_helper("R1 type=ctx expected=fp\n", 24,
	    name, sizeof(name)), -1, "a log naming no helper");
	CHECK_INTEQ(bpflog_refused_helper("invalid func unknown#", 21, name,
	    sizeof(name)), -1, "cut before the number");
	CHECK_INTEQ(bpflog_refused_helper("invalid func unknown#158", 18,
	    name, sizeof(name)), -1, "length respected");
	CHECK(bpflog_helper_since("bpf_no_such_helper") == NULL,
	    "an unknown helper has no release");
	return (testing_done());
}
