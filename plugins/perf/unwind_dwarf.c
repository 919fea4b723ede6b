/*
 * DWARF unwinding with libdw's dwfl: one Dwfl per process (its modules
 * reported from /proc/PID/maps, their ELF files opened through the
 * symbolizer's safe open of /proc/PID/map_files paths so deleted binaries
 * and other mount namespaces work, read, never mapped), attached to a fake
 * "process" whose only thread has the sample's registers and whose memory
 * is the copied stack.
 *
 * What libdw holds is bounded by the call frame information it may read
 * (the rest of a module's DWARF is hidden from it: unwind_sections): the
 * handles are cached for the cycle until their modules' CFI sections add
 * up to UNWIND_BUDGET_BYTES, then all let go (the next samples read
 * theirs again); a process whose own modules exceed it is unwound as far
 * as those that fit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>

#include "sampler/sampler.h"
#include "sym/symbolize.h"
#include "unwind.h"

#define UNWIND_MAX_PROCS	128	/* cached Dwfl handles per cycle */
#define UNWIND_MAX_SECTIONS	4096	/* a module's headers looked at */

struct unwind_proc {
	struct unwind_proc *next;
	int32_t pid;
	Dwfl *dwfl;	/* NULL: reporting failed */
};

struct unwind_sample {
	int32_t tid;
	const uint64_t *regs;
	const uint8_t *stack;
	uint32_t len;
	uint64_t *ips;
	int n, max;
};

struct unwinder {
	struct symbolizer *sym;
	struct unwind_proc *procs;
	unsigned nprocs;
	struct unwind_sample cur;	/* the sample being unwound */
	int32_t cur_pid;
	uint64_t held;	/* CFI bytes of the cached handles */
	uint64_t over_budget;	/* modules refused, this cycle */
	int budget_said;
};

static void unwind_release(struct unwinder *);

/* libdw's find_elf has no argument of ours: the loop is single-threaded,
 * so the unwinder at work is a static. */
static struct unwinder *unwind_active;

/*
 * Ready a module's ELF for libdw: the bytes of its call frame information
 * (.eh_frame, its header, .debug_frame), what libdw reads of it to unwind,
 * or -1 if it has more sections than are looked at or one larger than
 * the budget.  Where .eh_frame has no FDE for a pc (code built without
 * unwind tables, hand-written assembly), libdwfl tries .debug_frame, and
 * to find it would read the module's whole DWARF: every
 * .debug_ section of a binary built with -g, into memory, whatever its
 * size (a local user's binary can carry a gigabyte).  Those sections
 * other than .debug_frame are made SHT_NOBITS in this handle's headers
 * (libelf keeps them in memory; nothing is written), so libdw sees a
 * module whose DWARF is its frame table only.  Section names are compared
 * within the names section as read (elf_strptr rescans a table without a
 * final NUL at each call).
 */
static int64_t
unwind_sections(Elf *elf)
{
	static const char *const cfi[] = { ".eh_frame", ".eh_frame_hdr",
	    ".debug_frame" };
	static const char *const dwarf[] = { ".debug_", ".zdebug_" };
	Elf_Scn *scn = NULL;
	Elf_Data *str;
	GElf_Shdr sh;
	size_t shstrndx, i, n = 0, len, room;
	int64_t bytes = 0;
	const char *name;
	int hit;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0 ||
	    (scn = elf_getscn(elf, shstrndx)) == NULL ||
	    (str = elf_getdata(scn, NULL)) == NULL || str->d_buf == NULL)
		return (0);
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (n++ >= UNWIND_MAX_SECTIONS)
			return (-1);
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_name >= str->d_size)
			continue;
		name = (const char *)str->d_buf + sh.sh_name;
		room = str->d_size - sh.sh_name;
		for (hit = 0, i = 0; i < sizeof(cfi) / sizeof(cfi[0]); i++) {
			len = strlen(cfi[i]) + 1;	/* with its NUL */
			if (len <= room && memcmp(name, cfi[i], len) == 0) {
				/* sizes a file gives: none may wrap the sum */
				if (sh.sh_size > UNWIND_BUDGET_BYTES)
					return (-1);
				bytes += (int64_t)sh.sh_size;
				hit = 1;
			}
		}
		for (i = 0; !hit && i < sizeof(dwarf) / sizeof(dwarf[0]); i++) {
			len = strlen(dwarf[i]);
			if (len <= room && memcmp(name, dwarf[i], len) == 0 &&
			    sh.sh_type != SHT_NOBITS) {
				sh.sh_type = SHT_NOBITS;
				if (gelf_update_shdr(scn, &sh) == 0)
					return (-1);
				break;
			}
		}
	}
	return (bytes);
}

