/*
 * Runtime versions: see langver.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "langver.h"

int
langver_parse(const char *s, size_t len, int *major, int *minor, int *patch)
{
	int part[3] = { 0, 0, 0 };
	size_t i = 0;
	int k, digits;

	for (k = 0; k < 3; k++) {
		digits = 0;
		while (i < len && s[i] >= '0' && s[i] <= '9' && digits < 4) {
			part[k] = part[k] * 10 + (s[i] - '0');
			i++;
			digits++;
		}
		if (digits == 0)
			return (-EINVAL);
		if (k < 2) {
			if (i >= len || s[i] != '.')
				return (-EINVAL);
			i++;
		}
	}
	*major = part[0];
	*minor = part[1];
	*patch = part[2];
	return (0);
}

int
langver_row(const struct langver_table *t, int major, int minor, int patch,
    char *why, size_t whylen)
{
	const struct langver_key *k;
	size_t i;

	for (i = 0; i < t->n; i++) {
		k = (const void *)((const char *)t->rows + i * t->stride);
		if (k->major == major && k->minor == minor)
			return ((int)i);
	}
	snprintf(why, whylen, "%s %d.%d.%d is not supported (%s %s are)",
	    t->lang, major, minor, patch, t->lang, t->range);
	return (-ENOTSUP);
}
