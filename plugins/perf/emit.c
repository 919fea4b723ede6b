/*
 * The snapshot: symbolize each distinct stack and hand it to the host,
 * root first (user frames from the outermost caller, then the kernel
 * frames on top, the leaf last).  Smart mode keeps, per PID, whichever of
 * the frame-pointer and DWARF tables has the deeper average user stack
 * ([unknown] frames and kernel frames not counted); the tables hold the
 * same samples, so DWARF counts are scaled by FP/DWARF totals only when
 * they differ (stochastic rounding, docs/specs/gprofiler-compat.md §3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_int.h"
#include "pidtab.h"
#include "stackagg.h"
#include "stackroot.h"
#include "sym/symbolize.h"

#define EMIT_INLINE_MAX	32	/* inlined frames per sampled one */

struct emit {
	struct perf *p;
	struct gp_snapshot *snap;
	int is_dwarf;	/* which table is walked */
	double ratio;	/* DWARF count scale */
	int rc;
};

static int
emit_known(const char *f)
{
	return (f != NULL && strcmp(f, "[unknown]") != 0);
}

/*
 * The user frames' names into names[], leaf first ("[unknown]" for none):
 * how many are the stack's, not read past its entry frames (stackroot.h).
 */
static size_t
emit_user_names(struct perf *p, const struct stack_entry *e,
    const char *names[SAMPLE_MAX_DEPTH])
{
	size_t i, n = e->nuser < SAMPLE_MAX_DEPTH ? e->nuser : SAMPLE_MAX_DEPTH;

	for (i = 0; i < n; i++) {
		names[i] = symbolizer_user_frame_gen(p->sym, e->pid, e->gen,
		    e->ips[e->nkern + i]);
		if (names[i] == NULL)
			names[i] = "[unknown]";
	}
	return (stackroot_keep(names, n));
}

/* Smart mode: known user frames per PID, weighted by count. */
static int
emit_tally_cb(const struct stack_entry *e, void *arg)
{
	struct emit *em = arg;
	struct pidinfo *pi = pidtab_find_gen(em->p->seen, e->pid, e->gen);
	const char *names[SAMPLE_MAX_DEPTH];
	uint64_t known = 0;
	size_t i, nu;

	if (pi == NULL)
		return (0);
	nu = emit_user_names(em->p, e, names);
	for (i = 0; i < nu; i++)
		known += emit_known(names[i]);
	if (em->is_dwarf)
		pi->dw_frames += known * e->count;
	else
		pi->fp_frames += known * e->count;
	return (0);
}

static uint64_t
emit_scale(uint64_t count, double ratio)
{
	double v = (double)count * ratio, fl = (double)(uint64_t)v;

	if (ratio == 1.0)
		return (count);
	return ((uint64_t)fl + (drand48() < v - fl ? 1 : 0));
}

static int
emit_wanted(struct emit *em, struct pidinfo *pi)
{
	if (pi->wanted < 0)
		pi->wanted = em->p->api->pid_wanted(em->p->ctx, pi->pid) != 0;
	return (pi->wanted);
}

/*
 * The comm frame: the sampled thread's name, as perf script (and so
 * gProfiler) shows it; the process's when the thread has none.
 */
static const char *
emit_comm(struct perf *p, const struct pidinfo *pi,
    const struct stack_entry *e)
{
	const char *c;

	if (pi->pid == 0)
		return ("swapper");
	/* The thread's name; else the image's own (a forked child before
	 * its exec is its parent). */
	if (e->comm[0] != '\0')
		return (e->comm);
	c = symbolizer_comm_gen(p->sym, pi->pid, pi->gen);
	if (c == NULL || c[0] == '\0')
		c = pi->comm[0] != '\0' ? pi->comm : "[unknown]";
	return (c);
}

