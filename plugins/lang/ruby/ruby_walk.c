/*
 * The walk of a Ruby thread's control frames, as rbspy reads them: from
 * the running execution context's cfp up to the end of its VM stack
 * (control frames grow down from vm_stack + vm_stack_size), each frame
 * with an instruction sequence giving its label, path and the line its
 * pc is at; C function frames (no pc) by name (ruby_ids.c) or skipped.  Pure over the read
 * callback; every length and the frame count are bounded, so hostile
 * memory costs at most max frames of reads.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "langmem.h"
#include "rubyreader.h"

#define RUBY_T_MASK		0x1f
#define RUBY_T_STRING		0x05
#define RUBY_T_ARRAY		0x07
#define RUBY_T_IMEMO		0x1a
#define RUBY_FL_USHIFT		12
#define RUBY_IMEMO_ISEQ		7
#define RSTRING_NOEMBED		(1u << 13)	/* FL_USER1 */
#define RARRAY_EMBED		(1u << 13)	/* FL_USER1 */
#define RSTRING_EMBED_SHIFT	14		/* FL_USER2..6, <= 3.1 */
#define SUCC_IMM_SIZE		54	/* IMMEDIATE_TABLE_SIZE */
#define SUCC_PART		48		/* offsetof succ_part */
#define SUCC_BLOCK_SIZE		80	/* sizeof succ_dict_block */
#define RUBY_MAX_INSN_INFO	(1u << 20)

int
ruby_read_u64(const struct ruby_mem *m, uint64_t addr, uint64_t *out)
{
	return (langmem_read_u64(m->read, m->arg, addr, out));
}

static int
ruby_read_u32(const struct ruby_mem *m, uint64_t addr, uint32_t *out)
{
	return (langmem_read_u32(m->read, m->arg, addr, out));
}

static uint64_t
ruby_get64(const uint8_t *b)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return (v);
}

/* A heap object (not an immediate: Fixnum, Symbol, nil, true...). */
static int
ruby_is_object(uint64_t v)
{
	return (v != 0 && (v & 7) == 0);
}

/*
 * A String's bytes into buf (NUL-terminated, cut at len - 1 bytes); our
 * delimiters (newline, ';') and other control bytes become '?', so a name
 * cannot split a frame or a stack.  -EINVAL if it is not a String.
 */
int
ruby_read_string(const struct ruby_mem *m, const struct ruby_offsets *o,
    uint64_t s, char *buf, size_t len)
{
	uint64_t flags, n, ptr;
	int rc;

	if (len == 0)
		return (-EINVAL);
	buf[0] = '\0';
	if (!ruby_is_object(s))
		return (-EINVAL);
	if ((rc = ruby_read_u64(m, s, &flags)) != 0)
		return (rc);
	if ((flags & RUBY_T_MASK) != RUBY_T_STRING)
		return (-EINVAL);
	if (flags & RSTRING_NOEMBED) {
		if ((rc = ruby_read_u64(m, s + o->rstring_len, &n)) != 0 ||
		    (rc = ruby_read_u64(m, s + o->rstring_heap_ptr,
		    &ptr)) != 0)
			return (rc);
	} else {
		if (o->rstring_len_in_flags)
			n = (flags >> RSTRING_EMBED_SHIFT) & 0x1f;
		else if ((rc = ruby_read_u64(m, s + o->rstring_len,
		    &n)) != 0)
			return (rc);
		ptr = s + o->rstring_embed;
	}
	return (langmem_read_text(m->read, m->arg, ptr, n, buf, len));
}

/*
 * Where an Array's elements are (embedded in it, or on the heap), given
 * its flags word; -EINVAL if it is not an Array.  The length is the
 * caller's to bound.
 */
int
ruby_array_elems(const struct ruby_mem *m, const struct ruby_offsets *o,
    uint64_t ary, uint64_t flags, uint64_t *elems)
{
	if ((flags & RUBY_T_MASK) != RUBY_T_ARRAY)
		return (-EINVAL);
	if (flags & RARRAY_EMBED) {
		*elems = ary + o->rarray_embed;
		return (0);
	}
	return (ruby_read_u64(m, ary + o->rarray_heap_ptr, elems));
}

/*
 * The path of an iseq: pathobj is a String, or an Array [path, realpath];
 * rbspy prints the absolute (real) path when there is one.
 */
