/*
 * libFuzzer target: /proc/PID/mountinfo and /proc/PID/maps texts, whose
 * paths and mount points a user names (plugins/lang/common/langguard.c,
 * which says where the runtime readers may read a process's memory).
 * FUZZ_SOURCES: plugins/lang/common/langguard.c plugins/lang/common/langfile.c lib/fsguard.c
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "langguard.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct langguard_mount m[32];
	struct langguard_range r[64];
	const struct langguard_range *b;
	const char *s = (const char *)data;
	uint32_t nm, n, i;
	int more;

	nm = langguard_parse_mountinfo(s, size, m, 32);
	if (nm > 32)
		abort();
	for (i = 0; i < nm; i++)
		if (strlen(m[i].fstype) >= sizeof(m[i].fstype))
			abort();
	n = langguard_parse_maps(s, size, m, nm, 1, r, 64, &more);
	if (n > 64)
		abort();
	for (i = 0; i < n; i++)
		if (r[i].start >= r[i].end || (i > 0 && r[i].start <
		    r[i - 1].end))
			abort();	/* sorted, disjoint, never empty */
	for (i = 0; i < n; i++)
		if (langguard_lookup(r, n, r[i].start, 1, &b) !=
		    (r[i].verdict == LANGGUARD_OK ? 0 : -EREMOTE))
			abort();
	return (0);
}
