/*
 * The plugins' bounded ELF reader: see elfread.h.
 *
 * What a file costs is bounded by ELFREAD_BUDGET_READS and _BYTES
 * (tests/unit/test_elfread prints it), what a loop turn costs by
 * ELFREAD_TURN_* and one file's budget.  bench/elf_read on a 2-core host at
 * a load average of 11-18: a file that spends the budget (a 64 MB string
 * table without its final NUL, or 350,000 symbols) 0.7-4 ms at best (8 MiB
 * had cost 10-40 ms; libelf took 146 s over the first); the real
 * interpreters' images (Debian's libpython3.11, libruby-3.1, php8.2,
 * pyenv's libpython 3.7-3.13) 0.05-0.8 ms, 10-29 reads, 90-860 KB.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clockns.h"
#include "elfread.h"
#include "elfread_int.h"
#include "elfbad.h"
#include "ratelim.h"

#define ELFREAD_SYM_CHUNK	1024	/* symbols read at once */
/* Lines about bad files, at most this many a minute: a user who plants a
 * thousand bad files gets them all marked, not a thousand lines in the
 * daemon's log.  The next line counts those not named. */
#define ELFREAD_LOG_BURST	10
#define ELFREAD_LOG_WINDOW_MS	60000

static void (*elfread_log_fn)(void *, const char *);
static uint64_t elfread_total_bytes, elfread_total_reads;
/* The loop turn's reads from files: since turn_ms, of the monotonic clock
 * (0: none yet). */
static uint64_t elfread_turn_ms, elfread_turn_bytes, elfread_turn_reads;
static void *elfread_log_arg;
static struct ratelim elfread_log_limit = RATELIM_INIT(ELFREAD_LOG_BURST,
    ELFREAD_LOG_WINDOW_MS);

void
elfread_set_log(void (*fn)(void *, const char *), void *arg)
{
	elfread_log_fn = fn;
	elfread_log_arg = arg;
}

void
elfread_log_clear(void)
{
	ratelim_next(&elfread_log_limit);
}

void
elfread_spent(uint64_t *bytes, uint64_t *reads)
{
	*bytes = elfread_total_bytes;
	*reads = elfread_total_reads;
}

void
elfread_turn_clear(void)
{
	elfread_turn_ms = 0;
	elfread_turn_bytes = elfread_turn_reads = 0;
}

static uint64_t
elfread_now_ms(void)
{
	return (clock_ns(CLOCK_MONOTONIC) / 1000000);
}

/*
 * Whether a file may be begun in this loop turn: a turn is ELFREAD_TURN_MS
 * of the clock (the plugins do not say when theirs begin), and what it
 * spent is counted from the first read in it.
 */
static int
elfread_turn_open(void)
{
	uint64_t now = elfread_now_ms();

	if (elfread_turn_ms == 0 || now < elfread_turn_ms ||
	    now - elfread_turn_ms >= ELFREAD_TURN_MS) {
		elfread_turn_ms = now != 0 ? now : 1;
		elfread_turn_bytes = elfread_turn_reads = 0;
	}
	return (elfread_turn_bytes < ELFREAD_TURN_BYTES &&
	    elfread_turn_reads < ELFREAD_TURN_READS);
}

const char *
elfread_strerror(int rc)
{
	switch (rc) {
	case -ENOEXEC:
		return ("not a little-endian ELF this reader takes");
	case -EBADMSG:
		return ("malformed ELF headers");
	case -E2BIG:
		return ("over its read budget");
	case -EIO:
		return ("shorter than its size (truncated while read)");
	case -ESTALE:
		return ("changed while read");
	case -ENOMEM:
		return ("out of memory");
	case -EINPROGRESS:
		return ("deferred to a later loop turn");
	default:
		return (strerror(-rc));
	}
}

/*
 * len bytes at off, within the file and the budget: 0, or -1 (le->error
 * set when the file can no longer be trusted: over budget, short).
 */
