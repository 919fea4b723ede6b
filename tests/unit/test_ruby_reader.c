/*
 * The Ruby reader over memory images laid out as the VM lays out its
 * structs (the offsets of ruby_offsets.c): frame texts as gProfiler
 * writes rbspy's, the line from the succinct line table, C frames by
 * name from the global symbol table (or left out), each String layout, huge lengths, unmapped pointers, a stack
 * that is not one; then the walker over bytes captured from a live ruby
 * (every read of a walk recorded, the process killed, the walk repeated
 * over the recording), the version and symbol lookup in the real libruby
 * when it is installed, and maps parsing.
 */
#include "config.h"

#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testing.h"
#include "python_spawn.h"
#include "ruby_target.h"
#include "base/safeopen.h"

#define BASE		0x10000ull
#define SIZE		0x20000u
#define MEMIMG_BASE	BASE
#define MEMIMG_SIZE	SIZE
#include "memimg.h"

/* A String at addr, embedded if it fits in 23 bytes, else on the heap
 * (its bytes at addr + 0x100). */
static void
put_str(const struct ruby_offsets *o, uint64_t addr, const char *s)
{
	uint64_t n = strlen(s), flags = 0x05;

	if (n <= 23) {
		if (o->rstring_len_in_flags)
			flags |= n << 14;
		else
			put64(addr + o->rstring_len, n);
		memcpy(img + (addr - BASE) + o->rstring_embed, s, n);
	} else {
		flags |= 1u << 13;
		put64(addr + o->rstring_len, n);
		put64(addr + o->rstring_heap_ptr, addr + 0x100);
		memcpy(img + (addr + 0x100 - BASE), s, n);
	}
	put64(addr, flags);
}

struct collect {
	char f[8][512];
	uint32_t n;
};

static int
collect(void *arg, const char *text)
{
	struct collect *c = arg;

	if (c->n < 8)
		snprintf(c->f[c->n], sizeof(c->f[0]), "%s", text);
	c->n++;
	return (0);
}

#define VM	0x11000ull
#define RACTOR	0x11100ull
#define EC	0x11800ull
#define STACK	0x12000ull
#define NVAL	0x200u		/* VM stack size in VALUEs (4 KiB) */
#define END	(STACK + NVAL * 8)
#define CF_EP	0x19010ull	/* the C frame's env */
#define SYMS	0x1a000ull	/* ruby_global_symbols */
#define CF_SERIAL 300u		/* the C function's ID serial */

/* An iseq at addr (its body at addr + 0x40) named label in path. */
static uint64_t
put_iseq(const struct ruby_offsets *o, uint64_t addr, uint64_t strs,
    const char *label, const char *path, uint32_t first)
{
	uint64_t body = addr + 0x40;

	put64(addr, 0x1a | 7u << 12);		/* T_IMEMO, imemo_iseq */
	put64(addr + o->iseq_body, body);
	put64(body + o->body_location + o->loc_label, strs);
	put_str(o, strs, label);
	put64(body + o->body_location + o->loc_pathobj, strs + 0x200);
	put_str(o, strs + 0x200, path);
	put64(body + o->body_location + o->loc_first_lineno,
	    o->lineno_fixnum ? (uint64_t)first << 1 | 1 : first);
	return (body);
}

/*
 * A line table for body: instructions start at positions pos[] (lines
 * line[]), encoded at enc; the succinct table built as iseq.c builds it.
 */
static void
put_lines(const struct ruby_offsets *o, uint64_t body, uint64_t enc,
    uint64_t tab, uint64_t ent, const uint32_t *pos, const uint32_t *line,
    uint32_t n)
{
	uint64_t imm[6] = { 0 }, bits = 0;
	uint32_t i, x, r;

	put64(body + o->body_iseq_encoded, enc);
	put64(body + o->body_insn_info_body, ent);
	put32(body + o->body_insn_info_size, n);
	put64(body + o->body_succ_index_table, tab);
	for (i = 0; i < n; i++)
		put32(ent + (uint64_t)i * o->insn_info_entry_size, line[i]);
	for (x = 0; x < 54; x++) {
		for (i = 0, r = 0; i < n; i++)
			r += pos[i] <= x;
		imm[x / 9] |= (uint64_t)r << (x % 9 * 7);
	}
	for (i = 0; i < 6; i++)
		put64(tab + i * 8, imm[i]);
	/* one dictionary block for positions 54..565 */
	for (i = 0, r = 0; i < n; i++)
		if (pos[i] < 54)
			r++;
		else if (pos[i] < 54 + 64)
			bits |= 1ull << (pos[i] - 54);
	put32(tab + 48, r);			/* rank */
	put64(tab + 48 + 8, 0);			/* small block ranks */
	put64(tab + 48 + 16, bits);		/* bits[0] */
}

/*
 * root -> vm -> main ractor -> running ec (3.x) or root -> ec (2.7);
 * control frames, leaf first: hot_a (line table), a C frame, work
 * (one-entry table), <main>, and the VM's outermost frame.
 */
