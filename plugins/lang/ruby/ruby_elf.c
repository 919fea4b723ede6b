/*
 * The ELF facts the Ruby reader needs from the object holding the VM
 * (libruby*.so, or a statically linked ruby): ruby_current_vm_ptr (3.x)
 * or ruby_current_execution_context_ptr (2.5-2.7), the ruby_version
 * string (read from its section), and the first PT_LOAD for the load
 * bias.
 * libelf parses; every value taken from the file is bounds-checked here.
 */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "langelf.h"
#include "rubyreader.h"

#define RUBY_ELF_MAX_SYMS	(4u << 20)

/*
 * A symbol's name from its string table's data, if it ends within
 * NAME_MAX bytes (the names looked for are short).  Not elf_strptr: on a
 * table whose last byte is not NUL it scans the whole rest of the table
 * for each symbol, hours over a large unstripped binary.
 */
static const char *
ruby_elf_name(const Elf_Data *str, size_t off)
{
	const char	*s;
	size_t		 left;

	if (str == NULL || str->d_buf == NULL || off >= str->d_size)
		return (NULL);
	s = (const char *)str->d_buf + off;
	left = str->d_size - off;
	return (memchr(s, '\0', left < 256 ? left : 256) != NULL ? s : NULL);
}

static void
ruby_elf_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
    struct ruby_elf *re)
{
	Elf_Data *data, *str;
	Elf_Scn *strscn;
	GElf_Sym sym;
	const char *name;
	size_t i, n;

	if (sh->sh_entsize == 0 || (data = elf_getdata(scn, NULL)) == NULL)
		return;
	strscn = elf_getscn(elf, sh->sh_link);
	str = strscn != NULL ? elf_getdata(strscn, NULL) : NULL;
	n = sh->sh_size / sh->sh_entsize;
	if (n > RUBY_ELF_MAX_SYMS)
		n = RUBY_ELF_MAX_SYMS;
	for (i = 0; i < n; i++) {
		if (gelf_getsym(data, (int)i, &sym) == NULL)
			break;
		if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0 ||
		    GELF_ST_TYPE(sym.st_info) == STT_TLS ||
		    (name = ruby_elf_name(str, sym.st_name)) == NULL)
			continue;
		if (strcmp(name, "ruby_current_vm_ptr") == 0 &&
		    re->current_vm_ptr == 0)
			re->current_vm_ptr = sym.st_value;
		else if (strcmp(name, "ruby_current_execution_context_ptr") ==
		    0 && re->current_ec_ptr == 0)
			re->current_ec_ptr = sym.st_value;
		else if (strcmp(name, "ruby_description") == 0 &&
		    re->description_sym == 0)
			re->description_sym = sym.st_value;
		else if (strcmp(name, "ruby_version") == 0 &&
		    re->version_sym == 0)
			re->version_sym = sym.st_value;
		else if (strcmp(name, "rb_id2str") == 0 &&
		    GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
		    re->id2str_sym == 0)
			re->id2str_sym = sym.st_value;
	}
}

/* ruby_version[] = RUBY_VERSION ("3.1.2"), in read-only data. */
static void
ruby_elf_version(Elf_Scn *scn, const GElf_Shdr *sh, struct ruby_elf *re)
{
	Elf_Data *data;
	uint64_t off;

	if (re->has_ver || re->version_sym == 0 ||
	    sh->sh_type != SHT_PROGBITS || re->version_sym < sh->sh_addr ||
	    re->version_sym - sh->sh_addr >= sh->sh_size ||
	    (data = elf_getdata(scn, NULL)) == NULL || data->d_buf == NULL)
		return;
	off = re->version_sym - sh->sh_addr;
	if (off >= data->d_size)
		return;
	re->has_ver = ruby_version_parse((const char *)data->d_buf + off,
	    (size_t)(data->d_size - off), &re->ver) == 0;
}

/*
 * ruby_description[] (what `ruby --version` prints without run-time
 * flags), printable ASCII up to its NUL, in read-only data.
 */
static void
ruby_elf_description(Elf_Scn *scn, const GElf_Shdr *sh, struct ruby_elf *re)
{
	Elf_Data *data;
	const char *p;
	uint64_t off;
	size_t i;

	if (re->description[0] != '\0' || re->description_sym == 0 ||
	    sh->sh_type != SHT_PROGBITS || re->description_sym < sh->sh_addr ||
	    re->description_sym - sh->sh_addr >= sh->sh_size ||
	    (data = elf_getdata(scn, NULL)) == NULL || data->d_buf == NULL)
		return;
	off = re->description_sym - sh->sh_addr;
	if (off >= data->d_size)
		return;
	p = (const char *)data->d_buf + off;
	for (i = 0; i < sizeof(re->description) - 1 && off + i < data->d_size &&
	    p[i] != '\0'; i++) {
		if (p[i] < 0x20 || p[i] > 0x7e) {
			i = 0;
			break;
		}
		re->description[i] = p[i];
	}
	re->description[i] = '\0';
}

