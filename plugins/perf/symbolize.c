/*
 * The symbolizer's API: the process table (snapshots of executable
 * mappings taken on first sight, re-taken on exec or when an address
 * falls outside them), and the frame rules of gprofiler-compat.md §4.3.
 * Lookups are a hash probe for the process, then binary searches.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "symbolize_int.h"

static const char sym_unknown[] = "[unknown]";
#define UNKNOWN		sym_unknown

static void	sym_proc_free(struct symbolizer *, struct sym_proc *);

/* Boot time, to compare perf map mtimes with process start times. */
static uint64_t
sym_read_btime(struct symbolizer *s)
{
	char		*buf, *p;
	size_t		 len;
	uint64_t	 bt = 0;

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
	struct symbolizer	*s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return (NULL);
	s->log = log;
	s->log_arg = arg;
	s->debug_root = strdup("/usr/lib/debug");
	s->kallsyms_path = strdup("/proc/kallsyms");
	if (s->debug_root == NULL || s->kallsyms_path == NULL) {
		symbolizer_free(s);
		return (NULL);
	}
	s->clk_tck = sysconf(_SC_CLK_TCK);
	return (s);
}

static void
sym_snap_free(struct symbolizer *s, struct sym_snap *sn)
{
	size_t	 i;

	if (sn == NULL)
		return;
	for (i = 0; i < sn->maps.n; i++) {
		if (sn->bins != NULL)
			sym_binary_unref(s, sn->bins[i]);
		if (sn->dso != NULL)
			free(sn->dso[i]);
	}
	free(sn->bins);
	free(sn->dso);
	procmaps_free(&sn->maps);
	free(sn);
}

/* Borrowed strings point into a snapshot: keep it until the cycle ends. */
static void
sym_snap_retire(struct symbolizer *s, struct sym_snap *sn)
{
	size_t	 i;

	if (sn == NULL)
		return;
	for (i = 0; i < sn->maps.n; i++) {
		sym_binary_unref(s, sn->bins[i]);
		sn->bins[i] = NULL;
	}
	sn->next = s->retired;
	s->retired = sn;
}

void
symbolizer_free(struct symbolizer *s)
{
	struct sym_snap	*sn;
	size_t		 i;

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
	char	*p;

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

static struct sym_proc *
sym_proc_find(struct symbolizer *s, int32_t pid, uint32_t gen)
{
	struct sym_proc	*p;

	if (s->last_proc != NULL && s->last_proc->pid == pid &&
	    s->last_proc->gen == gen)
		return (s->last_proc);
	for (p = s->procs[(uint32_t)pid % SYM_PROC_BUCKETS]; p != NULL;
	    p = p->hnext)
		if (p->pid == pid && p->gen == gen)
			return (s->last_proc = p);
	return (NULL);
}

void
symbolizer_set_gen_resolver(struct symbolizer *s,
    int (*fn)(void *, int32_t, uint32_t *), void *arg)
{
	s->cur_gen = fn;
	s->cur_gen_arg = arg;
}

/* The generation pid is in now (0 without a resolver). */
static uint32_t
sym_gen_now(struct symbolizer *s, int32_t pid)
{
	uint32_t	 gen = 0;

	if (s->cur_gen != NULL && s->cur_gen(s->cur_gen_arg, pid, &gen) != 0)
		gen = 0;
	return (gen);
}

/* Whether /proc/PID shows this image (not one it exec'ed into since). */
static int
sym_proc_current(struct symbolizer *s, const struct sym_proc *p)
{
	return (s->cur_gen == NULL || sym_gen_now(s, p->pid) == p->gen);
}

static void
sym_proc_free(struct symbolizer *s, struct sym_proc *p)
{
	struct sym_proc	**pp;

	for (pp = &s->procs[(uint32_t)p->pid % SYM_PROC_BUCKETS]; *pp != p;
	    pp = &(*pp)->hnext)
		;
	*pp = p->hnext;
	if (s->last_proc == p)
		s->last_proc = NULL;
	sym_snap_retire(s, p->snap);
	sym_jit_reset(s, &p->jit);
	s->nprocs--;
	free(p);
}

/* Start time and exe identity: what tells a PID's incarnations apart. */
static int
sym_proc_identity(struct symbolizer *s, int32_t pid, uint64_t *starttime,
    struct stat *exe)
{
	char	 path[64], *buf;
	size_t	 len;
	int	 r;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((r = sym_read_file(s, path, 4096, &buf, &len)) != 0)
		return (r == -ENOENT ? -ESRCH : r);
	r = procstat_starttime(buf, len, starttime);
	free(buf);
	if (r != 0)
		return (-ESRCH);
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, exe) != 0)
		memset(exe, 0, sizeof(*exe));	/* kernel thread, zombie */
	return (0);
}

