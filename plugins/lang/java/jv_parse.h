/*
 * The Java plugin's parsers: pure functions over bytes that came from
 * outside (jattach's output, the JVM's diagnostic command answers, /proc
 * files).  Each is unit tested (tests/unit/test_java_parse.c) and fuzzed
 * (fuzz/fuzz_java_*.c).
 */
#ifndef JV_PARSE_H
#define JV_PARSE_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#define JV_APPID_MAX	1024
#define JV_FLAGS_MAX	4096

/* Whether an attach would be refused or dangerous, from the JVM's options. */
struct jv_opts {
	int attach_disabled;	/* -XX:+DisableAttachMechanism */
	int reduce_signals;	/* -Xrs / -XX:+ReduceSignalUsage */
};

/* What VM.command_line says. */
struct jv_cmdline {
	char command[512];	/* first token of java_command */
	char jvm_args[JV_FLAGS_MAX];
};

int jv_parse_response(const char *out, size_t len, int *code,
	    const char **body, size_t *bodylen);
int jv_parse_command_line(const char *body, size_t len,
	    struct jv_cmdline *cl);
/* The three answers of one combined jcmd run (jv_split_info). */
struct jv_info_parts {
	const char *version, *flags, *cmdline;
	size_t version_len, flags_len, cmdline_len;
};

int jv_split_info(const char *body, size_t len, struct jv_info_parts *ip);
int jv_parse_version(const char *body, size_t len, char *out,
	    size_t outlen);
int jv_parse_flags(const char *body, size_t len, char *out, size_t outlen,
	    int *preserve_fp);
void jv_opts_scan(const char *buf, size_t len, int sep, struct jv_opts *o);
int jv_environ_get(const char *env, size_t len, const char *name,
	    const char **val, size_t *vlen);
int jv_status_sigcgt(const char *status, size_t len, uint64_t *mask);
int jv_status_nspid(const char *status, size_t len, int32_t *nspid);
int jv_maps_has_libjvm(const char *maps, size_t len);
int jv_appid_build(const struct jv_cmdline *cl, const regex_t *filters,
	    size_t nfilters, char *out, size_t outlen);
int jv_failure_reason(const char *stderr_tail, int exited, int status,
	    char *out, size_t outlen);

#endif /* JV_PARSE_H */
