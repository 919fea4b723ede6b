/*
 * C function frames by name.  A C function's control frame has no
 * instruction sequence: its method entry (ep[VM_ENV_DATA_INDEX_ME_CREF])
 * gives the method's ID, and an ID's name is in the VM's global symbol
 * table (symbol.c: ruby_global_symbols.ids, chunks of ID_ENTRY_UNIT
 * entries of ID_ENTRY_SIZE VALUEs, the name String first).
 *
 * ruby_global_symbols is not exported: distro libruby builds keep only
 * .dynsym (Debian's 3.1 has no .symtab).  rb_id2str() is exported, and
 * its code (or get_id_serial_entry(), which it tail-calls) compares the
 * serial with global_symbols.last_id and loads global_symbols.ids, two
 * RIP-relative operands 16 bytes apart; it also compares the ID with
 * tLAST_OP_ID, which differs between versions.  ruby_ids_locate() finds
 * both in the bytes of the text section, as profilers that read Ruby from
 * outside do for what is not exported.  Where the pattern is not found,
 * C function frames are left out, as before.
 *
 * Pure over bytes (locate) and over the read callback (names).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rubyreader.h"

#define RUBY_T_MASK		0x1f
#define RUBY_T_IMEMO		0x1a
#define RUBY_FL_USHIFT		12
#define RUBY_IMEMO_MENT		6
#define RUBY_ID_SCOPE_SHIFT	4
#define RUBY_ID_ENTRY_UNIT	512
#define RUBY_ID_ENTRY_SIZE	2
#define RUBY_SYMS_IDS		16	/* rb_symbols_t.ids */
#define RUBY_ME_CALLED_ID	24	/* rb_callable_method_entry_t */
#define VM_FRAME_MAGIC_MASK	0x7fff0001u
#define VM_FRAME_MAGIC_CFUNC	0x55550001u
#define RUBY_MAX_SERIAL		(1u << 26)

static uint32_t
ruby_le32(const uint8_t *b)
{
	return ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24);
}

static uint64_t
ruby_rel(uint64_t next_ip, const uint8_t *b)
{
	return (next_ip + (uint64_t)(int64_t)(int32_t)ruby_le32(b));
}

/*
 * In len bytes of code at vaddr: a 32-bit compare of a register with a
 * RIP-relative operand (39 /r, modrm 00 reg 101) and a 64-bit load of one
 * (REX.W 8b /r) 16 bytes after it: the table's address, or 0.
 */
static uint64_t
ruby_ids_scan(const uint8_t *code, size_t len, uint64_t vaddr)
{
	uint64_t cmp = 0, mov = 0;
	size_t i;

	for (i = 0; i + 6 <= len; i++) {
		if (code[i] == 0x39 && (code[i + 1] & 0xc7) == 0x05)
			cmp = ruby_rel(vaddr + i + 6, code + i + 2);
		else if (i + 7 <= len && (code[i] & 0xfb) == 0x48 &&
		    code[i + 1] == 0x8b && (code[i + 2] & 0xc7) == 0x05) {
			mov = ruby_rel(vaddr + i + 7, code + i + 3);
			if (cmp != 0 && mov == cmp + RUBY_SYMS_IDS)
				return (cmp);
		}
	}
	return (0);
}

/* The bytes at vaddr in f (fetched up to want), or 0 with n 0. */
static size_t
ruby_ids_fetch(ruby_code_fn code, void *arg, uint64_t vaddr, uint8_t *f,
    size_t want)
{
	int64_t n = code(arg, vaddr, f, want);

	return (n > 0 && (size_t)n <= want ? (size_t)n : 0);
}

int
ruby_ids_locate(ruby_code_fn code, void *arg, uint64_t id2str,
    uint64_t *symbols, uint32_t *last_op_id)
{
	uint8_t f[48], g[96];
	uint64_t target;
	size_t i, n, gn;

	*symbols = 0;
	*last_op_id = 0;
	if ((n = ruby_ids_fetch(code, arg, id2str, f, sizeof(f))) == 0)
		return (-ENOENT);
	/* cmp $imm32, %rdi (48 81 ff imm32): tLAST_OP_ID. */
	for (i = 0; i + 7 <= n; i++)
		if (f[i] == 0x48 && f[i + 1] == 0x81 && f[i + 2] == 0xff) {
			*last_op_id = ruby_le32(f + i + 3);
			break;
		}
	if (*last_op_id == 0 || *last_op_id > 0xffff) {
		*last_op_id = 0;
		return (-ENOENT);
	}
	if ((*symbols = ruby_ids_scan(f, n, id2str)) != 0)
		return (0);
	/* The first jmp or call (e9/e8 rel32): get_id_serial_entry(). */
	for (i = 0; i + 5 <= n; i++) {
		if (f[i] != 0xe9 && f[i] != 0xe8)
			continue;
		target = ruby_rel(id2str + i + 5, f + i + 1);
		if ((gn = ruby_ids_fetch(code, arg, target, g,
		    sizeof(g))) == 0)
			continue;
		if ((*symbols = ruby_ids_scan(g, gn, target)) != 0)
			return (0);
	}
	*last_op_id = 0;
	return (-ENOENT);
}