int
elfread_pread(struct elfread *le, uint64_t off, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	if (le->error != 0)
		return (-1);
	if (off > le->size || len > le->size - off)
		return (-1);		/* a lying header: that read only */
	if (len > le->max_bytes - le->bytes ||
	    le->reads + 1 > le->max_reads) {
		le->error = -E2BIG;
		return (-1);
	}
	le->bytes += len;
	le->reads++;
	elfread_total_bytes += len;
	elfread_total_reads++;
	if (le->fd < 0) {
		memcpy(buf, le->mem + off, len);
		return (0);
	}
	elfread_turn_bytes += len;
	elfread_turn_reads++;
	while (got < len) {
		n = pread(le->fd, (char *)buf + got, len - got,
		    (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			le->error = -EIO;
			return (-1);
		}
		got += (size_t)n;
	}
	return (0);
}

/* The 32-bit headers in the 64-bit forms (the fields widened). */
static void
elfread_ehdr32(Elf64_Ehdr *eh, const Elf32_Ehdr *e)
{
	Elf64_Ehdr o;

	memset(&o, 0, sizeof(o));
	memcpy(o.e_ident, e->e_ident, EI_NIDENT);
	o.e_type = e->e_type;
	o.e_machine = e->e_machine;
	o.e_version = e->e_version;
	o.e_entry = e->e_entry;
	o.e_phoff = e->e_phoff;
	o.e_shoff = e->e_shoff;
	o.e_flags = e->e_flags;
	o.e_ehsize = e->e_ehsize;
	o.e_phentsize = e->e_phentsize == sizeof(Elf32_Phdr) ?
	    sizeof(Elf64_Phdr) : 0;
	o.e_phnum = e->e_phnum;
	o.e_shentsize = e->e_shentsize == sizeof(Elf32_Shdr) ?
	    sizeof(Elf64_Shdr) : 0;
	o.e_shnum = e->e_shnum;
	o.e_shstrndx = e->e_shstrndx;
	*eh = o;
}

static void
elfread_shdr32(Elf64_Shdr *o, const Elf32_Shdr *s)
{
	Elf32_Shdr c = *s;	/* o and s may overlap */

	o->sh_name = c.sh_name;
	o->sh_type = c.sh_type;
	o->sh_flags = c.sh_flags;
	o->sh_addr = c.sh_addr;
	o->sh_offset = c.sh_offset;
	o->sh_size = c.sh_size;
	o->sh_link = c.sh_link;
	o->sh_info = c.sh_info;
	o->sh_addralign = c.sh_addralign;
	/* the entries' own size: symbols and relocations are given in
	 * the 64-bit forms, whose sizes stand for the 32-bit ones */
	o->sh_entsize = c.sh_entsize == sizeof(Elf32_Sym) ?
	    sizeof(Elf64_Sym) : c.sh_entsize == sizeof(Elf32_Rela) ?
	    sizeof(Elf64_Rela) : c.sh_entsize == sizeof(Elf32_Rel) ?
	    sizeof(Elf64_Rel) : c.sh_entsize == 0 ? 0 : 1;
}

static void
elfread_phdr32(Elf64_Phdr *o, const Elf32_Phdr *p)
{
	Elf32_Phdr c = *p;

	o->p_type = c.p_type;
	o->p_flags = c.p_flags;
	o->p_offset = c.p_offset;
	o->p_vaddr = c.p_vaddr;
	o->p_paddr = c.p_paddr;
	o->p_filesz = c.p_filesz;
	o->p_memsz = c.p_memsz;
	o->p_align = c.p_align;
}

/*
 * n headers of esz bytes each (the file's class) at off into out, an
 * array of n 64-bit ones: read in place and widened from the last
 * (a 32-bit one is smaller, so none is overwritten before it is read).
 */
static int
elfread_headers(struct elfread *le, uint64_t off, void *out, size_t n,
    size_t esz64, int ph)
{
	size_t i, esz = le->class32 ? (ph ? sizeof(Elf32_Phdr) :
			    sizeof(Elf32_Shdr)) : esz64;
	Elf32_Phdr p;
	Elf32_Shdr s;

	if (elfread_pread(le, off, out, n * esz) != 0)
		return (-1);
	if (!le->class32)
		return (0);
	for (i = n; i-- > 0; ) {
		if (ph) {
			memcpy(&p, (uint8_t *)out + i * esz, sizeof(p));
			elfread_phdr32((Elf64_Phdr *)out + i, &p);
		} else {
			memcpy(&s, (uint8_t *)out + i * esz, sizeof(s));
			elfread_shdr32((Elf64_Shdr *)out + i, &s);
		}
	}
	return (0);
}

int
elfread_open(struct elfread *le)
{
	const Elf64_Ehdr *eh = &le->eh;
	Elf32_Ehdr e32;
	Elf64_Shdr s0;
	const Elf64_Shdr *ss;
	size_t shnum, shstrndx;

	if (le->size < sizeof(e32) ||
	    elfread_pread(le, 0, &e32, sizeof(e32)) != 0)
		return (le->error != 0 ? le->error : -ENOEXEC);
	if (memcmp(e32.e_ident, ELFMAG, SELFMAG) != 0 ||
	    e32.e_ident[EI_DATA] != ELFDATA2LSB)
		return (-ENOEXEC);
	if (e32.e_ident[EI_CLASS] == ELFCLASS32 && le->held) {
		le->class32 = 1;
		elfread_ehdr32(&le->eh, &e32);
	} else if (e32.e_ident[EI_CLASS] != ELFCLASS64)
		return (-ENOEXEC);
	else if (le->size < sizeof(le->eh) ||
	    elfread_pread(le, 0, &le->eh, sizeof(le->eh)) != 0)
		return (le->error != 0 ? le->error : -ENOEXEC);
	if (eh->e_phnum != 0) {
		if (eh->e_phentsize != sizeof(Elf64_Phdr) ||
		    eh->e_phnum > ELFREAD_MAX_PHDRS)
			return (-EBADMSG);
		le->nph = eh->e_phnum;
		if ((le->ph = calloc(le->nph, sizeof(*le->ph))) == NULL)
			return (-ENOMEM);
		if (elfread_headers(le, eh->e_phoff, le->ph, le->nph,
		    sizeof(*le->ph), 1) != 0)
			return (le->error != 0 ? le->error : -EBADMSG);
	}
	if (eh->e_shoff == 0)
		return (0);		/* no sections: no symbols */
	if (eh->e_shentsize != sizeof(Elf64_Shdr))
		return (-EBADMSG);
	shnum = eh->e_shnum;
	shstrndx = eh->e_shstrndx;
	if (shnum == 0 || shstrndx == SHN_XINDEX) {
		/* extended numbering: the counts in section 0 */
		if (elfread_headers(le, eh->e_shoff, &s0, 1, sizeof(s0),
		    0) != 0)
			return (le->error != 0 ? le->error : -EBADMSG);
		if (shnum == 0)
			shnum = (size_t)s0.sh_size;
		if (shstrndx == SHN_XINDEX)
			shstrndx = s0.sh_link;
	}
	if (shnum > ELFREAD_MAX_SHDRS)
		return (-EBADMSG);
	le->nsh = shnum;
	if (shnum == 0)
		return (0);
	if ((le->sh = calloc(shnum, sizeof(*le->sh))) == NULL)
		return (-ENOMEM);
	if (elfread_headers(le, eh->e_shoff, le->sh, shnum, sizeof(*le->sh),
	    0) != 0)
		return (le->error != 0 ? le->error : -EBADMSG);
	/* Section names, read once; a table too large or outside the file
	 * leaves sections nameless, not the file unread. */
	if (shstrndx == SHN_UNDEF || shstrndx >= shnum)
		return (0);
	ss = &le->sh[shstrndx];
	if (ss->sh_type != SHT_STRTAB || ss->sh_size == 0 ||
	    ss->sh_size > ELFREAD_SHSTR_MAX)
		return (0);
	if ((le->shstr = malloc((size_t)ss->sh_size)) == NULL)
		return (-ENOMEM);
	if (elfread_pread(le, ss->sh_offset, le->shstr,
	    (size_t)ss->sh_size) != 0) {
		free(le->shstr);
		le->shstr = NULL;
		return (le->error);
	}
	le->shstr_len = (size_t)ss->sh_size;
	return (0);
}

void
elfread_close(struct elfread *le)
{
	free(le->ph);
	free(le->sh);
	free(le->shstr);
}

static int
elfread_run(struct elfread *le, elfread_fn fn, void *arg)
{
	int rc;

	if ((rc = elfread_open(le)) == 0)
		rc = fn(le, arg);
	/* A file that could not be read to the end answers nothing. */
	if (le->error != 0)
		rc = le->error;
	elfread_close(le);
	return (rc);
}

/* The descriptor's path, for the one line about a bad file. */
void
elfread_log_bad(int fd, const struct stat *st, int rc)
{
	char link[64], path[512], msg[1024], more[96];
	uint64_t now = elfread_now_ms();
	unsigned unnamed;
	ssize_t n;

	if (elfread_log_fn == NULL ||
	    !ratelim_admit(&elfread_log_limit, now, &unnamed))
		return;
	more[0] = '\0';
	if (unnamed > 0)
		snprintf(more, sizeof(more), " (and %u more files given up "
		    "on before, not named: over %d lines a minute)",
		    unnamed, ELFREAD_LOG_BURST);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof(path) - 1)) <= 0)
		n = snprintf(path, sizeof(path), "(fd %d)", fd);
	path[n] = '\0';
	snprintf(msg, sizeof(msg), "ELF reader: %s (device %u:%u, inode "
	    "%llu, %lld bytes): %s; not read again until it changes%s",
	    path, major(st->st_dev), minor(st->st_dev),
	    (unsigned long long)st->st_ino, (long long)st->st_size,
	    elfread_strerror(rc), more);
	elfread_log_fn(elfread_log_arg, msg);
}

