/*
 * From ring-buffer records to the cycle's tables: note each new process
 * image, a (PID, exec generation) pair (so the symbolizer snapshots it
 * while it lives: short-lived processes, and processes that exec, still
 * resolve against the program each sample was taken in), make sure the
 * image's snapshot covers the sampled addresses while it can still be
 * re-read, unwind DWARF samples now (the process and its stack are fresh),
 * and aggregate by (pid, generation, thread comm, kernel ips, user ips).
 */
#include <errno.h>
#include <string.h>

#include "perf_int.h"
#include "pidtab.h"
#include "stackagg.h"
#include "sym/symbolize.h"
#include "unwind.h"

static void
collect_add(struct perf *p, struct stackagg *a, const struct pidinfo *pi,
    const struct sample_view *v, const uint64_t *uips, uint16_t nuser)
{
	char comm[SAMPLE_COMM_LEN + 1];

	/* The thread's comm at the sample (bpf_get_current_comm): the
	 * profile's comm frame is the thread name, as in perf script. */
	memcpy(comm, v->hdr.comm, SAMPLE_COMM_LEN);
	comm[SAMPLE_COMM_LEN] = '\0';
	/* Threads kept apart only in a JVM, whose may be named (emit.c):
	 * another process's threads would only cost entries, merged again
	 * at the emit. */
	if (stackagg_add_thread(a, (int32_t)v->hdr.pid, v->hdr.gen,
	    p->java_threads && pi->jvm != 1 ? (int32_t)v->hdr.tid : 0, comm,
	    v->kips,
	    v->hdr.nkern, uips, nuser, 1) != 0)
		p->cur.agg_failures++;
}

/*
 * A process profiler reads this thread's stack now; with ABI 1.3 it gets
 * the sample's kernel and user frames too (resolved now, the cycle's
 * strings), so it can place them around its own frames.
 */
static void
collect_report(struct perf *p, const struct sample_view *v,
    const uint64_t *uips, uint16_t nuser)
{
	const char *kern[SAMPLE_MAX_DEPTH], *user[SAMPLE_MAX_DEPTH];
	uint64_t ips[SAMPLE_MAX_DEPTH], walk[2 * SAMPLE_MAX_WALK];
	struct gp_sample_stack st;
	uint32_t i, nk = v->hdr.nkern, nu = nuser;
	const char *f;

	if (!GP_API_HAS(p->api, sample_report_stack)) {
		p->api->sample_report(p->ctx, (int32_t)v->hdr.pid,
		    (int32_t)v->hdr.tid, 1);
		return;
	}
	if (nk > SAMPLE_MAX_DEPTH)
		nk = SAMPLE_MAX_DEPTH;
	if (nu > SAMPLE_MAX_DEPTH)
		nu = SAMPLE_MAX_DEPTH;
	/* the sampler's arrays are leaf first; frames go root first */
	for (i = 0; i < nk; i++) {
		f = symbolizer_kernel_frame(p->sym, v->kips[nk - 1 - i]);
		kern[i] = f != NULL ? f : "[unknown]";
	}
	for (i = 0; i < nu; i++) {
		ips[i] = uips[nu - 1 - i];
		f = symbolizer_user_frame_gen(p->sym, (int32_t)v->hdr.pid,
		    v->hdr.gen, ips[i]);
		user[i] = f != NULL ? f : "[unknown]";
	}
	st = (struct gp_sample_stack){
		.size = sizeof(st),
		.nkernel = nk,
		.kernel = kern,
		.nuser = nu,
		.user = user,
		.user_ips = ips,
	};
	/* the walk's outcome, its frames root first as well */
	switch (v->hdr.walk_stat) {
	case STAT_WALK_OK:
		st.walk_state = (v->hdr.flags & SAMPLE_F_WALKED) ?
		    GP_WALK_DONE : GP_WALK_NONE;
		break;
	case STAT_WALK_NOROOT:
	case STAT_WALK_STALE:
		st.walk_state = GP_WALK_NO_ROOT;
		break;
	case STAT_WALK_FAULT:
		st.walk_state = GP_WALK_FAULT;
		break;
	case STAT_WALK_DEEP:
		st.walk_state = GP_WALK_DEEP;
		break;
	}
	if (st.walk_state == GP_WALK_DONE) {
		for (i = 0; i < v->hdr.nwalk; i++) {
			walk[2 * i] = v->walk[2 * (v->hdr.nwalk - 1 - i)];
			walk[2 * i + 1] =
			    v->walk[2 * (v->hdr.nwalk - 1 - i) + 1];
		}
		st.nwalk = v->hdr.nwalk;
		st.walk = walk;
	}
	p->api->sample_report_stack(p->ctx, (int32_t)v->hdr.pid,
	    (int32_t)v->hdr.tid, 1, &st);
}

