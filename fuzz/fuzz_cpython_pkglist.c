/*
 * Fuzz the package-version index's memory (py_pkgtab.c): the input is a
 * RECORD and an installed-files.txt, parsed through a window whose size
 * and feeding step the first bytes choose; every file found goes into a
 * table with a small limit, then is looked up again.  The window must
 * give the whole-file parsers' files whenever no line is longer than it.
 * FUZZ_SOURCES: plugins/lang/python/py_pkgtab.c plugins/lang/python/py_pkgver.c
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/lang/python/py_pkgtab.h"
#include "plugins/lang/python/py_pkgver.h"

static void
fz_run(const char *s, size_t len, int legacy, size_t cap, size_t step)
{
	struct py_pkglist l;
	struct py_pkgtab t;
	char f[4096], g[4096], *at;
	size_t off = 0, room, n, wpos = 0, longest = 0, cur = 0, i;
	int rc, wrc, guard = 0, same = 1;

	for (i = 0; i < len; i++) {
		cur = (s[i] == '\n' || s[i] == '\r' || s[i] == '\v' ||
		    s[i] == '\f' || s[i] == '\x1c' || s[i] == '\x1d' ||
		    s[i] == '\x1e' || s[i] == '"') ? 0 : cur + 1;
		if (s[i] == '"')
			longest = len;	/* quoted: may span lines */
		if (cur > longest)
			longest = cur;
	}
	memset(&l, 0, sizeof(l));
	memset(&t, 0, sizeof(t));
	if ((l.buf = malloc(cap)) == NULL)
		return;
	l.cap = cap;
	py_pkglist_start(&l, legacy, "x-1.egg-info");
	while (guard++ < 10000000) {
		rc = py_pkglist_next(&l, f, sizeof(f));
		if (rc > 0) {
			if (strlen(f) >= sizeof(f))
				abort();
			if (py_pkgtab_add(&t, f, strlen(f), 1, 1u << 18) == 1 &&
			    py_pkgtab_find(&t, f, strlen(f)) != 1)
				abort();
		}
		if (rc != 0 && longest + 2 < cap) {
			/* the same file as the whole-file parser's */
			wrc = legacy ? py_pkgver_legacy_next(s, len, &wpos,
			    "x-1.egg-info", g, sizeof(g)) :
			    py_pkgver_record_next(s, len, &wpos, g, sizeof(g));
			if (wrc != rc || (rc > 0 && strcmp(f, g) != 0))
				same = 0;
		}
		if (rc != 0)
			continue;
		if (l.eof)
			break;
		at = py_pkglist_room(&l, &room);
		if (room == 0)
			abort();	/* it asked for bytes it has no room for */
		n = len - off < room ? len - off : room;
		if (n > step)
			n = step;
		memcpy(at, s + off, n);
		off += n;
		py_pkglist_fed(&l, n);
	}
	if (guard >= 10000000)
		abort();
	if (t.bytes > (1u << 18) || !same)
		abort();
	py_pkgtab_clear(&t);
	free(l.buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap, step;

	if (size < 2)
		return (0);
	cap = 8 + data[0] * 4;
	step = 1 + data[1] % 64;
	fz_run((const char *)data + 2, size - 2, 0, cap, step);
	fz_run((const char *)data + 2, size - 2, 1, cap, step);
	return (0);
}