/*
 * The parent whose address space pid's first image copied, or 0.  A child
 * that execs soon after fork (every shell's way to start a program) spends
 * its first image in _Fork and execve, and is sampled there even after
 * execve has switched its mm and comm: the kernel still returns to the old
 * image's execve.  No /proc shows that image once the exec is done, but it
 * was the parent's, mapped at the same addresses: perf resolves these
 * samples the same way (a child's maps start as its parent's).  Only a
 * young child's, so an older process that mapped its own code since its
 * fork is not named from its parent's.
 */
static int32_t
sym_proc_forked_from(struct symbolizer *s, int32_t pid)
{
	struct timespec	 ts;
	char		 path[64], *buf;
	size_t		 len;
	uint64_t	 start, now;
	int32_t		 ppid = 0;
	long		 hz = sysconf(_SC_CLK_TCK);

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (hz <= 0 || sym_read_file(s, path, 4096, &buf, &len) != 0)
		return (0);
	if (procstat_starttime(buf, len, &start) != 0 ||
	    procstat_ppid(buf, len, &ppid) != 0)
		ppid = 0;
	free(buf);
	if (ppid <= 1 || clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
		return (0);
	now = (uint64_t)ts.tv_sec * (uint64_t)hz +
	    (uint64_t)ts.tv_nsec / (1000000000ull / (uint64_t)hz);
	return (now >= start && now - start <= SYM_FORK_YOUNG_S *
	    (uint64_t)hz ? ppid : 0);
}

/* Read maps and open every mapped binary. */
static int
sym_proc_snapshot(struct symbolizer *s, struct sym_proc *p)
{
	struct sym_snap	*sn;
	char		 path[64], *buf;
	size_t		 len, i;
	int		 r;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	if ((r = sym_read_file(s, path, SYM_MAX_PROC_FILE, &buf, &len)) != 0)
		return (r == -ENOENT ? -ESRCH : r);
	/* Generations only grow: still ours after the read, the maps are
	 * this image's (an exec racing the read is caught here). */
	if (!sym_proc_current(s, p)) {
		free(buf);
		return (-ESTALE);
	}
	if ((sn = calloc(1, sizeof(*sn))) == NULL) {
		free(buf);
		return (-ENOMEM);
	}
	r = procmaps_parse(buf, len, &sn->maps);
	free(buf);
	if (r != 0 || (sn->maps.n > 0 &&
	    ((sn->bins = calloc(sn->maps.n, sizeof(*sn->bins))) == NULL ||
	    (sn->dso = calloc(sn->maps.n, sizeof(*sn->dso))) == NULL))) {
		sym_snap_free(s, sn);
		return (-ENOMEM);
	}
	if (sn->maps.bad_lines > 0)
		sym_log(s, GP_LOG_WARN, "symbolizer: %s: %zu lines did not "
		    "parse", path, sn->maps.bad_lines);
	for (i = 0; i < sn->maps.n; i++)
		sn->bins[i] = sym_binary_for_mapping(s, p, &sn->maps.v[i],
		    procmaps_path(&sn->maps, &sn->maps.v[i]));
	/* map_files of a newer image could have been opened instead. */
	if (!sym_proc_current(s, p)) {
		sym_snap_free(s, sn);
		return (-ESTALE);
	}
	sym_snap_retire(s, p->snap);
	p->snap = sn;
	return (0);
}

static int
sym_proc_status(struct symbolizer *s, struct sym_proc *p)
{
	struct procstatus	 st;
	char			 path[64], *buf;
	size_t			 len;
	int			 r;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)p->pid);
	if ((r = sym_read_file(s, path, 1u << 16, &buf, &len)) != 0)
		return (r == -ENOENT ? -ESRCH : r);
	r = procstatus_parse(buf, len, &st);
	free(buf);
	if (r != 0)
		return (-ESRCH);
	if (!sym_proc_current(s, p))
		return (-ESTALE);
	snprintf(p->comm, sizeof(p->comm), "%s", st.name);
	p->nspid = st.nspid > 0 ? st.nspid : p->pid;
	p->euid = st.euid;
	return (0);
}

