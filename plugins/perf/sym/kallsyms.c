/*
 * /proc/kallsyms parser.  Only text symbols (t, T, w, W) are kept; the
 * __pfx_/__cfi_ padding symbols of newer kernels are dropped, they would
 * otherwise take the first bytes of every function.  About 12 bytes per
 * symbol plus the names.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"
#include "sorted.h"

struct ksym_tmp {
	uint64_t addr;
	uint32_t name;
};

static int
ksym_cmp(const void *va, const void *vb)
{
	const struct ksym_tmp *a = va, *b = vb;

	if (a->addr != b->addr)
		return (a->addr < b->addr ? -1 : 1);
	return (a->name < b->name ? -1 : a->name > b->name);
}

/* "ADDR TYPE NAME[\t[module]]"; 1 = text symbol, 0 = other, -1 = bad. */
static int
kallsyms_line(const char *p, const char *end, uint64_t *addr,
    const char **name, size_t *nlen)
{
	uint64_t v = 0;
	int nd = 0, d;
	char type;

	for (; p < end && *p != ' '; p++, nd++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return (-1);
		v = v << 4 | (uint64_t)d;
	}
	if (nd == 0 || nd > 16 || end - p < 4 || p[2] != ' ')
		return (-1);
	type = p[1];
	p += 3;
	*name = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	*nlen = (size_t)(p - *name);
	*addr = v;
	if (*nlen == 0 || *nlen > 1024)
		return (-1);
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return (0);
	if ((*nlen > 6 && memcmp(*name, "__pfx_", 6) == 0) ||
	    (*nlen > 6 && memcmp(*name, "__cfi_", 6) == 0))
		return (0);
	return (1);
}

static int
kallsyms_collect(const char *buf, size_t len, struct kallsyms *k,
    struct ksym_tmp **out, size_t *nout)
{
	struct ksym_tmp *v = NULL, *nv;
	const char *line = buf, *nl, *end, *name;
	size_t n = 0, cap = 0, ncap = 0, nlen;
	uint64_t addr;
	char *p;
	int r, nonzero = 0;

	while (line < buf + len) {
		nl = memchr(line, '\n', (size_t)(buf + len - line));
		end = nl != NULL ? nl : buf + len;
		r = kallsyms_line(line, end, &addr, &name, &nlen);
		line = end + 1;
		if (r < 0) {
			k->bad_lines++;
			continue;
		}
		if (r == 0)
			continue;
		if (addr != 0)
			nonzero = 1;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL)
				goto fail;
			v = nv;
		}
		if (k->names_len + nlen + 1 > ncap) {
			ncap = ncap ? ncap * 2 : 65536;
			if (ncap > UINT32_MAX ||
			    (p = realloc(k->names, ncap)) == NULL)
				goto fail;
			k->names = p;
		}
		memcpy(k->names + k->names_len, name, nlen);
		k->names[k->names_len + nlen] = '\0';
		v[n].addr = addr;
		v[n].name = (uint32_t)k->names_len;
		k->names_len += nlen + 1;
		n++;
	}
	k->zeroed = n > 0 && !nonzero;
	*out = v;
	*nout = n;
	return (0);
fail:
	free(v);
	return (-ENOMEM);
}

int
kallsyms_parse(const char *buf, size_t len, struct kallsyms *k)
{
	struct ksym_tmp *v;
	size_t n, i, o;
	char *p;

	memset(k, 0, sizeof(*k));
	if (kallsyms_collect(buf, len, k, &v, &n) != 0) {
		kallsyms_free(k);
		return (-ENOMEM);
	}
	if (n == 0 || k->zeroed) {
		free(v);
		free(k->names);
		k->names = NULL;
		k->names_len = 0;
		return (-ENOENT);
	}
	qsort(v, n, sizeof(*v), ksym_cmp);
	k->addr = calloc(n, sizeof(*k->addr));
	k->name = calloc(n, sizeof(*k->name));
	if (k->addr == NULL || k->name == NULL) {
		free(v);
		kallsyms_free(k);
		return (-ENOMEM);
	}
	/* One symbol per address: the first listed (kernel order). */
	for (i = 0, o = 0; i < n; i++) {
		if (o > 0 && k->addr[o - 1] == v[i].addr)
			continue;
		k->addr[o] = v[i].addr;
		k->name[o] = v[i].name;
		o++;
	}
	k->n = o;
	free(v);
	if ((p = realloc(k->names, k->names_len)) != NULL)
		k->names = p;
	return (0);
}

void
kallsyms_free(struct kallsyms *k)
{
	if (k == NULL)
		return;
	free(k->addr);
	free(k->name);
	free(k->names);
	memset(k, 0, sizeof(*k));
}

const char *
kallsyms_lookup(const struct kallsyms *k, uint64_t addr)
{
	size_t lo = sorted_upper(k->addr, k->n, sizeof(*k->addr), 0, addr);

	if (lo == 0 || addr - k->addr[lo - 1] >= KALLSYMS_MAX_FUNC)
		return (NULL);
	return (k->names + k->name[lo - 1]);
}
