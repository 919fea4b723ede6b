/*
 * The symbolizer's kernel frames: from the host's kernel resolver when the
 * plugin has one (batched: the cycle's addresses prefetched, answered at
 * its end), else /proc/kallsyms read once.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gprofiler/plugin.h>

#include "symbolize_int.h"

/* Marks an address queued for the resolver in the derived cache. */
static const char sym_kpending[] = "[pending]";
#define SYM_KNAME_LEN	128

static void
sym_kallsyms_load(struct symbolizer *s)
{
	char *buf;
	size_t len;
	int r;

	s->ksyms_state = -1;
	if ((r = sym_read_file(s, s->kallsyms_path, SYM_MAX_PROC_FILE, &buf,
	    &len)) != 0) {
		sym_log(s, GP_LOG_WARN, "symbolizer: %s: %s; kernel frames "
		    "show as [unknown]", s->kallsyms_path, strerror(-r));
		return;
	}
	r = kallsyms_parse(buf, len, &s->ksyms);
	free(buf);
	if (r != 0) {
		sym_log(s, GP_LOG_WARN, "symbolizer: %s: no usable kernel "
		    "symbols%s; kernel frames show as [unknown]",
		    s->kallsyms_path, s->ksyms.zeroed ? " (addresses hidden: "
		    "run as root or lower kernel.kptr_restrict)" : "");
		return;
	}
	s->ksyms_state = 1;
}

/* "func_[k]" from /proc/kallsyms (or the file configured instead). */
static const char *
sym_kernel_kallsyms(struct symbolizer *s, uint64_t addr)
{
	const char *name, *v;
	char buf[1100];
	int n;

	if (s->ksyms_state == 0)
		sym_kallsyms_load(s);
	if (s->ksyms_state != 1 ||
	    (name = kallsyms_lookup(&s->ksyms, addr)) == NULL)
		return (SYM_UNKNOWN);
	if ((v = sym_derived_get(s, name)) != NULL)
		return (v);
	n = snprintf(buf, sizeof(buf), "%s_[k]", name);
	if (n < 0 || (size_t)n >= sizeof(buf) ||
	    (v = sym_strdup(s, buf, (size_t)n)) == NULL)
		return (SYM_UNKNOWN);
	return (sym_derived_put(s, name, v));
}

/* Kernel addresses key the derived cache: they never equal a pointer
 * into our own (user-space) memory. */
static const void *
sym_kkey(uint64_t addr)
{
	return ((const void *)(uintptr_t)(addr | 1ull << 63));
}

void
symbolizer_set_kernel_resolver(struct symbolizer *s,
    int (*fn)(void *, const uint64_t *, size_t, char *, size_t), void *arg)
{
	s->kresolve = fn;
	s->kresolve_arg = arg;
}

static int
sym_kresolver_on(const struct symbolizer *s)
{
	return (s->kresolve != NULL &&
	    strcmp(s->kallsyms_path, "/proc/kallsyms") == 0);
}

void
symbolizer_kernel_prefetch(struct symbolizer *s, const uint64_t *addrs,
    size_t n)
{
	uint64_t *v;
	size_t i, ncap;

	if (!sym_kresolver_on(s))
		return;
	for (i = 0; i < n; i++) {
		if (sym_derived_get(s, sym_kkey(addrs[i])) != NULL)
			continue;
		if (s->nkpend == s->kpend_cap) {
			ncap = s->kpend_cap ? s->kpend_cap * 2 : 256;
			if ((v = reallocarray(s->kpend, ncap,
			    sizeof(*v))) == NULL)
				return;
			s->kpend = v;
			s->kpend_cap = ncap;
		}
		if (sym_derived_put(s, sym_kkey(addrs[i]), sym_kpending) ==
		    NULL || sym_derived_get(s, sym_kkey(addrs[i])) == NULL)
			return;		/* out of memory: one by one later */
		s->kpend[s->nkpend++] = addrs[i];
	}
}

/*
 * The resolver's "name+0xoff/0xsize [module]" into "name_[k]".  The
 * __pfx_/__cfi_ padding before a function is not a function (the
 * kallsyms path drops those symbols): *pad gets the padding's start so
 * the caller can ask for the function before it instead.
 */
static const char *
sym_kname(struct symbolizer *s, const char *r, uint64_t addr, uint64_t *pad)
{
	char buf[SYM_KNAME_LEN + 8];
	size_t len = strcspn(r, "+ \t");
	unsigned long long off;

	*pad = 0;
	if (len == 0 || (r[0] == '0' && r[1] == 'x') || len >= SYM_KNAME_LEN)
		return (SYM_UNKNOWN);
	if (len > 6 && (memcmp(r, "__pfx_", 6) == 0 ||
	    memcmp(r, "__cfi_", 6) == 0) && r[len] == '+' &&
	    sscanf(r + len + 1, "%llx", &off) == 1 && off <= addr) {
		*pad = addr - off;
		return (NULL);
	}
	memcpy(buf, r, len);
	memcpy(buf + len, "_[k]", 5);
	r = sym_strdup(s, buf, len + 4);
	return (r != NULL ? r : SYM_UNKNOWN);
}

/* Resolve every queued address in one go; on failure, /proc/kallsyms. */
static void
sym_kflush(struct symbolizer *s)
{
	const char *v;
	char *names, before[SYM_KNAME_LEN];
	uint64_t pad, prev;
	size_t i;
	int r = -ENOMEM;

	if (s->nkpend == 0)
		return;
	names = calloc(s->nkpend, SYM_KNAME_LEN);
	if (names != NULL)
		r = s->kresolve(s->kresolve_arg, s->kpend, s->nkpend, names,
		    SYM_KNAME_LEN);
	if (r != 0) {
		sym_log(s, GP_LOG_INFO, "symbolizer: kernel symbol lookup "
		    "through BPF failed (%s); reading %s instead",
		    strerror(-r), s->kallsyms_path);
		s->kresolve = NULL;
	}
	for (i = 0; i < s->nkpend; i++) {
		if (r != 0) {
			v = sym_kernel_kallsyms(s, s->kpend[i]);
		} else if ((v = sym_kname(s, names + i * SYM_KNAME_LEN,
		    s->kpend[i], &pad)) == NULL) {
			/* in padding: the function that ends there */
			prev = pad - 1;
			if (pad == 0 || s->kresolve(s->kresolve_arg, &prev, 1,
			    before, sizeof(before)) != 0 ||
			    (v = sym_kname(s, before, prev, &pad)) == NULL)
				v = SYM_UNKNOWN;
		}
		sym_derived_put(s, sym_kkey(s->kpend[i]), v);
	}
	free(names);
	s->nkpend = 0;
}

const char *
symbolizer_kernel_frame(struct symbolizer *s, uint64_t addr)
{
	const char *v;

	s->st.kernel_frames++;
	if (sym_kresolver_on(s)) {
		if ((v = sym_derived_get(s, sym_kkey(addr))) == NULL) {
			symbolizer_kernel_prefetch(s, &addr, 1);
			v = sym_derived_get(s, sym_kkey(addr));
		}
		if (v == sym_kpending) {
			sym_kflush(s);
			v = sym_derived_get(s, sym_kkey(addr));
		}
		if (v == NULL || v == sym_kpending)
			v = sym_kernel_kallsyms(s, addr);
	} else
		v = sym_kernel_kallsyms(s, addr);
	if (v != SYM_UNKNOWN)
		s->st.kernel_resolved++;
	return (v);
}
