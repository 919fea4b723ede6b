/*
 * The ELF facts the Ruby reader needs from the object holding the VM
 * (libruby*.so, or a statically linked ruby): ruby_current_vm_ptr (3.x)
 * or ruby_current_execution_context_ptr (2.5-2.7), the ruby_version
 * string (read from its section), and the first PT_LOAD for the load
 * bias.  Read through the runtime plugins' one bounded ELF reader
 * (elfread.c); every value taken from the file is bounds-checked here.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfread.h"
#include "rubyreader.h"

enum {
	RUBY_SYM_VM,
	RUBY_SYM_EC,
	RUBY_SYM_DESCRIPTION,
	RUBY_SYM_VERSION,
	RUBY_SYM_ID2STR,
	RUBY_SYM_TLS_EC
};

static const char *const ruby_elf_names[] = {
	"ruby_current_vm_ptr",
	"ruby_current_execution_context_ptr",
	"ruby_description",
	"ruby_version",
	"rb_id2str",
	"ruby_current_ec"
};

static void
ruby_elf_symbol(void *arg, size_t which, const Elf64_Sym *sym)
{
	struct ruby_elf *re = arg;

	/* 3.x's thread-local execution context: its offset in the
	 * object's TLS block (0 is one) */
	if (which == RUBY_SYM_TLS_EC) {
		if (ELF64_ST_TYPE(sym->st_info) == STT_TLS && !re->has_tls_ec) {
			re->tls_ec = sym->st_value;
			re->has_tls_ec = 1;
		}
		return;
	}
	if (sym->st_value == 0 || ELF64_ST_TYPE(sym->st_info) == STT_TLS)
		return;
	switch (which) {
	case RUBY_SYM_VM:
		if (re->current_vm_ptr == 0)
			re->current_vm_ptr = sym->st_value;
		break;
	case RUBY_SYM_EC:
		if (re->current_ec_ptr == 0)
			re->current_ec_ptr = sym->st_value;
		break;
	case RUBY_SYM_DESCRIPTION:
		if (re->description_sym == 0)
			re->description_sym = sym->st_value;
		break;
	case RUBY_SYM_VERSION:
		if (re->version_sym == 0)
			re->version_sym = sym->st_value;
		break;
	case RUBY_SYM_ID2STR:
		if (ELF64_ST_TYPE(sym->st_info) == STT_FUNC &&
		    re->id2str_sym == 0)
			re->id2str_sym = sym->st_value;
		break;
	}
}

/* ruby_version[] = RUBY_VERSION ("3.1.2"), in read-only data. */
static void
ruby_elf_version(struct elfread *le, struct ruby_elf *re)
{
	char buf[64];
	int64_t n;

	if (re->version_sym == 0 || (n = elfread_read_vaddr(le,
	    re->version_sym, buf, sizeof(buf), 0)) <= 0)
		return;
	re->has_ver = ruby_version_parse(buf, (size_t)n, &re->ver) == 0;
}

/*
 * ruby_description[] (what `ruby --version` prints without run-time
 * flags), printable ASCII up to its NUL, in read-only data.
 */
static void
ruby_elf_description(struct elfread *le, struct ruby_elf *re)
{
	char p[sizeof(re->description)];
	int64_t n;
	size_t i;

	if (re->description_sym == 0 || (n = elfread_read_vaddr(le,
	    re->description_sym, p, sizeof(p) - 1, 0)) <= 0)
		return;
	for (i = 0; i < (size_t)n && p[i] != '\0'; i++) {
		if (p[i] < 0x20 || p[i] > 0x7e) {
			i = 0;
			break;
		}
		re->description[i] = p[i];
	}
	re->description[i] = '\0';
}

/*
 * Where the dynamic linker writes the module ID of this object's TLS
 * block: the GOT slot of an R_X86_64_DTPMOD64 relocation against the
 * object itself (symbol 0, local-dynamic) or against a TLS symbol it
 * defines (general-dynamic: libruby's ruby_current_ec).  An executable
 * has no such slot: its block, when it has one (PT_TLS), is module 1.
 * Read 256 entries at a time (Debian's 3.1: 2,650 entries, 11 reads), and
 * not in a table over 1 MiB: the file's read budget (ELFREAD_BUDGET_*) is
 * shared with the symbols, and a table it could not cover would fail the
 * whole attach where only the walk is lost (then sampled on the timer).
 */