/* (Re)take everything we know of a process incarnation. */
static int
sym_proc_load(struct symbolizer *s, struct sym_proc *p, uint64_t starttime,
    const struct stat *exe)
{
	int	 r;

	p->starttime = starttime;
	p->exe_dev = exe->st_dev;
	p->exe_ino = exe->st_ino;
	sym_jit_reset(s, &p->jit);
	p->jit.checked_ns = 0;
	if ((r = sym_proc_status(s, p)) != 0)
		return (r);
	return (sym_proc_snapshot(s, p));
}

static int
sym_proc_add(struct symbolizer *s, int32_t pid, uint32_t gen,
    struct sym_proc **out)
{
	struct sym_proc	*p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (-ENOMEM);
	p->pid = pid;
	p->gen = gen;
	p->nspid = pid;
	p->used_cycle = s->cycle;
	p->hnext = s->procs[(uint32_t)pid % SYM_PROC_BUCKETS];
	s->procs[(uint32_t)pid % SYM_PROC_BUCKETS] = p;
	s->nprocs++;
	*out = p;
	return (0);
}

int
symbolizer_process_seen(struct symbolizer *s, int32_t pid)
{
	return (symbolizer_process_seen_gen(s, pid, sym_gen_now(s, pid)));
}

/*
 * An image we have not looked at while it was current is gone for good:
 * /proc shows another one now.  Its samples keep their comm, and resolve
 * as far as a snapshot taken in time allows.
 */
int
symbolizer_process_seen_gen(struct symbolizer *s, int32_t pid, uint32_t gen)
{
	struct sym_proc	*p;
	struct stat	 exe;
	uint64_t	 now = sym_now_ns(), starttime;
	int		 r;

	if (pid <= 0)
		return (-EINVAL);
	p = sym_proc_find(s, pid, gen);
	if (p != NULL) {
		p->used_cycle = s->cycle;
		if (p->gone)
			return (-ESRCH);
		if (now - p->checked_ns < SYM_RECHECK_NS)
			return (0);
	}
	if (p == NULL && s->cur_gen != NULL && sym_gen_now(s, pid) != gen) {
		/* remembered, so its other frames cost no look-up */
		if ((r = sym_proc_add(s, pid, gen, &p)) != 0)
			return (r);
		p->gone = 1;
		if (gen == 0)
			p->parent = sym_proc_forked_from(s, pid);
		return (-ESTALE);
	}
	if ((r = sym_proc_identity(s, pid, &starttime, &exe)) != 0) {
		if (p != NULL)
			p->gone = 1;
		return (r);
	}
	if (p != NULL) {
		p->checked_ns = now;
		if (p->starttime == starttime && p->exe_dev == exe.st_dev &&
		    p->exe_ino == exe.st_ino)
			return (0);
	} else if ((r = sym_proc_add(s, pid, gen, &p)) != 0)
		return (r);
	p->checked_ns = now;
	if ((r = sym_proc_load(s, p, starttime, &exe)) != 0) {
		if (p->snap == NULL && r != -ESTALE) {
			sym_proc_free(s, p);
			return (r);
		}
		p->gone = 1;
	}
	return (r);
}

