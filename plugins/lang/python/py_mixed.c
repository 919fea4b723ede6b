/*
 * Mixed Python/native/kernel stacks: see py_mixed.h.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "py_mixed.h"

/* How many leaf user frames ran above the interpreter. */
static uint32_t
py_mixed_native(const struct gp_sample_stack *st, uint64_t lo, uint64_t hi)
{
	uint32_t i, m = 0;

	if (st->nuser == 0 || st->user == NULL || st->user_ips == NULL)
		return (0);
	if (lo < hi)
		for (i = st->nuser; i > 0; i--, m++)
			if (st->user_ips[i - 1] >= lo &&
			    st->user_ips[i - 1] < hi)
				return (m > PY_MIXED_MAX_NATIVE ?
				    PY_MIXED_MAX_NATIVE : m);
	/*
	 * No interpreter frame: the frame-pointer chain broke in code built
	 * without them (or the range is unknown).  What precedes the first
	 * address nothing maps is a true chain; after it, guesses.
	 */
	for (m = 1; m < st->nuser && m < PY_MIXED_MAX_NATIVE; m++)
		if (st->user[st->nuser - 1 - m] == NULL ||
		    strcmp(st->user[st->nuser - 1 - m], "[unknown]") == 0)
			break;
	return (m);
}

uint32_t
py_mixed_merge(const char *const *py, uint32_t npy,
    const struct gp_sample_stack *st, uint64_t lo, uint64_t hi,
    const char **out, uint32_t cap, char *buf, size_t buflen)
{
	uint32_t i, n = 0, m;
	size_t used = 0;
	int len;

	for (i = 0; i < npy && n < cap; i++)
		out[n++] = py[i];
	if (st == NULL)
		return (n);
	m = py_mixed_native(st, lo, hi);
	for (i = st->nuser - m; i < st->nuser && n < cap; i++) {
		const char *name = st->user[i] != NULL ? st->user[i] :
		    "[unknown]";

		len = snprintf(buf + used, buflen - used, "%s_[pn]", name);
		if (len < 0 || (size_t)len >= buflen - used)
			break;	/* out of room: the kernel frames still go */
		out[n++] = buf + used;
		used += (size_t)len + 1;
	}
	for (i = 0; i < st->nkernel && st->kernel != NULL && n < cap; i++)
		out[n++] = st->kernel[i] != NULL ? st->kernel[i] : "[unknown]";
	return (n);
}
