/*
 * /proc/PID/stat's fields: see procstat.h.  One reader for the seven
 * places that once counted the fields each their own way.
 */
#include "config.h"

#include <errno.h>

#include "procstat.h"

int
procstat_at(const char *buf, size_t len, int want, size_t *at)
{
	size_t i;
	int field = 2;

	if (want < 3)
		return (-EINVAL);
	for (i = len; i > 0 && buf[i - 1] != ')'; i--)
		;
	if (i == 0 || i >= len || buf[i] != ' ')
		return (-EINVAL);
	/* one space before each field after the comm */
	for (; i < len && field < want; i++)
		if (buf[i] == ' ')
			field++;
	if (field != want || i >= len)
		return (-EINVAL);
	*at = i;
	return (0);
}

int
procstat_u64(const char *buf, size_t len, int want, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (procstat_at(buf, len, want, &i) != 0 || buf[i] < '0' ||
	    buf[i] > '9')
		return (-EINVAL);
	for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
		if (v > (UINT64_MAX - (uint64_t)(buf[i] - '0')) / 10)
			return (-EINVAL);
		v = v * 10 + (uint64_t)(buf[i] - '0');
	}
	*out = v;
	return (0);
}

int
procstat_cpu(const char *buf, size_t len, uint64_t *ticks)
{
	uint64_t u, s;

	if (procstat_u64(buf, len, 14, &u) != 0 ||
	    procstat_u64(buf, len, 15, &s) != 0 || u + s < u)
		return (-EINVAL);
	*ticks = u + s;
	return (0);
}

int
procstat_state(const char *buf, size_t len, char *state)
{
	size_t i;

	if (procstat_at(buf, len, 3, &i) != 0 || buf[i] == ' ')
		return (-EINVAL);
	*state = buf[i];
	return (0);
}