#define RUBY_RELA_CHUNK		256
#define RUBY_RELA_MAX		(1u << 20)
static void
ruby_elf_tls_module(struct elfread *le, struct ruby_elf *re)
{
	Elf64_Rela r[RUBY_RELA_CHUNK];
	Elf64_Sym sym;
	uint64_t first, sidx;
	uint32_t link;
	int64_t got, k;
	size_t i;

	for (i = 0; i < le->nph; i++)
		if (le->ph[i].p_type == PT_TLS)
			re->has_pt_tls = 1;
	for (i = 0; re->has_pt_tls && i < le->nsh; i++) {
		if (le->sh[i].sh_type != SHT_RELA ||
		    le->sh[i].sh_size > RUBY_RELA_MAX)
			continue;
		link = le->sh[i].sh_link;
		for (first = 0; (got = elfread_read_relas(le, i, first, r,
		    sizeof(r) / sizeof(r[0]))) > 0; first += (uint64_t)got)
			for (k = 0; k < got; k++) {
				if (ELF64_R_TYPE(r[k].r_info) !=
				    R_X86_64_DTPMOD64)
					continue;
				sidx = ELF64_R_SYM(r[k].r_info);
				if (sidx != 0 && (link >= le->nsh ||
				    elfread_read_syms(le, link, sidx, &sym,
				    1) != 1 || sym.st_shndx == SHN_UNDEF ||
				    ELF64_ST_TYPE(sym.st_info) != STT_TLS))
					continue;
				re->tls_module_got = r[k].r_offset;
				return;
			}
	}
}

/* "buildid:<hex>" as gProfiler's *_elfid keys hold it; "" without one. */
void
ruby_elf_buildid_text(const struct ruby_elf *re, char *out, size_t len)
{
	size_t i, o;

	if (len == 0)
		return;
	out[0] = '\0';
	if (re->build_id_len == 0 || len < 9)
		return;
	o = (size_t)snprintf(out, len, "buildid:");
	for (i = 0; i < re->build_id_len && o + 3 <= len; i++)
		o += (size_t)snprintf(out + o, len - o, "%02x",
		    re->build_id[i]);
}

static int
ruby_elf_read(struct elfread *le, struct ruby_elf *re)
{
	size_t n = sizeof(ruby_elf_names) / sizeof(ruby_elf_names[0]);
	int rc;

	memset(re, 0, sizeof(*re));
	if (le->eh.e_machine != EM_X86_64 ||
	    elfread_first_load(le, &re->first_load_vaddr) != 0)
		return (-ENOEXEC);
	re->build_id_len = elfread_build_id(le, re->build_id,
	    sizeof(re->build_id));
	/* .dynsym first: it is what stripped and distro builds keep. */
	if ((rc = elfread_symbols(le, SHT_DYNSYM, ruby_elf_names, n,
	    ruby_elf_symbol, re)) != 0 ||
	    (rc = elfread_symbols(le, SHT_SYMTAB, ruby_elf_names, n,
	    ruby_elf_symbol, re)) != 0)
		return (rc);
	/* Once every symbol table was read: ruby_version may be in any. */
	ruby_elf_version(le, re);
	ruby_elf_description(le, re);
	if (re->has_tls_ec)
		ruby_elf_tls_module(le, re);
	return (re->current_vm_ptr != 0 || re->current_ec_ptr != 0 ? 0 :
	    -ENOENT);
}

/* Code bytes at a virtual address: from the executable section holding
 * it, only those bytes. */
static int64_t
ruby_elf_code(void *arg, uint64_t vaddr, uint8_t *buf, size_t len)
{
	return (elfread_read_vaddr(arg, vaddr, buf, len, 1));
}

static int
ruby_elf_walk(struct elfread *le, void *arg)
{
	struct ruby_elf *re = arg;
	int rc;

	if ((rc = ruby_elf_read(le, re)) != 0)
		return (rc);
	if (re->id2str_sym != 0)
		(void)ruby_ids_locate(ruby_elf_code, le, re->id2str_sym,
		    &re->global_symbols, &re->last_op_id);
	return (0);
}

/* -ENOEXEC: not an x86-64 ELF; -ENOENT: no Ruby VM in it; elfread.h's
 * codes for a file that cannot be read. */
int
ruby_elf_read_fd(int fd, struct ruby_elf *re)
{
	memset(re, 0, sizeof(*re));	/* whatever the answer */
	return (elfread_read_fd(fd, ruby_elf_walk, re));
}

int
ruby_elf_read_mem(const void *buf, size_t len, struct ruby_elf *re)
{
	memset(re, 0, sizeof(*re));	/* whatever the answer */
	return (elfread_read_mem(buf, len, ruby_elf_walk, re));
}
