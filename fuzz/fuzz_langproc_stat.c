/*
 * libFuzzer target: /proc/PID/stat texts, whose comm a user names, and
 * /proc/PID/maps lines and texts, whose paths a user names
 * (plugins/lang/common/langproc.c and langmaps.c, the runtime plugins'
 * process view).
 * FUZZ_SOURCES: plugins/lang/common/langproc.c plugins/lang/common/langmaps.c
 * FUZZ_SOURCES: plugins/lang/common/langguard.c plugins/lang/common/langfile.c lib/fsguard.c
 */
#include <stdint.h>
#include <stdlib.h>

#include "langmaps.h"
#include "langproc.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t start, end, off, ino;
	const char *path;
	size_t plen;

	(void)langproc_parse_starttime((const char *)data, size, &start);
	(void)langproc_parse_stat_field((const char *)data, size, 23, &start);
	(void)langmaps_linking((const char *)data, size);
	if (langproc_parse_map_line((const char *)data, size, &start, &end,
	    &off, &ino, &path, &plen) == 0 && path != NULL &&
	    (path < (const char *)data || path + plen > (const char *)data +
	    size))
		abort();	/* the path must lie within the line */
	return (0);
}