static void
build_stack(const struct ruby_offsets *o)
{
	static const uint32_t pos[] = { 0, 3, 7, 60 }, line[] = { 5, 6, 7, 9 };
	uint64_t cfp, b_hot, b_work, b_main, b_top;

	memset(img, 0, sizeof(img));
	if (o->ec_direct)
		put64(BASE, EC);
	else {
		put64(BASE, VM);
		put64(VM + o->vm_main_ractor, RACTOR);
		put64(RACTOR + o->ractor_running_ec, EC);
	}
	put64(EC + o->ec_vm_stack, STACK);
	put64(EC + o->ec_vm_stack_size, NVAL);
	cfp = END - 5 * (uint64_t)o->cfp_size;
	put64(EC + o->ec_cfp, cfp);

	b_hot = put_iseq(o, 0x14000, 0x15000, "hot_a", "/srv/app/x.rb", 4);
	put_lines(o, b_hot, 0x16000, 0x16800, 0x16c00, pos, line, 4);
	b_work = put_iseq(o, 0x14400, 0x15400, "block in work",
	    "/srv/app/lib/a/rather/long/path/work.rb", 20);
	put_lines(o, b_work, 0x17000, 0x17800, 0x17c00, pos, line + 2, 1);
	b_main = put_iseq(o, 0x14800, 0x15800, "<main>", "/srv/app/x.rb", 1);
	b_top = put_iseq(o, 0x14c00, 0x15c00, "<main>", "<top>", 0);
	(void)b_main;
	(void)b_top;
	/* hot_a executing the instruction at position 5 (line 6) */
	put64(cfp + o->cfp_pc, 0x16000 + 6 * 8);
	put64(cfp + o->cfp_iseq, 0x14000);
	/* a C function: no pc, a method entry in the iseq slot */
	cfp += o->cfp_size;
	put64(cfp + o->cfp_iseq, 0x14f00);
	put64(0x14f00, 0x1a | 6u << 12);	/* imemo_ment */
	/* its env: ep[0] the C frame's magic, ep[-2] the method entry,
	 * whose called_id is named in the global symbol table */
	put64(cfp + o->cfp_ep, CF_EP);
	put64(CF_EP, 0x55550083);
	put64(CF_EP - 16, 0x14f00);
	put64(0x14f00 + 24, (uint64_t)CF_SERIAL << 4 | 1);
	put32(SYMS, CF_SERIAL + 10);			/* last_id */
	put64(SYMS + 16, SYMS + 0x100);			/* ids */
	put64(SYMS + 0x100, 0x07);			/* T_ARRAY, heap */
	put64(SYMS + 0x100 + o->rarray_heap_ptr, SYMS + 0x200);
	put64(SYMS + 0x200, SYMS + 0x300);		/* chunk 0 */
	put64(SYMS + 0x300, 0x07);
	put64(SYMS + 0x300 + o->rarray_heap_ptr, SYMS + 0x400);
	put64(SYMS + 0x400 + CF_SERIAL * 16, SYMS + 0x2000);
	put_str(o, SYMS + 0x2000, "sort");
	put64(SYMS + 0x400 + '+' * 16, SYMS + 0x2400);
	put_str(o, SYMS + 0x2400, "+");
	cfp += o->cfp_size;
	put64(cfp + o->cfp_pc, 0x17000 + 8);
	put64(cfp + o->cfp_iseq, 0x14400);
	cfp += o->cfp_size;
	/* <main>: its line table fails (no table): the first line */
	put64(cfp + o->cfp_pc, 0x18008);
	put64(cfp + o->cfp_iseq, 0x14800);
	cfp += o->cfp_size;
	put64(cfp + o->cfp_pc, 0x18000);
	put64(cfp + o->cfp_iseq, 0x14c00);
}

