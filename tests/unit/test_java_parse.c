/*
 * The Java plugin's parsers (plugins/lang/java/jv_parse.c) over real
 * answers captured from OpenJDK 17.0.15 through jattach 2.1, and over
 * truncated, hostile and edge-case input.
 */
#include "config.h"

#include <errno.h>
#include <regex.h>
#include <stdint.h>
#include <string.h>

#include "testing.h"
#include "jv_parse.h"

#define S(x)	x, sizeof(x) - 1

static const char out_cmdline[] =
    "Connected to remote JVM\n"
    "JVM response code = 0\n"
    "VM Arguments:\n"
    "jvm_args: -XX:+PreserveFramePointer -Dfoo=bar -Dservice=pay \n"
    "java_command: com.example.Main --port 8080\n"
    "java_class_path (initial): .\n"
    "Launcher Type: SUN_STANDARD\n\n";

static const char out_version[] =
    "Connected to remote JVM\n"
    "JVM response code = 0\n"
    "OpenJDK 64-Bit Server VM version 17.0.15+6-Debian-1deb12u1\n"
    "JDK 17.0.15\n\n";

static const char out_flags[] =
    "Connected to remote JVM\n"
    "JVM response code = 0\n"
    "-XX:CICompilerCount=2 -XX:InitialHeapSize=398458880 "
    "-XX:+PreserveFramePointer -XX:+UseG1GC \n\n";

static void
test_response(void)
{
	const char *body;
	size_t bl;
	int code = 99;

	CHECK(jv_parse_response(S(out_version), &code, &body, &bl) == 0,
	    "response line found");
	CHECK_INTEQ(code, 0, "code 0");
	CHECK(bl > 0 && strncmp(body, "OpenJDK", 7) == 0,
	    "body starts after the response line");
	CHECK(jv_parse_response(S("Connected to remote JVM\n"
	    "JVM response code = -1\njava.lang.IllegalArgumentException: "
	    "Unknown diagnostic command\n"), &code, &body, &bl) == 0,
	    "error response parsed");
	CHECK_INTEQ(code, -1, "negative code");
	CHECK(jv_parse_response(S("Could not start attach mechanism: No "
	    "such file or directory\n"), &code, &body, &bl) != 0,
	    "no response line: error");
	CHECK(jv_parse_response(S("JVM response code = "), &code, &body,
	    &bl) != 0, "no digits: error");
	CHECK(jv_parse_response(S("JVM response code = 0"), &code, &body,
	    &bl) == 0 && bl == 0, "no newline, empty body");
}

static void
test_cmdline(void)
{
	struct jv_cmdline cl;
	const char *body;
	size_t bl;
	int code;
	regex_t re[2];
	char appid[JV_APPID_MAX];

	jv_parse_response(S(out_cmdline), &code, &body, &bl);
	CHECK(jv_parse_command_line(body, bl, &cl) == 0, "command line");
	CHECK_STREQ(cl.command, "com.example.Main", "first token only");
	CHECK_STREQ(cl.jvm_args, "-XX:+PreserveFramePointer -Dfoo=bar "
	    "-Dservice=pay", "jvm_args, trailing blank trimmed");
	CHECK(jv_appid_build(&cl, NULL, 0, appid, sizeof(appid)) == 0 &&
	    strcmp(appid, "java: com.example.Main") == 0, "appid, no filter");
	regcomp(&re[0], "^-Dservice=", REG_EXTENDED | REG_NOSUB);
	regcomp(&re[1], "PreserveFrame", REG_EXTENDED | REG_NOSUB);
	CHECK(jv_appid_build(&cl, re, 2, appid, sizeof(appid)) == 0, "ok");
	CHECK_STREQ(appid, "java: com.example.Main "
	    "(-XX:+PreserveFramePointer -Dservice=pay)",
	    "matching args space-joined in jvm_args order");
	CHECK(jv_appid_build(&cl, re, 1, appid, 20) == -ENOSPC,
	    "truncation reported");
	regfree(&re[0]);
	regfree(&re[1]);
	CHECK(jv_parse_command_line(S("jvm_args: -Xmx1g\njava_command: \n"),
	    &cl) != 0, "empty java_command: error");
	CHECK(jv_parse_command_line(S("java_command: app.jar"), &cl) == 0 &&
	    strcmp(cl.command, "app.jar") == 0, "jar, no newline");
	CHECK(jv_appid_build(&cl, NULL, 0, appid, sizeof(appid)) == 0 &&
	    strcmp(appid, "java: app.jar") == 0, "jar appid");
	CHECK(jv_parse_command_line(S("java_command: a\0b\n"), &cl) == 0 &&
	    strcmp(cl.command, "a") == 0, "NUL ends the token");
}