static void
ruby_elf_note(Elf_Scn *scn, struct ruby_elf *re)
{
	Elf_Data *data;
	GElf_Nhdr nh;
	size_t off = 0, noff, doff;
	int guard = 0;

	if ((data = elf_getdata(scn, NULL)) == NULL)
		return;
	while (guard++ < 64 &&
	    (off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)data->d_buf + noff, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= sizeof(re->build_id)) {
			memcpy(re->build_id, (char *)data->d_buf + doff,
			    nh.n_descsz);
			re->build_id_len = nh.n_descsz;
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
ruby_elf_read(Elf *elf, struct ruby_elf *pe)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	GElf_Shdr sh;
	size_t i, nph;
	int found_load = 0;

	memset(pe, 0, sizeof(*pe));
	if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &eh) == NULL ||
	    gelf_getclass(elf) != ELFCLASS64 || eh.e_machine != EM_X86_64)
		return (-ENOEXEC);
	if (elf_getphdrnum(elf, &nph) != 0)
		return (-ENOEXEC);
	for (i = 0; i < nph && i < 4096 && !found_load; i++) {
		if (gelf_getphdr(elf, (int)i, &ph) == NULL)
			return (-ENOEXEC);
		if (ph.p_type == PT_LOAD) {
			uint64_t align = ph.p_align > 1 ? ph.p_align : 1;

			if ((align & (align - 1)) != 0)
				return (-ENOEXEC);
			pe->first_load_vaddr = ph.p_vaddr & ~(align - 1);
			found_load = 1;
		}
	}
	if (!found_load)
		return (-ENOEXEC);
	/* .dynsym first: it is what stripped and distro builds keep. */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_DYNSYM)
			ruby_elf_symtab(elf, scn, &sh, pe);
		else if (sh.sh_type == SHT_NOTE && pe->build_id_len == 0)
			ruby_elf_note(scn, pe);
	}
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			ruby_elf_symtab(elf, scn, &sh, pe);
	}
	/* Once every symbol table was read: ruby_version may be in any. */
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL) {
			ruby_elf_version(scn, &sh, pe);
			ruby_elf_description(scn, &sh, pe);
		}
	return (pe->current_vm_ptr != 0 || pe->current_ec_ptr != 0 ? 0 :
	    -ENOENT);
}

/* Code bytes at a virtual address: from the executable section holding
 * it, only those bytes (libelf reads no whole section for them). */
static int64_t
ruby_elf_code(void *arg, uint64_t vaddr, uint8_t *buf, size_t len)
{
	Elf *elf = arg;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	uint64_t off;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || vaddr < sh.sh_addr ||
		    vaddr - sh.sh_addr >= sh.sh_size)
			continue;
		off = vaddr - sh.sh_addr;
		if (len > sh.sh_size - off)
			len = (size_t)(sh.sh_size - off);
		if ((d = elf_getdata_rawchunk(elf, (int64_t)(sh.sh_offset +
		    off), len, ELF_T_BYTE)) == NULL || d->d_buf == NULL ||
		    d->d_size < len)
			return (-1);
		memcpy(buf, d->d_buf, len);
		return ((int64_t)len);
	}
	return (-1);
}

static int
ruby_elf_walk(Elf *elf, void *arg)
{
	struct ruby_elf *re = arg;
	int rc;

	if ((rc = ruby_elf_read(elf, re)) != 0)
		return (rc);
	if (re->id2str_sym != 0)
		(void)ruby_ids_locate(ruby_elf_code, elf, re->id2str_sym,
		    &re->global_symbols, &re->last_op_id);
	return (0);
}

/* -ENOEXEC: not an x86-64 ELF; -ENOENT: no Ruby VM in it. */
int
ruby_elf_read_fd(int fd, struct ruby_elf *re)
{
	return (langelf_read_fd(fd, ruby_elf_walk, re));
}

int
ruby_elf_read_mem(const void *buf, size_t len, struct ruby_elf *re)
{
	return (langelf_read_mem(buf, len, ruby_elf_walk, re));
}