const char *
symbolizer_comm(struct symbolizer *s, int32_t pid)
{
	return (symbolizer_comm_gen(s, pid, sym_gen_now(s, pid)));
}

const char *
symbolizer_comm_gen(struct symbolizer *s, int32_t pid, uint32_t gen)
{
	struct sym_proc	*p = sym_proc_find(s, pid, gen);

	return (p != NULL && p->comm[0] != '\0' ? p->comm : NULL);
}

/* An image we may not have seen: snapshot it now if it is current. */
struct sym_proc *
sym_proc_get(struct symbolizer *s, int32_t pid, uint32_t gen)
{
	struct sym_proc	*p;

	if ((p = sym_proc_find(s, pid, gen)) == NULL &&
	    symbolizer_process_seen_gen(s, pid, gen) == 0)
		p = sym_proc_find(s, pid, gen);
	if (p != NULL)
		p->used_cycle = s->cycle;
	return (p);
}

/* The mapping of addr, re-reading maps (once a second) on a miss. */
static long
sym_proc_mapping(struct symbolizer *s, struct sym_proc *p, uint64_t addr)
{
	uint64_t	 now;
	long		 i = -1;
	int		 r;

	if (p->snap != NULL && (i = procmaps_find(&p->snap->maps, addr)) >= 0)
		return (i);
	now = sym_now_ns();
	if (p->gone || (p->reread_ns != 0 && now - p->reread_ns <
	    (p->rereads < SYM_YOUNG_REREADS ? SYM_YOUNG_REREAD_NS :
	    SYM_RECHECK_NS)))
		return (-1);
	p->reread_ns = now;
	p->rereads++;
	r = sym_proc_snapshot(s, p);
	if (r == -ESRCH || r == -ESTALE)
		p->gone = 1;
	if (p->snap != NULL)
		i = procmaps_find(&p->snap->maps, addr);
	return (i);
}