static void
test_version_flags(void)
{
	const char *body;
	size_t bl;
	int code, fp = 7;
	char v[256], f[JV_FLAGS_MAX];

	jv_parse_response(S(out_version), &code, &body, &bl);
	CHECK(jv_parse_version(body, bl, v, sizeof(v)) == 0, "version");
	CHECK_STREQ(v, "OpenJDK 64-Bit Server VM version "
	    "17.0.15+6-Debian-1deb12u1\nJDK 17.0.15", "both lines");
	CHECK(jv_parse_version(S("garbage\n"), v, sizeof(v)) != 0,
	    "not a version answer");
	CHECK(jv_parse_version(body, bl, v, 10) == 0 && strlen(v) == 9,
	    "truncated to the buffer");
	jv_parse_response(S(out_flags), &code, &body, &bl);
	CHECK(jv_parse_flags(body, bl, f, sizeof(f), &fp) == 0, "flags");
	CHECK_INTEQ(fp, 1, "PreserveFramePointer on");
	CHECK(strncmp(f, "-XX:CICompilerCount=2", 21) == 0 &&
	    f[strlen(f) - 1] == 'C', "flags line kept, trimmed");
	CHECK(jv_parse_flags(S("-XX:+UseG1GC -XX:+PreserveFramePointerX\n"),
	    f, sizeof(f), &fp) == 0 && fp == 0, "prefix is not the flag");
	CHECK(jv_parse_flags(S("-XX:+PreserveFramePointer "
	    "-XX:-PreserveFramePointer"), f, sizeof(f), &fp) == 0 && fp == 0,
	    "last one wins");
	CHECK(jv_parse_flags(S("nothing here\n"), f, sizeof(f), &fp) != 0,
	    "no flags line");
}

static void
test_opts(void)
{
	struct jv_opts o;
	const char *v;
	size_t vl;

	memset(&o, 0, sizeof(o));
	jv_opts_scan(S("java\0-XX:+DisableAttachMechanism\0Main\0"), '\0',
	    &o);
	CHECK_INTEQ(o.attach_disabled, 1, "disabled on the command line");
	jv_opts_scan(S("-XX:-DisableAttachMechanism"), ' ', &o);
	CHECK_INTEQ(o.attach_disabled, 0, "a later option re-enables");
	memset(&o, 0, sizeof(o));
	jv_opts_scan(S("-Xmx1g -Xrs"), ' ', &o);
	CHECK_INTEQ(o.reduce_signals, 1, "-Xrs in an options variable");
	memset(&o, 0, sizeof(o));
	jv_opts_scan(S("java\0-Xrsx\0-XX:+DisableAttachMechanismX"), '\0',
	    &o);
	CHECK(o.reduce_signals == 0 && o.attach_disabled == 0,
	    "whole tokens only");
	CHECK(jv_environ_get(S("A=1\0JAVA_TOOL_OPTIONS=-Xrs\0B=2"),
	    "JAVA_TOOL_OPTIONS", &v, &vl) == 0 && vl == 4 &&
	    memcmp(v, "-Xrs", 4) == 0, "environ value");
	CHECK(jv_environ_get(S("JAVA_TOOL_OPTIONSX=1\0"), "JAVA_TOOL_OPTIONS",
	    &v, &vl) != 0, "name must match exactly");
	CHECK(jv_environ_get(S("JAVA_TOOL_OPTIONS"), "JAVA_TOOL_OPTIONS",
	    &v, &vl) != 0, "no '='");
}

static void
test_proc(void)
{
	uint64_t m = 0;
	int32_t ns = 0;

	CHECK(jv_status_sigcgt(S("Name:\tjava\nSigIgn:\t0000000000000002\n"
	    "SigCgt:\t0000000101005ccd\n"), &m) == 0 && m == 0x101005ccdull,
	    "SigCgt parsed");
	CHECK((m & 0x4) != 0, "the real JVM catches SIGQUIT");
	CHECK(jv_status_sigcgt(S("SigCgt:\t\n"), &m) != 0, "empty SigCgt");
	CHECK(jv_status_sigcgt(S("Name: x\n"), &m) == -ENOENT, "no SigCgt");
	CHECK(jv_status_nspid(S("Pid:\t9\nNSpid:\t4242\t7\n"), &ns) == 0 &&
	    ns == 7, "last NSpid value");
	CHECK(jv_status_nspid(S("NSpid:\t12\n"), &ns) == 0 && ns == 12,
	    "no namespace");
	CHECK(jv_status_nspid(S("NSpid:\n"), &ns) != 0, "empty NSpid");
	CHECK(jv_maps_has_libjvm(S("7f00-7f01 r-xp 0 08:01 1 /usr/lib/jvm/"
	    "java-17-openjdk-amd64/lib/server/libjvm.so\n")) == 1, "libjvm");
	CHECK(jv_maps_has_libjvm(S("7f00-7f01 r-xp 0 08:01 1 /libjvm.so\n"))
	    == 0, "^.+ needs something before /libjvm.so");
	CHECK(jv_maps_has_libjvm(S("7f00-7f01 r-xp 0 08:01 1 /opt/"
	    "libjvm.so.bak\n")) == 1, "prefix match, as the regex");
	CHECK(jv_maps_has_libjvm(S("7f00-7f01 r-xp 0 08:01 1 /usr/lib/"
	    "libpython3.so\n")) == 0, "not a JVM");
}

