/* Unit tests of core/studio/spool.c: order, atomic 0600 files, cap, restart. */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "studio/studio.h"
#include "testing.h"

static int
count_files(const char *dir, const char *prefix)
{
	DIR *d;
	struct dirent *de;
	int n = 0;

	if ((d = opendir(dir)) == NULL)
		return (-1);
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(d);
	return (n);
}

static int
first_is(const char *want)
{
	unsigned char *buf;
	size_t len;
	int ok;

	if (spool_first() == NULL)
		return (0);
	buf = spool_read(spool_first(), &len);
	ok = buf != NULL && len == strlen(want) && memcmp(buf, want, len) == 0;
	free(buf);
	return (ok);
}

int
main(void)
{
	char tmpl[] = "/tmp/gpspool.XXXXXX", dir[128], path[256];
	char rec[100];
	struct stat st;
	const char *m;
	const unsigned char *b;
	unsigned char *r;
	size_t ml, bl, rl;
	int i;

	if (mkdtemp(tmpl) == NULL)
		SKIP_ALL("mkdtemp");
	snprintf(dir, sizeof(dir), "%s/a/spool", tmpl);
	CHECK(spool_open(dir, 1000) == 0, "open creates the directory");
	CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700,
	    "spool directory is 0700");
	spool_put("one", 3);
	spool_put("two", 3);
	spool_put("three", 5);
	CHECK_INTEQ(spool_count(), 3, "three records");
	CHECK_INTEQ(count_files(dir, "0000"), 3, "three files");
	CHECK_INTEQ(count_files(dir, ".tmp"), 0, "no temporary left");
	snprintf(path, sizeof(path), "%s/%020d.prof", dir, 1);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600,
	    "record file is 0600");
	CHECK(first_is("one"), "oldest first");

	/* Restart: same order, new records after the old ones. */
	spool_close();
	snprintf(path, sizeof(path), "%s/.tmp-junk", dir);
	fclose(fopen(path, "w"));
	spool_open(dir, 1300);	/* room for 10 framed 100-byte records */
	CHECK_INTEQ(spool_count(), 3, "records survive a restart");
	CHECK_INTEQ(count_files(dir, ".tmp"), 0, "stale temporary removed");
	spool_put("four", 4);
	CHECK(first_is("one"), "still oldest first after restart");
	spool_done(spool_first());
	CHECK(first_is("two"), "done removes the head");
	spool_reject(spool_first());
	snprintf(path, sizeof(path), "%s/rejected", dir);
	CHECK_INTEQ(count_files(path, "0000"), 1, "rejected kept aside");
	CHECK(first_is("three"), "next after reject");
	spool_done(spool_first());
	CHECK(first_is("four"), "the new one after the old ones");
	spool_done(spool_first());
	CHECK_INTEQ(spool_count(), 0, "empty");

	/* Cap: 10 records of 100 bytes (122 on disk with the checksum
	 * line) in 550: the oldest go, counted. */
	for (i = 0; i < 10; i++) {
		memset(rec, 'a' + i, sizeof(rec));
		spool_put(rec, sizeof(rec));
	}
	spool_close();
	spool_open(dir, 550);
	CHECK_INTEQ(spool_count(), 10, "reloaded before enforcing");
	spool_put("x", 1);
	CHECK(spool_count() <= 5, "cap enforced");
	r = spool_read(spool_first(), &rl);
	CHECK(r != NULL && r[0] == 'a' + 6, "oldest dropped first");
	free(r);
	CHECK(spool_dropped() >= 6, "drops counted");
	/* The record being sent is never dropped. */
	spool_first()->busy = 1;
	for (i = 0; i < 5; i++)
		spool_put(rec, sizeof(rec));
	r = spool_read(spool_first(), &rl);
	CHECK(r != NULL && r[0] == 'a' + 6, "busy head not dropped");
	free(r);
	spool_close();

	/* Memory-only spool when the directory cannot be made. */
	spool_open("/proc/nonexistent/spool", 0);
	spool_put("mem", 3);
	CHECK(first_is("mem"), "memory fallback works");
	spool_close();

	r = spool_record_make("{\"a\":1}", "BODY\n\0x", 7, &rl);
	CHECK(spool_record_split(r, rl, &m, &ml, &b, &bl) == 0 && ml == 7 &&
	    bl == 7 && memcmp(b, "BODY\n\0x", 7) == 0, "record round trip");
	free(r);
	CHECK(spool_record_split((const unsigned char *)"xx", 2, &m, &ml, &b,
	    &bl) != 0, "damaged record refused");
	CHECK(spool_record_split((const unsigned char *)"{no newline", 11, &m,
	    &ml, &b, &bl) != 0, "record without newline refused");
	snprintf(path, sizeof(path), "rm -rf %s", tmpl);
	if (system(path) != 0)
		return (1);
	return (testing_done());
}
