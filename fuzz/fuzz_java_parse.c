/*
 * Fuzz the Java plugin's parsers of jattach / diagnostic command output:
 * the input is taken as jattach's stdout, and its body as VM.command_line,
 * VM.version and VM.flags answers, then through the appid builder, and as
 * the combined answer of the three (jv_split_info), each part parsed.
 * FUZZ_SOURCES: plugins/lang/java/jv_parse.c
 */
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/lang/java/jv_parse.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static regex_t re;
	static int ready;
	struct jv_cmdline cl;
	struct jv_info_parts ip;
	const char *in = (const char *)data, *body;
	char out[JV_APPID_MAX], ver[64], flags[128], why[64];
	size_t bl;
	int code, fp;

	if (!ready)
		ready = regcomp(&re, "^-D", REG_EXTENDED | REG_NOSUB) == 0;
	if (jv_parse_response(in, size, &code, &body, &bl) != 0) {
		body = in;
		bl = size;
	}
	if (jv_parse_command_line(body, bl, &cl) == 0)
		jv_appid_build(&cl, &re, ready ? 1 : 0, out, sizeof(out));
	jv_parse_version(body, bl, ver, sizeof(ver));
	jv_parse_flags(body, bl, flags, sizeof(flags), &fp);
	if (jv_split_info(body, bl, &ip) == 0) {
		jv_parse_version(ip.version, ip.version_len, ver, sizeof(ver));
		jv_parse_flags(ip.flags, ip.flags_len, flags, sizeof(flags),
		    &fp);
		jv_parse_command_line(ip.cmdline, ip.cmdline_len, &cl);
	}
	if (size > 0 && memchr(in, '\0', size) != NULL) {
		char *tail = malloc(size + 1);

		if (tail == NULL)
			return (0);
		memcpy(tail, in, size);
		tail[size] = '\0';
		jv_failure_reason(tail, size & 1, (int)size, why, sizeof(why));
		free(tail);
	}
	return (0);
}