static void
test_failure(void)
{
	char r[256];

	CHECK_INTEQ(jv_failure_reason("Could not start attach mechanism: No "
	    "such file or directory\n", 1, 1, r, sizeof(r)), 1,
	    "attach refused is permanent");
	CHECK_STREQ(r, "attach failed: Could not start attach mechanism: No "
	    "such file or directory", "first line as the reason");
	CHECK_INTEQ(jv_failure_reason("Process 9 not found", 1, 1, r,
	    sizeof(r)), 0, "vanished process is not permanent");
	CHECK_INTEQ(jv_failure_reason("", 0, 9, r, sizeof(r)), 0,
	    "killed: transient");
	CHECK_STREQ(r, "jattach killed by signal 9", "signal named");
}

/* One jcmd run of "VM.version\nVM.flags\nVM.command_line" (JDK 17). */
static void
test_split_info(void)
{
	static const char all[] =
	    "Connected to remote JVM\n"
	    "JVM response code = 0\n"
	    "OpenJDK 64-Bit Server VM version 17.0.21.1+2-1-deb12u1-Debian\n"
	    "JDK 17.0.21.1\n"
	    "-XX:CICompilerCount=2 -XX:+PreserveFramePointer -XX:+UseG1GC \n"
	    "VM Arguments:\n"
	    "jvm_args: -Xmx64m -Dservice=x \n"
	    "java_command: Idle arg\n"
	    "java_class_path (initial): /tmp\n"
	    "Launcher Type: SUN_STANDARD\n"
	    "\n";
	struct jv_info_parts ip;
	struct jv_cmdline cl;
	const char *body;
	size_t bl;
	int code, fp = 0;
	char v[256], f[JV_FLAGS_MAX];

	CHECK(jv_parse_response(S(all), &code, &body, &bl) == 0 && code == 0,
	    "combined: response");
	CHECK(jv_split_info(body, bl, &ip) == 0, "combined: split");
	CHECK(jv_parse_version(ip.version, ip.version_len, v, sizeof(v)) == 0,
	    "combined: version part");
	CHECK_STREQ(v, "OpenJDK 64-Bit Server VM version "
	    "17.0.21.1+2-1-deb12u1-Debian\nJDK 17.0.21.1",
	    "combined: both version lines, nothing else");
	CHECK(jv_parse_flags(ip.flags, ip.flags_len, f, sizeof(f), &fp) == 0 &&
	    fp == 1 && strcmp(f, "-XX:CICompilerCount=2 "
	    "-XX:+PreserveFramePointer -XX:+UseG1GC") == 0,
	    "combined: flags part");
	CHECK(jv_parse_command_line(ip.cmdline, ip.cmdline_len, &cl) == 0 &&
	    strcmp(cl.command, "Idle") == 0 &&
	    strcmp(cl.jvm_args, "-Xmx64m -Dservice=x") == 0,
	    "combined: command line part");
	CHECK(jv_split_info(S("JDK 17\nOpenJDK VM version 17\n"
	    "VM Arguments:\n"), &ip) != 0, "combined: version lines swapped");
	CHECK(jv_split_info(S("OpenJDK 64-Bit Server VM version 17\n"
	    "JDK 17\n-XX:+UseG1GC\n"), &ip) != 0,
	    "combined: no command line answer");
	CHECK(jv_split_info(S("Exception: java.lang.IllegalArgumentException:"
	    " Unknown diagnostic command\n"), &ip) != 0,
	    "combined: an error answer");
	CHECK(jv_split_info(S(""), &ip) != 0, "combined: empty");
}

int
main(void)
{
	test_response();
	test_cmdline();
	test_version_flags();
	test_split_info();
	test_opts();
	test_proc();
	test_failure();
	return (testing_done());
}