static void
walk_version(int major, int minor)
{
	struct ruby_mem m = { img_read, NULL };
	struct ruby_version v = { major, minor, 1 };
	struct ruby_offsets o;
	struct collect c;
	char why[128], what[64];
	uint32_t n;
	int rc;

	snprintf(what, sizeof(what), "%d.%d", major, minor);
	CHECK(ruby_offsets_for(&v, &o, why, sizeof(why)) == 0, what);
	build_stack(&o);
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK(rc == 0 && c.n == 3 && n == 4, what);
	CHECK_STREQ(c.f[0], "hot_a (/srv/app/x.rb:6)",
	    "leaf: label (path:line of the pc, from the succinct table)");
	CHECK_STREQ(c.f[1], "block in work (/srv/app/lib/a/rather/long/path/"
	    "work.rb:7)", "C frame skipped; heap String; one-entry table");
	CHECK_STREQ(c.f[2], "<main> (/srv/app/x.rb:1)",
	    "root: no line table, the first line; VM's top frame left out");

	/* The symbol table known: the C frame by its name, as rbspy's. */
	o.global_symbols = SYMS;
	o.last_op_id = 0xa9;
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	snprintf(what, sizeof(what), "%d.%d: the C function by name", major,
	    minor);
	CHECK(rc == 0 && c.n == 4 && strcmp(c.f[1],
	    "sort [c function] ((unknown):0)") == 0, what);
	{
		static struct ruby_fcache fc;
		int k, same = 1;

		memset(&fc, 0, sizeof(fc));
		for (k = 0; k < 2; k++) {
			memset(&c, 0, sizeof(c));
			rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES,
			    &fc, collect, &c, &n);
			same &= rc == 0 && c.n == 4 && strcmp(c.f[1],
			    "sort [c function] ((unknown):0)") == 0;
		}
		snprintf(what, sizeof(what), "%d.%d: the C function's name "
		    "cached by its method entry", major, minor);
		CHECK(same, what);
	}
	/* An operator's ID is its own serial (at most tLAST_OP_ID). */
	put64(0x14f00 + 24, '+');
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK(rc == 0 && c.n == 4 && strcmp(c.f[1],
	    "+ [c function] ((unknown):0)") == 0, "an operator's C function");
	/* Hostile tables: the frame is left out, the stack kept. */
	put64(0x14f00 + 24, (uint64_t)(CF_SERIAL + 11) << 4 | 1);
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK(rc == 0 && c.n == 3, "an ID past last_id: frame left out");
	put64(0x14f00 + 24, (uint64_t)CF_SERIAL << 4 | 1);
	put64(SYMS + 0x100, 0x05);
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK(rc == 0 && c.n == 3, "ids not an Array: frame left out");
	put64(SYMS + 0x100, 0x07);
	put64(CF_EP, 0x11110001);
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK(rc == 0 && c.n == 3, "not a C frame's magic: left out");
}

/* The reads a walked frame costs (ruby_walked_frame). */
static unsigned walked_reads;

static int
count_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	walked_reads++;
	return (img_read(arg, addr, buf, len));
}

/*
 * The frames the system profiler walks over the same image, root first
 * as they arrive (iseq and pc; the C function's method entry with pc 0):
 * the texts ruby_walk_stack gives, then, known, without a read.
 */
static void
walked_version(int major, int minor)
{
	struct ruby_mem m = { count_read, NULL };
	struct ruby_version v = { major, minor, 1 };
	static struct ruby_fcache fc;
	struct ruby_offsets o;
	static const uint64_t walk[] = {
		0x14800, 0x18008,		/* <main> */
		0x14400, 0x17000 + 8,		/* block in work */
		0x14f00, 0,			/* sort, a C function */
		0x14000, 0x16000 + 6 * 8,	/* hot_a, the leaf */
	};
	static const char *const want[] = {
		"<main> (/srv/app/x.rb:1)",
		"block in work (/srv/app/lib/a/rather/long/path/work.rb:7)",
		"sort [c function] ((unknown):0)",
		"hot_a (/srv/app/x.rb:6)",
	};
	char text[RUBY_MAX_FRAME_TEXT], why[128], what[96];
	unsigned k, i, first = 0, ok = 1;
	int rc;

	(void)ruby_offsets_for(&v, &o, why, sizeof(why));
	build_stack(&o);
	o.global_symbols = SYMS;
	o.last_op_id = 0xa9;
	memset(&fc, 0, sizeof(fc));
	/* <main> has no line table: its first line, read each time (a
	 * failed table is not trusted), so it is left out of the count */
	for (k = 0; k < 2; k++) {
		walked_reads = 0;
		for (i = 0; i < 4; i++) {
			if (i == 1)
				walked_reads = 0;
			rc = ruby_walked_frame(&m, &o, &fc, walk[2 * i],
			    walk[2 * i + 1], text, sizeof(text));
			ok &= rc == 0 && strcmp(text, want[i]) == 0;
		}
		if (k == 0)
			first = walked_reads;
	}
	snprintf(what, sizeof(what), "%d.%d: walked frames named as read "
	    "ones (%u reads, then %u)", major, minor, first, walked_reads);
	CHECK(ok && first > 0 && walked_reads == 0, what);
	/* a new pc of a known iseq: its line, read once */
	walked_reads = 0;
	rc = ruby_walked_frame(&m, &o, &fc, 0x14000, 0x16000 + 1 * 8, text,
	    sizeof(text));
	CHECK(rc == 0 && strcmp(text, "hot_a (/srv/app/x.rb:5)") == 0 &&
	    walked_reads > 0, "walked: a new pc of a known iseq, its line");
	/* what is no frame: not an object, an ifunc's, a freed method */
	CHECK(ruby_walked_frame(&m, &o, &fc, 0, 0, text, sizeof(text)) ==
	    1 && ruby_walked_frame(&m, &o, &fc, 0x14003, 5, text,
	    sizeof(text)) == 1, "walked: a code word not an object: no frame");
	put64(0x14e00, 0x1a | 10u << 12);	/* imemo_ifunc */
	CHECK(ruby_walked_frame(&m, &o, &fc, 0x14e00, 0, text,
	    sizeof(text)) == 1, "walked: a C block's ifunc: no frame");
	walked_reads = 0;
	CHECK(ruby_walked_frame(&m, &o, &fc, 0x14e00, 0, text,
	    sizeof(text)) == 1 && walked_reads == 0,
	    "walked: that ifunc again: no frame, no read");
	walked_reads = 0;
	CHECK(ruby_walked_frame(&m, &o, &fc, 0x14f00, 0, text,
	    sizeof(text)) == 0 && strcmp(text,
	    "sort [c function] ((unknown):0)") == 0 && walked_reads == 0,
	    "walked: the C function still named unread");
	CHECK(ruby_walked_frame(&m, &o, &fc, 0x90000, 0, text,
	    sizeof(text)) == 1, "walked: a method entry gone: that frame only");
	/* an iseq gone (the process exited): no line to give, the sample
	 * fails rather than show a wrong one */
	CHECK(ruby_walked_frame(&m, &o, &fc, 0x90000, 0x16008, text,
	    sizeof(text)) == -EFAULT, "walked: an iseq not readable fails");
}

