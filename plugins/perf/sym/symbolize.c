/*
 * The symbolizer's API: its life, user frames by the frame rules of
 * docs/specs/gprofiler-compat.md §4.3, and the cycle's end.  The process table
 * is symproc.c's, kernel frames symkernel.c's.  Lookups are a hash probe for
 * the process, then binary searches.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "symbolize_int.h"

const char sym_unknown[] = "[unknown]";

/* Boot time, to compare perf map mtimes with process start times. */
static uint64_t
sym_read_btime(struct symbolizer *s)
{
	char *buf, *p;
	size_t len;
	uint64_t bt = 0;

	if (sym_read_file(s, "/proc/stat", 1u << 22, &buf, &len) != 0)
		return (0);
	for (p = buf; p < buf + len; p++) {
		if ((p == buf || p[-1] == '\n') && buf + len - p > 6 &&
		    memcmp(p, "btime ", 6) == 0) {
			bt = strtoull(p + 6, NULL, 10);
			break;
		}
	}
	free(buf);
	return (bt);
}

struct symbolizer *
symbolizer_new(void (*log)(void *, int, const char *), void *arg)
{
	struct symbolizer *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return (NULL);
	s->log = log;
	s->log_arg = arg;
	s->log_limit = (struct ratelim)RATELIM_INIT(SYM_LOG_BURST, 0);
	s->debug_root = strdup("/usr/lib/debug");
	s->kallsyms_path = strdup("/proc/kallsyms");
	if (s->debug_root == NULL || s->kallsyms_path == NULL) {
		symbolizer_free(s);
		return (NULL);
	}
	s->clk_tck = sysconf(_SC_CLK_TCK);
	s->table_budget = SYM_TABLE_BUDGET;
	return (s);
}

void
symbolizer_free(struct symbolizer *s)
{
	struct sym_snap *sn;
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < SYM_PROC_BUCKETS; i++)
		while (s->procs[i] != NULL)
			sym_proc_free(s, s->procs[i]);
	while ((sn = s->retired) != NULL) {
		s->retired = sn->next;
		sym_snap_free(s, sn);
	}
	sym_binaries_expire(s, 1);
	sym_cycle_strings_free(s);
	perfmap_chunks_free(s->jit_retired);
	kallsyms_free(&s->ksyms);
	free(s->kpend);
	free(s->keys);
	free(s->debug_root);
	free(s->kallsyms_path);
	free(s);
}

static int
sym_set_string(char **dst, const char *v)
{
	char *p;

	if (v == NULL || (p = strdup(v)) == NULL)
		return (-ENOMEM);
	free(*dst);
	*dst = p;
	return (0);
}

void
symbolizer_set_opener(struct symbolizer *s, sym_open_fn fn, void *arg)
{
	s->open = fn;
	s->open_arg = arg;
	if (s->btime == 0)
		s->btime = sym_read_btime(s);
}

void
symbolizer_set_maps_reader(struct symbolizer *s, sym_maps_fn fn, void *arg)
{
	s->read_maps = fn;
	s->read_maps_arg = arg;
}

int
symbolizer_set_debug_root(struct symbolizer *s, const char *dir)
{
	return (sym_set_string(&s->debug_root, dir));
}

int
symbolizer_set_kallsyms_path(struct symbolizer *s, const char *path)
{
	kallsyms_free(&s->ksyms);
	s->ksyms_state = 0;
	return (sym_set_string(&s->kallsyms_path, path));
}

/* "(dso)" per §4.3: brackets dropped, " (deleted)" kept. */
static const char *
sym_dso_name(struct sym_snap *sn, long i)
{
	const char *path = procmaps_path(&sn->maps, &sn->maps.v[i]);
	size_t len;

	if (sn->dso[i] != NULL)
		return (sn->dso[i]);
	len = strlen(path);
	if (path[0] == '[' && len > 2 && path[len - 1] == ']') {
		path++;
		len -= 2;
	}
	if (asprintf(&sn->dso[i], "(%.*s)", (int)len, path) < 0) {
		sn->dso[i] = NULL;
		return (SYM_UNKNOWN);
	}
	return (sn->dso[i]);
}

