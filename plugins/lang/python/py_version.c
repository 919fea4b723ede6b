/*
 * Which CPython a process runs (docs/specs/cpython.md §4): from PY_VERSION_HEX,
 * from the sys.version text, or from the interpreter's file name; and
 * whether the reader supports it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pyreader.h"

int
py_version_from_hex(uint64_t hex, struct py_version *v)
{
	int level = (int)((hex >> 4) & 0xf);

	memset(v, 0, sizeof(*v));
	if (hex >> 32 != 0 || (level != 0xa && level != 0xb && level != 0xc &&
	    level != 0xf))
		return (-EINVAL);
	v->major = (int)((hex >> 24) & 0xff);
	v->minor = (int)((hex >> 16) & 0xff);
	v->micro = (int)((hex >> 8) & 0xff);
	if (v->major < 2 || v->major > 3)
		return (-EINVAL);
	return (0);
}

static int
py_version_number(const char *s, size_t len, size_t *i, int *out)
{
	int n = 0, digits = 0;

	while (*i < len && s[*i] >= '0' && s[*i] <= '9' && digits < 4) {
		n = n * 10 + (s[*i] - '0');
		(*i)++;
		digits++;
	}
	if (digits == 0)
		return (-EINVAL);
	*out = n;
	return (0);
}

/* The leading "M.m.p" of sys.version ("3.11.7 (main, ...)"). */
int
py_version_from_string(const char *s, size_t len, struct py_version *v)
{
	size_t i = 0;

	memset(v, 0, sizeof(*v));
	if (py_version_number(s, len, &i, &v->major) != 0 || i >= len ||
	    s[i++] != '.' || py_version_number(s, len, &i, &v->minor) != 0)
		return (-EINVAL);
	if (i < len && s[i] == '.') {
		i++;
		if (py_version_number(s, len, &i, &v->micro) != 0)
			return (-EINVAL);
	}
	return (v->major == 2 || v->major == 3 ? 0 : -EINVAL);
}

/*
 * libpython3.11.so.1.0, libpython3.13t.so, python3.9, python3.12d: the
 * major.minor and the ABI letters after the minor.
 */
int
py_version_from_filename(const char *path, struct py_version *v)
{
	const char *base = strrchr(path, '/');
	size_t i, len;

	base = base != NULL ? base + 1 : path;
	if (strncmp(base, "lib", 3) == 0)
		base += 3;
	if (strncmp(base, "python", 6) != 0)
		return (-EINVAL);
	base += 6;
	len = strlen(base);
	i = 0;
	memset(v, 0, sizeof(*v));
	if (py_version_number(base, len, &i, &v->major) != 0 || i >= len ||
	    base[i++] != '.' || py_version_number(base, len, &i, &v->minor) != 0)
		return (-EINVAL);
	for (; i < len && base[i] != '.'; i++) {
		if (base[i] == 't')
			v->free_threaded = 1;
		else if (base[i] == 'd')
			v->debug = 1;
	}
	return (v->major == 2 || v->major == 3 ? 0 : -EINVAL);
}

/* 0, or -ENOTSUP with the skip reason in why. */
int
py_version_supported(const struct py_version *v, char *why, size_t len)
{
	if (v->free_threaded) {
		snprintf(why, len, "free-threaded Python %d.%d is not "
		    "supported", v->major, v->minor);
		return (-ENOTSUP);
	}
	if (v->debug) {
		snprintf(why, len, "debug build of Python %d.%d is not "
		    "supported", v->major, v->minor);
		return (-ENOTSUP);
	}
	if (v->major != 3 || v->minor < 8 || v->minor > 13) {
		snprintf(why, len, "Python %d.%d is not supported (3.8 to "
		    "3.13 are)", v->major, v->minor);
		return (-ENOTSUP);
	}
	return (0);
}
