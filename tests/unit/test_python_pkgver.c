/*
 * The parsers behind package versions in Python frames (py_pkgver.c).
 * Every expected value is what gProfiler's Python gets from the same
 * bytes (re, pathlib, csv, email.parser, pkg_resources), checked with
 * python3 when the cases were written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"
#include "py_pkgver.h"

/* Every module file of a frame, joined with '|'. */
static const char *
modules(const char *s)
{
	static char out[1024];
	size_t from = 0, fb, fl, cl, o = 0, len = strlen(s);

	out[0] = '\0';
	while (py_pkgver_next_module(s, len, from, &fb, &fl, &cl)) {
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%.*s",
		    o > 0 ? "|" : "", (int)fl, s + fb);
		if (s[cl] != ')')
			return ("close not at ')'");
		from = cl + 1;
	}
	return (out);
}

static void
test_modules(void)
{
	CHECK_STREQ(modules("f (/a/b.py:12)_[p]"), "/a/b.py", "plain frame");
	CHECK_STREQ(modules("g(x) (/a.py:1)"), "/a.py", "a '(' in the name");
	CHECK_STREQ(modules("f (junk (/a.py:1)"), "junk (/a.py",
	    "an unclosed '(' belongs to the file, as in the regex");
	CHECK_STREQ(modules("f (x.pyc:1)"), "", ".pyc is not .py");
	CHECK_STREQ(modules("f (/a.py:)"), "", "no line");
	CHECK_STREQ(modules("f (.py:1)"), "", "no name before .py");
	CHECK_STREQ(modules("f (a.py:1)(b.py:2)"), "a.py|b.py", "two");
	CHECK_STREQ(modules("f (a.py:1:2)"), "", "line not digits only");
	CHECK_STREQ(modules("f (a.py:x.py:3)"), "a.py:x.py", "last ':'");
	CHECK_STREQ(modules("f (a.py:1"), "", "no ')'");
	CHECK_STREQ(modules("<native> (libc.so.6)"), "", "native frame");
}

static size_t
pdir(const char *p)
{
	return (py_pkgver_packages_dir(p, strlen(p)));
}

static int
stdlib(const char *p)
{
	return (py_pkgver_is_stdlib(p, strlen(p)));
}

static void
test_dirs(void)
{
	CHECK_INTEQ(pdir("/usr/lib/python3/dist-packages/requests/api.py"),
	    strlen("/usr/lib/python3/dist-packages/"), "dist-packages");
	CHECK_INTEQ(pdir("/v/site-packages/a/site-packages/b.py"),
	    strlen("/v/site-packages/a/site-packages/"), "the last one");
	CHECK_INTEQ(pdir("/v/site-packages/a/dist-packages/b.py"),
	    strlen("/v/site-packages/"), "site-packages first");
	CHECK_INTEQ(pdir("v/site-packages/b.py"), 0, "relative: none");
	CHECK_INTEQ(pdir("/v/site-packages"), 0, "no slash after it");

	CHECK(stdlib("/usr/lib/python3.11/json/decoder.py"), "stdlib");
	CHECK(!stdlib("/usr/lib/python3.11/site-packages/x.py"),
	    "site-packages is not");
	CHECK(stdlib("/x/python3.11/site-packages/lib/python3.9/f.py"),
	    "a later /pythonX.Y/ without packages after it");
	CHECK(!stdlib("/usr/lib/python3/dist-packages/x.py"), "python3/");
	CHECK(!stdlib("/opt/python3.110/x.py"), "three digits");
	CHECK(stdlib("/opt/python3.8/x.py"), "one digit");
	CHECK(!stdlib("/opt/python3.8/mysite-packagesx/y.py"),
	    "any site-packages after it, as the regex");
}

static void
test_dirname(void)
{
	char proj[64], ver[64];

	CHECK_INTEQ(py_pkgver_dirname("requests-2.28.1.dist-info", proj,
	    sizeof(proj), ver, sizeof(ver)), 1, "versioned");
	CHECK_STREQ(proj, "requests", "name");
	CHECK_STREQ(ver, "2.28.1", "version");
	CHECK_INTEQ(py_pkgver_dirname("zope.interface-5.0-py3.9.egg-info",
	    proj, sizeof(proj), ver, sizeof(ver)), 1, "egg-info");
	CHECK_STREQ(proj, "zope.interface", "dotted name");
	CHECK_STREQ(ver, "5.0", "version before -py");
	CHECK_INTEQ(py_pkgver_dirname("My_Pkg+x-1.0.dist-info", proj,
	    sizeof(proj), ver, sizeof(ver)), 1, "safe_name");
	CHECK_STREQ(proj, "My-Pkg-x", "runs of [^A-Za-z0-9.] -> '-'");
	CHECK_INTEQ(py_pkgver_dirname("noversion.dist-info", proj,
	    sizeof(proj), ver, sizeof(ver)), 0, "no version");
	CHECK_STREQ(proj, "noversion", "name alone");
	CHECK_INTEQ(py_pkgver_dirname("-1.0.dist-info", proj, sizeof(proj),
	    ver, sizeof(ver)), 0, "EGG_NAME does not match");
	CHECK_STREQ(proj, "Unknown", "pkg_resources' name then");
	CHECK_INTEQ(py_pkgver_dirname("abcdefghijklmnop-1.0.dist-info", proj,
	    8, ver, sizeof(ver)), -ENAMETOOLONG, "too long");

	CHECK_INTEQ(py_pkgver_dist_kind("A-1.DIST-INFO"), PY_DIST_INFO,
	    "suffix case-insensitive");
	CHECK_INTEQ(py_pkgver_dist_kind("a-1.egg-info"), PY_DIST_EGG, "egg");
	CHECK_INTEQ(py_pkgver_dist_kind("a-1.egg"), PY_DIST_NONE, "egg zip");
	CHECK_INTEQ(py_pkgver_dist_kind("requests"), PY_DIST_NONE, "package");
}

