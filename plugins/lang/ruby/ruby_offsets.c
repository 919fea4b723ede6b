/*
 * Ruby versions and the struct offsets the reader needs per version
 * (x86-64, the only layout kept).
 *
 * Sources, each a published per-version fact:
 *  - rbspy's bindgen bindings (github.com/rbspy/rbspy, ruby-structs/src/
 *    ruby_X_Y_Z.rs) and rbperf's dumps of them (github.com/javierhonduco/
 *    rbperf, src/ruby_versions/ruby_2_7_6.yaml, ruby_3_0_4.yaml,
 *    ruby_3_1_2.yaml, ruby_3_2_2.yaml): rb_execution_context_struct.
 *    {vm_stack 0, vm_stack_size 8, cfp 16}, sizeof(rb_control_frame_t)
 *    56 (2.7, 3.0) and 64 (3.1, 3.2), rb_iseq_location_struct.label 16,
 *    rb_vm_struct.ractor.main_ractor 32 and rb_ractor_struct.threads.
 *    running_ec 520 (3.0-3.2).
 *  - the OpenTelemetry eBPF profiler's Ruby tables (open-telemetry/
 *    opentelemetry-ebpf-profiler, interpreter/ruby/ruby.go), which carry
 *    3.3 and 3.4: sizeof(rb_control_frame_t) 56 again from 3.3 (bp
 *    removed, ruby commit f302e725), running_ec 0x180 from 3.3 on amd64,
 *    rb_iseq_constant_body.{iseq_encoded 8, location 64, insns_info.body
 *    120/112, insns_info.size 136/128, succ_index_table 144/136} (before/
 *    from 3.2), sizeof(iseq_insn_info_entry) 8 before 3.1 and 12 from it,
 *    RString embedded bytes at 16 before 3.2 and 24 from it.
 *  - Ruby's own headers (vm_core.h, iseq.h, internal/string.h): the
 *    control frame starts pc, sp, iseq; rb_iseq_t.body at 16;
 *    rb_iseq_location_t is pathobj, base_label, label, first_lineno, and
 *    first_lineno is a VALUE (a Fixnum) up to 3.1 and an int from 3.2
 *    (which is why insns_info moved 8 bytes down in 3.2); the embedded
 *    length of a String is in its flags (bits 14-18) up to 3.1 and in a
 *    len field at 16 from 3.2; RArray embeds its elements at 16 (heap
 *    pointer at 32); 2.5-2.7 export the running execution context as
 *    ruby_current_execution_context_ptr, 3.x keep it in thread-local
 *    ruby_current_ec (not readable from outside), so the reader goes
 *    through ruby_current_vm_ptr to the main ractor's running_ec.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "langver.h"
#include "rubyreader.h"

static const struct {
	struct langver_key v;
	uint32_t cfp_size;
	uint32_t running_ec;	/* 0: the ec symbol (2.x) */
	uint32_t insn_body, insn_size, succ_table, entry_size;
	int v32;	/* 3.2+ String, location */
} ruby_offsets_table[] = {
	{ { 2, 7 }, 56, 0, 120, 136, 144, 8, 0 },
	{ { 3, 0 }, 56, 520, 120, 136, 144, 8, 0 },
	{ { 3, 1 }, 64, 520, 120, 136, 144, 12, 0 },
	{ { 3, 2 }, 64, 520, 112, 128, 136, 12, 1 },
	{ { 3, 3 }, 56, 384, 112, 128, 136, 12, 1 },
	{ { 3, 4 }, 56, 384, 112, 128, 136, 12, 1 },
};

static const struct langver_table ruby_versions = {
	"Ruby", "2.7-3.4", ruby_offsets_table,
	sizeof(ruby_offsets_table) / sizeof(ruby_offsets_table[0]),
	sizeof(ruby_offsets_table[0]),
};

/* "3.1.2" (langver_parse). */
int
ruby_version_parse(const char *s, size_t len, struct ruby_version *v)
{
	return (langver_parse(s, len, &v->major, &v->minor, &v->patch));
}

/* 0, or -ENOTSUP with the reason in why. */
int
ruby_offsets_for(const struct ruby_version *v, struct ruby_offsets *o,
    char *why, size_t whylen)
{
	int i;

	if ((i = langver_row(&ruby_versions, v->major, v->minor, v->patch,
	    why, whylen)) < 0)
		return (i);
	memset(o, 0, sizeof(*o));
	o->ec_direct = ruby_offsets_table[i].running_ec == 0;
	o->vm_main_ractor = 32;
	o->ractor_running_ec = ruby_offsets_table[i].running_ec;
	o->ec_vm_stack = 0;
	o->ec_vm_stack_size = 8;
	o->ec_cfp = 16;
	o->cfp_pc = 0;
	o->cfp_iseq = 16;
	o->cfp_ep = 32;		/* pc, sp, iseq, self, ep: 2.7-3.4 */
	o->cfp_size = ruby_offsets_table[i].cfp_size;
	o->iseq_body = 16;
	o->body_type = 0;
	o->body_iseq_encoded = 8;
	o->body_location = 64;
	o->loc_pathobj = 0;
	o->loc_label = 16;
	o->loc_first_lineno = 24;
	o->lineno_fixnum = !ruby_offsets_table[i].v32;
	o->body_insn_info_body = ruby_offsets_table[i].insn_body;
	o->body_insn_info_size = ruby_offsets_table[i].insn_size;
	o->body_succ_index_table = ruby_offsets_table[i].succ_table;
	o->insn_info_entry_size = ruby_offsets_table[i].entry_size;
	o->rstring_len = 16;
	o->rstring_heap_ptr = 24;
	o->rstring_embed = ruby_offsets_table[i].v32 ? 24 : 16;
	o->rstring_len_in_flags = !ruby_offsets_table[i].v32;
	o->rarray_embed = 16;
	o->rarray_heap_ptr = 32;
	return (0);
}
