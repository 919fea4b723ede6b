/*
 * Symbolizer helpers: rate-limited logging, bounded file reads, and the
 * per-cycle strings (an arena plus a cache of strings derived from a
 * stable source pointer: "func_[k]" from a kallsyms name, a demangled name
 * from an ELF name), all freed at the end of the cycle.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libiberty/demangle.h>

#include <gprofiler/plugin.h>

#include "clockns.h"
#include "hash64.h"
#include "symbolize_int.h"

#define ARENA_CHUNK	(64 * 1024)

void
sym_log(struct symbolizer *s, int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	unsigned held;

	if (s->log == NULL)
		return;
	/* Warnings and errors: SYM_LOG_BURST a cycle, the rest counted for
	 * the cycle's end (symbolizer_cycle_end). */
	if (level <= GP_LOG_WARN && !ratelim_admit(&s->log_limit,
	    sym_now_ns() / 1000000, &held))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->log(s->log_arg, level, msg);
}

uint64_t
sym_now_ns(void)
{
	return (clock_ns(CLOCK_MONOTONIC_COARSE));
}

/* A turn's time budget is a millisecond or two: finer than a tick. */
uint64_t
sym_clock_ns(void)
{
	return (clock_ns(CLOCK_MONOTONIC));
}

/* Read to EOF (procfs files report size 0, so no fstat). */
int
sym_read_fd(int fd, size_t max, char **out, size_t *outlen)
{
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	ssize_t n;

	for (;;) {
		if (len == cap) {
			if (cap >= max) {
				free(buf);
				return (-EFBIG);
			}
			cap = cap ? cap * 2 : 16384;
			if ((nb = realloc(buf, cap)) == NULL) {
				free(buf);
				return (-ENOMEM);
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return ((int)n);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*out = buf;
	*outlen = len;
	return (0);
}

/*
 * Every file the symbolizer opens goes through the host's safe open
 * (gp_host_api.file_open): root NULL for the host's "/", or the
 * process's "/proc/PID/root"; owner -1 for any; reader the euid of the
 * process the file is read for (gp_open_spec.reader: 0 none, < 0 an
 * unknown user).  The fd or -errno.
 */
int
sym_open_for(struct symbolizer *s, const char *root, const char *path,
    uint32_t flags, uint64_t max_size, int64_t owner, int64_t reader,
    struct gp_file_info *info)
{
	struct gp_open_spec spec;

	if (info != NULL)
		memset(info, 0, sizeof(*info));
	if (s->open == NULL)
		return (-ENOSYS);
	spec = (struct gp_open_spec){
		.size = sizeof(spec),
		.flags = flags,
		.root = root,
		.path = path,
		.max_size = max_size,
		.owner = owner,
		.reader = reader,
	};
	return (s->open(s->open_arg, &spec, info));
}

/* The same for files not read on a process's behalf (no reader). */
int
sym_open(struct symbolizer *s, const char *root, const char *path,
    uint32_t flags, uint64_t max_size, int64_t owner,
    struct gp_file_info *info)
{
	return (sym_open_for(s, root, path, flags, max_size, owner, 0, info));
}

const char *
sym_open_strerror(int rc, const struct gp_file_info *info)
{
	uint32_t m = info != NULL ? info->mode : 0;

	switch (-rc) {
	case EINVAL:
		return (S_ISFIFO(m) ? "not a regular file (a FIFO)" :
		    S_ISCHR(m) || S_ISBLK(m) ? "not a regular file (a device)" :
		    "not a regular file");
	case ELOOP:
		return ("reached through a symlink (refused)");
	case EFBIG:
		return ("too large");
	case EPERM:
		return ("owned by another user (refused)");
	case EREMOTE:
		/* core/base/safefs.c: decided before anything reached the file */
		return ("on FUSE or a network filesystem, whose reads can "
		    "block (refused)");
	case EACCES:
		/* ours only when a file was found and checked */
		if (m != 0)
			return ("not readable by the process's own user "
			    "(refused: a file mounted from elsewhere?)");
		return (strerror(-rc));
	default:
		return (strerror(-rc));
	}
}

/* A kernel file (/proc/..., or the configured kallsyms), at most max. */
int
sym_read_file(struct symbolizer *s, const char *path, size_t max,
    char **out, size_t *outlen)
{
	int fd, r;

	if ((fd = sym_open(s, NULL, path, 0, 0, -1, NULL)) < 0) {
		/* Not one process's trouble: the path to /proc itself crosses
		 * a filesystem the guard refuses, and no frame can be named;
		 * said once, where an operator looks for why. */
		if (fd == -EREMOTE && !s->remote_said) {
			s->remote_said = 1;
			sym_log(s, GP_LOG_ERR, "symbolizer: %s refused: the "
			    "path crosses a filesystem whose reads can block "
			    "(FUSE or network): no process's mappings can be "
			    "read, so user frames stay unnamed; run the agent "
			    "where /proc is the kernel's procfs", path);
		}
		return (fd);
	}
	r = sym_read_fd(fd, max, out, outlen);
	close(fd);
	return (r);
}

/* Copy into the cycle's arena. */
const char *
sym_strdup(struct symbolizer *s, const char *str, size_t len)
{
	struct sym_arena_chunk *c = s->arena;
	size_t size;
	char *p;

	if (c == NULL || c->size - c->used < len + 1) {
		size = len + 1 > ARENA_CHUNK ? len + 1 : ARENA_CHUNK;
		if ((c = malloc(sizeof(*c) + size)) == NULL)
			return (NULL);
		c->size = size;
		c->used = 0;
		c->next = s->arena;
		s->arena = c;
	}
	p = c->data + c->used;
	memcpy(p, str, len);
	p[len] = '\0';
	c->used += len + 1;
	return (p);
}

static size_t
derived_slot(const void *key, size_t cap)
{
	return ((size_t)hash64_fmix((uint64_t)(uintptr_t)key) & (cap - 1));
}

const char *
sym_derived_get(struct symbolizer *s, const void *key)
{
	size_t i;

	if (s->derived_cap == 0)
		return (NULL);
	for (i = derived_slot(key, s->derived_cap); s->derived[i].key != NULL;
	    i = (i + 1) & (s->derived_cap - 1))
		if (s->derived[i].key == key)
			return (s->derived[i].val);
	return (NULL);
}

static int
derived_grow(struct symbolizer *s)
{
	struct sym_derived *old = s->derived, *nv;
	size_t ocap = s->derived_cap, ncap, i, j;

	ncap = ocap ? ocap * 2 : 1024;
	if ((nv = calloc(ncap, sizeof(*nv))) == NULL)
		return (-ENOMEM);
	for (i = 0; i < ocap; i++) {
		if (old[i].key == NULL)
			continue;
		for (j = derived_slot(old[i].key, ncap); nv[j].key != NULL;
		    j = (j + 1) & (ncap - 1))
			;
		nv[j] = old[i];
	}
	free(old);
	s->derived = nv;
	s->derived_cap = ncap;
	return (0);
}

/* Remember val (an arena string or a stable one) for key; returns val. */
const char *
sym_derived_put(struct symbolizer *s, const void *key, const char *val)
{
	size_t i;

	if (val == NULL)
		return (NULL);
	if ((s->nderived + 1) * 2 > s->derived_cap && derived_grow(s) != 0)
		return (val);
	for (i = derived_slot(key, s->derived_cap); s->derived[i].key != NULL;
	    i = (i + 1) & (s->derived_cap - 1))
		if (s->derived[i].key == key)
			break;
	if (s->derived[i].key == NULL)
		s->nderived++;
	s->derived[i].key = key;
	s->derived[i].val = val;
	return (val);
}

void
sym_cycle_strings_free(struct symbolizer *s)
{
	struct sym_arena_chunk *c, *next;

	for (c = s->arena; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	s->arena = NULL;
	free(s->derived);
	s->derived = NULL;
	s->nderived = s->derived_cap = 0;
}

/*
 * A C++ or Rust name demangled as perf script shows it (perf's
 * demangle_sym without -v: DMGL_NO_OPTS), so one function is one frame:
 * no parameters, no return type, no "[clone .isra.0]" / ".cold" /
 * ".constprop.0" suffix (clones merge into their function), no Rust hash;
 * or the name itself.  Cached for the cycle by the name's address.
 */
const char *
sym_demangle(struct symbolizer *s, const char *name)
{
	const char *v;
	char *d;

	if (!(name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')))
		return (name);
	if ((v = sym_derived_get(s, name)) != NULL)
		return (v);
	d = cplus_demangle(name, DMGL_NO_OPTS | DMGL_AUTO);
	if (d == NULL)
		return (sym_derived_put(s, name, name));
	v = sym_strdup(s, d, strlen(d));
	free(d);
	return (sym_derived_put(s, name, v != NULL ? v : name));
}