/* Code bytes for ruby_ids_locate: a buffer at a virtual address. */
struct code {
	const uint8_t *b;
	size_t len;
	uint64_t vaddr;
};

static int64_t
code_read(void *arg, uint64_t vaddr, uint8_t *buf, size_t len)
{
	const struct code *c = arg;

	if (vaddr < c->vaddr || vaddr - c->vaddr >= c->len)
		return (-1);
	if (len > c->len - (vaddr - c->vaddr))
		len = c->len - (vaddr - c->vaddr);
	memcpy(buf, c->b + (vaddr - c->vaddr), len);
	return ((int64_t)len);
}

static void
put_rel(uint8_t *at, uint64_t next_ip, uint64_t target)
{
	int32_t rel = (int32_t)(target - next_ip);
	int i;

	for (i = 0; i < 4; i++)
		at[i] = (uint8_t)((uint32_t)rel >> (8 * i));
}

static void
test_ids_locate(void)
{
	/* As Debian's 3.1 (rb_id2str tail-calls get_id_serial_entry):
	 * mov %rdi,%rax; shr $4,%rax; cmp $0xa9,%rdi; cmova %eax,%edi;
	 * xor %esi,%esi; jmp F.  F: ... cmp %edi,last_id(%rip) ...
	 * mov ids(%rip),%rdi. */
	static const uint8_t head[] = { 0x48, 0x89, 0xf8, 0x48, 0xc1, 0xe8,
	    0x04, 0x48, 0x81, 0xff, 0xa9, 0x00, 0x00, 0x00, 0x0f, 0x47, 0xf8,
	    0x31, 0xf6, 0xe9 };
	uint8_t text[0x400];
	struct code c = { text, sizeof(text), 0x206000 };
	uint64_t id2str = 0x206300, f = 0x206010, syms = 0x3af1c0, got;
	uint32_t op;

	memset(text, 0x90, sizeof(text));
	memcpy(text + 0x300, head, sizeof(head));
	put_rel(text + 0x300 + sizeof(head), id2str + sizeof(head) + 4, f);
	text[0x39] = 0x39; text[0x3a] = 0x3d;		/* cmp %edi, rel */
	put_rel(text + 0x3b, f + 0x29 + 6, syms);
	text[0x41] = 0x48; text[0x42] = 0x8b; text[0x43] = 0x3d;
	put_rel(text + 0x44, f + 0x31 + 7, syms + 16);
	CHECK(ruby_ids_locate(code_read, &c, id2str, &got, &op) == 0 &&
	    got == syms && op == 0xa9, "ids: found through the tail call");
	/* The load 8 bytes after the compare's operand: not the table. */
	put_rel(text + 0x44, f + 0x31 + 7, syms + 8);
	CHECK(ruby_ids_locate(code_read, &c, id2str, &got, &op) == -ENOENT &&
	    got == 0 && op == 0, "ids: operands not 16 bytes apart refused");
	put_rel(text + 0x44, f + 0x31 + 7, syms + 16);
	/* The same code inline in rb_id2str. */
	memcpy(text + 0x300 + 14, text + 0x39, 15);
	CHECK(ruby_ids_locate(code_read, &c, id2str, &got, &op) == 0 &&
	    got == syms + (id2str + 14) - (f + 0x29), "ids: found inline");
	/* No tLAST_OP_ID compare, or nothing mapped: not found. */
	text[0x300 + 8] = 0x83;
	CHECK(ruby_ids_locate(code_read, &c, id2str, &got, &op) == -ENOENT,
	    "ids: no tLAST_OP_ID compare: not found");
	CHECK(ruby_ids_locate(code_read, &c, 0x100, &got, &op) == -ENOENT,
	    "ids: rb_id2str outside the code: not found");
}

