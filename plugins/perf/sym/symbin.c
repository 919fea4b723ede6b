/*
 * The binary symbol-table cache.  A mapped binary is opened once through
 * /proc/PID/map_files (works for deleted files and other mount
 * namespaces; /proc/PID/root/<path> as fallback) and identified by
 * dev/inode/mtime/size at first sight; the open fd is kept, and the
 * binary is parsed into an elfsym table (completed from separate debug
 * info when it has no .symtab) only when a sampled address falls in it:
 * most binaries of most processes are never looked at.  Tables are
 * deduplicated by build-id and shared by every process mapping the
 * binary.  A binary that cannot be read is cached too (t == NULL), so it
 * is tried and logged once.  The tables have a byte budget
 * (SYM_TABLE_BUDGET): over it, the least recently used are evicted, and
 * a sample landing in one again reloads it from the file kept open.
 */
#include "config.h"

#include <sys/auxv.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "elfread.h"
#include "symbolize_int.h"

static struct sym_binary *
sym_binary_new(struct symbolizer *s, struct elfsym_table *t)
{
	struct sym_binary *b;

	if ((b = calloc(1, sizeof(*b))) == NULL)
		return (NULL);
	b->t = t;
	b->fd = -1;
	b->rfd = -1;
	b->loaded = 1;
	b->unused_since = s->cycle;
	b->used_cycle = s->cycle;
	b->next = s->bins;
	s->bins = b;
	return (b);
}

struct sym_binary *
sym_binary_ref(struct sym_binary *b)
{
	if (b != NULL)
		b->refs++;
	return (b);
}

void
sym_binary_unref(struct symbolizer *s, struct sym_binary *b)
{
	if (b != NULL && b->refs > 0 && --b->refs == 0)
		b->unused_since = s->cycle;
}

static struct sym_filekey *
sym_key_find(struct symbolizer *s, const struct gp_file_info *sb)
{
	struct sym_filekey *k;
	size_t i;

	for (i = 0; i < s->nkeys; i++) {
		k = &s->keys[i];
		if (k->dev == (dev_t)sb->dev && k->ino == (ino_t)sb->ino &&
		    k->size == (off_t)sb->size && k->mtime_ns == sb->mtime_ns)
			return (k);
	}
	return (NULL);
}

static int
sym_key_add(struct symbolizer *s, const struct gp_file_info *sb,
    struct sym_binary *b)
{
	struct sym_filekey *k;
	size_t ncap;

	if (s->nkeys == s->keys_cap) {
		ncap = s->keys_cap ? s->keys_cap * 2 : 64;
		if ((k = reallocarray(s->keys, ncap, sizeof(*k))) == NULL)
			return (-ENOMEM);
		s->keys = k;
		s->keys_cap = ncap;
	}
	k = &s->keys[s->nkeys++];
	k->dev = (dev_t)sb->dev;
	k->ino = (ino_t)sb->ino;
	k->size = (off_t)sb->size;
	k->mtime_ns = sb->mtime_ns;
	k->bin = b;
	return (0);
}

static struct sym_binary *
sym_binary_by_build_id(struct symbolizer *s, const struct elfsym_table *t)
{
	struct sym_binary *b;

	if (t->build_id_len == 0)
		return (NULL);
	for (b = s->bins; b != NULL; b = b->next)
		if (b->t != NULL && b->t != t && b->alias == NULL &&
		    b->t->build_id_len == t->build_id_len &&
		    memcmp(b->t->build_id, t->build_id, t->build_id_len) == 0)
			return (b);
	return (NULL);
}

