/*
 * Unit tests of the iaprof version gate (docs/specs/iaprof.md §6.2).
 */
#include <errno.h>
#include <string.h>

#include "testing.h"
#include "../../plugins/iaprof/version.h"

static int
gate(const char *out, const char *err, char *norm, char *msg)
{
	norm[0] = msg[0] = '\0';
	return (iaprof_version_check(out, err, norm, 64, msg, 256));
}

int
main(void)
{
	char norm[64], msg[256];

	CHECK(gate("", "2026.3\n", norm, msg) == 0, "2026.3 on stderr");
	CHECK_STREQ(norm, "2026.3", "normalised");
	CHECK(gate("2026.4\n", "2026.1\n", norm, msg) == 0 &&
	    strcmp(norm, "2026.4") == 0, "stdout wins over stderr");
	CHECK(gate("  \n", "v2027.03.1\n", norm, msg) == 0, "v prefix, more "
	    "segments, blank stdout");
	CHECK_STREQ(norm, "2027.3.1", "leading zeros normalised");
	CHECK(gate(NULL, "2026\n", norm, msg) == -ENOTSUP, "missing segment "
	    "is 0, so 2026 < 2026.3");
	CHECK(gate("", "2026.2\n", norm, msg) == -ENOTSUP, "2026.2 rejected");
	CHECK_STREQ(msg, "iaprof 2026.2 is unsupported; minimum version is "
	    "2026.3", "too-old message");
	CHECK(gate("2026.2\n", "2026.4", norm, msg) == -ENOTSUP,
	    "old on stdout wins over new on stderr");
	CHECK(gate("", "invalid\n", norm, msg) == -EINVAL, "garbage");
	CHECK_STREQ(msg, "Invalid version: 'invalid'", "invalid message");
	CHECK(gate("", "", norm, msg) == -EINVAL, "empty");
	CHECK_STREQ(msg, "Invalid version: ''", "empty message");
	CHECK(gate("", "iaprof 2026.3", norm, msg) == -EINVAL,
	    "name before the version is invalid");
	CHECK_STREQ(msg, "Invalid version: 'iaprof 2026.3'",
	    "invalid message keeps the text");
	CHECK(gate("2026.3rc1", "", norm, msg) == -EINVAL, "PEP 440 suffix");
	CHECK(gate("2026..3", "", norm, msg) == -EINVAL &&
	    gate("2026.", "", norm, msg) == -EINVAL &&
	    gate(".3", "", norm, msg) == -EINVAL, "empty segments");
	CHECK(gate("99999999999999999999999.1", "", norm, msg) == -EINVAL,
	    "overflowing segment");
	return (testing_done());
}