static void
test_walk(void)
{
	struct ruby_mem m = { img_read, NULL };
	struct ruby_version v = { 3, 1, 2 };
	struct ruby_offsets o;
	struct collect c;
	char why[128];
	uint32_t n, line;
	int rc;

	walk_version(2, 7);
	walk_version(3, 0);
	walk_version(3, 1);
	walk_version(3, 2);
	walk_version(3, 3);
	walk_version(3, 4);
	walked_version(3, 0);
	walked_version(3, 1);
	walked_version(3, 3);

	(void)ruby_offsets_for(&v, &o, why, sizeof(why));
	CHECK_INTEQ(o.cfp_size, 64, "3.1 control frame is 64 bytes");
	build_stack(&o);

	/* The block part of the line table (positions past 54). */
	CHECK(ruby_line_of(&m, &o, 0x14040, 0x16000 + 101 * 8, &line) == 0 &&
	    line == 9, "line of a position in the dictionary block");
	CHECK(ruby_line_of(&m, &o, 0x14040, 0x16000 + 55 * 8, &line) == 0 &&
	    line == 7, "line just before it");

	/* max frames bounds the walk */
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, 1, NULL, collect, &c, &n);
	CHECK(rc == 0 && c.n == 1 && n == 1, "max frames bounds the walk");

	/* A pathobj Array [path, realpath]: the real path. */
	put64(0x15200, 0x07 | 1u << 13 | 2u << 15);	/* embedded array */
	put64(0x15210, 0x15280);
	put64(0x15218, 0x15300);
	put_str(&o, 0x15280, "x.rb");
	put_str(&o, 0x15300, "/srv/app/x.rb");
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK_STREQ(c.f[0], "hot_a (/srv/app/x.rb:6)", "pathobj array: "
	    "realpath");
	put64(0x15218, 0x08);				/* realpath nil */
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK_STREQ(c.f[0], "hot_a (x.rb:6)", "pathobj array without "
	    "realpath: the path");

	/* A huge length is cut to the name buffer. */
	build_stack(&o);
	put64(0x15000, 0x05 | 1u << 13);
	put64(0x15000 + o.rstring_len, (uint64_t)1 << 62);
	put64(0x15000 + o.rstring_heap_ptr, 0x1a000);
	memset(img + (0x1a000 - BASE), 'x', 600);
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK(rc == 0 && c.n == 3 && strlen(c.f[0]) < RUBY_MAX_FRAME_TEXT &&
	    strncmp(c.f[0], "xxxxxxxx", 8) == 0, "huge string length: cut");

	/* Delimiters in a name cannot split a frame or a stack. */
	build_stack(&o);
	put_str(&o, 0x15000, "a;b\nc");
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK_STREQ(c.f[0], "a?b?c (/srv/app/x.rb:6)",
	    "';' and newline become '?'");

	/* An unmapped pointer fails the sample, cleanly. */
	build_stack(&o);
	put64(0x14000 + o.iseq_body, 0xdead0000);
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK_INTEQ(rc, -EFAULT, "unmapped body pointer: -EFAULT");

	/* A label that is not a String: the sample fails, no garbage. */
	build_stack(&o);
	put64(0x15000, 0x07);
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK(rc == -EIO && c.n == 0, "label not a String: -EIO");

	/* A stack that cannot be one, a frame pointer outside it. */
	build_stack(&o);
	put64(EC + o.ec_vm_stack_size, (uint64_t)1 << 60);
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK_INTEQ(rc, -EIO, "huge VM stack size: -EIO");
	build_stack(&o);
	put64(EC + o.ec_cfp, END + 64);
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK_INTEQ(rc, -EIO, "frame pointer past the stack: -EIO");
	/* A frame pointer at the very start: bounded by max, not by size. */
	build_stack(&o);
	put64(EC + o.ec_cfp, STACK);
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, 10, NULL, collect, &c, &n);
	CHECK(rc == 0 && n == 10, "empty frames up to max, no more");

	/* The text cache: hits while the body is the same; another label
	 * at the same body is not served the old text. */
	{
		static struct ruby_fcache fc;

		build_stack(&o);
		memset(&c, 0, sizeof(c));
		rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, &fc,
		    collect, &c, &n);
		memset(&c, 0, sizeof(c));
		rc |= ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, &fc,
		    collect, &c, &n);
		CHECK(rc == 0 && fc.misses == 3 && fc.hits == 3 &&
		    strcmp(c.f[0], "hot_a (/srv/app/x.rb:6)") == 0,
		    "text cache: second walk served from it, same texts");
		put64(0x14040 + o.body_location + o.loc_label, 0x19000);
		put_str(&o, 0x19000, "hot_b");
		memset(&c, 0, sizeof(c));
		rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, &fc,
		    collect, &c, &n);
		CHECK_STREQ(c.f[0], "hot_b (/srv/app/x.rb:6)",
		    "text cache: another label at the same body");
		put64(END - 5 * (uint64_t)o.cfp_size + o.cfp_pc,
		    0x16000 + 61 * 8);
		memset(&c, 0, sizeof(c));
		rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, &fc,
		    collect, &c, &n);
		CHECK(rc == 0 && fc.ractor == RACTOR &&
		    strcmp(c.f[0], "hot_b (/srv/app/x.rb:9)") == 0,
		    "text cache: another pc, its own line; ractor kept");
	}

	/* No thread running Ruby: no frames. */
	build_stack(&o);
	put64(RACTOR + o.ractor_running_ec, 0);
	memset(&c, 0, sizeof(c));
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK(rc == 0 && c.n == 0, "GVL released: empty stack");
	put64(BASE, 0);
	rc = ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, collect,
	    &c, &n);
	CHECK(rc == 0 && c.n == 0, "VM not booted: empty stack");
}