/* Our own vdso: the kernel maps the same image into every process. */
static struct sym_binary *
sym_vdso(struct symbolizer *s)
{
	struct procmaps m;
	struct elfsym_table *t;
	const char *path;
	unsigned long base;
	char *buf;
	size_t len, i;

	if (s->vdso_tried)
		return (s->vdso);
	s->vdso_tried = 1;
	if ((base = getauxval(AT_SYSINFO_EHDR)) == 0 ||
	    sym_read_file(s, "/proc/self/maps", SYM_MAX_PROC_FILE, &buf,
	    &len))
		return (NULL);
	if (procmaps_parse(buf, len, &m) != 0) {
		free(buf);
		return (NULL);
	}
	free(buf);
	for (i = 0; i < m.n; i++) {
		path = procmaps_path(&m, &m.v[i]);
		if (m.v[i].start == base && path != NULL &&
		    strcmp(path, "[vdso]") == 0)
			s->vdso_size = m.v[i].end - m.v[i].start;
	}
	procmaps_free(&m);
	if (s->vdso_size == 0 ||
	    elfsym_load_mem((const void *)base, s->vdso_size, &t) != 0)
		return (NULL);
	if ((s->vdso = sym_binary_new(s, t)) == NULL)
		elfsym_free(t);
	else
		s->vdso->permanent = 1;
	return (s->vdso);
}

/*
 * Open the binary behind a mapping as the process sees it: the kernel's
 * map_files link, else the path inside the process's root (no links: the
 * path in maps has none).  Regular files only, whatever was mapped.
 */
static int
sym_open_mapping(struct symbolizer *s, struct sym_proc *p,
    const struct procmaps_entry *e, const char *path,
    struct gp_file_info *info)
{
	char buf[96];
	int fd;

	snprintf(buf, sizeof(buf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
	    (int)p->pid, e->start, e->end);
	fd = sym_open(s, NULL, buf, GP_OPEN_PROC_LINK, SYM_MAX_BINARY, -1,
	    info);
	if (fd >= 0 || e->deleted || fd == -EINVAL || fd == -EFBIG)
		return (fd);
	/* The path may name another file by now (the process may have
	 * mounted one there): one its user can read, at least. */
	snprintf(buf, sizeof(buf), "/proc/%d/root", (int)p->pid);
	return (sym_open_for(s, buf, path, GP_OPEN_NO_SYMLINKS, SYM_MAX_BINARY,
	    -1, p->euid >= 0 ? p->euid : -1, info));
}

/*
 * The end of a binary's load (r: 0, or -errno): its fd closed, debug
 * info merged, what it holds logged, a table with the same build-id
 * shared.
 */
static void
sym_binary_loaded(struct symbolizer *s, struct sym_binary *b, int r,
    struct elfsym_table *t)
{
	struct sym_binary *o;

