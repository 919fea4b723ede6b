/*
 * `gprofiler flamegraph FILE.col [-o OUT.html]`: render any existing .col
 * (or plain folded stacks) as the same self-contained page the agent
 * writes each cycle.  Without -o the page goes beside the input, FILE.html;
 * "-o -" writes it to stdout.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "gprofiler.h"
#include "output/output.h"

#define FG_MAX_INPUT	((size_t)1 << 30)	/* 1 GiB: refuse beyond */

static void
flamegraph_usage(void)
{
	fprintf(stderr, "usage: gprofiler flamegraph FILE.col "
	    "[-o OUT.html | -o -]\n");
}

/* The whole file, NUL-terminated; NULL with errno set. */
static char *
flamegraph_slurp(const char *path, size_t *lenp)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (NULL);
	for (;;) {
		if (len + 65536 + 1 > cap) {
			cap = cap ? cap * 2 : 131072;
			if (cap > FG_MAX_INPUT + 65536 + 1) {
				errno = EFBIG;
				goto fail;
			}
			buf = xreallocarray(buf, 1, cap);
		}
		if ((n = read(fd, buf + len, cap - len - 1)) == -1) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*lenp = len;
	return (buf);
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return (NULL);
}

/* FILE.col -> FILE.html; anything else gets ".html" appended. */
static char *
flamegraph_default_out(const char *in)
{
	size_t n = strlen(in);
	char *out;

	if (n > 4 && strcmp(in + n - 4, ".col") == 0)
		xasprintf(&out, "%.*s.html", (int)(n - 4), in);
	else
		xasprintf(&out, "%s.html", in);
	return (out);
}

static int
flamegraph_write(const char *out, const char *html, size_t len)
{
	char *d, *b;
	int dirfd, rc;

	if (strcmp(out, "-") == 0)
		return (fwrite(html, 1, len, stdout) == len &&
		    fflush(stdout) == 0 ? 0 : -EIO);
	d = xstrdup(out);
	b = xstrdup(out);
	if ((dirfd = open(dirname(d), O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		rc = -errno;
	else {
		rc = file_write_atomic(dirfd, basename(b), html, len, 0644);
		close(dirfd);
	}
	free(d);
	free(b);
	return (rc);
}

int
flamegraph_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *in, *outarg = NULL;
	char *col, *html, *out;
	size_t collen, hlen;
	int ch, rc;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			outarg = optarg;
			break;
		case 'h':
			flamegraph_usage();
			return (0);
		default:
			flamegraph_usage();
			return (EXIT_USAGE);
		}
	}
	if (argc - optind != 1) {
		flamegraph_usage();
		return (EXIT_USAGE);
	}
	in = argv[optind];
	if ((col = flamegraph_slurp(in, &collen)) == NULL) {
		log_warn("flamegraph: cannot read %s", in);
		return (1);
	}
	out = outarg != NULL ? xstrdup(outarg) : flamegraph_default_out(in);
	html = flamegraph_render(col, collen, &hlen);
	if ((rc = flamegraph_write(out, html, hlen)) != 0)
		log_msg(LOG_LEVEL_ERR, "flamegraph", "cannot write %s: %s: "
		    "choose a writable path with -o", out, strerror(-rc));
	else if (strcmp(out, "-") != 0)
		log_info("flamegraph: wrote %s", out);
	free(html);
	free(out);
	free(col);
	return (rc != 0 ? 1 : 0);
}