/* Memory without a file behind it: anonymous, memfd, [anon:...]. */
static int
sym_anon_path(const char *path)
{
	return (path == NULL || strncmp(path, "/memfd:", 7) == 0 ||
	    strncmp(path, "[anon", 5) == 0 || strcmp(path, "[heap]") == 0 ||
	    strncmp(path, "[stack", 6) == 0);
}

/* A function's name: in the table, or read from the file once a cycle
 * (lazy tables; cached by the symbol's address). */
static const char *
sym_elf_name(struct symbolizer *s, const struct elfsym_table *t, size_t k)
{
	const char *v;
	char buf[4096];

	if (t->names != NULL)
		return (t->names + t->syms[k].name);
	if ((v = sym_derived_get(s, &t->syms[k])) != NULL)
		return (v);
	if (elfsym_name(t, k, buf, sizeof(buf)) == NULL)
		return (NULL);
	v = sym_strdup(s, buf, strlen(buf));
	return (sym_derived_put(s, &t->syms[k], v));
}

/* Names with their DSO key the derived cache by the name's address with
 * bit 62 set: neither a user pointer nor a kernel key (bit 63). */
static const void *
sym_dkey(const char *name)
{
	return ((const void *)((uintptr_t)name | 1ull << 62));
}

/* "sym (dso)" (gProfiler's perf.py with --insert-dso-name). */
static const char *
sym_with_dso(struct symbolizer *s, struct sym_snap *sn, long i,
    const char *name)
{
	const char *dso, *v;
	char buf[4096];
	int n;

	if ((v = sym_derived_get(s, sym_dkey(name))) != NULL)
		return (v);
	dso = sym_dso_name(sn, i);
	if (dso == SYM_UNKNOWN)
		return (name);
	n = snprintf(buf, sizeof(buf), "%s %s", name, dso);
	if (n < 0 || (size_t)n >= sizeof(buf) ||
	    (v = sym_strdup(s, buf, (size_t)n)) == NULL)
		return (name);
	return (sym_derived_put(s, sym_dkey(name), v));
}

void
symbolizer_set_table_budget(struct symbolizer *s, size_t bytes)
{
	s->table_budget = bytes;
}

void
symbolizer_set_insert_dso(struct symbolizer *s, int on)
{
	s->insert_dso = on;
}

static const char *
sym_user_resolve(struct symbolizer *s, struct sym_proc *p, uint64_t addr)
{
	const struct procmaps_entry *e;
	const struct elfsym_table *t;
	struct sym_snap *sn;
	const char *path, *name;
	uint64_t vaddr;
	long i, k;

	if ((i = sym_proc_mapping(s, p, addr)) < 0)
		return (sym_jit_lookup(s, p, addr));
	sn = p->snap;
	e = &sn->maps.v[i];
	path = procmaps_path(&sn->maps, e);
	if (sym_anon_path(path)) {
		if ((name = sym_jit_lookup(s, p, addr)) != NULL)
			return (name);
		return (path != NULL && path[0] == '/' ?
		    sym_dso_name(sn, i) : NULL);
	}
	sym_binary_user(sn->bins[i], p);
	t = sym_binary_table(s, sn->bins[i]);
	if (t != NULL && elfsym_file_to_vaddr(t, addr - e->start + e->pgoff,
	    &vaddr) == 0 && (k = elfsym_find(t, vaddr)) >= 0 &&
	    (name = sym_elf_name(s, t, (size_t)k)) != NULL)
		return (s->insert_dso ? sym_with_dso(s, sn, i,
		    sym_demangle(s, name)) : sym_demangle(s, name));
	return (sym_dso_name(sn, i));
}

