/*
 * Fuzz the package-version parsers (py_pkgver.c): the input is, at once, a
 * frame, a path, a distribution's directory name, its METADATA, its RECORD
 * and its installed-files.txt; everything found is read back whole.
 * FUZZ_SOURCES: plugins/lang/python/py_pkgver.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/lang/python/py_pkgver.h"

static volatile size_t fz_sink;

static void
fz_touch(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fz_sink += (uint8_t)s[i];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, out[4096], proj[256], ver[256];
	const char *v;
	size_t from = 0, fb, fl, cl, pos, vl;
	int exact, rc;

	if ((s = malloc(size + 1)) == NULL)
		return (0);
	memcpy(s, data, size);
	s[size] = '\0';
	while (py_pkgver_next_module(s, size, from, &fb, &fl, &cl)) {
		if (fb + fl > cl || cl >= size || s[cl] != ')')
			abort();
		fz_sink += py_pkgver_packages_dir(s + fb, fl);
		fz_sink += (size_t)py_pkgver_is_stdlib(s + fb, fl);
		from = cl + 1;
	}
	fz_sink += py_pkgver_packages_dir(s, size);
	fz_sink += (size_t)py_pkgver_is_stdlib(s, size);
	fz_sink += (size_t)py_pkgver_dist_kind(s);
	if (py_pkgver_dirname(s, proj, sizeof(proj), ver, sizeof(ver)) >= 0) {
		fz_touch(proj, strlen(proj));
		fz_touch(ver, strlen(ver));
	}
	(void)py_pkgver_header(s, size, "Name", &v, &vl, &exact);
	if (v != NULL) {
		if (v < s || v + vl > s + size)
			abort();
		fz_touch(v, vl);
	}
	if (py_pkgver_norm(s, size, out, sizeof(out)) == 0)
		fz_touch(out, strlen(out));
	for (pos = 0; (rc = py_pkgver_record_next(s, size, &pos, out,
	    sizeof(out))) != 0;)
		if (rc > 0)
			fz_touch(out, strlen(out));
	for (pos = 0; (rc = py_pkgver_legacy_next(s, size, &pos,
	    "x-1.egg-info", out, sizeof(out))) != 0;)
		if (rc > 0)
			fz_touch(out, strlen(out));
	free(s);
	return (0);
}
