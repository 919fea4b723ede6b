/*
 * libFuzzer target: /proc/PID/maps lines and texts, whose paths a user
 * names
 * (plugins/lang/common/langproc.c and langmaps.c, the runtime plugins'
 * process view).
 * FUZZ_SOURCES: plugins/lang/common/langproc.c plugins/lang/common/langmaps.c lib/procstat.c
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

	(void)langmaps_linking((const char *)data, size);
	if (langproc_parse_map_line((const char *)data, size, &start, &end,
	    &off, &ino, &path, &plen) == 0 && path != NULL &&
	    (path < (const char *)data || path + plen > (const char *)data +
	    size))
		abort();	/* the path must lie within the line */
	return (0);
}