/* "(dso)" per §4.3: brackets dropped, " (deleted)" kept. */
static const char *
sym_dso_name(struct sym_snap *sn, long i)
{
	const char	*path = procmaps_path(&sn->maps, &sn->maps.v[i]);
	size_t		 len;

	if (sn->dso[i] != NULL)
		return (sn->dso[i]);
	len = strlen(path);
	if (path[0] == '[' && len > 2 && path[len - 1] == ']') {
		path++;
		len -= 2;
	}
	if (asprintf(&sn->dso[i], "(%.*s)", (int)len, path) < 0) {
		sn->dso[i] = NULL;
		return (UNKNOWN);
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
	const char	*v;
	char		 buf[4096];

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
	const char	*dso, *v;
	char		 buf[4096];
	int		 n;

	if ((v = sym_derived_get(s, sym_dkey(name))) != NULL)
		return (v);
	dso = sym_dso_name(sn, i);
	if (dso == UNKNOWN)
		return (name);
	n = snprintf(buf, sizeof(buf), "%s %s", name, dso);
	if (n < 0 || (size_t)n >= sizeof(buf) ||
	    (v = sym_strdup(s, buf, (size_t)n)) == NULL)
		return (name);
	return (sym_derived_put(s, sym_dkey(name), v));
}

void
symbolizer_set_insert_dso(struct symbolizer *s, int on)
{
	s->insert_dso = on;
}

static const char *
sym_user_resolve(struct symbolizer *s, struct sym_proc *p, uint64_t addr)
{
	const struct procmaps_entry	*e;
	const struct elfsym_table	*t;
	struct sym_snap			*sn;
	const char			*path, *name;
	uint64_t			 vaddr;
	long				 i, k;

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
	const struct procmaps_entry	*e;
	const struct elfsym_table	*t;
	struct sym_proc			*p;
	uint64_t			 vaddr;
	size_t				 n, k;
	long				 i;

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
	struct sym_proc	*p = sym_proc_find(s, pid, gen);
	size_t		 i;
	long		 k;
	int		 jit;

	if (p == NULL || p->gone || p->snap == NULL)
		return;
	/* A frame in anonymous memory (or outside the maps) may be JIT
	 * code: its perf map is read from now on, not first at the emit. */
	jit = sym_jit_due(s, p);
	for (i = 0; i < n; i++) {
		k = procmaps_find(&p->snap->maps, addrs[i]);
		if (k < 0 && addrs[i] >= 4096 && addrs[i] < (1ull << 47)) {
			k = sym_proc_mapping(s, p, addrs[i]);
			if (jit && (k < 0 || sym_anon_path(procmaps_path(
			    &p->snap->maps, &p->snap->maps.v[k]))))
				sym_jit_touch(s, p);
			return;
		}
		if (jit && k >= 0 && sym_anon_path(procmaps_path(
		    &p->snap->maps, &p->snap->maps.v[k]))) {
			sym_jit_touch(s, p);
			jit = 0;
		}
	}
}

const char *
symbolizer_user_frame_gen(struct symbolizer *s, int32_t pid, uint32_t gen,
    uint64_t addr)
{
	struct sym_proc	*p;
	const char	*name = NULL;

	s->st.user_frames++;
	if ((p = sym_proc_get(s, pid, gen)) != NULL)
		name = sym_user_resolve(s, p, addr);
	/* a forked child's image before its exec: its parent's */
	if (name == NULL && p != NULL && p->gone && p->parent > 0 &&
	    (p = sym_proc_get(s, p->parent, sym_gen_now(s, p->parent))) !=
	    NULL && !p->gone)
		name = sym_user_resolve(s, p, addr);
	if (name == NULL)
		return (UNKNOWN);
	if (name[0] != '(')
		s->st.user_resolved++;
	return (name);
}

static void
sym_kallsyms_load(struct symbolizer *s)
{
	char	*buf;
	size_t	 len;
	int	 r;

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
	const char	*name, *v;
	char		 buf[1100];
	int		 n;

	if (s->ksyms_state == 0)
		sym_kallsyms_load(s);
	if (s->ksyms_state != 1 ||
	    (name = kallsyms_lookup(&s->ksyms, addr)) == NULL)
		return (UNKNOWN);
	if ((v = sym_derived_get(s, name)) != NULL)
		return (v);
	n = snprintf(buf, sizeof(buf), "%s_[k]", name);
	if (n < 0 || (size_t)n >= sizeof(buf) ||
	    (v = sym_strdup(s, buf, (size_t)n)) == NULL)
		return (UNKNOWN);
	return (sym_derived_put(s, name, v));
}

/* Marks an address queued for the resolver in the derived cache. */
static const char sym_kpending[] = "[pending]";
#define SYM_KNAME_LEN	128

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
	uint64_t	*v;
	size_t		 i, ncap;

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
	char			 buf[SYM_KNAME_LEN + 8];
	size_t			 len = strcspn(r, "+ \t");
	unsigned long long	 off;

	*pad = 0;
	if (len == 0 || (r[0] == '0' && r[1] == 'x') || len >= SYM_KNAME_LEN)
		return (UNKNOWN);
	if (len > 6 && (memcmp(r, "__pfx_", 6) == 0 ||
	    memcmp(r, "__cfi_", 6) == 0) && r[len] == '+' &&
	    sscanf(r + len + 1, "%llx", &off) == 1 && off <= addr) {
		*pad = addr - off;
		return (NULL);
	}
	memcpy(buf, r, len);
	memcpy(buf + len, "_[k]", 5);
	r = sym_strdup(s, buf, len + 4);
	return (r != NULL ? r : UNKNOWN);
}