	b->loaded = 1;
	if (b->ld != NULL) {
		elfsym_load_free(b->ld);
		b->ld = NULL;
		s->loading--;
	}
	if (r != 0) {
		close(b->fd);
		b->fd = -1;
		s->open_bins--;
		if (b->evicted)
			sym_log(s, GP_LOG_WARN, "symbolizer: pid %d: %s: its "
			    "evicted table did not reload (%s); its frames "
			    "show as the dso", (int)b->pid, b->path,
			    elfread_strerror(r));
		b->evicted = 0;
		s->st.elf_failures++;
		sym_log(s, GP_LOG_WARN, "symbolizer: pid %d: %s: not a "
		    "readable ELF (%s); its frames show as the dso",
		    (int)b->pid, b->path, elfread_strerror(r));
		return;
	}
	if (!t->has_symtab)
		sym_debug_find(s, b, t);
	/* A table that reads its names from a file of its own is reloaded
	 * from that after an eviction; one with its names copied (Go's, a
	 * debug file's merged, too many fds), from this one, kept while
	 * fds last. */
	if (t->fd < 0 && s->open_bins <= SYM_MAX_OPEN_BINS)
		b->rfd = b->fd;
	else {
		close(b->fd);
		s->open_bins--;
	}
	b->fd = -1;
	sym_log(s, GP_LOG_DEBUG, "symbolizer: %s: %zu symbols, %zu bytes%s",
	    b->path, t->nsyms, elfsym_bytes(t), b->evicted ? " (reloaded "
	    "after an eviction)" : "");
	if (b->evicted) {
		/* the rest was said when it was first loaded */
		b->evicted = 0;
		goto keep;
	}
	if (t->go_funcs > 0)
		sym_log(s, GP_LOG_DEBUG, "symbolizer: %s: stripped Go binary: "
		    "%zu functions named from .gopclntab (Go %s format)",
		    b->path, t->go_funcs, t->go_version == 116 ? "1.16-1.17" :
		    t->go_version == 118 ? "1.18-1.19" : "1.20+");
	if (t->go_funcs > 0 && t->go_inl_state == 0)
		sym_log(s, GP_LOG_DEBUG, "symbolizer: %s: %zu ranges of "
		    "inlined code from its inline trees", b->path, t->go_ninl);
	else if (t->go_funcs > 0)
		sym_log(s, GP_LOG_INFO, "symbolizer: %s: stripped Go binary "
		    "whose inline trees were not found (no moduledata.gofunc "
		    "in .noptrdata): its inlined functions stay in their "
		    "callers' frames", b->path);
	if (t->go_buildinfo == -ENOTSUP)
		sym_log(s, GP_LOG_INFO, "symbolizer: %s: .go.buildinfo in a "
		    "layout not read (big-endian, or odd pointers): no "
		    "golang_version metadata", b->path);
	else if (t->go_buildinfo != 0 && t->go_buildinfo != -ENOENT)
		sym_log(s, GP_LOG_INFO, "symbolizer: %s: unreadable "
		    ".go.buildinfo (%s): no golang_version metadata",
		    b->path, strerror(-t->go_buildinfo));
	if (t->dropped > 0)
		sym_log(s, GP_LOG_WARN, "symbolizer: %s: %zu symbols not read, "
		    "past the limit of %u functions a table", b->path,
		    t->dropped, ELFSYM_MAX_SYMS);
	/* Same build, other path or namespace: share, unless ours is richer
	 * (debug info installed since). */
keep:
	if ((o = sym_binary_by_build_id(s, t)) != NULL &&
	    o->t->nsyms >= t->nsyms) {
		elfsym_free(t);
		b->alias = sym_binary_ref(o);
		if (b->rfd >= 0) {
			close(b->rfd);
			b->rfd = -1;
			s->open_bins--;
		}
		return;
	}
	b->t = t;
	if (t->fd >= 0)
		s->open_bins++;
	/* Room for it, taken from tables not used lately. */
	sym_binaries_budget(s);
}

/* Parse an opened binary (once), or end the load it is in. */
static void
sym_binary_parse(struct symbolizer *s, struct sym_binary *b)
{
	struct elfsym_table *t = NULL;
	int r;

	if (b->fd < 0) {
		b->loaded = 1;
		return;
	}
	if (b->ld != NULL) {
		/* the work timer had not finished it: the rest now */
		sym_log(s, GP_LOG_DEBUG, "symbolizer: %s: its table's load "
		    "ended by a lookup", b->path);
		while ((r = elfsym_load_step(b->ld, SIZE_MAX, &t)) == 1)
			;
	} else if (s->open_bins <= SYM_MAX_OPEN_BINS) {
		/* Names stay in the file (the table holds an fd) while
		 * fds last. */
		r = elfsym_load_fd_lazy(b->fd, &t);
	} else
		r = elfsym_load_fd(b->fd, &t);
	sym_binary_loaded(s, b, r, t);
}

/* The binary whose table b uses: itself or the one it shares. */
static struct sym_binary *
sym_binary_owner(struct sym_binary *b)
{
	while (b->alias != NULL)
		b = b->alias;
	return (b);
}

int
sym_binary_ready(const struct sym_binary *b)
{
	while (b->alias != NULL)
		b = b->alias;
	return (b->loaded);
}

void
sym_binary_user(struct sym_binary *b, const struct sym_proc *p)
{
	if (b != NULL && b->evicted && !p->gone && b->pid != p->pid) {
		b->pid = p->pid;
		b->reader = p->euid >= 0 ? p->euid : -1;
	}
}

void
sym_binary_touch(struct symbolizer *s, struct sym_binary *b)
{
	int r;

	if (b == NULL)
		return;
	b->used_cycle = s->cycle;
	b = sym_binary_owner(b);
	b->used_cycle = s->cycle;
	if (b->loaded || b->ld != NULL || b->fd < 0)
		return;
	if ((r = elfsym_load_begin(b->fd, s->open_bins <= SYM_MAX_OPEN_BINS,
	    &b->ld)) != 0) {
		sym_binary_loaded(s, b, r, NULL);
		return;
	}
	s->loading++;
}

int
sym_binaries_work(struct symbolizer *s)
{
	struct elfsym_table *t;
	struct sym_binary *b;
	int r;

	for (b = s->bins; b != NULL && s->loading > 0; b = b->next) {
		while (b->ld != NULL) {
			if (sym_clock_ns() >= s->load_until)
				return (1);
			if ((r = elfsym_load_step(b->ld, SYM_LOAD_STEP, &t)) !=
			    1)
				sym_binary_loaded(s, b, r, t);
		}
	}
	return (s->loading > 0);
}

const struct elfsym_table *
sym_binary_table(struct symbolizer *s, struct sym_binary *b)
{
	if (b == NULL)
		return (NULL);
	b->used_cycle = s->cycle;
	/* The table it shares may have been evicted, and may share
	 * another's once reloaded. */
	for (;;) {
		b = sym_binary_owner(b);
		b->used_cycle = s->cycle;
		if (b->loaded)
			return (b->t);
		sym_binary_parse(s, b);
	}
}

/* A binary opened now and parsed when first looked up. */
static struct sym_binary *
sym_binary_open(struct symbolizer *s, struct sym_proc *p, int fd,
    const struct gp_file_info *sb, const char *path)
{
	struct sym_binary *b;

	if ((b = sym_binary_new(s, NULL)) == NULL)
		return (NULL);
	b->loaded = 0;
	b->fd = fd;
	b->pid = p->pid;
	b->dev = (dev_t)sb->dev;
	b->ino = (ino_t)sb->ino;
	b->uid = sb->uid;
	/* unknown: what anyone may read */
	b->reader = p->euid >= 0 ? p->euid : -1;
	b->path = strdup(path);
	s->open_bins++;
	/* Too many held fds (a huge host): parse now, as it was seen. */
	if (s->open_bins > SYM_MAX_OPEN_BINS)
		sym_binary_parse(s, b);
	return (b);
}

/*
 * A binary known by the identity /proc/PID/maps shows, without opening
 * anything: only while we hold it open (its inode cannot be freed and
 * reused under us then).  Most processes map only binaries seen before.
 */
static struct sym_binary *
sym_binary_pinned(struct symbolizer *s, const struct procmaps_entry *e)
{
	struct sym_binary *b;
	dev_t dev;

	if (e->inode == 0)
		return (NULL);
	dev = makedev(e->dev_major, e->dev_minor);
	for (b = s->bins; b != NULL; b = b->next)
		if (b->ino == (ino_t)e->inode && b->dev == dev &&
		    (b->fd >= 0 || b->rfd >= 0 || (b->t != NULL &&
		    b->t->fd >= 0) || (b->alias != NULL &&
		    b->alias->t != NULL && b->alias->t->fd >= 0)))
			return (b);
	return (NULL);
}

/*
 * The binary of the file open at fd (its identity sb): the one already
 * loaded for that file, or a new one (fd then its own); referenced for the
 * caller.  fd is closed or kept either way.
 */
static struct sym_binary *
sym_binary_of_fd(struct symbolizer *s, struct sym_proc *p, int fd,
    struct gp_file_info *sb, const char *path)
{
	struct sym_filekey *k;
	struct sym_binary *b;