static void
test_versions(void)
{
	struct ruby_version v, v26 = { 2, 6, 10 }, v35 = { 3, 5, 0 };
	struct ruby_offsets o;
	char why[128];

	CHECK(ruby_version_parse("3.1.2", 5, &v) == 0 && v.major == 3 &&
	    v.minor == 1 && v.patch == 2, "version parsed");
	CHECK(ruby_version_parse("3.x", 3, &v) != 0, "malformed refused");
	CHECK(ruby_version_parse("3.1", 3, &v) != 0, "two numbers refused");
	CHECK(ruby_offsets_for(&v26, &o, why, sizeof(why)) == -ENOTSUP &&
	    strcmp(why, "Ruby 2.6.10 is not supported (Ruby 2.7-3.4 are)") ==
	    0, "2.6 refused, one clear line");
	CHECK(ruby_offsets_for(&v35, &o, why, sizeof(why)) == -ENOTSUP,
	    "3.5 refused");
}

static void
test_maps(void)
{
	static const char maps[] =
	    "55d0c0000000-55d0c0001000 r--p 00000000 08:01 1234 "
	    "/usr/bin/ruby3.1\n"
	    "7f0000000000-7f0000100000 r--p 00000000 08:01 99 "
	    "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1\n"
	    "7f0000200000-7f0000201000 rw-p 00000000 00:00 0 \n";
	static const char stat[] =
	    "5500000000-5500001000 r--p 00000000 08:01 77 "
	    "/opt/rubies/3.3.0/bin/ruby\n";
	static const char other[] =
	    "5500000000-5500001000 r--p 00000000 08:01 77 /usr/bin/python3\n";
	struct ruby_object ob;

	CHECK(ruby_maps_find(maps, sizeof(maps) - 1, 1234, &ob, NULL) == 0 &&
	    ob.start == 0x7f0000000000ull && strcmp(ob.path,
	    "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1") == 0,
	    "libruby*.so wins");
	CHECK(ruby_maps_find(stat, sizeof(stat) - 1, 77, &ob, NULL) == 0 &&
	    strcmp(ob.path, "/opt/rubies/3.3.0/bin/ruby") == 0,
	    "a static ruby: the executable");
	CHECK(ruby_maps_find(other, sizeof(other) - 1, 77, &ob, NULL) ==
	    -ENOENT,
	    "another executable: no Ruby");
	CHECK(ruby_maps_find("garbage\n\n-\n", 11, 1, &ob, NULL) == -ENOENT,
	    "garbage maps");
	{
		struct ruby_object exe;

		CHECK(ruby_maps_find(maps, sizeof(maps) - 1, 1234, &ob,
		    &exe) == 0 && exe.found && strcmp(exe.path,
		    "/usr/bin/ruby3.1") == 0 && ob.start != exe.start,
		    "the executable beside libruby, for its build id");
	}
}

static void
test_appid(void)
{
	static const char *const a1[] = { "ruby", "-w", "app/main.rb", "x.rb" };
	static const char *const a2[] = { "/usr/bin/ruby", "-r", "./boot.rb",
	    "-rbundler/setup.rb", "/srv/job.rb" };
	static const char *const a3[] = { "puma 5.6.4 (tcp://0.0.0.0:3000)" };
	static const char *const a4[] = { "ruby", "-e", "puts 1" };
	char out[64];

	CHECK(ruby_appid(a1, 4, "/srv/app", out, sizeof(out)) == 0 &&
	    strcmp(out, "ruby: app/main.rb (/srv/app/app/main.rb)") == 0,
	    "appid: first .rb argument, joined to the cwd");
	CHECK(ruby_appid(a2, 5, "/", out, sizeof(out)) == 0 &&
	    strcmp(out, "ruby: /srv/job.rb (/srv/job.rb)") == 0,
	    "appid: -r X and -rX skipped, absolute path kept");
	CHECK(ruby_appid(a3, 1, "/srv", out, sizeof(out)) == -ENOENT &&
	    out[0] == '\0', "appid: a rewritten title has none");
	CHECK(ruby_appid(a4, 3, "/srv", out, sizeof(out)) == -ENOENT,
	    "appid: no script, none");
	CHECK(ruby_appid(a1, 4, "/a/very/long/working/directory/indeed/yes",
	    out, 40) == 0 && strcmp(out, "ruby: <path too long>") == 0,
	    "appid: never a cut path");
}

/*
 * This test program defines ruby_current_vm_ptr and ruby_version, so its
 * own ELF stands for a static ruby.
 */
__attribute__((used)) void *ruby_current_vm_ptr;
__attribute__((used)) __thread void *ruby_current_ec;
__attribute__((used)) const char ruby_version[] = "3.3.7";
__attribute__((used)) const char ruby_description[] =
    "ruby 3.3.7 (2025-01-15 revision be31f993d7) [x86_64-linux]";

