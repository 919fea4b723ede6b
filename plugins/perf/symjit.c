/*
 * JIT perf map files, read as the target sees them:
 * /proc/PID/root/tmp/perf-<nspid>.map.  The file is followed as it grows
 * (parsed from the last complete line on), re-read from the start when it
 * was replaced or rewritten (HotSpot's Compiler.perfmap), checked at most
 * once a second, and ignored when it is older than the process: a file
 * left behind by an earlier process with the same PID.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gprofiler/plugin.h>

#include "symbolize_int.h"

#define JIT_CHUNK	(256 * 1024)
#define JIT_MAX_READ	(64u << 20)	/* per refresh */

/* Names already returned stay valid until the cycle ends. */
void
sym_jit_reset(struct symbolizer *s, struct sym_jit *j)
{
	struct perfmap_chunk	*c, *tail;

	if ((c = perfmap_detach_names(&j->pm)) != NULL) {
		for (tail = c; tail->next != NULL; tail = tail->next)
			;
		tail->next = s->jit_retired;
		s->jit_retired = c;
	}
	j->off = 0;
	j->head_len = 0;
	j->stale = 0;
}

/* Was the file written before the process started?  Then it is not its. */
static int
sym_jit_older(struct symbolizer *s, struct sym_proc *p, const struct stat *sb)
{
	uint64_t	 start;

	if (s->btime == 0 || s->clk_tck <= 0)
		return (0);
	start = s->btime + p->starttime / (uint64_t)s->clk_tck;
	return ((uint64_t)sb->st_mtim.tv_sec + 1 < start);
}

/* The file changed under its old content: start over. */
static int
sym_jit_rewritten(struct sym_jit *j, int fd, const struct stat *sb)
{
	char	 head[sizeof(j->head)];

	if (sb->st_dev != j->dev || sb->st_ino != j->ino || sb->st_size < j->off)
		return (1);
	if (j->head_len == 0)
		return (0);
	if (pread(fd, head, j->head_len, 0) != (ssize_t)j->head_len)
		return (1);
	return (memcmp(head, j->head, j->head_len) != 0);
}

/* Parse from j->off to EOF, keeping a partial last line for later. */
static void
sym_jit_read(struct symbolizer *s, struct sym_proc *p, int fd)
{
	struct sym_jit	*j = &p->jit;
	char		*buf;
	size_t		 carry = 0, used, total = 0, bad = j->pm.bad_lines;
	ssize_t		 n;

	if ((buf = malloc(JIT_CHUNK + PERFMAP_MAX_NAME + 128)) == NULL)
		return;
	while (total < JIT_MAX_READ) {
		n = pread(fd, buf + carry, JIT_CHUNK, j->off + (off_t)carry);
		if (n <= 0)
			break;
		if (j->off == 0 && carry == 0 && j->head_len == 0) {
			j->head_len = (size_t)n < sizeof(j->head) ?
			    (size_t)n : sizeof(j->head);
			memcpy(j->head, buf, j->head_len);
		}
		total += (size_t)n;
		if (perfmap_feed(&j->pm, buf, carry + (size_t)n, 0, &used))
			break;
		j->off += (off_t)used;
		carry = carry + (size_t)n - used;
		if (carry > PERFMAP_MAX_NAME + 64) {
			/* A line longer than any name: skip it. */
			j->pm.bad_lines++;
			j->off += (off_t)carry;
			carry = 0;
		}
		memmove(buf, buf + used, carry);
	}
	free(buf);
	s->st.perfmap_bad_lines += j->pm.bad_lines - bad;
	if (j->pm.bad_lines > bad)
		sym_log(s, GP_LOG_WARN, "symbolizer: pid %d: %zu perf map "
		    "lines did not parse (START SIZE name expected)",
		    (int)p->pid, j->pm.bad_lines - bad);
}

static void
sym_jit_refresh(struct symbolizer *s, struct sym_proc *p)
{
	struct sym_jit	*j = &p->jit;
	struct stat	 sb;
	char		 path[96];
	int		 fd;

	snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map",
	    (int)p->pid, (int)(p->nspid > 0 ? p->nspid : p->pid));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
		goto out_close;
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
	j->dev = sb.st_dev;
	j->ino = sb.st_ino;
	if (sb.st_size > j->off)
		sym_jit_read(s, p, fd);
out_close:
	close(fd);
}

/* A JIT name for addr ("name_[j]"), or NULL. */
const char *
sym_jit_lookup(struct symbolizer *s, struct sym_proc *p, uint64_t addr)
{
	uint64_t	 now = sym_now_ns();

	if (!p->gone && (p->jit.checked_ns == 0 ||
	    now - p->jit.checked_ns >= SYM_RECHECK_NS)) {
		p->jit.checked_ns = now | 1;
		sym_jit_refresh(s, p);
	}
	if (p->jit.stale)
		return (NULL);
	return (perfmap_lookup(&p->jit.pm, addr));
}