size_t
symbolizer_user_inlined_gen(struct symbolizer *s, int32_t pid, uint32_t gen,
    uint64_t addr, int ret, const char **names, size_t max)
{
	const struct procmaps_entry *e;
	const struct elfsym_table *t;
	struct sym_proc *p;
	uint64_t vaddr;
	size_t n, k;
	long i;

	/* After symbolizer_user_frame_gen: its maps are current. */
	if ((p = sym_proc_find(s, pid, gen)) == NULL || p->snap == NULL ||
	    (i = procmaps_find(&p->snap->maps, addr)) < 0)
		return (0);
	e = &p->snap->maps.v[i];
	/* Only a stripped Go binary's table has inline ranges. */
	if ((t = sym_binary_table(s, p->snap->bins[i])) == NULL ||
	    t->go_ninl == 0 || elfsym_file_to_vaddr(t, addr - e->start +
	    e->pgoff, &vaddr) != 0)
		return (0);
	/* A return address is past its call: look at the call itself;
	 * none when that lies in another function than the one the frame
	 * is named by (a call ending its function). */
	if (ret && vaddr > 0) {
		if (elfsym_find(t, vaddr - 1) != elfsym_find(t, vaddr))
			return (0);
		vaddr--;
	}
	n = elfsym_go_inlined(t, vaddr, names, max);
	for (k = 0; s->insert_dso && k < n; k++)
		names[k] = sym_with_dso(s, p->snap, i, names[k]);
	return (n);
}

const char *
symbolizer_user_frame(struct symbolizer *s, int32_t pid, uint64_t addr)
{
	return (symbolizer_user_frame_gen(s, pid, sym_gen_now(s, pid), addr));
}

void
symbolizer_cover_gen(struct symbolizer *s, int32_t pid, uint32_t gen,
    const uint64_t *addrs, size_t n)
{
	struct sym_proc *p = sym_proc_find(s, pid, gen);
	size_t i;
	long k;
	int jit;

	if (p == NULL || (p->snap == NULL && (!p->gone ||
	    s->map_log == NULL)))
		return;
	/* A frame in anonymous memory (or outside the maps) may be JIT
	 * code: its perf map is read from now on, not first at the emit. */
	jit = !p->gone && sym_jit_due(s, p);
	for (i = 0; i < n; i++) {
		k = p->snap != NULL ? procmaps_find(&p->snap->maps, addrs[i]) :
		    -1;
		if (k < 0 && addrs[i] >= 4096 && addrs[i] < SYM_USER_TOP) {
			/* maps read again (at most once a second), else the
			 * kernel's records, kept only for seconds: now, not
			 * at the emit */
			k = sym_proc_mapping(s, p, addrs[i]);
			if (jit && (k < 0 || sym_anon_path(procmaps_path(
			    &p->snap->maps, &p->snap->maps.v[k])))) {
				sym_jit_touch(s, p);
				jit = 0;
			}
		}
		if (k < 0)
			continue;
		/* Its binary's table loads from now on, in steps on the
		 * work timer, rather than all in the snapshot's callback. */
		sym_binary_user(p->snap->bins[k], p);
		sym_binary_touch(s, p->snap->bins[k]);
		if (jit && sym_anon_path(procmaps_path(&p->snap->maps,
		    &p->snap->maps.v[k]))) {
			sym_jit_touch(s, p);
			jit = 0;
		}
	}
}

const char *
symbolizer_user_frame_gen(struct symbolizer *s, int32_t pid, uint32_t gen,
    uint64_t addr)
{
	struct sym_proc *p;
	const char *name = NULL;

	s->st.user_frames++;
	if ((p = sym_proc_get(s, pid, gen)) != NULL)
		name = sym_user_resolve(s, p, addr);
	/* a forked child's image before its exec: its parent's */
	if (name == NULL && p != NULL && p->gone && p->parent > 0 &&
	    (p = sym_proc_get(s, p->parent, sym_gen_now(s, p->parent))) !=
	    NULL && !p->gone)
		name = sym_user_resolve(s, p, addr);
	if (name == NULL)
		return (SYM_UNKNOWN);
	if (name[0] != '(')
		s->st.user_resolved++;
	return (name);
}

int
symbolizer_mapping(struct symbolizer *s, int32_t pid, uint64_t addr,
    struct sym_mapping *out)
{
	const struct procmaps_entry *e;
	struct sym_proc *p;
	const char *path;
	char buf[96];
	long i;
	int n;

