/*
 * The log's lines (core/base/log.c): one message is one log line, however
 * many lines its text has; what a message quotes (a path a user chose,
 * with a newline and a forged log line in it) cannot begin a line of its
 * own; control bytes are escaped.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "testing.h"

/* The lines of path (-1: none), all of them in all, and in *conts how
 * many after the first are continuations (begin with a tab). */
static int
read_lines(const char *path, int *conts, char *all, size_t allsz)
{
	char line[8192];
	FILE *f;
	int n = 0;

	*conts = 0;
	all[0] = '\0';
	if ((f = fopen(path, "r")) == NULL)
		return (-1);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (n > 0 && line[0] == '\t')
			(*conts)++;
		strncat(all, line, allsz - strlen(all) - 1);
		n++;
	}
	fclose(f);
	return (n);
}

int
main(void)
{
	char dir[] = "/tmp/gptest-log.XXXXXX", path[64], all[16384];
	int n, conts;

	if (mkdtemp(dir) == NULL)
		return (99);
	snprintf(path, sizeof(path), "%s/log", dir);
	log_init(0, "gprofiler");
	CHECK(log_open_file(path, 0, 0) == 0, "log file opened");
	log_setverbose(0);	/* stderr quiet at DEBUG; the file takes all */

	log_msg(LOG_LEVEL_DEBUG, "perf", "reading /tmp/x\n2026-12-06T00:00:"
	    "00.000Z ERROR gprofiler: forged line\nend");
	n = read_lines(path, &conts, all, sizeof(all));
	CHECK(n == 3 && conts == 2, "a message of three lines: one log line "
	    "and two indented continuations");
	CHECK(strstr(all, "\n\t2026-12-06T00:00:00.000Z ERROR gprofiler: "
	    "forged line\n") != NULL, "the quoted line cannot pass for one of "
	    "the agent's");
	CHECK(strstr(all, " DEBUG perf: reading /tmp/x\n") != NULL,
	    "the message's first line is the log line");

	CHECK(truncate(path, 0) == 0, "log emptied");
	log_msg(LOG_LEVEL_INFO, NULL, "esc \x1b[31mred\r\x7f");
	n = read_lines(path, &conts, all, sizeof(all));
	CHECK(n == 1 && strstr(all, "esc \\x1b[31mred\\x0d\\x7f\n") != NULL,
	    "control bytes escaped, one line");

	CHECK(truncate(path, 0) == 0, "log emptied");
	log_last_words("stopping: /tmp/a\nERROR forged");
	n = read_lines(path, &conts, all, sizeof(all));
	CHECK(n == 2 && conts == 1, "last words: the same discipline");

	log_close_file();
	unlink(path);
	rmdir(dir);
	return (testing_done());
}
