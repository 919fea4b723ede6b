/* output.c: the files of a cycle under --output-dir, links, rotation. */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/fileio.h"
#include "base/log.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "output/output.h"
#include "profile/profile.h"
#include "testing.h"

static char tmp[] = "/tmp/gptest-output.XXXXXX";
static char dir[PATH_MAX];

static void
set(struct config *c, const char *k, const char *v)
{
	char err[256];

	if (config_set(c, k, v, SRC_CLI, "test", err, sizeof(err)) != 0)
		printf("# config_set %s: %s\n", k, err);
}

static char *
slurp(const char *name, size_t *lenp)
{
	char path[PATH_MAX * 2], *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "rb")) == NULL)
		return (NULL);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	*lenp = fread(buf, 1, (size_t)n, f);
	buf[*lenp] = '\0';
	fclose(f);
	return (buf);
}

static int
exists(const char *name)
{
	char path[PATH_MAX * 2];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return (lstat(path, &st) == 0);
}

static const char *
link_of(const char *name)
{
	static char buf[PATH_MAX];
	char path[PATH_MAX * 2];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((n = readlink(path, buf, sizeof(buf) - 1)) < 0)
		return ("");
	buf[n] = '\0';
	return (buf);
}

static int
count_tmp_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d != NULL && (e = readdir(d)) != NULL)
		if (strstr(e->d_name, ".tmp") != NULL)
			n++;
	if (d != NULL)
		closedir(d);
	return (n);
}

static struct profile *
make_profile(void)
{
	static const char *const a[] = { "main_[p]", "f_[p]" };
	static const char *const b[] = { "ngx", "epoll_wait_[k]" };
	struct profile *p = profile_new();

	profile_add_stack(p, 10, "python3", a, 2, 5);
	profile_add_stack(p, 20, "nginx", b, 2, 4);
	return (p);
}

static void
cycle(struct cycle_output *co, time_t end)
{
	co->start.tv_sec = end - 60;
	co->end.tv_sec = end;
	CHECK_INTEQ(output_write_cycle(co), 0, "cycle written");
}

static void
test_files(struct config *cfg, struct cycle_output *co)
{
	struct stat st;
	char *col, *want;
	size_t len, wlen;

	cycle(co, 1736334000);		/* 2025-01-08T11:00:00Z */
	CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_mode & 07777) == 0700, "missing output dir created 0700");
	col = slurp("profile_2025-01-08T11:00:00.col", &len);
	want = col_render(co, &wlen);
	CHECK(col != NULL && len == wlen && memcmp(col, want, len) == 0,
	    "profile_<UTC end>.col holds col_render's text");
	free(col);
	free(want);
	col = slurp("profile_2025-01-08T11:00:00.html", &len);
	CHECK(col != NULL && strncmp(col, "<!DOCTYPE html>", 15) == 0 &&
	    strstr(col, "epoll_wait_[k]") != NULL &&
	    strstr(col, "2025-01-08T10:59:00") != NULL,
	    "profile_<end>.html is the flame graph with the cycle's times");
	free(col);
	CHECK_STREQ(link_of("last_profile.col"),
	    "profile_2025-01-08T11:00:00.col", "last_profile.col relative");
	CHECK_STREQ(link_of("last_flamegraph.html"),
	    "profile_2025-01-08T11:00:00.html", "last_flamegraph.html relative");
	CHECK(!exists("profile_2025-01-08T11:00:00.pb.gz"),
	    "no pprof by default");
	CHECK_INTEQ(count_tmp_files(), 0, "no temporary files left");

	cycle(co, 1736334060);
	CHECK(exists("profile_2025-01-08T11:00:00.col") &&
	    exists("profile_2025-01-08T11:01:00.col"),
	    "without rotation old files stay");
	CHECK_STREQ(link_of("last_profile.col"),
	    "profile_2025-01-08T11:01:00.col", "link moved to the newest");

	set(cfg, "rotating-output", "true");
	set(cfg, "output-format", "col, pprof");
	cycle(co, 1736334120);
	CHECK(!exists("profile_2025-01-08T11:01:00.col") &&
	    !exists("profile_2025-01-08T11:01:00.html"),
	    "rotation removes the previously linked files");
	CHECK(exists("profile_2025-01-08T11:00:00.col"),
	    "rotation removes only what the link named");
	col = slurp("profile_2025-01-08T11:02:00.pb.gz", &len);
	CHECK(col != NULL && len > 20 && (unsigned char)col[0] == 0x1f &&
	    (unsigned char)col[1] == 0x8b, "output-format pprof: gzip'd .pb.gz");
	free(col);

	cycle(co, 1736334120);
	CHECK(exists("profile_2025-01-08T11:02:00.col") &&
	    exists("profile_2025-01-08T11:02:00.pb.gz"),
	    "a cycle reusing the same second does not rotate itself away");

	set(cfg, "flamegraph", "false");
	cycle(co, 1736334180);
	CHECK(exists("profile_2025-01-08T11:03:00.col") &&
	    !exists("profile_2025-01-08T11:03:00.html"),
	    "flamegraph=false: no .html");
	CHECK(!exists("profile_2025-01-08T11:02:00.col") &&
	    !exists("profile_2025-01-08T11:02:00.html") &&
	    !exists("profile_2025-01-08T11:02:00.pb.gz"),
	    "rotation removes .col, .html and .pb.gz of the old cycle");
	CHECK_INTEQ(count_tmp_files(), 0, "still no temporary files");
}

