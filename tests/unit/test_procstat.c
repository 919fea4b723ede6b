/* lib/procstat.c: /proc/PID/stat's fields, counted from the last ')';
 * lib/procexe.h: a process's executable's identity. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procexe.h"
#include "procstat.h"
#include "testing.h"

#define S(s)	(s), strlen(s)

static int
start(const char *s, uint64_t *v)
{
	return (procstat_u64(s, strlen(s), 22, v));
}

int
main(void)
{
	/* a comm of ") S 7 (" : the fields are after the last ')' */
	const char *st = "12 (a) S 7 (b c)) R 456 3 4 5 6 7 8 9 10 11 12 13 "
	    "14 15 16 17 18 19 777 21";
	char buf[4096], state = 0;
	uint64_t v = 0;
	size_t at = 0;
	/* fields 3..22 after the comm: state ppid ... starttime */
	static const char ok[] = "123 (ruby) S 1 123 123 0 -1 4194560 100 0 "
	    "0 0 5 6 0 0 20 0 2 0 987654 1000 200";
	static const char nasty[] = "123 (a) b) S 1 ) 3 4) S 1 123 123 0 -1 "
	    "4194560 100 0 0 0 5 6 0 0 20 0 2 0 42 1000";
	FILE *f;
	size_t n;

	CHECK(procstat_state(S(st), &state) == 0 && state == 'R',
	    "state after the last ')'");
	CHECK(procstat_u64(S(st), 4, &v) == 0 && v == 456, "ppid");
	CHECK(procstat_u64(S(st), 22, &v) == 0 && v == 777, "starttime");
	CHECK(procstat_u64(S(st), 23, &v) == 0 && v == 21,
	    "the last field, at the end of the text");
	CHECK(procstat_at(S(st), 24, &at) == -EINVAL, "past the last field");
	CHECK(procstat_cpu(S(st), &v) == 0 && v == 12 + 13, "utime + stime");
	CHECK(procstat_cpu(S("1 (x) R 1 2 3 4 5 6 7 8 9 10 11"), &v) ==
	    -EINVAL, "cut before stime");
	CHECK(procstat_at(S(st), 2, &at) == -EINVAL &&
	    procstat_at(S(st), -1, &at) == -EINVAL, "the comm and before: "
	    "not fields this reads");
	CHECK(procstat_u64(S("1 (x) S 1 2"), 22, &v) == -EINVAL, "short stat");
	CHECK(procstat_u64(S("no paren 1 2 3"), 4, &v) == -EINVAL, "no comm");
	CHECK(procstat_state(S("7 (x)S 1"), &state) == -EINVAL,
	    "no space after the comm: no fields");
	CHECK(procstat_state(S("1 (x)"), &state) == -EINVAL &&
	    procstat_state(S("1 (x) "), &state) == -EINVAL, "cut before "
	    "the state");
	CHECK(procstat_u64(S("1 (x) S x 2"), 4, &v) == -EINVAL &&
	    procstat_u64(S("1 (x) S  2"), 4, &v) == -EINVAL, "a field that "
	    "is no number");
	CHECK(procstat_u64(S("1 (x) S 18446744073709551615 2"), 4, &v) == 0 &&
	    v == UINT64_MAX, "the largest number");
	CHECK(procstat_u64(S("1 (x) S 18446744073709551616 2"), 4, &v) ==
	    -EINVAL && procstat_u64(S("1 (x) S 99999999999999999999 2"), 4,
	    &v) == -EINVAL, "past UINT64_MAX: refused, not wrapped");
	CHECK(start(ok, &v) == 0 && v == 987654, "the start time (field 22)");
	CHECK(start(nasty, &v) == 0 && v == 42, "a comm with ') ' in it: "
	    "fields counted from the last ')'");
	CHECK_INTEQ(start("123 (x) S 1 2 3", &v), -EINVAL, "too few fields");
	CHECK_INTEQ(start("123 x S 1 2 3", &v), -EINVAL, "no comm");
	CHECK_INTEQ(start("", &v), -EINVAL, "empty");
	CHECK_INTEQ(start("1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 "
	    "99999999999999999999999", &v), -EINVAL, "a start time over 64 "
	    "bits");
	CHECK_INTEQ(start("1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -5",
	    &v), -EINVAL, "not a number");
	CHECK_INTEQ(procstat_u64(ok, 40, 22, &v), -EINVAL,
	    "only its bytes");
	CHECK(procstat_u64(ok, sizeof(ok) - 1, 23, &v) == 0 &&
	    v == 1000, "the virtual size (field 23)");
	CHECK(procstat_u64(nasty, sizeof(nasty) - 1, 3, &v) ==
	    -EINVAL, "field 3 (the state) is no number");
	CHECK(procstat_u64(ok, sizeof(ok) - 1, 4, &v) == 0 &&
	    v == 1, "the parent (field 4)");
	CHECK_INTEQ(procstat_u64(ok, sizeof(ok) - 1, 2, &v),
	    -EINVAL, "the comm is not a number field");
	CHECK_INTEQ(procstat_u64(ok, sizeof(ok) - 1, 60, &v),
	    -EINVAL, "past the last field");
	/* this process's own */
	if ((f = fopen("/proc/self/stat", "r")) != NULL) {
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		CHECK(procstat_u64(buf, n, 4, &v) == 0 &&
		    v == (uint64_t)getppid() && procstat_state(buf, n,
		    &state) == 0 && state == 'R', "this process: its parent, "
		    "running");
	}
	/* the identity stat() gives, without asking the file's server */
	{
		struct stat a, b;

		CHECK(procexe_stat(getpid(), &a) == 0 &&
		    stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino, "our executable's device and inode");
		CHECK(procexe_stat(2, &a) == -ENOENT && a.st_ino == 0,
		    "a kernel thread has none");
		CHECK(procexe_stat(0x3fffffff, &a) == -ENOENT,
		    "nor a process that is not");
	}
	return (testing_done());
}