	if ((p = sym_proc_get(s, pid, sym_gen_now(s, pid))) == NULL ||
	    (i = sym_proc_mapping(s, p, addr)) < 0)
		return (-ENOENT);
	e = &p->snap->maps.v[i];
	path = procmaps_path(&p->snap->maps, e);
	if (path == NULL || path[0] != '/')
		return (-ENOENT);
	if (!p->gone) {
		n = snprintf(buf, sizeof(buf), "/proc/%d/map_files/%" PRIx64
		    "-%" PRIx64, (int)pid, e->start, e->end);
		path = sym_strdup(s, buf, (size_t)n);
		if (path == NULL)
			return (-ENOMEM);
	}
	out->path = path;
	out->start = e->start;
	out->end = e->end;
	out->pgoff = e->pgoff;
	return (0);
}

int
symbolizer_open_mapping(struct symbolizer *s, const struct sym_mapping *m)
{
	if (strncmp(m->path, "/proc/", 6) == 0)
		return (sym_open(s, NULL, m->path, GP_OPEN_PROC_LINK,
		    SYM_MAX_BINARY, -1, NULL));
	return (sym_open(s, NULL, m->path, GP_OPEN_NO_SYMLINKS, SYM_MAX_BINARY,
	    -1, NULL));
}

void
symbolizer_turn(struct symbolizer *s, size_t bytes)
{
	s->jit_turn_bytes = bytes;
	s->jit_turn_used = 0;
	s->jit_turn_moves = 0;
	s->turn_id++;
	s->load_until = sym_clock_ns() + SYM_LOAD_TURN_NS;
}

int
symbolizer_work(struct symbolizer *s)
{
	struct sym_proc *p;
	size_t i;
	int more = 0;

	for (i = 0; i < SYM_PROC_BUCKETS; i++)
		for (p = s->procs[i]; p != NULL; p = p->hnext)
			more |= sym_jit_work(s, p);
	s->jit_pending = more;
	return (more | sym_binaries_work(s));
}

int
symbolizer_work_pending(const struct symbolizer *s)
{
	return (s->jit_pending || s->loading > 0);
}

int
symbolizer_loading(const struct symbolizer *s)
{
	return (s->loading > 0);
}

void
symbolizer_cycle_end(struct symbolizer *s)
{
	struct sym_proc *p, *next;
	struct sym_snap *sn;
	size_t i;
	unsigned held;

	for (i = 0; i < SYM_PROC_BUCKETS; i++) {
		for (p = s->procs[i]; p != NULL; p = next) {
			next = p->hnext;
			if (s->cycle - p->used_cycle >= SYM_PROC_IDLE_CYCLES ||
			    !sym_proc_alive(s, p))
				sym_proc_free(s, p);
			else
				p->jit.lent = 0;
		}
	}
	sym_cycle_strings_free(s);
	s->nkpend = 0;
	perfmap_chunks_free(s->jit_retired);
	s->jit_retired = NULL;
	s->jit_retired_bytes = 0;
	s->jit_cycle_bytes = 0;
	s->jit_capped = 0;
	while ((sn = s->retired) != NULL) {
		s->retired = sn->next;
		sym_snap_free(s, sn);
	}
	s->cycle++;
	sym_binaries_expire(s, 0);
	sym_binaries_budget(s);
	if ((held = ratelim_end(&s->log_limit)) > 0 && s->log != NULL) {
		char msg[128];

		snprintf(msg, sizeof(msg), "symbolizer: %u more warnings "
		    "suppressed this cycle", held);
		s->log(s->log_arg, GP_LOG_INFO, msg);
	}
}

void
symbolizer_stats(const struct symbolizer *s, struct symbolizer_stats *out)
{
	const struct sym_binary *b;

	*out = s->st;
	out->processes = s->nprocs;
	out->perfmap_retired_bytes = s->jit_retired_bytes;
	out->binaries = 0;
	out->table_bytes = s->ksyms.n * (sizeof(uint64_t) + sizeof(uint32_t)) +
	    s->ksyms.names_len + sym_binaries_bytes(s);
	for (b = s->bins; b != NULL; b = b->next)
		if (b->t != NULL && b->alias == NULL)
			out->binaries++;
	out->perfmap_bytes = sym_jit_bytes(s);
	out->table_budget = s->table_budget;
	out->table_evictions = s->evictions;
}