void
perf_collect_slice(struct perf *p)
{
	p->drain_n = 0;
	p->drain_deadline = perf_now_ns() + PERF_DRAIN_SLICE_NS;
}

/* The slice is used: stop this drain (the clock is read every 64 records,
 * a few microseconds of work each). */
static int
collect_slice_over(struct perf *p)
{
	if ((++p->drain_n & 63) != 0 || perf_now_ns() < p->drain_deadline)
		return (0);
	p->cur.drain_slices++;
	return (1);
}

void
perf_report_process(struct perf *p, struct pidinfo *pi, uint64_t now)
{
	if (!p->proc_reports)
		return;
	pi->report_wait_s = pi->report_ns == 0 ? 1 :
	    pi->report_wait_s < PERF_REPORT_WAIT_MAX_S ?
	    pi->report_wait_s * 2 : PERF_REPORT_WAIT_MAX_S;
	pi->report_ns = now;
	p->api->process_report(p->ctx, pi->pid);
}

int
perf_collect_record(void *arg, const void *rec, size_t len)
{
	struct perf *p = arg;
	struct sample_view v;
	struct pidinfo *pi;
	uint64_t ips[SAMPLE_MAX_DEPTH];
	int isnew, n = 0, r;

	if (sample_record_parse(rec, len, &v) != 0) {
		p->cur.bad_records++;
		perf_complain(p, "malformed sampler record (%zu bytes) "
		    "skipped: the BPF object does not match the plugin", len);
		return (0);
	}
	pi = pidtab_get_gen(p->seen, (int32_t)v.hdr.pid, v.hdr.gen, &isnew);
	if (pi == NULL) {
		p->cur.agg_failures++;
		return (0);
	}
	if (isnew) {
		memcpy(pi->comm, v.hdr.comm, sizeof(pi->comm) - 1);
		if (v.hdr.pid != 0)
			symbolizer_process_seen_gen(p->sym,
			    (int32_t)v.hdr.pid, v.hdr.gen);
		/* Process profilers find their processes here (1.4). */
		if (v.hdr.pid != 0)
			perf_report_process(p, pi, perf_now_ns());
		/* --java-collect-thread-names: a JVM or not, from the
		 * snapshot just taken (unknown: its threads stay apart). */
		if (p->java_threads && v.hdr.pid != 0 &&
		    (r = symbolizer_maps_file_gen(p->sym, (int32_t)v.hdr.pid,
		    v.hdr.gen, "libjvm.so")) >= 0)
			pi->jvm = r ? 2 : 1;
	}
	/* The first sample too: it is often the only one drained before
	 * the snapshot (it alone wakes us), and a perf map first read
	 * there misses the cycle's names. */
	if (v.hdr.pid != 0 && v.hdr.nuser > 0)
		symbolizer_cover_gen(p->sym, (int32_t)v.hdr.pid, v.hdr.gen,
		    v.uips, v.hdr.nuser);
	if (p->mode == PERF_MODE_FP || p->mode == PERF_MODE_SMART) {
		collect_add(p, p->fp, pi, &v, v.uips, v.hdr.nuser);
		pi->fp_samples++;
	}
	if (p->mode == PERF_MODE_DWARF || p->mode == PERF_MODE_SMART) {
		if (v.regs != NULL)
			n = unwinder_unwind(p->uw, (int32_t)v.hdr.pid,
			    (int32_t)v.hdr.tid, v.regs, v.stack,
			    v.hdr.stack_len, ips, SAMPLE_MAX_DEPTH);
		else if (p->mode == PERF_MODE_DWARF && v.hdr.nuser > 0) {
			/* no registers, a frame-pointer stack instead (the
			 * compat program's samples taken in the kernel) */
			memcpy(ips, v.uips, v.hdr.nuser * sizeof(*ips));
			n = v.hdr.nuser;
		}
		collect_add(p, p->dw, pi, &v, ips, (uint16_t)n);
		pi->dw_samples++;
	}
	/* The deeper user stack of the two (smart mode has both). */
	if ((v.hdr.flags & SAMPLE_F_WATCHED) && p->reports) {
		if (p->mode == PERF_MODE_DWARF || (p->mode ==
		    PERF_MODE_SMART && n > (int)v.hdr.nuser))
			collect_report(p, &v, ips, (uint16_t)n);
		else
			collect_report(p, &v, v.uips, v.hdr.nuser);
	}
	return (collect_slice_over(p) ? -EAGAIN : 0);
}
