/*
 * gProfiler's application identifier for a Ruby process
 * (docs/specs/gprofiler-compat.md §8): the first argument ending ".rb",
 * skipping "-rX" and "-r X" (a library to require, which may end ".rb"
 * too), as "ruby: F (<absolute path>)", a relative F joined to the
 * process's working directory.  No identifier for anything else (a Puma or
 * Unicorn master whose title was rewritten, "bundle exec ..."), as in
 * gProfiler.  Pure over the argument vector.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rubyreader.h"

static int
ruby_appid_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return (n >= m && strcmp(s + n - m, suffix) == 0);
}

/* 0 with the appid in out, -ENOENT without one. */
int
ruby_appid(const char *const *argv, int argc, const char *cwd, char *out,
    size_t len)
{
	const char *f = NULL;
	int i, n;

	if (len == 0)
		return (-EINVAL);
	out[0] = '\0';
	for (i = 1; i < argc && f == NULL; i++) {
		if (strcmp(argv[i], "-r") == 0) {
			i++;
			continue;
		}
		if (strncmp(argv[i], "-r", 2) == 0)
			continue;
		if (ruby_appid_ends(argv[i], ".rb"))
			f = argv[i];
	}
	if (f == NULL)
		return (-ENOENT);
	if (f[0] == '/' || cwd == NULL || cwd[0] == '\0')
		n = snprintf(out, len, "ruby: %s (%s)", f, f);
	else
		n = snprintf(out, len, "ruby: %s (%s%s%s)", f, cwd,
		    ruby_appid_ends(cwd, "/") ? "" : "/", f);
	/* A cut path would name another file: say so instead. */
	if (n < 0 || (size_t)n >= len)
		snprintf(out, len, "ruby: <path too long>");
	return (0);
}