	if ((k = sym_key_find(s, sb)) != NULL) {
		close(fd);
		return (sym_binary_ref(k->bin));
	}
	if ((b = sym_binary_open(s, p, fd, sb, path)) == NULL) {
		close(fd);
		return (NULL);
	}
	if (sym_key_add(s, sb, b) != 0)
		return (NULL);
	return (sym_binary_ref(b));
}

/*
 * A gone process's mapping, known from the kernel's records: a binary
 * already read with that device and inode (every run of a program maps
 * the same file), else its path opened in our root when that is still
 * the same file.  A container's path is not ours: the identity check
 * refuses it rather than name its frames from another file.
 */
static struct sym_binary *
sym_binary_for_gone(struct symbolizer *s, struct sym_proc *p,
    const struct procmaps_entry *e, const char *path)
{
	struct sym_binary *b;
	struct gp_file_info sb;
	dev_t dev = makedev(e->dev_major, e->dev_minor);
	int fd;

	if (e->inode == 0)
		return (NULL);
	for (b = s->bins; b != NULL; b = b->next)
		if (b->ino == (ino_t)e->inode && b->dev == dev &&
		    (b->t != NULL || b->ld != NULL || b->fd >= 0))
			return (sym_binary_ref(b));
	/* The process is gone: its path is all that is left, and whoever
	 * can write there may have put something else in its place.  Its
	 * frames keep the file's name, "(path)". */
	if ((fd = sym_open(s, NULL, path, GP_OPEN_NO_SYMLINKS,
	    SYM_MAX_BINARY, -1, &sb)) < 0) {
		if (fd != -ENOENT)
			sym_log(s, GP_LOG_DEBUG, "symbolizer: %s, mapped by "
			    "gone pid %d, not read: %s", path, (int)p->pid,
			    sym_open_strerror(fd, &sb));
		return (NULL);
	}
	if ((dev_t)sb.dev != dev || (ino_t)sb.ino != (ino_t)e->inode) {
		sym_log(s, GP_LOG_DEBUG, "symbolizer: %s, mapped by gone pid "
		    "%d, is another file now: not read", path, (int)p->pid);
		close(fd);
		return (NULL);
	}
	return (sym_binary_of_fd(s, p, fd, &sb, path));
}

/*
 * The binary behind one executable mapping, referenced for the caller's
 * snapshot; NULL for anonymous memory or when it cannot be opened.
 */
struct sym_binary *
sym_binary_for_mapping(struct symbolizer *s, struct sym_proc *p,
    const struct procmaps_entry *e, const char *path)
{
	struct sym_binary *b;
	struct gp_file_info sb;
	int fd;

	if (path == NULL)
		return (NULL);
	if (strcmp(path, "[vdso]") == 0) {
		b = sym_vdso(s);
		if (b == NULL || e->end - e->start != s->vdso_size)
			return (NULL);
		return (sym_binary_ref(b));
	}
	if (path[0] != '/' || strncmp(path, "/memfd:", 7) == 0)
		return (NULL);
	if ((b = sym_binary_pinned(s, e)) != NULL)
		return (sym_binary_ref(b));
	if (p->gone)
		return (sym_binary_for_gone(s, p, e, path));
	if ((fd = sym_open_mapping(s, p, e, path, &sb)) < 0) {
		/* a zombie: its maps are gone with its memory */
		if ((fd == -ENOENT || fd == -ESRCH) &&
		    (b = sym_binary_for_gone(s, p, e, path)) != NULL)
			return (b);
		sym_log(s, fd == -ENOENT || fd == -ESRCH ? GP_LOG_DEBUG :
		    GP_LOG_WARN, "symbolizer: pid %d: cannot open %s: %s",
		    (int)p->pid, path, sym_open_strerror(fd, &sb));
		return (NULL);
	}
	return (sym_binary_of_fd(s, p, fd, &sb, path));
}

static void
sym_keys_drop(struct symbolizer *s, const struct sym_binary *b)
{
	size_t i, o;

	for (i = 0, o = 0; i < s->nkeys; i++)
		if (s->keys[i].bin != b)
			s->keys[o++] = s->keys[i];
	s->nkeys = o;
}

static int
sym_binaries_aliased(const struct symbolizer *s, const struct sym_binary *o)
{
	const struct sym_binary *b;

	for (b = s->bins; b != NULL; b = b->next)
		if (b->alias == o)
			return (1);
	return (0);
}

static void
sym_binary_free(struct symbolizer *s, struct sym_binary *b)
{
	sym_keys_drop(s, b);
	if (b->ld != NULL) {
		elfsym_load_free(b->ld);
		s->loading--;
	}
	if (b->fd >= 0) {
		close(b->fd);
		s->open_bins--;
	}
	if (b->rfd >= 0) {
		close(b->rfd);
		s->open_bins--;
	}
	if (b->t != NULL && b->t->fd >= 0)
		s->open_bins--;
	elfsym_free(b->t);
	free(b->path);
	free(b);
}

/* Free tables no live snapshot used for SYM_BIN_KEEP_CYCLES (all: now). */
void
sym_binaries_expire(struct symbolizer *s, int all)
{
	struct sym_binary **bp, *b;
	int again = 1;

	/* Aliases first: they hold a reference on the table they share
	 * (which may share another's, since reloaded after an eviction). */
	while (again) {
		again = 0;
		for (bp = &s->bins; (b = *bp) != NULL;) {
			if ((!all && (b->refs > 0 || b->permanent ||
			    s->cycle - b->unused_since < SYM_BIN_KEEP_CYCLES)) ||
			    (all && b->refs > 0 && sym_binaries_aliased(s, b))) {
				bp = &b->next;
				continue;
			}
			*bp = b->next;
			if (b->alias != NULL) {
				sym_binary_unref(s, b->alias);
				again = 1;
			}
			sym_binary_free(s, b);
		}
	}
	if (all)
		s->vdso = NULL;
}

size_t
sym_binaries_bytes(const struct symbolizer *s)
{
	const struct sym_binary *b;
	size_t n = 0;

	for (b = s->bins; b != NULL; b = b->next)
		if (b->t != NULL && b->alias == NULL)
			n += elfsym_bytes(b->t);
	return (n);
}

/*
 * Free b's table, keeping a file to reload it from (its lazy table's, or
 * the one kept for that): 0, or -1 when there is none and the table
 * stays.  A sample landing in it again loads it anew, in steps (the
 * sample waits for it as for any table loading).
 */
static int
sym_binary_evict(struct symbolizer *s, struct sym_binary *b)
{
	int fd;

	if (b->t->fd >= 0)
		fd = fcntl(b->t->fd, F_DUPFD_CLOEXEC, 0);
	else {
		fd = b->rfd;
		b->rfd = -1;
	}
	if (fd < 0)
		return (-1);
	/* the table's fd or rfd was counted in open_bins: now fd is */
	elfsym_free(b->t);
	b->t = NULL;
	b->fd = fd;
	b->loaded = 0;
	b->evicted = 1;
	s->evictions++;
	return (0);
}

static int
sym_binary_lru_cmp(const void *a, const void *b)
{
	const struct sym_binary *x = *(struct sym_binary * const *)a;
	const struct sym_binary *y = *(struct sym_binary * const *)b;

	return ((x->used_cycle > y->used_cycle) -
	    (x->used_cycle < y->used_cycle));
}

void
sym_binaries_budget(struct symbolizer *s)
{
	struct sym_binary **v, *b;
	size_t n = 0, i, total, bytes;
	uint64_t before = s->evictions;

	total = sym_binaries_bytes(s) + sym_jit_bytes(s) +
	    s->ksyms.n * (sizeof(uint64_t) + sizeof(uint32_t)) +
	    s->ksyms.names_len;
	if (total <= s->table_budget)
		return;
	for (b = s->bins; b != NULL; b = b->next)
		if (b->t != NULL && b->alias == NULL && !b->permanent &&
		    s->cycle - b->used_cycle >= SYM_HOT_CYCLES)
			n++;
	if (n == 0 || (v = calloc(n, sizeof(*v))) == NULL) {
		(void)sym_jit_evict(s, total - s->table_budget);
		goto said;
	}
	for (i = 0, b = s->bins; b != NULL && i < n; b = b->next)
		if (b->t != NULL && b->alias == NULL && !b->permanent &&
		    s->cycle - b->used_cycle >= SYM_HOT_CYCLES)
			v[i++] = b;
	/* unused for the longest first */
	qsort(v, n, sizeof(*v), sym_binary_lru_cmp);
	for (i = 0; i < n && total > s->table_budget; i++) {
		bytes = elfsym_bytes(v[i]->t);
		if (sym_binary_evict(s, v[i]) == 0)
			total -= bytes;
	}
	free(v);
	if (total > s->table_budget)
		(void)sym_jit_evict(s, total - s->table_budget);
said:
	if (s->evictions > before && !s->evict_said) {
		s->evict_said = 1;
		sym_log(s, GP_LOG_INFO, "symbolizer: symbol tables and perf "
		    "maps over their budget of %zu KiB: those no sample used "
		    "this cycle or the last are evicted, the least recently "
		    "used tables first, and read again when a sample needs "
		    "them (counted in the debug log's \"symbol tables\" line)",
		    s->table_budget >> 10);
	}
}
