/*
 * The package-version index (py_pkgidx.c, py_pkgread.c) over a real
 * site-packages in a temporary directory, read in this process's root,
 * its loop turns driven by hand through a fake host: a list is parsed a
 * slice at a time across turns, the finished index names a module's
 * distribution, and an index freed in the middle of a list (the agent
 * stopping) gives back everything it held, its read window too.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testing.h"
#include "langfile.h"
#include "py_pkgidx_int.h"
#include "../../core/base/safeopen.h"

/* The fake host: one timer, no log, files read through safeopen. */
static void (*fake_cb)(void *);
static void *fake_arg;

static void
fake_log(struct gp_plugin_ctx *ctx, int level, const char *fmt, ...)
{
	(void)ctx;
	(void)level;
	(void)fmt;
}

static struct gp_timer *
fake_timer_add(struct gp_plugin_ctx *ctx, uint64_t ms, int32_t persist,
    void (*cb)(void *), void *arg)
{
	(void)ctx;
	(void)ms;
	(void)persist;
	fake_cb = cb;
	fake_arg = arg;
	return ((struct gp_timer *)&fake_cb);
}

static void
fake_timer_del(struct gp_timer *t)
{
	if (t != NULL)
		fake_cb = NULL;
}

static int64_t
fake_file_read(struct gp_plugin_ctx *ctx, const struct gp_open_spec *spec,
    void *buf, uint64_t len)
{
	(void)ctx;
	return ((int64_t)safeopen_read(spec, buf, (size_t)len));
}

static struct gp_host_api fake_api = {
	.size = sizeof(struct gp_host_api),
	.log = fake_log,
	.timer_add = fake_timer_add,
	.timer_del = fake_timer_del,
	.file_read = fake_file_read,
};

static char top[64], sp[256], frame[512];

/* Bytes the heap holds (glibc's count; zero under ASan, whose leak check
 * at exit then does the job). */
static size_t
heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return (mi.uordblks + mi.hblkhd);
}

static int
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return (-1);
	fputs(text, f);
	return (fclose(f));
}

/* site-packages/foo-1.0.dist-info, its RECORD of 4 MiB: more than a
 * loop turn reads (PKG_TURN_BYTES). */
static int
make_site(void)
{
	char path[512];
	FILE *f;
	int i;

	snprintf(top, sizeof(top), "/tmp/gp-pkgidx.XXXXXX");
	if (mkdtemp(top) == NULL)
		return (-1);
	snprintf(path, sizeof(path), "%s/lib", top);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/lib/python3.11", top);
	mkdir(path, 0755);
	snprintf(sp, sizeof(sp), "%s/lib/python3.11/site-packages", top);
	mkdir(sp, 0755);
	snprintf(path, sizeof(path), "%s/foo-1.0.dist-info", sp);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/foo-1.0.dist-info/METADATA", sp);
	if (write_file(path, "Metadata-Version: 2.1\nName: foo\n"
	    "Version: 1.0\n") != 0)
		return (-1);
	snprintf(path, sizeof(path), "%s/foo-1.0.dist-info/RECORD", sp);
	if ((f = fopen(path, "w")) == NULL)
		return (-1);
	for (i = 0; i < 50000; i++)
		fprintf(f, "foo/gen%06d_%s.py,sha256=%064d,1234\n", i,
		    "padpadpadpadpadpad", i);
	fprintf(f, "foo/a.py,,\n");
	if (fclose(f) != 0)
		return (-1);
	snprintf(frame, sizeof(frame), "f (%s/foo/a.py:1)", sp);
	return (0);
}

static struct py_pkgidx *
start_index(void)
{
	const char *frames[1] = { frame };
	struct py_pkgidx *x = py_pkgidx_new(NULL, &fake_api);

	if (x != NULL)
		py_pkgidx_note(x, getpid(), 1, frames, 1);
	return (x);
}

static void
test_whole(void)
{
	char buf[1024];
	const char *out;
	struct py_pkgidx *x = start_index();
	int turns = 0;

	CHECK(x != NULL && fake_cb != NULL, "a noted directory waits for "
	    "the timer");
	if (x == NULL)
		return;
	while (fake_cb != NULL && turns < 10000) {
		fake_cb(fake_arg);
		turns++;
	}
	CHECK(fake_cb == NULL, "the timer ends with the work");
	printf("# %d turns\n", turns);
	CHECK(turns > 2, "the list is read over several turns");
	CHECK(x->window == NULL, "no window is kept once nothing waits");
	out = py_pkgidx_decorate(x, 1, NULL, frame, buf, sizeof(buf));
	printf("# %s\n", out);
	CHECK(strstr(out, "a.py:1 [foo==1.0])") != NULL,
	    "the last file of the list names its distribution");
	py_pkgidx_free(x);
}

static void
test_stop_midway(void)
{
	size_t before, after;
	struct py_pkgidx *x;
	int reading;

	before = heap_bytes();
	if ((x = start_index()) == NULL) {
		CHECK(0, "an index");
		return;
	}
	if (fake_cb != NULL)
		fake_cb(fake_arg);	/* the listing */
	if (fake_cb != NULL)
		fake_cb(fake_arg);	/* the distribution, its list begun */
	reading = x->lister != NULL && x->window != NULL;
	py_pkgidx_free(x);
	after = heap_bytes();
	CHECK(reading, "after two turns a list is being read");
	CHECK(fake_cb == NULL, "freed: its timer is gone");
	printf("# heap %zu -> %zu bytes\n", before, after);
	CHECK(after <= before + 16384, "freed in the middle of a list: "
	    "the heap is back where it was");
}

int
main(void)
{
	char cmd[128];

	if (geteuid() != 0) {
		printf("1..0 # SKIP the index reads through /proc/PID/root "
		    "(needs root)\n");
		return (0);
	}
	langfile_set_opener(safeopen_open_cb, NULL);
	if (make_site() != 0) {
		printf("1..0 # SKIP cannot write a site-packages in /tmp\n");
		return (0);
	}
	test_whole();
	test_stop_midway();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	(void)system(cmd);
	return (testing_done());
}