int
elfread_is_bad(int rc)
{
	return (rc == -EBADMSG || rc == -E2BIG || rc == -EIO ||
	    rc == -ESTALE);
}

int
elfread_read_fd(int fd, elfread_fn fn, void *arg)
{
	struct elfread le;
	struct stat st, st2;
	int rc;

	if (fstat(fd, &st) != 0)
		return (-errno);
	if (!S_ISREG(st.st_mode) || st.st_size <= 0)
		return (-ENOEXEC);
	if ((rc = elfbad_find(&st)) != 0)
		return (rc);
	if (!elfread_turn_open())
		return (-EINPROGRESS);
	memset(&le, 0, sizeof(le));
	le.fd = fd;
	le.size = (uint64_t)st.st_size;
	le.max_bytes = ELFREAD_BUDGET_BYTES;
	le.max_reads = ELFREAD_BUDGET_READS;
	rc = elfread_run(&le, fn, arg);
	/* What was read must be one file: the same size and mtime after. */
	if (fstat(fd, &st2) != 0)
		st2 = st;
	else if (rc != -EIO && (st2.st_size != st.st_size ||
	    st2.st_mtim.tv_sec != st.st_mtim.tv_sec ||
	    st2.st_mtim.tv_nsec != st.st_mtim.tv_nsec))
		rc = -ESTALE;
	if (elfread_is_bad(rc) && elfbad_mark(&st2, rc))
		elfread_log_bad(fd, &st2, rc);
	return (rc);
}