static void
test_embed(struct cycle_output *co, struct config *cfg)
{
	struct json_object *v;

	set(cfg, "flamegraph", "true");
	co->adhoc = 0;
	CHECK_INTEQ(output_embed_flamegraph(co), 0, "continuous: not embedded");
	CHECK(json_object_object_get_ex(co->header, "flamegraph_html", &v) == 0
	    || v == NULL, "continuous: flamegraph_html stays null");
	co->adhoc = 1;
	set(cfg, "flamegraph", "false");
	CHECK_INTEQ(output_embed_flamegraph(co), 0, "--no-flamegraph: not "
	    "embedded");
	set(cfg, "flamegraph", "true");
	CHECK_INTEQ(output_embed_flamegraph(co), 1, "ad-hoc: embedded");
	CHECK(json_object_object_get_ex(co->header, "flamegraph_html", &v) &&
	    strncmp(json_object_get_string(v), "<!DOCTYPE html>", 15) == 0 &&
	    strstr(json_object_get_string(v), "epoll_wait_[k]") != NULL,
	    "ad-hoc: header carries the page of this cycle");
	json_object_object_add(co->header, "flamegraph_html", NULL);
	co->adhoc = 0;
}

static void
test_bad_dir(struct cycle_output *co, struct config *cfg)
{
	char path[PATH_MAX * 2], err[512];
	int fd;

	snprintf(path, sizeof(path), "%s/file", tmp);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	close(fd);
	snprintf(path, sizeof(path), "%s/file/sub", tmp);
	set(cfg, "output-dir", path);
	CHECK(output_write_cycle(co) < 0, "unwritable dir: error returned");
	err[0] = '\0';
	CHECK(output_check_dir(cfg, err, sizeof(err)) == -ENOTDIR,
	    "start-up check fails");
	CHECK(strstr(err, path) != NULL && strstr(err, "--output-dir") != NULL,
	    "message names the dir and the fix");
	printf("# %s\n", err);
}

static void
test_helpers(struct config *cfg)
{
	char *buf;
	size_t len;
	int fd;

	set(cfg, "output-format", "col,pprof");
	CHECK(output_format_has(cfg, "pprof") && output_format_has(cfg, "col"),
	    "comma list");
	set(cfg, "output-format", "col");
	CHECK(!output_format_has(cfg, "pprof"), "col only");
	set(cfg, "output-format", " PPROF ");
	CHECK(output_format_has(cfg, "pprof"), "spaces and case");
	{
		char err[256] = "";

		set(cfg, "output-format", "col,pprof");
		CHECK_INTEQ(output_check_formats(cfg, err, sizeof(err)), 0,
		    "col,pprof: every format has a writer");
		set(cfg, "output-format", "col,svg");
		CHECK_INTEQ(output_check_formats(cfg, err, sizeof(err)),
		    -EINVAL, "col,svg: refused");
		CHECK(strstr(err, "\"svg\"") != NULL &&
		    strstr(err, "col, pprof") != NULL,
		    "the line names the format and the writers' formats");
		set(cfg, "output-format", "col");
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK_INTEQ(file_write_atomic(fd, "x.txt", "hello", 5, 0644), 0,
	    "atomic write");
	close(fd);
	buf = slurp("x.txt", &len);
	CHECK(buf != NULL && len == 5 && memcmp(buf, "hello", 5) == 0,
	    "atomic write content");
	free(buf);
}

int
main(void)
{
	struct cycle_output co;
	struct config *cfg;
	char cmd[PATH_MAX + 16];

	log_init(0, "test_output");
	if (mkdtemp(tmp) == NULL)
		SKIP_ALL("mkdtemp");
	umask(022);
	snprintf(dir, sizeof(dir), "%s/out/sub", tmp);
	cfg = config_new();
	set(cfg, "output-dir", dir);
	memset(&co, 0, sizeof(co));
	co.cfg = cfg;
	co.profile = make_profile();
	co.header = json_tokener_parse("{\"application_metadata_enabled\": "
	    "false, \"profiling_mode\": \"cpu\"}");
	co.mode = MODE_CPU;
	co.frequency = 11;
	test_files(cfg, &co);
	test_helpers(cfg);
	test_embed(&co, cfg);
	test_bad_dir(&co, cfg);
	json_object_put(co.header);
	profile_free((struct profile *)co.profile);
	config_free(cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		printf("# cleanup failed\n");
	return (testing_done());
}
