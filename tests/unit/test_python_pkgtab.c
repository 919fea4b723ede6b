/*
 * The memory of the package-version index (py_pkgtab.c): the file table
 * counts every byte it holds and keeps to the limit it is given; a file
 * list parsed through a small window gives the files the whole-file
 * parsers give; the directory that gives way is a larger one, the least
 * recently used of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"
#include "py_pkgtab.h"
#include "py_pkgver.h"

static void
test_table(void)
{
	struct py_pkgtab t;
	char k[64];
	size_t before;
	int i, rc, n;

	memset(&t, 0, sizeof(t));
	CHECK(py_pkgtab_find(&t, "a.py", 4) == -1, "empty table: nothing");
	CHECK_INTEQ(py_pkgtab_add(&t, "a.py", 4, 3, 1u << 20), 1, "added");
	CHECK_INTEQ(py_pkgtab_add(&t, "a.py", 4, 7, 1u << 20), 0,
	    "a file two distributions list: there already");
	CHECK(py_pkgtab_find(&t, "a.py", 4) == 3, "the first keeps it");
	CHECK(py_pkgtab_find(&t, "a.pyx", 4) == 3, "found by length");
	CHECK(py_pkgtab_find(&t, "a.p", 3) == -1, "a prefix is another");
	CHECK(t.bytes >= PY_PKGTAB_CHUNK + 256 * sizeof(struct py_pkgkey),
	    "bytes count the arena chunk and the slots");
	/* Up to a limit: then -ENOSPC, and what is in stays. */
	before = t.bytes;
	for (i = 0, n = 0; i < 100000; i++) {
		snprintf(k, sizeof(k), "pkg/mod%06d.py", i);
		if ((rc = py_pkgtab_add(&t, k, strlen(k), 1, 1u << 20)) < 0)
			break;
		n++;
	}
	CHECK_INTEQ(rc, -ENOSPC, "past the limit: -ENOSPC");
	CHECK(t.bytes <= (1u << 20) && t.bytes > before, "within the limit");
	CHECK(n > 1000, "and up to it");
	CHECK(py_pkgtab_find(&t, "pkg/mod000000.py", 16) == 1 &&
	    py_pkgtab_find(&t, "a.py", 4) == 3, "what was in is still found");
	snprintf(k, sizeof(k), "pkg/mod%06d.py", n);
	CHECK(py_pkgtab_find(&t, k, strlen(k)) == -1, "the refused one not");
	CHECK(py_pkgtab_store(&t, "x", 1, t.bytes) == NULL ||
	    t.bytes <= before + (1u << 20), "store: within the limit too");
	py_pkgtab_clear(&t);
	CHECK(t.bytes == 0 && t.used == 0 && t.cap == 0, "cleared: empty");
	CHECK_INTEQ(py_pkgtab_add(&t, "b.py", 4, 0, 100), -ENOSPC,
	    "a limit below one chunk: nothing fits");
	CHECK(t.bytes <= 100, "and nothing was taken");
	CHECK_STREQ(py_pkgtab_store(&t, "name==1.0", 9, 1u << 20),
	    "name==1.0", "store: a NUL-terminated copy");
	py_pkgtab_clear(&t);
}

/* The files of s parsed whole: joined with '|', "<long>" for a skip. */
static const char *
whole(const char *s, size_t len, const char *info, char *out, size_t outlen)
{
	char f[4096];
	size_t pos = 0, o = 0;
	int rc;

	out[0] = '\0';
	for (;;) {
		rc = info != NULL ? py_pkgver_legacy_next(s, len, &pos, info,
		    f, sizeof(f)) : py_pkgver_record_next(s, len, &pos, f,
		    sizeof(f));
		if (rc == 0)
			break;
		o += (size_t)snprintf(out + o, outlen - o, "%s%s",
		    o > 0 ? "|" : "", rc > 0 ? f : "<long>");
	}
	return (out);
}

/* The same through a window of cap bytes, fed `step` bytes at a time. */
static const char *
windowed(const char *s, size_t len, const char *info, size_t cap,
    size_t step, char *out, size_t outlen)
{
	struct py_pkglist l;
	char f[4096], *at;
	size_t o = 0, off = 0, room, n;
	int rc, guard = 0;

	out[0] = '\0';
	memset(&l, 0, sizeof(l));
	if ((l.buf = malloc(cap)) == NULL)
		return ("no memory");
	l.cap = cap;
	py_pkglist_start(&l, info != NULL, info);
	while (guard++ < 1000000) {
		rc = py_pkglist_next(&l, f, sizeof(f));
		if (rc != 0) {
			o += (size_t)snprintf(out + o, outlen - o, "%s%s",
			    o > 0 ? "|" : "", rc > 0 ? f : "<long>");
			continue;
		}
		if (l.eof)
			break;
		at = py_pkglist_room(&l, &room);
		n = len - off < room ? len - off : room;
		if (n > step)
			n = step;
		memcpy(at, s + off, n);
		off += n;
		py_pkglist_fed(&l, n);
	}
	free(l.buf);
	return (guard >= 1000000 ? "looped" : out);
}