/* Resolve every queued address in one go; on failure, /proc/kallsyms. */
static void
sym_kflush(struct symbolizer *s)
{
	const char	*v;
	char		*names, before[SYM_KNAME_LEN];
	uint64_t	 pad, prev;
	size_t		 i;
	int		 r = -ENOMEM;

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
				v = UNKNOWN;
		}
		sym_derived_put(s, sym_kkey(s->kpend[i]), v);
	}
	free(names);
	s->nkpend = 0;
}

const char *
symbolizer_kernel_frame(struct symbolizer *s, uint64_t addr)
{
	const char	*v;

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
	if (v != UNKNOWN)
		s->st.kernel_resolved++;
	return (v);
}

int
symbolizer_mapping(struct symbolizer *s, int32_t pid, uint64_t addr,
    struct sym_mapping *out)
{
	const struct procmaps_entry	*e;
	struct sym_proc			*p;
	const char			*path;
	char				 buf[96];
	long				 i;
	int				 n;

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

/* Is this incarnation and image of the process still running? */
static int
sym_proc_alive(struct symbolizer *s, struct sym_proc *p)
{
	struct stat	 exe;
	uint64_t	 starttime;

	if (p->gone || !sym_proc_current(s, p) ||
	    sym_proc_identity(s, p->pid, &starttime, &exe) != 0)
		return (0);
	return (starttime == p->starttime);
}

void
symbolizer_turn(struct symbolizer *s, size_t bytes)
{
	s->jit_turn_bytes = bytes;
	s->jit_turn_used = 0;
	s->jit_turn_moves = 0;
	s->turn_id++;
}

int
symbolizer_work(struct symbolizer *s)
{
	struct sym_proc	*p;
	size_t		 i;
	int		 more = 0;

	for (i = 0; i < SYM_PROC_BUCKETS; i++)
		for (p = s->procs[i]; p != NULL; p = p->hnext)
			more |= sym_jit_work(s, p);
	s->jit_pending = more;
	return (more);
}

int
symbolizer_work_pending(const struct symbolizer *s)
{
	return (s->jit_pending);
}

void
symbolizer_cycle_end(struct symbolizer *s)
{
	struct sym_proc	*p, *next;
	struct sym_snap	*sn;
	size_t		 i;

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
	if (s->log_suppressed > 0 && s->log != NULL) {
		char	 msg[128];

		snprintf(msg, sizeof(msg), "symbolizer: %u more warnings "
		    "suppressed this cycle", s->log_suppressed);
		s->log(s->log_arg, GP_LOG_INFO, msg);
	}
	s->log_count = s->log_suppressed = 0;
}

void
symbolizer_stats(const struct symbolizer *s, struct symbolizer_stats *out)
{
	const struct sym_binary	*b;

	*out = s->st;
	out->processes = s->nprocs;
	out->perfmap_retired_bytes = s->jit_retired_bytes;
	out->binaries = 0;
	out->table_bytes = s->ksyms.n * (sizeof(uint64_t) + sizeof(uint32_t)) +
	    s->ksyms.names_len;
	for (b = s->bins; b != NULL; b = b->next) {
		if (b->t == NULL || b->alias != NULL)
			continue;
		out->binaries++;
		out->table_bytes += elfsym_bytes(b->t);
	}
}

int
symbolizer_maps_file_gen(struct symbolizer *s, int32_t pid, uint32_t gen,
    const char *base)
{
	struct sym_proc	*p = sym_proc_find(s, pid, gen);
	const char	*path, *b;
	size_t		 i, bl = strlen(base);

	if (p == NULL || p->snap == NULL)
		return (-1);
	for (i = 0; i < p->snap->maps.n; i++) {
		if ((path = procmaps_path(&p->snap->maps,
		    &p->snap->maps.v[i])) == NULL)
			continue;
		b = strrchr(path, '/');
		b = b != NULL ? b + 1 : path;
		if (strncmp(b, base, bl) == 0 && (b[bl] == '\0' ||
		    strcmp(b + bl, " (deleted)") == 0))
			return (1);
	}
	return (0);
}
