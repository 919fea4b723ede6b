/*
 * Parse the pids option ("12,345, 6789"; lists given several times were
 * already joined with commas by the core): a pure function.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "perf_int.h"

int
pidlist_parse(const char *s, int32_t **pidsp, uint32_t *np)
{
	int32_t *pids = NULL, *np2;
	uint32_t n = 0, cap = 0;
	int64_t v;
	int digits;

	*pidsp = NULL;
	*np = 0;
	while (*s != '\0') {
		while (*s == ' ' || *s == '\t' || *s == ',')
			s++;
		if (*s == '\0')
			break;
		for (v = 0, digits = 0; *s >= '0' && *s <= '9'; s++, digits++) {
			v = v * 10 + (*s - '0');
			if (v > INT32_MAX)
				goto out_inval;
		}
		if (digits == 0 || v == 0 ||
		    (*s != '\0' && *s != ',' && *s != ' ' && *s != '\t'))
			goto out_inval;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			if ((np2 = realloc(pids, cap * sizeof(*pids))) == NULL) {
				free(pids);
				return (-ENOMEM);
			}
			pids = np2;
		}
		pids[n++] = (int32_t)v;
	}
	if (n == 0)
		goto out_inval;
	*pidsp = pids;
	*np = n;
	return (0);
out_inval:
	free(pids);
	return (-EINVAL);
}