int
elfread_read_mem(const void *buf, size_t len, elfread_fn fn, void *arg)
{
	struct elfread le;

	memset(&le, 0, sizeof(le));
	le.fd = -1;
	le.mem = buf;
	le.size = len;
	le.max_bytes = ELFREAD_BUDGET_BYTES;
	le.max_reads = ELFREAD_BUDGET_READS;
	return (elfread_run(&le, fn, arg));
}

int
elfread_first_load(struct elfread *le, uint64_t *vaddr)
{
	uint64_t align;
	size_t i;

	for (i = 0; i < le->nph; i++) {
		if (le->ph[i].p_type != PT_LOAD)
			continue;
		align = le->ph[i].p_align > 1 ? le->ph[i].p_align : 1;
		if ((align & (align - 1)) != 0)
			return (-ENOEXEC);
		*vaddr = le->ph[i].p_vaddr & ~(align - 1);
		return (0);
	}
	return (-ENOEXEC);
}

int
elfread_name_eq(const uint8_t *p, size_t avail, uint64_t off, uint64_t len,
    const char *name)
{
	size_t n = strlen(name) + 1;	/* with its NUL */

	return (off < len && n <= len - off && n <= avail &&
	    memcmp(p, name, n) == 0);
}

int
elfread_section_is(const struct elfread *le, size_t i, const char *name)
{
	uint64_t off;

	if (i >= le->nsh || le->shstr == NULL)
		return (0);
	off = le->sh[i].sh_name;
	if (off >= le->shstr_len)
		return (0);
	return (elfread_name_eq((const uint8_t *)le->shstr + off,
	    le->shstr_len - (size_t)off, off, le->shstr_len, name));
}