/*
 * --java-collect-thread-names: a JVM's stacks as async-profiler's
 * "threads" option gives them to gProfiler, the process's comm and then
 * a "[name tid=N]" frame (the thread's name as the kernel has it, cut at
 * 15 bytes; async-profiler reads the Java name, uncut).  0 when the
 * stack is not a JVM thread's: comm and frames stay as they were.
 */
static int
emit_java_thread(struct perf *p, struct pidinfo *pi,
    const struct stack_entry *e, const char **comm, char *frame,
    size_t len)
{
	const char *c;
	char name[STACKAGG_COMM_LEN];
	size_t i;
	int r;

	if (!p->java_threads || e->tid <= 0 || pi->pid <= 0)
		return (0);
	if (pi->jvm == 0 && (r = symbolizer_maps_file_gen(p->sym, pi->pid,
	    pi->gen, "libjvm.so")) >= 0)
		pi->jvm = r ? 2 : 1;
	if (pi->jvm != 2)
		return (0);
	/* a name cannot split a frame or a line */
	for (i = 0; i + 1 < sizeof(name) && e->comm[i] != '\0'; i++)
		name[i] = (unsigned char)e->comm[i] < 0x20 ||
		    e->comm[i] == ';' || e->comm[i] == 0x7f ? '?' : e->comm[i];
	name[i] = '\0';
	snprintf(frame, len, "[%s tid=%d]", name, (int)e->tid);
	if ((c = symbolizer_comm_gen(p->sym, pi->pid, pi->gen)) != NULL &&
	    c[0] != '\0')
		*comm = c;
	return (1);
}

/*
 * A Go image's application metadata, as gProfiler's perf profiler adds it
 * (GolangPerfMetadata): golang_version, stripped, link, and libc (null
 * when static).  gProfiler knows Go by runtime.buildVersion in .symtab, so
 * it never names a stripped binary Go; we read .go.buildinfo, which the
 * strip leaves, and report those too (stripped: true).
 */
static void
emit_go_meta(struct pidinfo *pi, void *arg)
{
	struct emit *em = arg;
	struct perf *p = em->p;
	const struct gp_host_api *api = p->api;
	struct symbolizer_go_meta m;
	struct gp_json *md;

	if (!pi->emitted || pi->pid <= 0 ||
	    api->snapshot_set_app_metadata == NULL ||
	    api->json_set_null == NULL ||
	    symbolizer_go_meta_gen(p->sym, pi->pid, pi->gen, &m) != 0 ||
	    (md = api->json_new()) == NULL)
		return;
	api->json_set_string(md, "golang_version", m.version);
	api->json_set_bool(md, "stripped", m.stripped);
	api->json_set_string(md, "link", m.dynamic ? "dynamic" : "static");
	if (m.dynamic)
		api->json_set_string(md, "libc", m.musl ? "musl" : "glibc");
	else
		api->json_set_null(md, "libc");
	api->snapshot_set_app_metadata(em->snap, pi->pid, md);
}

