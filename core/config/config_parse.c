/*
 * The config file grammar, gProfiler's flat style: `key = value` lines
 * (long option names without "--"), '#' and ';' comments, optional
 * `[plugin]` sections for plugin options.  A pure function over bytes: the
 * caller decides what the keys mean.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/configuration.h"

#define CONFIG_LINE_MAX	4096

static char *
config_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return (s);
}

static int
config_key_ok(const char *k)
{
	if (*k == '\0')
		return (0);
	for (; *k != '\0'; k++)
		if (!isalnum((unsigned char)*k) && *k != '-' && *k != '_')
			return (0);
	return (1);
}

/*
 * Parse buf; call cb(arg, section, key, value, origin) for each setting
 * (section "" at top level; keys with '_' turned into '-').  The first
 * error stops the parse: -EINVAL with "file:line: problem; fix" in err.
 */
int
config_parse_buf(const char *buf, size_t len, const char *fname,
    int (*cb)(void *, const char *, const char *, const char *, const char *),
    void *arg, char *err, size_t errlen)
{
	char line[CONFIG_LINE_MAX], section[128] = "", origin[512];
	char *s, *eq, *key, *val, *p;
	const char *nl, *end = buf + len;
	size_t n, lineno = 0;
	int rc;

	while (buf < end) {
		lineno++;
		nl = memchr(buf, '\n', end - buf);
		n = (nl != NULL ? nl : end) - buf;
		snprintf(origin, sizeof(origin), "%s:%zu", fname, lineno);
		if (n >= sizeof(line)) {
			snprintf(err, errlen, "%s: line longer than %d bytes",
			    origin, CONFIG_LINE_MAX - 1);
			return (-EINVAL);
		}
		if (memchr(buf, '\0', n) != NULL) {
			snprintf(err, errlen, "%s: NUL byte: is this a text "
			    "file?", origin);
			return (-EINVAL);
		}
		memcpy(line, buf, n);
		line[n] = '\0';
		buf += n + (nl != NULL);
		s = config_trim(line);
		if (*s == '\0' || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			if ((p = strchr(s, ']')) == NULL || p[1] != '\0' ||
			    p - s - 1 >= (long)sizeof(section)) {
				snprintf(err, errlen, "%s: bad section header; "
				    "write [name]", origin);
				return (-EINVAL);
			}
			*p = '\0';
			snprintf(section, sizeof(section), "%s",
			    config_trim(s + 1));
			if (!config_key_ok(section)) {
				snprintf(err, errlen, "%s: bad section name "
				    "\"%s\"", origin, section);
				return (-EINVAL);
			}
			continue;
		}
		if ((eq = strchr(s, '=')) == NULL) {
			snprintf(err, errlen, "%s: expected \"key = value\"",
			    origin);
			return (-EINVAL);
		}
		*eq = '\0';
		key = config_trim(s);
		val = config_trim(eq + 1);
		if (key[0] == '-' && key[1] == '-')
			key += 2;
		if (!config_key_ok(key)) {
			snprintf(err, errlen, "%s: bad key \"%s\"; keys are "
			    "long option names such as profiling-duration",
			    origin, key);
			return (-EINVAL);
		}
		for (p = key; *p != '\0'; p++)
			if (*p == '_')
				*p = '-';
		n = strlen(val);
		if (n >= 2 && ((val[0] == '"' && val[n - 1] == '"') ||
		    (val[0] == '\'' && val[n - 1] == '\''))) {
			val[n - 1] = '\0';
			val++;
		}
		if ((rc = cb(arg, section, key, val, origin)) != 0)
			return (rc);
	}
	return (0);
}