static void
test_elf(void)
{
	struct ruby_elf re;
	int fd, rc;

	if ((fd = open("/proc/self/exe", O_RDONLY)) < 0) {
		CHECK(0, "open /proc/self/exe");
		return;
	}
	rc = ruby_elf_read_fd(fd, &re);
	close(fd);
	CHECK(rc == 0 && re.current_vm_ptr != 0 && re.current_ec_ptr == 0,
	    "static ruby: ruby_current_vm_ptr found");
	CHECK(re.has_ver && re.ver.major == 3 && re.ver.minor == 3 &&
	    re.ver.patch == 7, "version read at the ruby_version symbol");
	CHECK_STREQ(re.description, ruby_description,
	    "ruby_description read at its symbol");
	CHECK(re.has_tls_ec && re.has_pt_tls && re.tls_module_got == 0,
	    "static ruby: ruby_current_ec in its own TLS block (module 1, "
	    "no GOT slot)");
	CHECK(ruby_elf_read_mem("\177ELF", 4, &re) == -ENOEXEC,
	    "a truncated ELF is refused");
}

/* The real libruby, when the machine has one (Debian's ruby). */
static void
test_real_library(void)
{
	static const char lib[] =
	    "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1";
	struct ruby_elf re;
	int fd, rc;

	if ((fd = open(lib, O_RDONLY)) < 0) {
		printf("ok %d - # SKIP %s not installed\n", ++testing_n, lib);
		return;
	}
	rc = ruby_elf_read_fd(fd, &re);
	close(fd);
	CHECK(rc == 0 && re.current_vm_ptr != 0, "libruby-3.1: "
	    "ruby_current_vm_ptr found");
	CHECK(re.has_ver && re.ver.major == 3 && re.ver.minor == 1,
	    "libruby-3.1: version 3.1 from its ruby_version");
	{
		char id[160];

		ruby_elf_buildid_text(&re, id, sizeof(id));
		printf("# ruby_global_symbols at %#jx, tLAST_OP_ID %#x\n",
		    (uintmax_t)re.global_symbols, re.last_op_id);
		CHECK(re.global_symbols != 0 && re.last_op_id == 0xa9,
		    "libruby-3.1: the global symbol table found from "
		    "rb_id2str's code");
		printf("# ruby_current_ec at %#jx of the TLS block, its "
		    "module ID in the GOT at %#jx\n", (uintmax_t)re.tls_ec,
		    (uintmax_t)re.tls_module_got);
		CHECK(re.has_tls_ec && re.has_pt_tls &&
		    re.tls_module_got != 0, "libruby-3.1: ruby_current_ec "
		    "and its module's GOT slot (R_X86_64_DTPMOD64)");
		CHECK(strncmp(re.description, "ruby 3.1.", 9) == 0 &&
		    strncmp(id, "buildid:", 8) == 0 && strlen(id) == 8 + 40,
		    "libruby-3.1: its description and build id");
		printf("# %s, %s\n", re.description, id);
	}
}

/* --- bytes captured from a live ruby ---------------------------------- */

#define CAP_MAX	4096

struct capture {
	struct ruby_target *t;
	struct {
		uint64_t addr;
		uint32_t len;
		uint32_t off;
	} r[CAP_MAX];
	uint32_t n;
	uint8_t *buf;
	size_t used, cap;
};

/* Reads through to the process and records what was read. */
static int
cap_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct capture *cp = arg;
	int rc;

	if ((rc = ruby_mem_proc_read(cp->t, addr, buf, len)) != 0)
		return (rc);
	if (cp->n < CAP_MAX && cp->used + len <= cp->cap) {
		cp->r[cp->n].addr = addr;
		cp->r[cp->n].len = (uint32_t)len;
		cp->r[cp->n].off = (uint32_t)cp->used;
		memcpy(cp->buf + cp->used, buf, len);
		cp->used += len;
		cp->n++;
	}
	return (0);
}

/* Serves the recording: a read not recorded is an unmapped address. */
static int
replay_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct capture *cp = arg;
	uint32_t i;

	for (i = 0; i < cp->n; i++)
		if (addr >= cp->r[i].addr && len <= cp->r[i].len &&
		    addr - cp->r[i].addr <= cp->r[i].len - len) {
			memcpy(buf, cp->buf + cp->r[i].off +
			    (addr - cp->r[i].addr), len);
			return (0);
		}
	return (-EFAULT);
}

