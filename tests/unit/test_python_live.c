/*
 * The CPython reader against real interpreters (every pyenv build 3.8-3.13
 * found, and Debian's static python3.11): known nested functions with
 * their lines, a sleeping thread that must not appear, a recursion deeper
 * than 100 frames, non-ASCII names and paths, a process that exits.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testing.h"
#include "python_spawn.h"
#include "py_target.h"
#include "base/safeopen.h"

#define MAX_STACKS	512

struct stacks {
	char *s[MAX_STACKS];
	int n;
	int max_depth;
	char deepest[65536];
};

static void
collect(void *arg, struct py_target *t, int32_t tid,
    const char *const *frames, uint32_t n)
{
	struct stacks *st = arg;
	size_t len = 0, i;
	char *s;
	int k;

	for (i = 0; i < n; i++)
		len += strlen(frames[i]) + 1;
	if ((s = malloc(len + 1)) == NULL)
		return;
	s[0] = '\0';
	for (i = 0; i < n; i++) {
		strcat(s, frames[i]);
		if (i + 1 < n)
			strcat(s, ";");
	}
	if ((int)n > st->max_depth) {
		st->max_depth = (int)n;
		snprintf(st->deepest, sizeof(st->deepest), "%s", s);
	}
	for (k = 0; k < st->n; k++)
		if (strcmp(st->s[k], s) == 0) {
			free(s);
			return;
		}
	if (st->n < MAX_STACKS)
		st->s[st->n++] = s;
	else
		free(s);
}

static void
stacks_free(struct stacks *st)
{
	int k;

	for (k = 0; k < st->n; k++)
		free(st->s[k]);
	st->n = 0;
	st->max_depth = 0;
}

static int
stacks_find(const struct stacks *st, const char *needle)
{
	int k;

	for (k = 0; k < st->n; k++)
		if (strstr(st->s[k], needle) != NULL)
			return (1);
	return (0);
}

static void
msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Sample count times, 2 ms apart; returns the failures seen. */
static int
sample_many(struct py_target *t, struct stacks *st, int count)
{
	uint32_t nth;
	int i, fails = 0;

	for (i = 0; i < count; i++) {
		if (py_target_sample(t, collect, st, &nth) != 0)
			fails++;
		msleep(2);
	}
	return (fails);
}

static void
no_emit(void *arg, struct py_target *t, int32_t tid,
    const char *const *frames, uint32_t n)
{
}
#define NULL_EMIT	no_emit

static void
frame_text(char *out, size_t len, const char *name, const char *file,
    int line)
{
	snprintf(out, len, "%s (%s:%d)_[p]", name, file, line);
}

/*
 * The sampled thread's state is remembered (py_ts_slot): later samples of
 * that TID read it directly and give the same stack; a slot that no longer
 * names the thread (a thread state freed and reused) is dropped and the
 * list walked again, never read as the thread's.
 */
static void
test_tid_cache(struct py_target *t, pid_t pid, const char *want)
{
	struct stacks st = { 0 };
	uint64_t hits, walks, pf, reads;
	uint32_t i;
	int k, fails = 0;

	hits = t->ts_hits;
	walks = t->ts_walks;
	pf = t->mem.prefetched;
	reads = t->mem.nreads;
	for (k = 0; k < 100; k++) {
		if (py_target_sample_tid(t, (int32_t)pid, collect, &st) != 0)
			fails++;
		msleep(2);
	}
	CHECK(fails < 10, "few torn samples by TID");
	CHECK(stacks_find(&st, want), "the main thread's stack by TID");
	CHECK(!stacks_find(&st, "sleeping_thread_body"),
	    "only the sampled thread");
	CHECK(t->ts_hits - hits >= 80 && t->ts_walks - walks <= 20,
	    "the thread state is read from its slot, the list walked rarely");
	/* A busy thread's pages are mostly those of its last sample. */
	CHECK(t->mem.prefetched - pf >= 80,
	    "the last sample's pages are read together");
	printf("# %llu samples from the slot, %llu walks, %llu prefetched, "
	    "%.2f reads a sample\n", (unsigned long long)(t->ts_hits - hits),
	    (unsigned long long)(t->ts_walks - walks),
	    (unsigned long long)(t->mem.prefetched - pf),
	    (double)(t->mem.nreads - reads) / 100);
	stacks_free(&st);
	/* A slot whose thread state no longer names its pthread. */
	for (i = 0; i < PY_TS_SLOTS; i++)
		if (t->ts_slots[i].tid == (int32_t)pid)
			t->ts_slots[i].thread_id ^= 0x1000;
	walks = t->ts_walks;
	for (k = 0; k < 20; k++) {
		(void)py_target_sample_tid(t, (int32_t)pid, collect, &st);
		msleep(2);
	}
	CHECK(t->ts_walks - walks >= 1 && stacks_find(&st, want) &&
	    !stacks_find(&st, "sleeping_thread_body"),
	    "a stale slot is dropped: the list is walked, the stack right");
	stacks_free(&st);
}