/*
 * The symbols of one table: read ELFREAD_SYM_CHUNK at a time; their
 * names compared in a copy of the whole string table when it is small
 * (every real one), else by reading the few bytes each name needs.
 */
static int
elfread_symtab(struct elfread *le, const Elf64_Shdr *sh,
    const char *const *names, size_t nnames, size_t maxlen,
    elfread_sym_fn fn, void *arg)
{
	Elf64_Sym *syms = NULL;
	const Elf64_Shdr *ss;
	uint8_t *str = NULL, one[ELFREAD_NAME_MAX + 1];
	const uint8_t *p;
	uint64_t nsyms, i, strsz, avail;
	size_t k, j, m;

	if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_link >= le->nsh)
		return (0);
	ss = &le->sh[sh->sh_link];
	strsz = ss->sh_size;
	if (ss->sh_type != SHT_STRTAB || strsz == 0 ||
	    ss->sh_offset > le->size || strsz > le->size - ss->sh_offset)
		return (0);
	nsyms = sh->sh_size / sizeof(Elf64_Sym);
	if (nsyms > ELFREAD_MAX_SYMS)
		nsyms = ELFREAD_MAX_SYMS;
	if ((syms = calloc(ELFREAD_SYM_CHUNK, sizeof(*syms))) == NULL)
		return (-ENOMEM);
	if (strsz <= ELFREAD_STR_WHOLE) {
		if ((str = malloc((size_t)strsz)) == NULL) {
			free(syms);
			return (-ENOMEM);
		}
		if (elfread_pread(le, ss->sh_offset, str, (size_t)strsz) != 0)
			goto out;
	}
	for (i = 1; i < nsyms; i += m) {
		m = nsyms - i < ELFREAD_SYM_CHUNK ? (size_t)(nsyms - i) :
		    ELFREAD_SYM_CHUNK;
		if (elfread_pread(le, sh->sh_offset + i * sizeof(Elf64_Sym),
		    syms, m * sizeof(Elf64_Sym)) != 0)
			break;
		for (j = 0; j < m; j++) {
			if (syms[j].st_shndx == SHN_UNDEF ||
			    syms[j].st_name == 0 || syms[j].st_name >= strsz)
				continue;
			avail = strsz - syms[j].st_name;
			if (avail > maxlen)
				avail = maxlen;
			if (str != NULL)
				p = str + syms[j].st_name;
			else if (elfread_pread(le, ss->sh_offset +
			    syms[j].st_name, one, (size_t)avail) == 0)
				p = one;
			else
				goto out;
			for (k = 0; k < nnames; k++)
				if (elfread_name_eq(p, (size_t)avail,
				    syms[j].st_name, strsz, names[k])) {
					fn(arg, k, &syms[j]);
					break;
				}
		}
	}
