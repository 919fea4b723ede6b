/*
 * JIT perf map files, read as the target sees them:
 * /proc/PID/root/tmp/perf-<nspid>.map.  The file is followed as it grows
 * (parsed from the last complete line on), re-read from the start when it
 * was replaced or rewritten (HotSpot's Compiler.perfmap), checked at most
 * once a second, and ignored when it is older than the process: a file
 * left behind by an earlier process with the same PID.  Opened through
 * the host's safe open (a FIFO, a link, or a file not the process's own
 * user's is refused with one warning); read with pread up to the size
 * seen at open (a file truncated meanwhile reads short, never SIGBUS),
 * linearly within byte budgets per loop turn and
 * per cycle, the rest at the next look.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "symbolize_int.h"

#define JIT_CHUNK	(256 * 1024)
#define JIT_MAX_FILE	(1ull << 30)	/* refused above: no JIT writes that */

/* Bytes of perf maps this turn may still read (the turn's budget, the
 * cycle's, the entries of all processes). */
static size_t
sym_jit_budget_left(struct symbolizer *s)
{
	size_t left;

	if (s->jit_entries >= SYM_JIT_MAX_ENTRIES ||
	    s->jit_cycle_bytes >= SYM_JIT_CYCLE_BYTES) {
		if (!s->jit_capped)
			sym_log(s, GP_LOG_WARN, "symbolizer: perf maps over "
			    "the limit of %u MiB read per cycle or %u entries "
			    "in all: the rest waits for the next cycle",
			    (unsigned)(SYM_JIT_CYCLE_BYTES >> 20),
			    SYM_JIT_MAX_ENTRIES);
		s->jit_capped = 1;
		return (0);
	}
	left = SYM_JIT_CYCLE_BYTES - s->jit_cycle_bytes;
	if (s->jit_turn_bytes != 0 && s->jit_turn_bytes - s->jit_turn_used <
	    left)
		left = s->jit_turn_bytes - s->jit_turn_used;
	return (left);
}

static void
sym_jit_budget_use(struct symbolizer *s, size_t n)
{
	s->jit_cycle_bytes += n;
	s->jit_turn_used += n;
}

/*
 * Names already returned stay valid until the cycle ends (the caller and
 * the derived-name cache hold them).  A map none of whose names was
 * returned this cycle (a rewrite read again and again before the
 * snapshot) is freed now: re-reads must not pile up until the cycle ends.
 */
void
sym_jit_reset(struct symbolizer *s, struct sym_jit *j)
{
	struct perfmap_chunk *c, *tail;
	size_t len = j->pm.names_len;

	s->jit_entries -= j->pm.n < s->jit_entries ? j->pm.n : s->jit_entries;

	if (!j->lent)
		perfmap_free(&j->pm);
	else if ((c = perfmap_detach_names(&j->pm)) != NULL) {
		for (tail = c; tail->next != NULL; tail = tail->next)
			;
		tail->next = s->jit_retired;
		s->jit_retired = c;
		s->jit_retired_bytes += len;
	}
	j->lent = 0;
	j->off = 0;
	j->head_len = 0;
	j->stale = 0;
	j->more = 0;
}

/* Was the file written before the process started?  Then it is not its. */
static int
sym_jit_older(struct symbolizer *s, struct sym_proc *p,
    const struct gp_file_info *sb)
{
	uint64_t start;

	if (s->btime == 0 || s->clk_tck <= 0)
		return (0);
	start = s->btime + p->starttime / (uint64_t)s->clk_tck;
	return ((uint64_t)(sb->mtime_ns / 1000000000) + 1 < start);
}

/* The file changed under its old content: start over. */
static int
sym_jit_rewritten(struct sym_jit *j, int fd, const struct gp_file_info *sb)
{
	char head[sizeof(j->head)];

	if ((dev_t)sb->dev != j->dev || (ino_t)sb->ino != j->ino ||
	    (off_t)sb->size < j->off)
		return (1);
	if (j->head_len == 0)
		return (0);
	if (pread(fd, head, j->head_len, 0) != (ssize_t)j->head_len)
		return (1);
	return (memcmp(head, j->head, j->head_len) != 0);
}

/*
 * Parse from j->off on, at most what the budgets allow (this turn's, the
 * cycle's; the rest waits for the next refresh, j->more says so), keeping
 * a partial last line for later; the new lines are sorted in once.
 */