static void
test_window(void)
{
	static const char *records[] = {
		"foo/__init__.py,sha256=abc,12\n\"quo,ted.py\",x\n\nfoo/a.py,,"
		    "\n\"x\"\"y.py\"z,1\n\"multi\nline.py\",2",
		"a/./b.py,x\r\n../../bin/t,\r\n/abs//c.py,",
		"a.py\r\rb.py\r\n\r\nc.py\n\n\n\"d\r\ne.py\",1\r\nf.py",
		"\"open.py",
		"",
		"\n\n\n",
	};
	static const char *legacy[] = {
		"../foo/__init__.py\nPKG-INFO\n\n../../../bin/x\n/abs/x.py\n..\n",
		"../a.py\r\n../b.py\r\r\n\x0b../c.py\x1c../d.py",
	};
	/* each at least the longest line: a longer one is skipped (below) */
	static const size_t caps[] = { 32, 33, 47, 64, 4096 };
	const char *lng = "a.py\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.py\n"
	    "c.py\n";
	char a[4096], b[4096], what[128];
	size_t i, c, st;
	int same;

	for (i = 0; i < sizeof(records) / sizeof(*records); i++) {
		same = 1;
		whole(records[i], strlen(records[i]), NULL, a, sizeof(a));
		for (c = 0; c < sizeof(caps) / sizeof(*caps); c++)
			for (st = 1; st <= caps[c]; st += st < 4 ? 1 : 7)
				if (strcmp(windowed(records[i],
				    strlen(records[i]), NULL, caps[c], st, b,
				    sizeof(b)), a) != 0) {
					same = 0;
					printf("# cap %zu step %zu: \"%s\" vs "
					    "\"%s\"\n", caps[c], st, b, a);
				}
		snprintf(what, sizeof(what), "RECORD %zu: a window gives the "
		    "whole file's files (%s)", i, a);
		CHECK(same, what);
	}
	for (i = 0; i < sizeof(legacy) / sizeof(*legacy); i++) {
		same = 1;
		whole(legacy[i], strlen(legacy[i]), "foo-1.0.egg-info", a,
		    sizeof(a));
		for (c = 0; c < sizeof(caps) / sizeof(*caps); c++)
			for (st = 1; st <= caps[c]; st += st < 4 ? 1 : 7)
				if (strcmp(windowed(legacy[i],
				    strlen(legacy[i]), "foo-1.0.egg-info",
				    caps[c], st, b, sizeof(b)), a) != 0) {
					same = 0;
					printf("# cap %zu step %zu: \"%s\" vs "
					    "\"%s\"\n", caps[c], st, b, a);
				}
		snprintf(what, sizeof(what), "installed-files.txt %zu: the "
		    "same through a window (%s)", i, a);
		CHECK(same, what);
	}
	/* A line longer than the window: skipped once, the rest read. */
	CHECK_STREQ(windowed(lng, strlen(lng), NULL, 16, 16, b, sizeof(b)),
	    "a.py|<long>|c.py", "a line longer than the window: skipped");
	CHECK_STREQ(windowed(lng, 47, NULL, 16, 5, b, sizeof(b)),
	    "a.py|<long>", "and at the end of the file");
}

static void
test_victim(void)
{
	struct py_pkguse u[4] = {
		{ 10.0, 5000, 1 },	/* larger, used at 10 */
		{ 5.0, 9000, 1 },	/* larger, used earlier */
		{ 1.0, 100, 1 },	/* smaller, the least recently used */
		{ 20.0, 1000, 0 },	/* self, being read */
	};

	CHECK_INTEQ(py_pkgbudget_victim(u, 4, 3), 1,
	    "a larger one, the least recently used of them");
	u[1].evictable = 0;
	CHECK_INTEQ(py_pkgbudget_victim(u, 4, 3), 0,
	    "one being read does not give way");
	u[0].bytes = 1000;
	CHECK_INTEQ(py_pkgbudget_victim(u, 4, 3), -1,
	    "none larger: no victim (the smaller ones stay)");
	u[0].bytes = 0;
	u[3].bytes = 0;
	CHECK_INTEQ(py_pkgbudget_victim(u, 4, 3), 2,
	    "an empty one gives nothing: the next");
	CHECK_INTEQ(py_pkgbudget_victim(u, 4, 2), -1, "never itself");
	CHECK_INTEQ(py_pkgbudget_victim(u, 0, 0), -1, "no directory");
}

int
main(void)
{
	test_table();
	test_window();
	test_victim();
	return (testing_done());
}