/* Element i of an Array; no length check: the caller bounds i by the
 * table's own count and checks what it reads. */
static int
ruby_ids_aref(const struct ruby_mem *m, const struct ruby_offsets *o,
    uint64_t ary, uint64_t i, uint64_t *out)
{
	uint64_t flags, elems;
	int rc;

	if (ary == 0 || (ary & 7) != 0)
		return (-EINVAL);
	if ((rc = ruby_read_u64(m, ary, &flags)) != 0 ||
	    (rc = ruby_array_elems(m, o, ary, flags, &elems)) != 0)
		return (rc);
	return (ruby_read_u64(m, elems + i * 8, out));
}

int
ruby_id_name(const struct ruby_mem *m, const struct ruby_offsets *o,
    uint64_t id, char *buf, size_t len)
{
	uint64_t serial, ids, chunk, str;
	uint32_t last;
	uint8_t b[4];
	int rc;

	if (len == 0)
		return (-EINVAL);
	buf[0] = '\0';
	if (o->global_symbols == 0)
		return (-ENOTSUP);
	serial = id > o->last_op_id ? id >> RUBY_ID_SCOPE_SHIFT : id;
	if ((rc = m->read(m->arg, o->global_symbols, b, sizeof(b))) != 0)
		return (rc);
	last = ruby_le32(b);
	if (serial == 0 || serial > last || last > RUBY_MAX_SERIAL)
		return (-EINVAL);
	if ((rc = ruby_read_u64(m, o->global_symbols + RUBY_SYMS_IDS,
	    &ids)) != 0 ||
	    (rc = ruby_ids_aref(m, o, ids, serial / RUBY_ID_ENTRY_UNIT,
	    &chunk)) != 0 ||
	    (rc = ruby_ids_aref(m, o, chunk, serial % RUBY_ID_ENTRY_UNIT *
	    RUBY_ID_ENTRY_SIZE, &str)) != 0)
		return (rc);
	return (ruby_read_string(m, o, str, buf, len));
}

/*
 * The frame text of a C function's control frame at ep (as rbspy names
 * it: "NAME [c function]", path "(unknown)", line 0); 1 if the frame is
 * not a C function's (or its name is not known), 0, or -errno.  Names are
 * cached by method entry and ID in fc (may be NULL): a sample then reads
 * four words per C frame.
 */
int
ruby_cfunc_frame(const struct ruby_mem *m, const struct ruby_offsets *o,
    uint64_t ep, struct ruby_fcache *fc, char *out, size_t outlen)
{
	uint64_t magic, me;
	int rc;

	if (o->global_symbols == 0 || ep == 0 || (ep & 7) != 0)
		return (1);
	if ((rc = ruby_read_u64(m, ep, &magic)) != 0)
		return (rc);
	if ((magic & VM_FRAME_MAGIC_MASK) != VM_FRAME_MAGIC_CFUNC)
		return (1);
	/* ep[VM_ENV_DATA_INDEX_ME_CREF], ep[-2]: the method entry. */
	if ((rc = ruby_read_u64(m, ep - 16, &me)) != 0)
		return (rc);
	return (ruby_cfunc_me(m, o, me, fc, out, outlen));
}

/*
 * The same from the method entry (the system profiler's walk reads it
 * from the frame: ruby_walked_frame): 1 if it is none, or its name is
 * not known.
 */
int
ruby_cfunc_me(const struct ruby_mem *m, const struct ruby_offsets *o,
    uint64_t me, struct ruby_fcache *fc, char *out, size_t outlen)
{
	struct ruby_centry *ce = NULL;
	char name[RUBY_MAX_NAME];
	uint64_t flags, id;
	int rc = 0;

	if (o->global_symbols == 0 || me == 0 || (me & 7) != 0 ||
	    (rc = ruby_read_u64(m, me, &flags)) != 0)
		return (rc != 0 ? rc : 1);
	if ((flags & RUBY_T_MASK) != RUBY_T_IMEMO ||
	    ((flags >> RUBY_FL_USHIFT) & 0xf) != RUBY_IMEMO_MENT)
		return (1);
	if ((rc = ruby_read_u64(m, me + RUBY_ME_CALLED_ID, &id)) != 0)
		return (rc);
	if (fc != NULL) {
		ce = ruby_centry_of(fc, me);
		if (ce->me == me && ce->id == id) {
			snprintf(out, outlen, "%s [c function] ((unknown):0)",
			    ce->name);
			return (0);
		}
	}
	if (ruby_id_name(m, o, id, name, sizeof(name)) != 0 ||
	    name[0] == '\0')
		return (1);
	if (ce != NULL) {
		ce->me = me;
		ce->id = id;
		snprintf(ce->name, sizeof(ce->name), "%s", name);
	}
	snprintf(out, outlen, "%s [c function] ((unknown):0)", name);
	return (0);
}