/*
 * The perf plugin's BPF program walks frames as py_target_walk_layout
 * says (sampler.bpf.c, walk_frames): the same walk here, over the live
 * process, must give what the reader gives.  Leaf first while walking,
 * root first as gp_sample_stack.walk hands them over.
 */
static int
walk_like_bpf(struct py_target *t, const struct gp_frame_walk *w,
    uint64_t *out, uint32_t *n)
{
	uint64_t v, f, leaf[2 * 96], word;
	uint8_t b[256];
	uint32_t i, k = 0, end;

	*n = 0;
	if (py_mem_read_ptr(&t->mem, t->walk_root + w->root_check, &v) != 0 ||
	    v != t->walk_check)
		return (-1);
	if (py_mem_read_ptr(&t->mem, t->walk_root + w->root_frame, &f) != 0)
		return (-1);
	if (w->holder_frame >= 0 && f != 0 && py_mem_read_ptr(&t->mem,
	    f + (uint32_t)w->holder_frame, &f) != 0)
		return (-1);
	end = w->frame_next + 8;
	if (w->frame_code + 8 > end)
		end = w->frame_code + 8;
	if (w->frame_pos + w->pos_size > end)
		end = w->frame_pos + w->pos_size;
	if (w->frame_owner >= 0 && (uint32_t)w->frame_owner + 1 > end)
		end = (uint32_t)w->frame_owner + 1;
	for (i = 0; f != 0 && i < 128; i++) {
		if (py_mem_read(&t->mem, f, b, end) != 0)
			return (-1);
		if (w->frame_owner < 0 ||
		    b[w->frame_owner] != (uint8_t)w->owner_skip) {
			if (k == 96)
				return (-1);
			memcpy(&leaf[2 * k], b + w->frame_code, 8);
			word = 0;
			memcpy(&word, b + w->frame_pos, w->pos_size);
			leaf[2 * k + 1] = word;
			k++;
		}
		memcpy(&f, b + w->frame_next, 8);
	}
	for (i = 0; i < k; i++) {
		out[2 * i] = leaf[2 * (k - 1 - i)];
		out[2 * i + 1] = leaf[2 * (k - 1 - i) + 1];
	}
	*n = k;
	return (f == 0 ? 0 : -1);
}

static void
test_walked(struct py_target *t, pid_t pid, const char *want,
    const char *what)
{
	struct stacks st = { 0 };
	struct gp_frame_walk w;
	uint64_t walk[2 * 96];
	uint32_t n;
	int k, ok = 0;

	CHECK_INTEQ(py_target_walk_layout(t, &w), 0, "a walk layout");
	/* what the sampler accepts (sampler.c, sampler_walk_ok) */
	CHECK(w.root_check <= 248 && w.root_frame <= 248 &&
	    w.holder_frame <= 248 && w.frame_next <= 248 &&
	    w.frame_code <= 248 && w.frame_pos <= 256 - w.pos_size &&
	    w.frame_owner <= 255 && ((w.root_check | w.root_frame |
	    w.frame_next | w.frame_code) & 7) == 0 &&
	    (w.frame_pos & (w.pos_size - 1)) == 0 && (w.holder_frame < 0 ||
	    (w.holder_frame & 7) == 0) && w.owner_skip >= 0 &&
	    w.owner_skip <= 255, "the layout fits the BPF program's bounds");
	for (k = 0; k < 100; k++) {
		t->walk_tid = 0;
		if (py_target_sample_tid(t, (int32_t)pid, NULL_EMIT, NULL) !=
		    0 || t->walk_tid != (int32_t)pid ||
		    walk_like_bpf(t, &w, walk, &n) != 0)
			continue;
		if (py_target_sample_walked(t, (int32_t)pid, walk, n, collect,
		    &st) == 0)
			ok++;
		msleep(2);
	}
	CHECK(ok >= 80, what);
	CHECK(stacks_find(&st, want), "walked frames give the reader's stack");
	if (!stacks_find(&st, want) && st.n > 0)
		printf("# walked: %s\n# want: %s\n", st.s[0], want);
	stacks_free(&st);
}