static void
test_captured(void)
{
	static struct capture cp;
	const char *srcdir = getenv("top_srcdir");
	char script[PATH_MAX], why[256];
	char *argv[] = { "ruby", script, "5", NULL };
	struct ruby_target t = { 0 };
	struct collect live, again;
	struct ruby_mem m;
	uint32_t n;
	int rc, tries;
	pid_t pid;

	if (access("/usr/bin/ruby", X_OK) != 0) {
		printf("ok %d - # SKIP no /usr/bin/ruby\n", ++testing_n);
		return;
	}
	snprintf(script, sizeof(script), "%s/tests/workloads/ruby_deep.rb",
	    srcdir != NULL ? srcdir : ".");
	argv[0] = "/usr/bin/ruby";
	langproc_set_opener(safeopen_open_cb, NULL);
	if ((pid = py_spawn(argv, 15000)) < 0) {
		CHECK(0, "start ruby");
		return;
	}
	rc = ruby_target_attach(pid, &t, why, sizeof(why));
	CHECK(rc == 0, "attach to a live ruby");
	if (rc != 0) {
		printf("# %s\n", why);
		goto out;
	}
	cp.t = &t;
	cp.cap = 1 << 20;
	if ((cp.buf = malloc(cp.cap)) == NULL)
		goto out;
	/* The leaf may be in a C function a moment: until spin is seen. */
	for (tries = 0; tries < 100; tries++) {
		memset(&live, 0, sizeof(live));
		cp.n = 0;
		cp.used = 0;
		ruby_target_begin(&t);
		m.read = cap_read;
		m.arg = &cp;
		rc = ruby_walk_stack(&m, &t.off, t.root, RUBY_MAX_FRAMES, NULL,
		    collect, &live, &n);
		if (rc == 0 && strncmp(live.f[0], "spin (", 6) == 0)
			break;
		usleep(10000);
	}
	CHECK(rc == 0 && live.n == 8 && strncmp(live.f[0], "spin (", 6) == 0 &&
	    strstr(live.f[0], "ruby_deep.rb:") != NULL &&
	    strncmp(live.f[1], "recurse (", 9) == 0,
	    "live ruby: spin under recurse, from ruby_deep.rb");
	printf("# %s; %s; %u frames\n", live.f[0], live.f[1], live.n);
	/* The next samples read the pages the last one used in one call
	 * (langproc_pages_begin): one read a sample, the same frames. */
	{
		uint64_t r0 = t.pg.nreads, p0 = t.pg.prefetched;
		int k, same = 0;

		/* straight reads: the capture stays the first walk's */
		m.read = ruby_mem_proc_read;
		m.arg = &t;
		for (k = 0; k < 20; k++) {
			memset(&again, 0, sizeof(again));
			ruby_target_begin(&t);
			if (ruby_walk_stack(&m, &t.off, t.root,
			    RUBY_MAX_FRAMES, NULL, collect, &again, &n) == 0 &&
			    again.n == live.n &&
			    strncmp(again.f[1], "recurse (", 9) == 0)
				same++;
			if (k == 19)
				printf("# pages used by a sample: %u\n",
				    t.pg.nseen);
			usleep(2000);
		}
		/* a sample uses 16 pages or more (the cache's size): one
		 * read each before, a batch and a few misses now */
		CHECK(same >= 15 && t.pg.prefetched - p0 >= 15 &&
		    t.pg.nreads - r0 <= 20 * 6, "the last sample's pages are "
		    "read together: the same stack, a few reads a sample");
		printf("# 20 samples: %llu reads, %llu batches, %d the same\n",
		    (unsigned long long)(t.pg.nreads - r0),
		    (unsigned long long)(t.pg.prefetched - p0), same);
		/* Idle for a cycle: the caches go, the next sample makes
		 * them again and reads the same stack. */
		ruby_target_idle(&t);
		CHECK(t.pg.pages == NULL && t.fcache == NULL,
		    "an idle process's caches let go");
		memset(&again, 0, sizeof(again));
		CHECK(ruby_target_wake(&t) == 0 && t.pg.pages != NULL &&
		    t.fcache != NULL, "made again for the next sample");
		ruby_target_begin(&t);
		rc = ruby_walk_stack(&m, &t.off, t.root, RUBY_MAX_FRAMES,
		    t.fcache, collect, &again, &n);
		CHECK(rc == 0 && again.n == live.n &&
		    strncmp(again.f[1], "recurse (", 9) == 0,
		    "and a sample after it walks the same stack");
		m.read = cap_read;
		m.arg = &cp;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	pid = -1;
	/* The same walk over the captured bytes alone. */
	m.read = replay_read;
	memset(&again, 0, sizeof(again));
	rc = ruby_walk_stack(&m, &t.off, t.root, RUBY_MAX_FRAMES, NULL,
	    collect, &again, &n);
	CHECK(rc == 0 && again.n == live.n &&
	    memcmp(again.f, live.f, sizeof(live.f)) == 0,
	    "the walk over the captured bytes gives the same frames");
	/* Each captured read cut short: a clean failure, never a crash. */
	{
		uint32_t i, fails = 0;

		for (i = 0; i < cp.n; i++) {
			uint32_t keep = cp.r[i].len;

			cp.r[i].len = 0;
			memset(&again, 0, sizeof(again));
			if (ruby_walk_stack(&m, &t.off, t.root,
			    RUBY_MAX_FRAMES, NULL, collect, &again, &n) != 0)
				fails++;
			cp.r[i].len = keep;
		}
		CHECK(fails > 0, "a missing piece of memory fails the walk");
	}
out:
	free(cp.buf);
	ruby_target_release(&t);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

int
main(void)
{
	test_walk();
	test_ids_locate();
	test_versions();
	test_maps();
	test_appid();
	test_elf();
	test_real_library();
	test_captured();
	return (testing_done());
}