static void
sym_jit_read(struct symbolizer *s, struct sym_proc *p, int fd, off_t size)
{
	struct sym_jit *j = &p->jit;
	char *buf;
	size_t carry = 0, used, want, bad = j->pm.bad_lines;
	size_t before = j->pm.n, dropped = j->pm.dropped;
	ssize_t n;
	int small;

	if ((buf = malloc(JIT_CHUNK + PERFMAP_MAX_NAME + 128)) == NULL)
		return;
	/* A small file is read whole whatever the turn's budget (as a small
	 * map is sorted whole): a large one elsewhere must not keep this
	 * process's names out of the cycle. */
	small = size - j->off <= (off_t)SYM_JIT_SMALL_FILE &&
	    s->jit_cycle_bytes < SYM_JIT_CYCLE_BYTES;
	/* A large map: its table sized once (an entry per 48 bytes, about
	 * the shortest real lines), not copied at every doubling. */
	if (!small)
		(void)perfmap_reserve(&j->pm, j->pm.n + (size_t)(size -
		    j->off) / 48);
	while (j->off + (off_t)carry < size) {
		want = JIT_CHUNK;
		if (!small && want > sym_jit_budget_left(s))
			want = sym_jit_budget_left(s);
		if (want == 0) {
			j->more = 1;
			break;
		}
		n = pread(fd, buf + carry, want, j->off + (off_t)carry);
		if (n <= 0)
			break;
		if (j->off == 0 && carry == 0 && j->head_len == 0) {
			j->head_len = (size_t)n < sizeof(j->head) ?
			    (size_t)n : sizeof(j->head);
			memcpy(j->head, buf, j->head_len);
		}
		sym_jit_budget_use(s, (size_t)n);
		if (perfmap_feed(&j->pm, buf, carry + (size_t)n, 0, &used))
			break;
		j->off += (off_t)used;
		carry = carry + (size_t)n - used;
		memmove(buf, buf + used, carry);
	}
	free(buf);
	s->jit_entries += j->pm.n - before;
	s->st.perfmap_bad_lines += j->pm.bad_lines - bad;
	if (j->pm.bad_lines > bad)
		sym_log(s, GP_LOG_WARN, "symbolizer: pid %d: %zu perf map "
		    "lines did not parse (START SIZE name expected)",
		    (int)p->pid, j->pm.bad_lines - bad);
	if (j->pm.dropped > dropped && dropped == 0)
		sym_log(s, GP_LOG_WARN, "symbolizer: pid %d: perf map over %u "
		    "entries; the rest is ignored", (int)p->pid,
		    PERFMAP_MAX_ENTRIES);
}

/* Sort what was read into what lookups see, within the turn's budget. */
static void
sym_jit_sort(struct symbolizer *s, struct sym_proc *p)
{
	struct sym_jit *j = &p->jit;
	size_t budget = (size_t)-1 / 2, used;
	int r;

	/* A small map is always finished (a fraction of a millisecond): one
	 * large map must not keep every other process's names out of the
	 * cycle.  Large ones share the turn's budget. */
	if (s->jit_turn_bytes != 0 && (j->pm.sorted > SYM_JIT_SMALL_MAP ||
	    j->pm.n - j->pm.sorted > SYM_JIT_SMALL_MAP / 16)) {
		if (s->jit_turn_moves >= SYM_JIT_TURN_MOVES) {
			j->more |= j->pm.n != j->pm.sorted;
			return;
		}
		budget = SYM_JIT_TURN_MOVES - s->jit_turn_moves;
	}
	r = perfmap_sort_step(&j->pm, budget, &used);
	s->jit_turn_moves += used;
	if (r < 0)
		sym_log(s, GP_LOG_WARN, "symbolizer: pid %d: out of memory "
		    "sorting its perf map", (int)p->pid);
	else if (r == 1)
		j->more = 1;
}

/* Say once per process why its perf map cannot be used. */
static void
sym_jit_refused(struct symbolizer *s, struct sym_proc *p, const char *path,
    int rc, const struct gp_file_info *info)
{
	struct sym_jit *j = &p->jit;

	if (rc == -ENOENT || rc == -ENOTDIR || rc == -ESRCH || j->refused == rc)
		return;
	j->refused = rc;
	sym_log(s, GP_LOG_WARN, "symbolizer: pid %d: perf map %s (in its root) "
	    "refused: %s; its JIT frames stay unresolved until the file is a "
	    "regular file of the process's user (uid %lld)%s", (int)p->pid,
	    path, sym_open_strerror(rc, info), (long long)p->euid,
	    rc == -EREMOTE ? " on a local filesystem" : "");
}

