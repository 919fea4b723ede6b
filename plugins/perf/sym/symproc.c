/*
 * The symbolizer's process table: a snapshot of each process's executable
 * mappings, taken on first sight (or its first sample of a new image, a
 * generation), re-taken on exec or when an address falls outside them;
 * its identity (start time, executable) tells a reused PID or an exec; a
 * child forked moments ago borrows its parent's image (see
 * sym_proc_forked_from).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "procexe.h"
#include "symbolize_int.h"

void
sym_snap_free(struct symbolizer *s, struct sym_snap *sn)
{
	size_t i;

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
	size_t i;

	if (sn == NULL)
		return;
	for (i = 0; i < sn->maps.n; i++) {
		sym_binary_unref(s, sn->bins[i]);
		sn->bins[i] = NULL;
	}
	sn->next = s->retired;
	s->retired = sn;
}

struct sym_proc *
sym_proc_find(struct symbolizer *s, int32_t pid, uint32_t gen)
{
	struct sym_proc *p;

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

void
symbolizer_set_map_log(struct symbolizer *s, int (*fn)(void *, int32_t,
    uint32_t, uint64_t, struct procmaps_entry *, const char **, int32_t *),
    int (*quiet)(void *, int32_t, uint32_t, uint64_t), void *arg)
{
	s->map_log = fn;
	s->map_quiet = quiet;
	s->map_log_arg = arg;
}

/* The generation pid is in now (0 without a resolver). */
uint32_t
sym_gen_now(struct symbolizer *s, int32_t pid)
{
	uint32_t gen = 0;

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

void
sym_proc_free(struct symbolizer *s, struct sym_proc *p)
{
	struct sym_proc **pp;

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
	char path[64], *buf;
	size_t len;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((r = sym_read_file(s, path, 4096, &buf, &len)) != 0)
		return (r == -ENOENT ? -ESRCH : r);
	r = procstat_starttime(buf, len, starttime);
	free(buf);
	if (r != 0)
		return (-ESRCH);
	(void)procexe_stat(pid, exe);	/* zero: kernel thread, zombie */
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
	struct timespec ts;
	char path[64], *buf;
	size_t len;
	uint64_t start, now;
	int32_t ppid = 0;
	long hz = sysconf(_SC_CLK_TCK);

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

int
symbolizer_read_maps(struct symbolizer *s, int32_t pid, struct procmaps *out)
{
	char path[64], *buf;
	size_t len;
	int r;

	memset(out, 0, sizeof(*out));
	if (s->read_maps != NULL) {
		r = s->read_maps(s->read_maps_arg, pid, SYM_MAX_PROC_FILE,
		    &buf, &len);
		if (r == 1) {	/* over the cap: as sym_read_file says */
			free(buf);
			r = -EFBIG;
		}
		if (r != 0)
			return (r);
	} else {
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
		if ((r = sym_read_file(s, path, SYM_MAX_PROC_FILE, &buf,
		    &len)) != 0)
			return (r == -ENOENT ? -ESRCH : r);
	}
	r = procmaps_parse(buf, len, out);
	free(buf);
	return (r);
}

/* Read maps and open every mapped binary. */
static int
sym_proc_snapshot(struct symbolizer *s, struct sym_proc *p, int reread)
{
	struct sym_snap *sn;
	size_t i;
	int r;

	if ((sn = calloc(1, sizeof(*sn))) == NULL)
		return (-ENOMEM);
	sn->read_ns = sym_now_ns();
	if ((r = symbolizer_read_maps(s, p->pid, &sn->maps)) != 0) {
		sym_snap_free(s, sn);
		return (r);
	}
	/* Generations only grow: still ours after the read, the maps are
	 * this image's (an exec racing the read is caught here). */
	if (!sym_proc_current(s, p)) {
		sym_snap_free(s, sn);
		return (-ESTALE);
	}
	/* Read again for an address no mapping held, and no executable
	 * mapping changed: the snapshot stays (its binaries are the same
	 * files), and the next such read waits longer (sym_proc_mapping).
	 * A frame-pointer walk through code built without them makes up
	 * such addresses at every sample. */
	if (reread && p->snap != NULL && procmaps_same(&p->snap->maps,
	    &sn->maps)) {
		p->snap->read_ns = sn->read_ns;	/* still the image's */
		sym_snap_free(s, sn);
		if (p->stable < SYM_REREAD_BACKOFF)
			p->stable++;
		return (0);
	}
	p->stable = 0;
	if ((sn->maps.n > 0 &&
	    ((sn->bins = calloc(sn->maps.n, sizeof(*sn->bins))) == NULL ||
	    (sn->dso = calloc(sn->maps.n, sizeof(*sn->dso))) == NULL))) {
		sym_snap_free(s, sn);
		return (-ENOMEM);
	}
	if (sn->maps.bad_lines > 0)
		sym_log(s, GP_LOG_WARN, "symbolizer: /proc/%d/maps: %zu "
		    "lines did not parse", (int)p->pid, sn->maps.bad_lines);
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
	struct procstatus st;
	char path[64], *buf;
	size_t len;
	int r;

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
	int r;

	p->starttime = starttime;
	p->exe_dev = exe->st_dev;
	p->exe_ino = exe->st_ino;
	sym_jit_reset(s, &p->jit);
	p->jit.checked_ns = 0;
	if ((r = sym_proc_status(s, p)) != 0)
		return (r);
	return (sym_proc_snapshot(s, p, 0));
}

static int
sym_proc_add(struct symbolizer *s, int32_t pid, uint32_t gen,
    struct sym_proc **out)
{
	struct sym_proc *p;

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
	struct sym_proc *p;
	struct stat exe;
	uint64_t now = sym_now_ns(), starttime;
	int r;

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
		/* Gone before we looked: the kernel's records may still
		 * tell its mappings. */
		if (p == NULL && s->map_log != NULL &&
		    sym_proc_add(s, pid, gen, &p) != 0)
			return (-ENOMEM);
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
	if ((r = sym_proc_load(s, p, starttime, &exe)) == -EAGAIN) {
		/* The maps budget is spent: known, its maps read at a later
		 * miss (sym_proc_mapping), the kernel's records meanwhile.
		 * A snapshot of the image before is not this one's. */
		sym_snap_retire(s, p->snap);
		p->snap = NULL;
		p->stable = 0;
		p->reread_ns = now;
		return (0);
	}
	if (r != 0) {
		if (p->snap == NULL && r != -ESTALE && s->map_log == NULL) {
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
	struct sym_proc *p = sym_proc_find(s, pid, gen);

	return (p != NULL && p->comm[0] != '\0' ? p->comm : NULL);
}

/* An image we may not have seen: snapshot it now if it is current. */
struct sym_proc *
sym_proc_get(struct symbolizer *s, int32_t pid, uint32_t gen)
{
	struct sym_proc *p;

	if ((p = sym_proc_find(s, pid, gen)) == NULL &&
	    symbolizer_process_seen_gen(s, pid, gen) == 0)
		p = sym_proc_find(s, pid, gen);
	if (p != NULL)
		p->used_cycle = s->cycle;
	return (p);
}

/*
 * The kernel's record of the mapping holding addr, for an image /proc
 * could not show it in: a new snapshot with it added (the old one is
 * retired, as names borrowed from it live until the cycle ends).
 */
static long
sym_proc_logged(struct symbolizer *s, struct sym_proc *p, uint64_t addr)
{
	struct procmaps_entry e;
	struct sym_snap *sn, *old = p->snap;
	const char *path = NULL;
	size_t *src = NULL, i;
	int32_t parent = 0;
	long k = -1;
	int r;

	memset(&e, 0, sizeof(e));
	if (s->map_log == NULL)
		return (-1);
	r = s->map_log(s->map_log_arg, p->pid, p->gen, addr, &e, &path,
	    &parent);
	/* gone before /proc showed its parent: the fork record tells */
	if (p->gen == 0 && p->parent == 0 && parent > 1)
		p->parent = parent;
	/* Taken in execve's last instants, after the new image was mapped
	 * and its registers set but before the exec event counted it: the
	 * address is the next image's (perf names it so, "_start"). */
	if (r != 0 && p->gone && p->gen + 1 != 0)
		r = s->map_log(s->map_log_arg, p->pid, p->gen + 1, addr, &e,
		    &path, &parent);
	if (r != 0 || addr < e.start || addr >= e.end)
		return (-1);
	if ((sn = calloc(1, sizeof(*sn))) == NULL ||
	    (src = calloc((old != NULL ? old->maps.n : 0) + 1,
	    sizeof(*src))) == NULL ||
	    procmaps_add(old != NULL ? &old->maps : NULL, &e, path,
	    &sn->maps, src) != 0 ||
	    (sn->bins = calloc(sn->maps.n, sizeof(*sn->bins))) == NULL ||
	    (sn->dso = calloc(sn->maps.n, sizeof(*sn->dso))) == NULL) {
		sym_snap_free(s, sn);
		free(src);
		return (-1);
	}
	for (i = 0; i < sn->maps.n; i++) {
		if (src[i] != SIZE_MAX) {
			sn->bins[i] = sym_binary_ref(old->bins[src[i]]);
			continue;
		}
		sn->bins[i] = sym_binary_for_mapping(s, p, &sn->maps.v[i],
		    procmaps_path(&sn->maps, &sn->maps.v[i]));
		k = (long)i;
	}
	free(src);
	/* what /proc showed then, and a record since */
	sn->read_ns = old != NULL ? old->read_ns : 0;
	sym_snap_retire(s, old);
	p->snap = sn;
	s->st.logged_maps++;
	return (k);
}

/*
 * Whether the kernel's records prove p's image mapped no code since its
 * maps were read: then an address outside them is no code (a frame
 * pointer walk through code built without them makes such addresses up
 * at every sample), and reading the maps again -- thousands of lines for
 * a large process, at 3-4 us of kernel time a line -- would find nothing.
 */
static int
sym_proc_quiet(struct symbolizer *s, const struct sym_proc *p)
{
	return (s->map_quiet != NULL && p->snap != NULL &&
	    p->snap->read_ns != 0 && s->map_quiet(s->map_log_arg, p->pid,
	    p->gen, p->snap->read_ns) == 1);
}

/*
 * The mapping of addr: re-reading maps on a miss while the image is
 * current and may have mapped code since they were read (once a second,
 * up to 2^SYM_REREAD_BACKOFF seconds while the re-reads find nothing
 * new), then the kernel's records.
 */
long
sym_proc_mapping(struct symbolizer *s, struct sym_proc *p, uint64_t addr)
{
	uint64_t now;
	long i = -1;
	int r;

	if (p->snap != NULL && (i = procmaps_find(&p->snap->maps, addr)) >= 0)
		return (i);
	now = sym_now_ns();
	if (!p->gone && !sym_proc_quiet(s, p) && (p->reread_ns == 0 ||
	    now - p->reread_ns >=
	    (p->rereads < SYM_YOUNG_REREADS ? SYM_YOUNG_REREAD_NS :
	    SYM_RECHECK_NS << p->stable))) {
		p->reread_ns = now;
		p->rereads++;
		s->st.maps_rereads++;
		r = sym_proc_snapshot(s, p, 1);
		if (r == -ESRCH || r == -ESTALE)
			p->gone = 1;
		if (p->snap != NULL &&
		    (i = procmaps_find(&p->snap->maps, addr)) >= 0)
			return (i);
	}
	return (sym_proc_logged(s, p, addr));
}

/* Is this incarnation and image of the process still running? */
int
sym_proc_alive(struct symbolizer *s, struct sym_proc *p)
{
	struct stat exe;
	uint64_t starttime;

	if (p->gone || !sym_proc_current(s, p) ||
	    sym_proc_identity(s, p->pid, &starttime, &exe) != 0)
		return (0);
	return (starttime == p->starttime);
}

int
symbolizer_maps_file_gen(struct symbolizer *s, int32_t pid, uint32_t gen,
    const char *base)
{
	struct sym_proc *p = sym_proc_find(s, pid, gen);
	const char *path, *b;
	size_t i, bl = strlen(base);

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