static void
test_nested(const struct py_interp *pi, const char *srcdir)
{
	char script[PATH_MAX], want[PATH_MAX * 4], why[256], a[PATH_MAX],
	    b[PATH_MAX], c[PATH_MAX];
	char *argv[] = { (char *)pi->path, script, NULL };
	struct stacks st = { 0 };
	struct py_target t;
	int modern, fails, rc;
	pid_t pid;

	snprintf(script, sizeof(script), "%s/tests/workloads/py_nested.py",
	    srcdir);
	modern = strncmp(pi->label, "3.1", 3) == 0 && pi->label[3] >= '1';
	if ((pid = py_spawn(argv, 15000)) < 0) {
		CHECK(0, "nested workload starts");
		return;
	}
	rc = py_target_attach(pid, &t, why, sizeof(why));
	CHECK(rc == 0, pi->label);
	if (rc != 0) {
		printf("# attach %s: %s (%d)\n", pi->path, why, rc);
		py_spawn_kill(pid);
		return;
	}
	CHECK(t.ver.major == 3 && strncmp(pi->label + 2, "", 0) == 0 &&
	    atoi(pi->label + 2) == t.ver.minor, "version detected");
	fails = sample_many(&t, &st, 250);
	CHECK(fails < 25, "few torn samples");
	frame_text(a, sizeof(a), "outer", script,
	    py_spawn_marker_line(script, "DEF:outer"));
	frame_text(b, sizeof(b), "middle", script,
	    py_spawn_marker_line(script, "DEF:middle"));
	frame_text(c, sizeof(c), "inner_loop", script,
	    py_spawn_marker_line(script, "DEF:inner"));
	snprintf(want, sizeof(want), "<module> (%s:1)_[p];%s;%s;%s", script,
	    a, b, c);
	CHECK(stacks_find(&st, want), "module;outer;middle;inner_loop with "
	    "first lines");
	frame_text(a, sizeof(a), modern ? "Worker.step" : "step", script,
	    py_spawn_marker_line(script, "DEF:step"));
	snprintf(want, sizeof(want), "%s;%s", c, a);
	CHECK(stacks_find(&st, want), modern ? "qualified name Worker.step" :
	    "step below inner_loop");
	CHECK(!stacks_find(&st, "sleeping_thread_body"),
	    "sleeping thread not sampled");
	if (st.n == 0 || !stacks_find(&st, want)) {
		int k;

		for (k = 0; k < st.n && k < 5; k++)
			printf("# got: %s\n", st.s[k]);
	}
	stacks_free(&st);

	test_tid_cache(&t, pid, want);
	test_walked(&t, pid, want, "frames walked as the BPF program does");

	/* Current-line mode: the busy line of step(). */
	t.line_mode = PY_LINE_CURRENT;
	py_code_cache_clear(t.codes);
	sample_many(&t, &st, 150);
	frame_text(a, sizeof(a), modern ? "Worker.step" : "step", script,
	    py_spawn_marker_line(script, "BUSY:step"));
	frame_text(b, sizeof(b), "inner_loop", script,
	    py_spawn_marker_line(script, "BUSY:inner"));
	snprintf(want, sizeof(want), "%s;%s", b, a);
	CHECK(stacks_find(&st, want), "current lines of inner_loop and step");
	if (!stacks_find(&st, want) && st.n > 0)
		printf("# got: %s\n", st.s[0]);
	stacks_free(&st);
	test_walked(&t, pid, want, "walked positions give the current lines");

	/* A cycle without a sample lets its caches go; the next sample
	 * makes them again. */
	py_target_idle(&t);
	CHECK(t.codes == NULL && t.scratch.frames == NULL &&
	    t.scratch.ptrs == NULL && t.scratch.text == NULL &&
	    t.mem.pages == NULL, "idle: the caches let go");
	sample_many(&t, &st, 150);
	CHECK(stacks_find(&st, want), "and made again by the next sample");
	stacks_free(&st);

	/* The process exits: the sample fails cleanly, now and reaped.
	 * Sampled once it is a zombie (waited for, not reaped), its memory
	 * gone: a fixed 50 ms once ended before a loaded host had torn it
	 * down, and its memory was still read. */
	kill(pid, SIGKILL);
	{
		siginfo_t si;

		while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0 &&
		    errno == EINTR)
			;
	}
	rc = sample_many(&t, &st, 3);
	CHECK(rc == 3, "sampling a killed process fails cleanly");
	waitpid(pid, NULL, 0);
	{
		uint32_t nth;

		rc = py_target_sample(&t, collect, &st, &nth);
		CHECK(rc == -ESRCH, "reaped process reports ESRCH");
	}
	stacks_free(&st);
	py_target_release(&t);
}

