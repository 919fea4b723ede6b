/*
 * Fuzz the Python appid rules: the input is a NUL-separated argv; the
 * fake filesystem returns the input itself as any ini file.
 * FUZZ_SOURCES: plugins/lang/python/py_appid.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/lang/python/pyreader.h"

static const uint8_t *fz_data;
static size_t fz_size;

static char *
fz_read(void *arg, const char *path, size_t *len)
{
	char *s = malloc(fz_size + 1);

	if (s == NULL)
		return (NULL);
	memcpy(s, fz_data, fz_size);
	s[fz_size] = '\0';
	*len = fz_size;
	return (s);
}

static int
fz_resolve(void *arg, const char *in, char *out, size_t len)
{
	return (-1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct py_appid_env env = { "/srv/app", fz_resolve, fz_read, NULL };
	const char *argv[64];
	char *buf, out[8192];
	size_t i;
	int argc = 0;

	if ((buf = malloc(size + 1)) == NULL)
		return (0);
	memcpy(buf, data, size);
	buf[size] = '\0';
	fz_data = data;
	fz_size = size;
	for (i = 0; i <= size && argc < 64; i++) {
		argv[argc++] = buf + i;
		i += strlen(buf + i);
	}
	(void)py_appid(argv, argc, &env, out, sizeof(out));
	free(buf);
	return (0);
}