static int
emit_stack_cb(const struct stack_entry *e, void *arg)
{
	struct emit *em = arg;
	struct perf *p = em->p;
	struct pidinfo *pi = pidtab_find_gen(p->seen, e->pid, e->gen);
	/* Room for inlined frames beside the sampled ones (and a thread
	 * frame). */
	const char *frames[4 * SAMPLE_MAX_DEPTH + 1], *comm;
	const char *inl[EMIT_INLINE_MAX], *names[SAMPLE_MAX_DEPTH];
	char thread[STACKAGG_COMM_LEN + 32];
	size_t ni, k, room, nu;
	uint32_t n = 0;
	uint64_t count;
	int i;

	if (pi == NULL || !emit_wanted(em, pi))
		return (0);
	if (p->mode == PERF_MODE_SMART && pi->use_dwarf != em->is_dwarf)
		return (0);
	count = em->is_dwarf ? emit_scale(e->count, em->ratio) : e->count;
	if (count == 0)
		return (0);
	comm = emit_comm(p, pi, e);
	if (emit_java_thread(p, pi, e, &comm, thread, sizeof(thread)))
		frames[n++] = thread;
	nu = emit_user_names(p, e, names);
	for (i = (int)nu - 1; i >= 0; i--) {
		frames[n] = names[i];
		p->cur.user_frames += count;
		if (emit_known(frames[n]) && frames[n][0] != '(')
			p->cur.user_resolved += count;
		n++;
		/* Functions inlined there, under it (pprof and perf
		 * --inline show them so): outermost first.  Room is kept
		 * for the frames still to come. */
		room = sizeof(frames) / sizeof(frames[0]) - n -
		    (size_t)i - e->nkern;
		ni = symbolizer_user_inlined_gen(p->sym, e->pid, e->gen,
		    e->ips[e->nkern + i], i > 0, inl,
		    room < EMIT_INLINE_MAX ? room : EMIT_INLINE_MAX);
		for (k = ni; k > 0; k--)
			frames[n++] = inl[k - 1];
	}
	for (i = (int)e->nkern - 1; i >= 0; i--) {
		frames[n] = symbolizer_kernel_frame(p->sym, e->ips[i]);
		if (frames[n] == NULL)
			frames[n] = "[unknown]";
		n++;
	}
	if (p->api->snapshot_add_stack(em->snap, e->pid, comm, frames, n,
	    count) != 0)
		em->rc = -1;
	pi->emitted = 1;
	return (0);
}

/* Smart mode's choice per PID: the deeper average wins, ties go to FP;
 * PIDs only DWARF saw are kept (docs/specs/gprofiler-compat.md §12 #6). */
static void
emit_decide(struct pidinfo *pi, void *arg)
{
	struct perf *p = arg;
	double fpd, dwd;

	fpd = pi->fp_samples ? (double)pi->fp_frames / pi->fp_samples : -1;
	dwd = pi->dw_samples ? (double)pi->dw_frames / pi->dw_samples : -1;
	pi->use_dwarf = dwd > fpd;
	p->cur.dwarf_pids += pi->use_dwarf;
}

static void
emit_choose(struct perf *p, struct emit *em)
{
	uint64_t fpt, dwt;

	em->is_dwarf = 0;
	stackagg_foreach(p->fp, emit_tally_cb, em);
	em->is_dwarf = 1;
	stackagg_foreach(p->dw, emit_tally_cb, em);
	pidtab_foreach(p->seen, emit_decide, p);
	fpt = stackagg_samples(p->fp);
	dwt = stackagg_samples(p->dw);
	if (fpt > 0 && dwt > 0 && fpt != dwt)
		em->ratio = (double)fpt / (double)dwt;
}

/* Every kernel address of the cycle, so they resolve in one batch. */
static int
emit_prefetch_cb(const struct stack_entry *e, void *arg)
{
	struct perf *p = arg;

	symbolizer_kernel_prefetch(p->sym, e->ips, e->nkern);
	return (0);
}

int
perf_emit(struct perf *p, struct gp_snapshot *snap)
{
	struct emit em = { .p = p, .snap = snap, .ratio = 1.0 };

	if (p->mode != PERF_MODE_DWARF)
		stackagg_foreach(p->fp, emit_prefetch_cb, p);
	if (p->mode != PERF_MODE_FP)
		stackagg_foreach(p->dw, emit_prefetch_cb, p);

	if (p->mode == PERF_MODE_SMART)
		emit_choose(p, &em);
	if (p->mode == PERF_MODE_FP || p->mode == PERF_MODE_SMART) {
		em.is_dwarf = 0;
		stackagg_foreach(p->fp, emit_stack_cb, &em);
	}
	if (p->mode == PERF_MODE_DWARF || p->mode == PERF_MODE_SMART) {
		em.is_dwarf = 1;
		stackagg_foreach(p->dw, emit_stack_cb, &em);
	}
	/* After every stack: the executables are parsed by then. */
	pidtab_foreach(p->seen, emit_go_meta, &em);
	p->cur.pids = pidtab_count(p->seen);
	return (em.rc);
}
