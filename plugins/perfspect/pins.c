/*
 * The SHA-256 digests of the PerfSpect releases this agent knows
 * (perfspect-releases.sha256, shipped with it): a downloaded tarball whose
 * digest is listed here may be run as root without --perfspect-sha256.
 * Pure: the caller reads the file.
 */
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "perfspect.h"

/* One line: "<64 hex>  <version>  [anything]"; '#' comments, blanks. */
static int
pins_line(const char *s, size_t len, const char *hex, char *version,
    size_t vlen)
{
	size_t i, v;

	if (len < 64)
		return (-1);
	for (i = 0; i < 64; i++)
		if (!isxdigit((unsigned char)s[i]))
			return (-1);
	if (len > 64 && s[64] != ' ' && s[64] != '\t')
		return (-1);
	for (i = 64; i < len && (s[i] == ' ' || s[i] == '\t'); i++)
		;
	for (v = i; i < len && isgraph((unsigned char)s[i]); i++)
		;
	if (i == v || (i < len && s[i] != ' ' && s[i] != '\t'))
		return (-1);	/* no version, or one with control bytes */
	if (hex == NULL || strlen(hex) != 64 || strncasecmp(s, hex, 64) != 0)
		return (0);
	if (vlen > 0) {
		if (i - v >= vlen)
			i = v + vlen - 1;
		memcpy(version, s + v, i - v);
		version[i - v] = '\0';
	}
	return (1);
}

int
ps_pins_find(const char *buf, size_t len, const char *hex, char *version,
    size_t vlen, size_t *npins)
{
	const char *s, *nl, *end = buf + len;
	size_t l;
	int rc, found = 0;

	if (npins != NULL)
		*npins = 0;
	if (vlen > 0)
		version[0] = '\0';
	for (s = buf; buf != NULL && s < end; s = nl + 1) {
		if ((nl = memchr(s, '\n', end - s)) == NULL)
			nl = end;
		l = nl - s;
		while (l > 0 && isspace((unsigned char)s[l - 1]))
			l--;
		while (l > 0 && (*s == ' ' || *s == '\t')) {
			s++;
			l--;
		}
		if (l == 0 || *s == '#')
			continue;
		if ((rc = pins_line(s, l, hex, version, found ? 0 : vlen)) < 0)
			continue;	/* not a pin: ignored */
		if (npins != NULL)
			(*npins)++;
		if (rc == 1)
			found = 1;
	}
	return (found);
}