static void
test_header(void)
{
	const char *m = "Metadata-Version: 2.1\nname: low\nName:   requests  "
	    "\nVersion: 2.28.1\n\nName: body\n";
	const char *fold = "Name: a\r\n b\r\nVersion: 1\r\n";
	const char *v;
	size_t vl;
	int exact;

	CHECK_INTEQ(py_pkgver_header(m, strlen(m), "Name", &v, &vl, &exact),
	    4, "four headers, not the body's");
	CHECK(v != NULL && vl == 3 && memcmp(v, "low", 3) == 0,
	    "the first case-insensitively (dict(msg)[\"Name\"])");
	CHECK_INTEQ(exact, 1, "a header named exactly Name");
	(void)py_pkgver_header(m, strlen(m), "Version", &v, &vl, &exact);
	CHECK(v != NULL && vl == 6 && memcmp(v, "2.28.1", 6) == 0, "Version");
	CHECK_INTEQ(py_pkgver_header("name: x\n", 8, "Name", &v, &vl, &exact),
	    1, "one header");
	CHECK_INTEQ(exact, 0, "no exact Name: the directory's name is used");
	(void)py_pkgver_header(fold, strlen(fold), "Name", &v, &vl, &exact);
	CHECK(v != NULL && vl == 5 && memcmp(v, "a\r\n b", 5) == 0,
	    "folded value kept with its line break");
	CHECK_INTEQ(py_pkgver_header("no header\nName: x\n", 18, "Name", &v,
	    &vl, &exact), 0, "a first line that is no header: no headers");
	CHECK(v == NULL, "no value");
	CHECK_INTEQ(py_pkgver_header("Name : x\n", 9, "Name", &v, &vl,
	    &exact), 0, "a space before ':' is no header");
	CHECK_INTEQ(py_pkgver_header(":x\nName: y\n", 11, "Name", &v, &vl,
	    &exact), 1, "an empty name is skipped");
	CHECK(v != NULL && vl == 1 && *v == 'y', "and the next one read");
	CHECK_INTEQ(py_pkgver_header("", 0, "Name", &v, &vl, &exact), 0,
	    "empty");
}

static const char *
norm(const char *p)
{
	static char out[256];

	if (py_pkgver_norm(p, strlen(p), out, sizeof(out)) != 0)
		return ("error");
	return (out);
}

static void
test_norm(void)
{
	CHECK_STREQ(norm("a//b/./c/"), "a/b/c", "pathlib collapses");
	CHECK_STREQ(norm("//x"), "//x", "two leading slashes kept");
	CHECK_STREQ(norm("///x"), "/x", "three are one");
	CHECK_STREQ(norm(""), ".", "empty");
	CHECK_STREQ(norm("./a"), "a", "leading dot");
	CHECK_STREQ(norm("../a"), "../a", ".. kept");
	CHECK_STREQ(norm("a/../b"), "a/../b", "not resolved");
	CHECK_STREQ(norm("/"), "/", "root");
}

/* Every file of a RECORD (legacy with info != NULL), joined with '|'. */
static const char *
files(const char *s, const char *info)
{
	static char out[2048];
	char f[256];
	size_t pos = 0, o = 0;
	int rc;

	out[0] = '\0';
	for (;;) {
		rc = info != NULL ? py_pkgver_legacy_next(s, strlen(s), &pos,
		    info, f, sizeof(f)) : py_pkgver_record_next(s, strlen(s),
		    &pos, f, sizeof(f));
		if (rc == 0)
			break;
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s",
		    o > 0 ? "|" : "", rc > 0 ? f : "<long>");
	}
	return (out);
}

static void
test_files(void)
{
	char *big;

	CHECK_STREQ(files("foo/__init__.py,sha256=abc,12\n\"quo,ted.py\",x\n"
	    "\nfoo/a.py,,\n\"x\"\"y.py\"z,1\n\"multi\nline.py\",2", NULL),
	    "foo/__init__.py|quo,ted.py|foo/a.py|x\"y.pyz|multiline.py",
	    "csv first fields, as csv.reader(text.splitlines())");
	CHECK_STREQ(files("a/./b.py,x\r\n../../bin/t,\r\n/abs//c.py,", NULL),
	    "a/b.py|../../bin/t|/abs/c.py", "normalized");
	CHECK_STREQ(files("\"open.py", NULL), "open.py",
	    "an unclosed quote at the end: the field");
	CHECK_STREQ(files("", NULL), "", "empty RECORD");
	CHECK_STREQ(files("../foo/__init__.py\nPKG-INFO\n\n../../../bin/x\n"
	    "/abs/x.py\n..\n", "foo-1.0-py3.9.egg-info"),
	    "foo/__init__.py|foo-1.0-py3.9.egg-info/PKG-INFO|../../bin/x|"
	    "/abs/x.py|.", "installed-files.txt, as pip converts it");
	if ((big = malloc(10000)) == NULL)
		return;
	memset(big, 'a', 9998);
	memcpy(big + 9998, "\n", 2);
	CHECK_STREQ(files(big, NULL), "<long>", "an over-long field skipped");
	free(big);
}

int
main(void)
{
	test_modules();
	test_dirs();
	test_dirname();
	test_header();
	test_norm();
	test_files();
	return (testing_done());
}
