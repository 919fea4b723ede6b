/*
 * Unit tests for plugins/perf/hwevents.c: gProfiler's custom PMU event
 * file (--hw-events-file), resolved by event name and platform.
 */
#include <errno.h>

#include "testing.h"
#include "hwevents.h"

static char raw[64], err[512];

static const char file[] =
    "{\n"
    "  \"_comment\": \"custom events\",\n"
    "  \"L2_MISS\": {\n"
    "    \"_doc\": \"metadata\",\n"
    "    \"Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz\": "
    "{\"raw\": \"r3f24\"},\n"
    "    \"icelake\": {\"raw\": \"r1f24\"},\n"
    "    \"AMD EPYC\": {\"raw\": \"page-faults\"}\n"
    "  },\n"
    "  \"NO_RAW\": { \"AMD EPYC\": {\"code\": \"r1\"} },\n"
    "  \"NOT_OBJ\": 3\n"
    "}\n";

static int
look(const char *buf, const char *ev, const char *p1, const char *p2)
{
	const char *plats[2] = { p1, p2 };

	err[0] = '\0';
	return (hwevents_lookup(buf, strlen(buf), ev, plats, 2, raw,
	    sizeof(raw), err, sizeof(err)));
}

int
main(void)
{
	char small[4];
	const char *one[1] = { "icelake" };

	CHECK_INTEQ(look(file, "L2_MISS", "AMD EPYC", NULL), 0,
	    "an event on a platform named by its model");
	CHECK_STREQ(raw, "page-faults", "... its raw value");
	CHECK_INTEQ(look(file, "L2_MISS", "Other CPU", "icelake"), 0,
	    "the second platform name (the PMU's) when the first is absent");
	CHECK_STREQ(raw, "r1f24", "... its raw value");
	CHECK_INTEQ(look(file, "L2_MISS", "AMD EPYC", "icelake"), 0,
	    "the first platform wins");
	CHECK_STREQ(raw, "page-faults", "... the model's raw value");
	CHECK_INTEQ(look(file, "L2_MISS", "Zen 9", "zen9"), -ENODEV,
	    "a platform the file does not know");
	CHECK(strstr(err, "'Zen 9' or 'zen9'") != NULL &&
	    strstr(err, "'icelake'") != NULL &&
	    strstr(err, "_doc") == NULL, "... names the host's platforms and "
	    "the file's, without metadata keys");
	CHECK(strchr(err, '\n') == NULL, "... in one line");
	CHECK_INTEQ(look(file, "L3_MISS", "AMD EPYC", NULL), -ENOENT,
	    "an event the file does not define");
	CHECK(strstr(err, "'L3_MISS'") != NULL, "... named");
	CHECK_INTEQ(look(file, "_comment", "AMD EPYC", NULL), -ENOENT,
	    "metadata keys are not events");
	CHECK_INTEQ(look(file, "NO_RAW", "AMD EPYC", NULL), -EINVAL,
	    "an entry without 'raw'");
	CHECK(strstr(err, "missing 'raw'") != NULL, "... said so");
	CHECK_INTEQ(look(file, "NOT_OBJ", "AMD EPYC", NULL), -EINVAL,
	    "an event that is not an object");
	CHECK_INTEQ(look(file, "L2_MISS", "_doc", NULL), -ENODEV,
	    "a metadata key is not a platform");
	CHECK_INTEQ(look("[1, 2]", "X", "p", NULL), -EINVAL,
	    "a JSON array");
	CHECK_INTEQ(look("{\"X\": {\"p\": {\"raw\": \"r1\"}}", "X", "p",
	    NULL), -EINVAL, "a truncated file");
	CHECK(strstr(err, "end of the file") != NULL, "... said so");
	CHECK_INTEQ(look("{\"X\": {\"p\": {\"raw\": \"r1\"}}} x", "X", "p",
	    NULL), -EINVAL, "bytes after the object");
	CHECK_INTEQ(look("{\"X\": {\"p\": {\"raw\": \"r1\"}}} \n\t", "X",
	    "p", NULL), 0, "white space after the object");
	CHECK_INTEQ(look("", "X", "p", NULL), -EINVAL, "an empty file");
	CHECK_INTEQ(look("{\"X\": {\"p\": {\"raw\": 5}}}", "X", "p", NULL),
	    -EINVAL, "a raw value that is not a string");
	CHECK_INTEQ(hwevents_lookup("{\"X\":{\"icelake\":{\"raw\":\"r12345"
	    "\"}}}", 31, "X", one, 1, small, sizeof(small), err,
	    sizeof(err)), -EINVAL, "a raw value longer than the buffer");
	CHECK_INTEQ(hwevents_lookup("{\"X\":{\"p\":{\"raw\":\"r1\"}}}\0junk",
	    29, "X", (const char *[]){ "p" }, 1, raw, sizeof(raw), err,
	    sizeof(err)), -EINVAL, "a NUL byte after the object");
	hwevents_cpuinfo_model("model name\t: AMD EPYC 7B13\n", 26, small,
	    sizeof(small));
	CHECK_STREQ(small, "", "a model name longer than the buffer: none");
	{
		const char ci[] = "processor\t: 0\nmodel\t\t: 1\n"
		    "model name\t: AMD EPYC 7B13  \r\nflags\t\t: fpu\n"
		    "model name\t: second\n";
		char m[64];

		hwevents_cpuinfo_model(ci, sizeof(ci) - 1, m, sizeof(m));
		CHECK_STREQ(m, "AMD EPYC 7B13", "cpuinfo: the first model "
		    "name, trimmed ('model' alone is another key)");
		hwevents_cpuinfo_model(ci, 20, m, sizeof(m));
		CHECK_STREQ(m, "", "cpuinfo: only its bytes");
		hwevents_cpuinfo_model("model name: A\x01B\n", 15, m,
		    sizeof(m));
		CHECK_STREQ(m, "", "cpuinfo: a control byte: none");
		hwevents_first_line("icelake\n", 8, m, sizeof(m));
		CHECK_STREQ(m, "icelake", "pmu_name: its first line");
		hwevents_first_line("sapphire_rapids", 15, m, sizeof(m));
		CHECK_STREQ(m, "sapphire_rapids", "pmu_name without a newline");
	}
	return (testing_done());
}