static int
ruby_read_path(const struct ruby_mem *m, const struct ruby_offsets *o,
    uint64_t pathobj, char *buf, size_t len)
{
	uint64_t flags, elems;
	uint8_t two[16];
	int rc;

	if (!ruby_is_object(pathobj))
		return (-EINVAL);
	if ((rc = ruby_read_u64(m, pathobj, &flags)) != 0)
		return (rc);
	if ((flags & RUBY_T_MASK) == RUBY_T_STRING)
		return (ruby_read_string(m, o, pathobj, buf, len));
	if ((rc = ruby_array_elems(m, o, pathobj, flags, &elems)) != 0)
		return (rc);
	if ((rc = m->read(m->arg, elems, two, sizeof(two))) != 0)
		return (rc);
	if (ruby_read_string(m, o, ruby_get64(two + 8), buf, len) == 0)
		return (0);
	return (ruby_read_string(m, o, ruby_get64(two), buf, len));
}

/*
 * The line executing in an iseq body at pc, as rb_iseq_line_no() finds it
 * (iseq.c: the instruction index, then succ_index_lookup() over the
 * succinct bit vector of instruction positions, then that entry of the
 * insn info table).  -errno if a read fails or the table is not sane.
 */
int
ruby_line_of(const struct ruby_mem *m, const struct ruby_offsets *o,
    uint64_t body, uint64_t pc, uint32_t *line)
{
	uint64_t encoded, entries, table, pos, v, bits;
	uint32_t size, index, rank, bit, small;
	int rc;

	if ((rc = ruby_read_u64(m, body + o->body_iseq_encoded,
	    &encoded)) != 0 ||
	    (rc = ruby_read_u64(m, body + o->body_insn_info_body,
	    &entries)) != 0 ||
	    (rc = ruby_read_u32(m, body + o->body_insn_info_size,
	    &size)) != 0)
		return (rc);
	if (size == 0 || size > RUBY_MAX_INSN_INFO || pc < encoded ||
	    (pc - encoded) / 8 > (uint64_t)RUBY_MAX_INSN_INFO * 64)
		return (-EINVAL);
	if (size == 1)
		return (ruby_read_u32(m, entries, line));
	/* pc points after the instruction being executed */
	pos = (pc - encoded) / 8;
	if (pos != 0)
		pos--;
	if ((rc = ruby_read_u64(m, body + o->body_succ_index_table,
	    &table)) != 0)
		return (rc);
	if (pos < SUCC_IMM_SIZE) {
		if ((rc = ruby_read_u64(m, table + pos / 9 * 8, &v)) != 0)
			return (rc);
		index = (uint32_t)(v >> (pos % 9 * 7)) & 0x7f;
	} else {
		uint64_t blk = table + SUCC_PART + (pos - SUCC_IMM_SIZE) /
		    512 * SUCC_BLOCK_SIZE;

		bit = (uint32_t)((pos - SUCC_IMM_SIZE) % 512);
		small = bit / 64;
		if ((rc = ruby_read_u32(m, blk, &rank)) != 0 ||
		    (rc = ruby_read_u64(m, blk + 8, &v)) != 0 ||
		    (rc = ruby_read_u64(m, blk + 16 + small * 8,
		    &bits)) != 0)
			return (rc);
		index = rank + (small == 0 ? 0 :
		    (uint32_t)(v >> ((small - 1) * 9)) & 0x1ff) +
		    (uint32_t)__builtin_popcountll(bits << (63 - bit % 64));
	}
	if (index == 0 || index > size)
		return (-EINVAL);
	return (ruby_read_u32(m, entries + (uint64_t)(index - 1) *
	    o->insn_info_entry_size, line));
}

/* The first line of the method: the fallback when the table fails. */
static uint32_t
ruby_first_line(const struct ruby_mem *m, const struct ruby_offsets *o,
    uint64_t body)
{
	uint64_t v;

	if (ruby_read_u64(m, body + o->body_location + o->loc_first_lineno,
	    &v) != 0)
		return (0);
	if (o->lineno_fixnum)
		return ((v & 1) ? (uint32_t)(v >> 1) : 0);
	return ((uint32_t)v);
}

/*
 * The line at pc of an iseq body: known (fc), else from its line table
 * (kept), else, when the table is not sane, the method's first line (not
 * kept: it may be a torn read).  0, or -errno of a failed read (the
 * process gone, the code freed: no line to give).
 */
static int
ruby_line_cached(const struct ruby_mem *m, const struct ruby_offsets *o,
    struct ruby_fcache *fc, uint64_t body, uint64_t pc, uint32_t *line)
{
	struct ruby_lentry *l = NULL;
	int rc;

	if (fc != NULL) {
		l = &fc->l[((body ^ pc * 0x9e3779b97f4a7c15ull) *
		    0x9e3779b97f4a7c15ull) >> 54 & (RUBY_LCACHE - 1)];
		if (l->pc == pc && l->body == body) {
			*line = l->line;
			return (0);
		}
	}
	if ((rc = ruby_line_of(m, o, body, pc, line)) == -EINVAL) {
		*line = ruby_first_line(m, o, body);
		return (0);
	}
	if (rc == 0 && l != NULL) {
		l->body = body;
		l->pc = pc;
		l->line = *line;
	}
	return (rc);
}

