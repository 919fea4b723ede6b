/*
 * Fuzz the Java plugin's /proc parsers: the input as /proc/PID/status
 * (SigCgt, NSpid), stat (starttime), maps (libjvm), cmdline and environ
 * (JVM options).
 * FUZZ_SOURCES: plugins/lang/java/jv_parse.c
 */
#include <stdint.h>
#include <string.h>

#include "plugins/lang/java/jv_parse.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data, *v;
	struct jv_opts o;
	uint64_t m;
	int32_t ns;
	size_t vl;

	jv_status_sigcgt(in, size, &m);
	jv_status_nspid(in, size, &ns);
	jv_maps_has_libjvm(in, size);
	memset(&o, 0, sizeof(o));
	jv_opts_scan(in, size, '\0', &o);
	jv_opts_scan(in, size, ' ', &o);
	if (jv_environ_get(in, size, "JAVA_TOOL_OPTIONS", &v, &vl) == 0)
		jv_opts_scan(v, vl, ' ', &o);
	return (0);
}