out:
	free(str);
	free(syms);
	return (le->error);
}

int
elfread_symbols(struct elfread *le, uint32_t type, const char *const *names,
    size_t n, elfread_sym_fn fn, void *arg)
{
	size_t i, maxlen = 0, l;
	int rc;

	for (i = 0; i < n; i++) {
		l = strlen(names[i]) + 1;
		if (l > ELFREAD_NAME_MAX)
			return (-EINVAL);
		if (l > maxlen)
			maxlen = l;
	}
	for (i = 0; i < le->nsh; i++)
		if (le->sh[i].sh_type == type &&
		    (rc = elfread_symtab(le, &le->sh[i], names, n, maxlen, fn,
		    arg)) != 0)
			return (rc);
	return (le->error);
}

size_t
elfread_note_build_id(const uint8_t *p, size_t len, uint8_t *out,
    size_t cap)
{
	Elf64_Nhdr nh;
	size_t off = 0, name, desc, next;
	int guard;

	for (guard = 0; guard < 64 && len - off >= sizeof(nh); guard++) {
		memcpy(&nh, p + off, sizeof(nh));
		name = off + sizeof(nh);
		/* namesz and descsz are 32-bit: no overflow in size_t */
		desc = name + (((size_t)nh.n_namesz + 3) & ~(size_t)3);
		if (desc > len)
			break;
		next = desc + (((size_t)nh.n_descsz + 3) & ~(size_t)3);
		if (nh.n_descsz > len - desc)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(p + name, "GNU", 4) == 0 && nh.n_descsz > 0 &&
		    nh.n_descsz <= cap) {
			memcpy(out, p + desc, nh.n_descsz);
			return (nh.n_descsz);
		}
		if (next > len)
			break;
		off = next;
	}
	return (0);
}

size_t
elfread_build_id(struct elfread *le, uint8_t *out, size_t cap)
{
	uint8_t *buf;
	size_t i, n = 0;

	for (i = 0; i < le->nsh && n == 0; i++) {
		if (le->sh[i].sh_type != SHT_NOTE || le->sh[i].sh_size == 0 ||
		    le->sh[i].sh_size > ELFREAD_NOTE_MAX)
			continue;
		if ((buf = malloc((size_t)le->sh[i].sh_size)) == NULL)
			return (0);
		if (elfread_pread(le, le->sh[i].sh_offset, buf,
		    (size_t)le->sh[i].sh_size) == 0)
			n = elfread_note_build_id(buf,
			    (size_t)le->sh[i].sh_size, out, cap);
		free(buf);
	}
	return (n);
}

int
elfread_read_section(struct elfread *le, size_t i, uint64_t off, void *buf,
    size_t len)
{
	const Elf64_Shdr *sh;

	if (i >= le->nsh)
		return (-1);
	sh = &le->sh[i];
	if (sh->sh_type == SHT_NOBITS || off > sh->sh_size ||
	    len > sh->sh_size - off || sh->sh_offset > UINT64_MAX - off)
		return (-1);
	return (elfread_pread(le, sh->sh_offset + off, buf, len));
}

int64_t
elfread_read_vaddr(struct elfread *le, uint64_t vaddr, void *buf,
    size_t len, int exec)
{
	const Elf64_Shdr *sh;
	uint64_t off;
	size_t i;

	for (i = 0; i < le->nsh; i++) {
		sh = &le->sh[i];
		if (sh->sh_type != SHT_PROGBITS ||
		    (exec && !(sh->sh_flags & SHF_EXECINSTR)) ||
		    vaddr < sh->sh_addr || vaddr - sh->sh_addr >= sh->sh_size)
			continue;
		off = vaddr - sh->sh_addr;
		if (len > sh->sh_size - off)
			len = (size_t)(sh->sh_size - off);
		if (elfread_read_section(le, i, off, buf, len) != 0)
			return (-1);
		return ((int64_t)len);
	}
	return (-1);
}