/*
 * The module's ELF: the symbolizer's safe open of the mapping (its
 * map_files link, or its path in the process's root), read with
 * ELF_C_READ: libdwfl's own elf_begin maps the file, and a file its owner
 * truncates while we read it would raise SIGBUS in the agent.  The
 * [vdso] is read from the process's memory (libdwfl's callback opens no
 * file for it); no other path is ever opened by libdwfl's open(), which
 * follows links in the agent's own root and blocks on a FIFO.
 */
static int
unwind_find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct sym_mapping m;
	Dwarf_Addr low = 0;
	int64_t cfi;
	Elf *elf;
	int fd = -1;

	if (modname != NULL && modname[0] == '[')
		return (dwfl_linux_proc_find_elf(mod, userdata, modname, base,
		    file_name, elfp));
	if (unwind_active == NULL)
		return (-1);
	dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
	if (symbolizer_mapping(unwind_active->sym, unwind_active->cur_pid,
	    low, &m) == 0 && m.path != NULL)
		fd = symbolizer_open_mapping(unwind_active->sym, &m);
	else if (modname != NULL && modname[0] == '/') {
		/* The module's first mapping is not an executable one the
		 * symbolizer knows: its path, opened the safe way. */
		memset(&m, 0, sizeof(m));
		m.path = modname;
		fd = symbolizer_open_mapping(unwind_active->sym, &m);
	}
	if (fd < 0)
		return (-1);
	if ((elf = elf_begin(fd, ELF_C_READ, NULL)) == NULL) {
		close(fd);
		return (-1);
	}
	if ((cfi = unwind_sections(elf)) < 0 ||
	    (uint64_t)cfi > UNWIND_BUDGET_BYTES - unwind_active->held) {
		unwind_active->over_budget++;
		elf_end(elf);
		close(fd);
		return (-1);
	}
	unwind_active->held += (uint64_t)cfi;
	*file_name = strdup(m.path);
	*elfp = elf;
	return (fd);
}

/*
 * No separate debug file: libdwfl's standard search opens candidates with
 * open() (links followed, FIFOs block) and maps them.  Unwinding needs
 * only the call frame information, which .eh_frame in the binary itself
 * carries on x86_64.
 */
static int
unwind_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, const char *file_name, const char *debuglink_file,
    GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink_file;
	(void)debuglink_crc;
	(void)debuginfo_file_name;
	return (-1);
}

static const Dwfl_Callbacks unwind_proc_callbacks = {
	.find_elf = unwind_find_elf,
	.find_debuginfo = unwind_find_debuginfo,
};

static pid_t
unwind_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwinder *u = arg;

	if (*thread_argp != NULL)
		return (0);
	*thread_argp = u;
	return (u->cur.tid);
}

static bool
unwind_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return (true);
}

/* Memory is the copied stack only; anything else is unreadable. */
static bool
unwind_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
    void *arg)
{
	struct unwinder *u = arg;
	uint64_t sp = u->cur.regs[SAMPLE_REG_SP];

	if (addr < sp || addr - sp > u->cur.len ||
	    u->cur.len - (addr - sp) < sizeof(*result))
		return (false);
	memcpy(result, u->cur.stack + (addr - sp), sizeof(*result));
	return (true);
}

static bool
unwind_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Word regs[SAMPLE_NREGS];
	int i;

	for (i = 0; i < SAMPLE_NREGS; i++)
		regs[i] = u->cur.regs[i];
	if (!dwfl_thread_state_registers(thread, 0, SAMPLE_DWARF_NREGS, regs))
		return (false);
	/* arm64: the pc is no DWARF register (libdw's own aarch64 initreg
	 * sets it so too) */
	if (SAMPLE_REG_IP >= SAMPLE_DWARF_NREGS)
		dwfl_thread_state_register_pc(thread, regs[SAMPLE_REG_IP]);
	return (true);
}