static void
test_deep(const struct py_interp *pi, const char *srcdir)
{
	char script[PATH_MAX], why[256], spin[PATH_MAX];
	char *argv[] = { (char *)pi->path, script, (char *)"150", NULL };
	struct stacks st = { 0 };
	struct py_target t;
	const char *p;
	int n = 0;
	pid_t pid;

	snprintf(script, sizeof(script), "%s/tests/workloads/py_deep.py",
	    srcdir);
	if ((pid = py_spawn(argv, 15000)) < 0) {
		CHECK(0, "deep workload starts");
		return;
	}
	if (py_target_attach(pid, &t, why, sizeof(why)) != 0) {
		CHECK(0, why);
		py_spawn_kill(pid);
		return;
	}
	sample_many(&t, &st, 100);
	for (p = st.deepest; (p = strstr(p, "recurse (")) != NULL; p++)
		n++;
	CHECK(n >= 151, "recursion of 150 seen in full (>100 frames)");
	frame_text(spin, sizeof(spin), "spin", script,
	    py_spawn_marker_line(script, "DEF:spin"));
	CHECK(strlen(st.deepest) > strlen(spin) && strcmp(st.deepest +
	    strlen(st.deepest) - strlen(spin), spin) == 0, "spin is the leaf");
	printf("# %s deep: %d frames, %d recurse\n", pi->label, st.max_depth,
	    n);
	stacks_free(&st);
	py_target_release(&t);
	py_spawn_kill(pid);
}

static int
copy_file(const char *from, const char *to)
{
	char buf[8192];
	FILE *in, *out;
	size_t n;

	if ((in = fopen(from, "r")) == NULL)
		return (-1);
	if ((out = fopen(to, "w")) == NULL) {
		fclose(in);
		return (-1);
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	return (fclose(out));
}

static void
test_unicode(const struct py_interp *pi, const char *srcdir,
    const char *tmpdir)
{
	char src[PATH_MAX], script[PATH_MAX], why[256], want[PATH_MAX * 2];
	char *argv[] = { (char *)pi->path, script, NULL };
	struct stacks st = { 0 };
	struct py_target t;
	pid_t pid;

	snprintf(src, sizeof(src), "%s/tests/workloads/py_unicode.py", srcdir);
	snprintf(script, sizeof(script), "%s/ユニコード_é.py", tmpdir);
	if (copy_file(src, script) != 0 || (pid = py_spawn(argv,
	    15000)) < 0) {
		CHECK(0, "unicode workload starts");
		return;
	}
	if (py_target_attach(pid, &t, why, sizeof(why)) != 0) {
		CHECK(0, why);
		py_spawn_kill(pid);
		return;
	}
	sample_many(&t, &st, 200);
	frame_text(want, sizeof(want), "café_ünïcode", script,
	    py_spawn_marker_line(script, "DEF:latin"));
	CHECK(stacks_find(&st, want), "Latin-1 name and non-ASCII path");
	frame_text(want, sizeof(want), "深い_関数", script,
	    py_spawn_marker_line(script, "DEF:bmp"));
	CHECK(stacks_find(&st, want), "UCS-2 name");
	if (!stacks_find(&st, want) && st.n > 0)
		printf("# got: %s\n", st.s[0]);
	stacks_free(&st);
	py_target_release(&t);
	py_spawn_kill(pid);
}

int
main(void)
{
	struct py_interp interps[8];
	char tmpdir[] = "/tmp/gptest.pyXXXXXX", sub[PATH_MAX];
	const char *srcdir = getenv("top_srcdir");
	int i, n;

	if (srcdir == NULL)
		srcdir = ".";
	py_set_opener(safeopen_open_cb, NULL);	/* as the daemon offers it */
	if ((n = py_spawn_find(interps, 8)) == 0)
		SKIP_ALL("no CPython 3.8-3.13 found (pyenv, /usr/bin)");
	if (mkdtemp(tmpdir) == NULL)
		SKIP_ALL("mkdtemp");
	snprintf(sub, sizeof(sub), "%s/dïr ü", tmpdir);
	mkdir(sub, 0755);
	for (i = 0; i < n; i++) {
		printf("# %s: %s\n", interps[i].label, interps[i].path);
		test_nested(&interps[i], srcdir);
		test_deep(&interps[i], srcdir);
		test_unicode(&interps[i], srcdir, sub);
	}
	{
		char cmd[PATH_MAX + 16];
		char *rmv[] = { (char *)"/bin/rm", (char *)"-rf", tmpdir,
		    NULL };
		pid_t p;

		(void)cmd;
		if ((p = fork()) == 0) {
			execv(rmv[0], rmv);
			_exit(127);
		}
		waitpid(p, NULL, 0);
	}
	return (testing_done());
}
