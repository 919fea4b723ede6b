/*
 * The upload-file subcommand: send an existing .col file to the backend
 * once, like gProfiler's "upload-file --file-path F" (implies -u).  Exit 0
 * when the backend accepted it, 1 otherwise, 2 for usage errors.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "base/http.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "output/col_header.h"
#include "profile/profile.h"
#include "studio/studio.h"

#define UPLOAD_FILE_MAX		(512u << 20)

static void
upload_file_done(void *arg)
{
	event_base_loopexit(arg, NULL);
}

static char *
upload_file_read(const char *path, size_t *lenp)
{
	struct stat st;
	char *buf;
	ssize_t r;
	size_t off = 0;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (NULL);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > UPLOAD_FILE_MAX) {
		close(fd);
		errno = EINVAL;
		return (NULL);
	}
	buf = xmalloc(st.st_size + 1);
	while (off < (size_t)st.st_size) {
		if ((r = read(fd, buf + off, st.st_size - off)) <= 0) {
			if (r == -1 && errno == EINTR)
				continue;
			break;
		}
		off += r;
	}
	close(fd);
	/* The .col has no trailing newline; a copied file may. */
	while (off > 0 && buf[off - 1] == '\n')
		off--;
	buf[off] = '\0';
	*lenp = off;
	return (buf);
}

/* The header object of the .col's first line, or NULL. */
static struct json_object *
upload_file_header(const char *col)
{
	const char *p = col;
	char *line;
	struct json_object *h;

	if (*p != '#')
		return (NULL);
	p++;
	line = xstrndup(p, strcspn(p, "\n"));
	h = json_tokener_parse(line);
	free(line);
	if (h != NULL && !json_object_is_type(h, json_type_object)) {
		json_object_put(h);
		h = NULL;
	}
	return (h);
}

/*
 * The upload is dated by the profile's own window (its header), as
 * gProfiler's upload-file does: the backend files a profile under its
 * start_time, and "now" would misfile an old file.
 */
static void
upload_file_window(const char *path, const char *col, size_t len,
    struct cycle_output *co)
{
	char err[160];
	int rc;

	rc = col_header_window(col, len, &co->start, &co->end, err,
	    sizeof(err));
	if (rc == 0)
		return;
	if (rc == 1) {
		log_info("upload-file: %s: the header states only when the "
		    "profile ended; it is filed under that time", path);
		return;
	}
	log_warnx("upload-file: %s: %s; the profile is dated now", path, err);
	clock_gettime(CLOCK_REALTIME, &co->end);
	co->start = co->end;
}

int
upload_file_main(int argc, char **argv, struct config *cfg)
{
	struct event_base *base;
	struct cycle_output co;
	const char *path = NULL;
	char *col, err[256];
	size_t len;
	int i, rc = 1;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--file-path") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (strncmp(argv[i], "--file-path=", 12) == 0)
			path = argv[i] + 12;
		else if (strcmp(argv[i], "upload-file") != 0) {
			log_warnx("upload-file: unknown argument %s; usage: "
			    "gprofiler [options] upload-file --file-path F",
			    argv[i]);
			return (EXIT_USAGE);
		}
	}
	if (path == NULL) {
		log_warnx("upload-file: --file-path F is required");
		return (EXIT_USAGE);
	}
	if (config_set(cfg, "upload-results", "true", SRC_CLI, "upload-file",
	    err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		return (EXIT_USAGE);
	}
	if ((col = upload_file_read(path, &len)) == NULL) {
		log_warnx("upload-file: %s: %s", path, strerror(errno));
		return (1);
	}
	memset(&co, 0, sizeof(co));
	co.cfg = cfg;
	co.header = upload_file_header(col);
	if (co.header == NULL)
		log_warnx("upload-file: %s: the first line is not a \"# {...}\" "
		    "header; the backend will refuse it", path);
	upload_file_window(path, col, len, &co);
	base = event_base_new();
	upload_set_memory_only(1);
	if (studio_init(base, cfg) != 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	upload_enqueue(&co, col, len);
	studio_shutdown(upload_file_done, base);
	event_base_dispatch(base);
	rc = upload_sent_count() > 0 ? 0 : 1;
	if (rc == 0)
		log_info("upload-file: %s uploaded", path);
	else
		log_warnx("upload-file: %s was not accepted", path);
out:
	json_object_put(co.header);
	free(col);
	http_fini();
	event_base_free(base);
	return (rc);
}