static const Dwfl_Thread_Callbacks unwind_thread_callbacks = {
	.next_thread = unwind_next_thread,
	.get_thread = unwind_get_thread,
	.memory_read = unwind_memory_read,
	.set_initial_registers = unwind_set_initial_registers,
};

static int
unwind_frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(frame, &pc, NULL) || pc == 0)
		return (DWARF_CB_ABORT);
	u->cur.ips[u->cur.n++] = pc;
	return (u->cur.n >= u->cur.max ? DWARF_CB_ABORT : DWARF_CB_OK);
}

struct unwinder *
unwinder_new(struct symbolizer *sym)
{
	struct unwinder *u;

	if ((u = calloc(1, sizeof(*u))) == NULL)
		return (NULL);
	u->sym = sym;
	return (u);
}

static Dwfl *
unwind_proc_open(struct unwinder *u, int32_t pid)
{
	Dwfl *dwfl;

	if ((dwfl = dwfl_begin(&unwind_proc_callbacks)) == NULL)
		return (NULL);
	if (dwfl_linux_proc_report(dwfl, pid) != 0 ||
	    dwfl_report_end(dwfl, NULL, NULL) != 0 ||
	    !dwfl_attach_state(dwfl, NULL, pid, &unwind_thread_callbacks, u)) {
		dwfl_end(dwfl);
		return (NULL);
	}
	return (dwfl);
}

static struct unwind_proc *
unwind_proc_get(struct unwinder *u, int32_t pid)
{
	struct unwind_proc *p;

	for (p = u->procs; p != NULL; p = p->next)
		if (p->pid == pid)
			return (p);
	/* The cached handles let go, all at once, when there are too many
	 * or their modules' CFI has spent the budget. */
	if (u->nprocs >= UNWIND_MAX_PROCS ||
	    u->held >= UNWIND_BUDGET_BYTES / 4 * 3)
		unwind_release(u);
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (NULL);
	p->pid = pid;
	p->dwfl = unwind_proc_open(u, pid);
	p->next = u->procs;
	u->procs = p;
	u->nprocs++;
	return (p);
}

int
unwinder_unwind(struct unwinder *u, int32_t pid, int32_t tid,
    const uint64_t *regs, const uint8_t *stack, uint32_t len,
    uint64_t *ips, int max)
{
	struct unwind_proc *p;

	if (max <= 0 || regs[SAMPLE_REG_IP] == 0)
		return (0);
	u->cur_pid = pid;
	u->cur.tid = tid;
	u->cur.regs = regs;
	u->cur.stack = stack;
	u->cur.len = len;
	u->cur.ips = ips;
	u->cur.n = 0;
	u->cur.max = max;
	unwind_active = u;
	p = unwind_proc_get(u, pid);
	if (p != NULL && p->dwfl != NULL)
		dwfl_getthread_frames(p->dwfl, tid, unwind_frame_cb, u);
	unwind_active = NULL;
	if (u->cur.n == 0) {
		/* at least the sampled pc, as perf does */
		ips[0] = regs[SAMPLE_REG_IP];
		u->cur.n = 1;
	}
	return (u->cur.n);
}

static void
unwind_release(struct unwinder *u)
{
	struct unwind_proc *p, *next;

	for (p = u->procs; p != NULL; p = next) {
		next = p->next;
		if (p->dwfl != NULL)
			dwfl_end(p->dwfl);
		free(p);
	}
	u->procs = NULL;
	u->nprocs = 0;
	u->held = 0;
}

uint64_t
unwinder_cycle_end(struct unwinder *u)
{
	uint64_t over = u->over_budget;

	unwind_release(u);
	u->over_budget = 0;
	return (over);
}

void
unwinder_free(struct unwinder *u)
{
	if (u == NULL)
		return;
	unwinder_cycle_end(u);
	free(u);
}