static void
sym_jit_refresh(struct symbolizer *s, struct sym_proc *p)
{
	struct sym_jit *j = &p->jit;
	struct gp_file_info sb;
	char root[64], path[64];
	int fd;

	j->turn = s->turn_id;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)p->pid);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map",
	    (int)(p->nspid > 0 ? p->nspid : p->pid));
	/*
	 * Written by the process itself: its user's, no link; root's only
	 * when it runs as root.  Not "its user's or root's": in its own
	 * user and mount namespaces any user can bind-mount a root-only
	 * file at this path, and its lines would become frame names.
	 */
	if (p->euid < 0)
		return;
	fd = sym_open_for(s, root, path, GP_OPEN_NO_SYMLINKS, JIT_MAX_FILE,
	    p->euid, p->euid, &sb);
	if (fd < 0) {
		sym_jit_refused(s, p, path, fd, &sb);
		return;
	}
	j->refused = 0;
	if (sym_jit_older(s, p, &sb)) {
		if (!j->stale)
			sym_log(s, GP_LOG_DEBUG, "symbolizer: pid %d: %s is "
			    "older than the process, ignored", (int)p->pid,
			    path);
		sym_jit_reset(s, j);
		j->stale = 1;
		goto out_close;
	}
	if (j->stale || sym_jit_rewritten(j, fd, &sb))
		sym_jit_reset(s, j);
	j->dev = (dev_t)sb.dev;
	j->ino = (ino_t)sb.ino;
	j->more = 0;
	if ((off_t)sb.size > j->off)
		sym_jit_read(s, p, fd, (off_t)sb.size);
	sym_jit_sort(s, p);
out_close:
	close(fd);
}

/*
 * When the perf map was looked at: never 0 (0 is "never").  Not "now |
 * 1": with the coarse clock at an even value, now - (now | 1) wrapped
 * around and every lookup of the same tick was "a second later" (a
 * missing map probed 35 times a second, 42% of an agent profiling one
 * Python process).
 */
static uint64_t
sym_jit_stamp(void)
{
	uint64_t now = sym_now_ns();

	return (now != 0 ? now : 1);
}

/* Is the perf map to be looked at (first time, once a second, or to go
 * on with what an earlier turn's budget left)? */
int
sym_jit_due(struct symbolizer *s, const struct sym_proc *p)
{
	return (!p->gone && (p->jit.checked_ns == 0 || (p->jit.more &&
	    p->jit.turn != s->turn_id) ||
	    sym_now_ns() - p->jit.checked_ns >= SYM_RECHECK_NS));
}

/*
 * Look at the perf map now if it is due.  Called at lookups and, from
 * symbolizer_cover_gen, when a sample has a frame in anonymous memory:
 * the map is then read and sorted during the cycle, within the turns'
 * budgets (the work timer), not first at the snapshot, where a map over
 * the small sizes would miss the cycle (and a one-cycle run entirely).
 */
void
sym_jit_touch(struct symbolizer *s, struct sym_proc *p)
{
	p->jit.used_cycle = s->cycle;
	if (!sym_jit_due(s, p))
		return;
	p->jit.checked_ns = sym_jit_stamp();
	sym_jit_refresh(s, p);
	if (p->jit.more)
		s->jit_pending = 1;
}

/* A JIT name for addr ("name_[j]"), or NULL. */
const char *
sym_jit_lookup(struct symbolizer *s, struct sym_proc *p, uint64_t addr)
{
	const char *name;

	sym_jit_touch(s, p);
	if (p->jit.stale)
		return (NULL);
	if ((name = perfmap_lookup(&p->jit.pm, addr)) != NULL)
		p->jit.lent = 1;
	return (name);
}

size_t
sym_jit_bytes(const struct symbolizer *s)
{
	const struct perfmap *pm;
	const struct sym_proc *p;
	size_t i, n = s->jit_retired_bytes;

	for (i = 0; i < SYM_PROC_BUCKETS; i++)
		for (p = s->procs[i]; p != NULL; p = p->hnext) {
			pm = &p->jit.pm;
			n += (pm->cap + pm->ig_tmp_cap + pm->ig_new_cap +
			    pm->ig_spare_cap) * sizeof(struct perfmap_entry) +
			    pm->names_len;
		}
	return (n);
}

size_t
sym_jit_evict(struct symbolizer *s, size_t over)
{
	struct sym_proc *p;
	struct perfmap *pm;
	size_t i, n, freed = 0;

	for (i = 0; i < SYM_PROC_BUCKETS && freed < over; i++)
		for (p = s->procs[i]; p != NULL && freed < over;
		    p = p->hnext) {
			pm = &p->jit.pm;
			n = (pm->cap + pm->ig_tmp_cap + pm->ig_new_cap +
			    pm->ig_spare_cap) * sizeof(struct perfmap_entry) +
			    pm->names_len;
			if (pm->cap == 0 || p->jit.lent ||
			    s->cycle - p->jit.used_cycle < SYM_HOT_CYCLES)
				continue;
			sym_jit_reset(s, &p->jit);
			/* read again from the start at the next look */
			p->jit.checked_ns = 0;
			s->evictions++;
			freed += n;
		}
	return (freed);
}

/* Perf maps left half read by a turn's budget: continue them. */
int
sym_jit_work(struct symbolizer *s, struct sym_proc *p)
{
	if (!p->jit.more || p->gone)
		return (0);
	if (p->jit.turn != s->turn_id) {
		p->jit.checked_ns = sym_jit_stamp();
		sym_jit_refresh(s, p);
	}
	return (p->jit.more);
}