/* The frame of an iseq at pc; *ep (ep may be NULL): its entry in fc
 * (NULL: none). */
static int
ruby_walk_frame(const struct ruby_mem *m, const struct ruby_offsets *o,
    uint64_t iseq, uint64_t pc, struct ruby_fcache *fc, char *out,
    size_t outlen, struct ruby_fentry **ep)
{
	char name[RUBY_MAX_NAME], file[RUBY_MAX_FILE];
	const char *prefix;
	uint64_t flags, body, label, pathobj;
	uint32_t line;
	int rc, k;
	struct ruby_fentry *e = NULL;

	if (ep != NULL)
		*ep = NULL;
	/* Only instruction sequences: C frames hold a method entry. */
	if ((rc = ruby_read_u64(m, iseq, &flags)) != 0)
		return (rc);
	if ((flags & RUBY_T_MASK) != RUBY_T_IMEMO ||
	    ((flags >> RUBY_FL_USHIFT) & 0xf) != RUBY_IMEMO_ISEQ)
		return (1);
	if ((rc = ruby_read_u64(m, iseq + o->iseq_body, &body)) != 0 ||
	    (rc = ruby_read_u64(m, body + o->body_location + o->loc_label,
	    &label)) != 0 ||
	    (rc = ruby_read_u64(m, body + o->body_location + o->loc_pathobj,
	    &pathobj)) != 0)
		return (rc);
	/* Fibonacci hashing: bodies lie at multiples of 8. */
	k = (int)(((body >> 3) * 0x9e3779b97f4a7c15ull) >> 58) % RUBY_FCACHE;
	if (fc != NULL && fc->e[k].valid && fc->e[k].body == body &&
	    fc->e[k].label == label && fc->e[k].pathobj == pathobj) {
		fc->hits++;
		e = &fc->e[k];
		prefix = e->text;
	} else {
		if ((rc = ruby_read_string(m, o, label, name,
		    sizeof(name))) != 0 ||
		    (rc = ruby_read_path(m, o, pathobj, file,
		    sizeof(file))) != 0)
			return (rc == -EINVAL ? -EIO : rc);
		snprintf(out, outlen, "%s (%s", name, file);
		prefix = out;
		if (fc != NULL) {
			fc->misses++;
			e = &fc->e[k];
			memset(e, 0, offsetof(struct ruby_fentry, text));
			e->body = body;
			e->label = label;
			e->pathobj = pathobj;
			e->valid = 1;
			snprintf(e->text, sizeof(e->text), "%s", out);
			prefix = e->text;
		}
	}
	if ((rc = ruby_line_cached(m, o, fc, body, pc, &line)) != 0)
		return (rc);
	if (ep != NULL)
		*ep = e;
	if (prefix != out)
		snprintf(out, outlen, "%s:%u)", prefix, line);
	else {
		size_t l = strlen(out);

		snprintf(out + l, outlen - l, ":%u)", line);
	}
	return (0);
}

/* The running execution context; 0 in *ec when no thread runs Ruby. */
static int
ruby_find_ec(const struct ruby_mem *m, const struct ruby_offsets *o,
    uint64_t root, struct ruby_fcache *fc, uint64_t *ec)
{
	uint64_t vm, ractor;
	int rc;

	*ec = 0;
	if (o->ec_direct)
		return (ruby_read_u64(m, root, ec));
	if (fc != NULL && fc->ractor != 0)
		return (ruby_read_u64(m, fc->ractor + o->ractor_running_ec,
		    ec));
	if ((rc = ruby_read_u64(m, root, &vm)) != 0)
		return (rc);
	if (vm == 0)	/* not booted yet */
		return (0);
	if ((rc = ruby_read_u64(m, vm + o->vm_main_ractor, &ractor)) != 0)
		return (rc);
	if (ractor == 0)
		return (0);
	if ((rc = ruby_read_u64(m, ractor + o->ractor_running_ec, ec)) != 0)
		return (rc);
	if (fc != NULL)
		fc->ractor = ractor;
	return (0);
}

