/*
 * libFuzzer target: /proc/PID/mountinfo and fdinfo texts, whose mount
 * points a user names (lib/fsguard.c, which says which filesystems the
 * agent reads from), and paths judged against them.
 * FUZZ_SOURCES: lib/fsguard.c
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/fsguard.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fsguard_mount m[64];
	const struct fsguard_mount *bad;
	char *buf, path[256];
	uint32_t n, i, id;
	const uint8_t *nl;
	size_t pl;

	if ((buf = malloc(size + 1)) == NULL)
		return (0);
	memcpy(buf, data, size);
	buf[size] = '\0';
	(void)fsguard_fdinfo_mnt_id(buf, size, &id);
	n = fsguard_parse_mountinfo(buf, size, m, 64);
	if (n > 64)
		abort();
	for (i = 0; i < n; i++) {
		if ((uint64_t)m[i].point + m[i].pointlen > size ||
		    strlen(m[i].fstype) >= sizeof(m[i].fstype))
			abort();
		if (fsguard_by_id(m, n, m[i].id) == NULL)
			abort();
	}
	/* The first line, as a path, against the table. */
	nl = memchr(data, '\n', size);
	pl = nl != NULL ? (size_t)(nl - data) : size;
	if (pl > sizeof(path) - 2)
		pl = sizeof(path) - 2;
	path[0] = '/';
	memcpy(path + 1, data, pl);
	path[pl + 1] = '\0';
	bad = NULL;
	if (fsguard_path_check(buf, m, n, path, &bad) == -EREMOTE &&
	    (bad == NULL || bad->local))
		abort();
	free(buf);
	return (0);
}