int
ruby_walk_stack(const struct ruby_mem *m, const struct ruby_offsets *o,
    uint64_t root, uint32_t max, struct ruby_fcache *fc, ruby_frame_fn fn,
    void *arg, uint32_t *n)
{
	char text[RUBY_MAX_FRAME_TEXT];
	uint8_t cf[128];
	uint64_t ec, stack, size, cfp, end, pc, iseq;
	int rc;

	*n = 0;
	if (max > RUBY_MAX_FRAMES)
		max = RUBY_MAX_FRAMES;
	if (o->cfp_size < o->cfp_iseq + 8 || o->cfp_size < o->cfp_ep + 8 ||
	    o->cfp_size > sizeof(cf))
		return (-EINVAL);
	if ((rc = ruby_find_ec(m, o, root, fc, &ec)) != 0 || ec == 0)
		return (rc);
	if ((rc = ruby_read_u64(m, ec + o->ec_vm_stack, &stack)) != 0 ||
	    (rc = ruby_read_u64(m, ec + o->ec_vm_stack_size, &size)) != 0 ||
	    (rc = ruby_read_u64(m, ec + o->ec_cfp, &cfp)) != 0)
		return (rc);
	if (stack == 0)		/* a thread being set up */
		return (0);
	if (size > RUBY_MAX_STACK_VALUES || stack + size * 8 < stack)
		return (-EIO);
	end = stack + size * 8;
	/* A frame pointer outside its stack is a torn or corrupt read. */
	if (cfp < stack || cfp > end)
		return (-EIO);
	/*
	 * The outermost control frame is the VM's own (the top frame pushed
	 * at boot on the main thread, a dummy one on other threads): Ruby's
	 * backtraces start below it (vm_backtrace.c, "skip top frames"),
	 * and rbspy's stack base is one frame short of the end too.
	 */
	if (end - stack < o->cfp_size)
		return (0);
	end -= o->cfp_size;
	/* Frames only go up: at most max of them, however big the stack. */
	for (; cfp + o->cfp_size <= end && *n < max; cfp += o->cfp_size) {
		(*n)++;
		if ((rc = m->read(m->arg, cfp, cf, o->cfp_size)) != 0)
			return (rc);
		pc = ruby_get64(cf + o->cfp_pc);
		iseq = ruby_get64(cf + o->cfp_iseq);
		/* C function and dummy frames have no pc: a C function's
		 * by its name where the symbol table is known, else left
		 * out (a failed read there costs the frame, not the stack). */
		if (pc == 0 || !ruby_is_object(iseq)) {
			if (ruby_cfunc_frame(m, o, ruby_get64(cf + o->cfp_ep),
			    fc, text, sizeof(text)) != 0)
				continue;
			if ((rc = fn(arg, text)) != 0)
				return (rc);
			continue;
		}
		rc = ruby_walk_frame(m, o, iseq, pc, fc, text, sizeof(text),
		    NULL);
		if (rc == 1)
			continue;
		if (rc != 0)
			return (rc);
		if ((rc = fn(arg, text)) != 0)
			return (rc);
	}
	return (0);
}

int
ruby_walked_frame(const struct ruby_mem *m, const struct ruby_offsets *o,
    struct ruby_fcache *fc, uint64_t code, uint64_t pc, char *out,
    size_t outlen)
{
	struct ruby_wentry *w;
	struct ruby_fentry *e;
	struct ruby_centry *ce;
	uint32_t line;
	int rc;

	if (!ruby_is_object(code))
		return (1);
	/* No pc: a C function's method entry (or a C block's ifunc, a
	 * dummy frame's: not shown).  A known entry is named unread, and a
	 * word known to name nothing (id 0: no method entry has it) is
	 * passed over unread. */
	if (pc == 0) {
		ce = ruby_centry_of(fc, code);
		if (ce->me == code && ce->id == 0)
			return (1);
		if (ce->me == code && ce->name[0] != '\0') {
			snprintf(out, outlen, "%s [c function] ((unknown):0)",
			    ce->name);
			return (0);
		}
		rc = ruby_cfunc_me(m, o, code, fc, out, outlen);
		if (rc == 1 && o->global_symbols != 0) {
			ce->me = code;
			ce->id = 0;
			ce->name[0] = '\0';
		}
		/* one frame's method gone since: that frame, not the stack */
		return (rc < 0 && rc != -ESRCH ? 1 : rc);
	}
	w = &fc->w[((code >> 3) * 0x9e3779b97f4a7c15ull) >> 56 &
	    (RUBY_WCACHE - 1)];
	e = &fc->e[w->slot % RUBY_FCACHE];
	if (w->iseq == code && e->valid && e->body == w->body) {
		fc->hits++;
		if ((rc = ruby_line_cached(m, o, fc, e->body, pc,
		    &line)) != 0)
			return (rc);
		snprintf(out, outlen, "%s:%u)", e->text, line);
		return (0);
	}
	if ((rc = ruby_walk_frame(m, o, code, pc, fc, out, outlen,
	    &e)) == 0 && e != NULL) {
		w->iseq = code;
		w->body = e->body;
		w->slot = (uint32_t)(e - fc->e);
	}
	return (rc);
}
