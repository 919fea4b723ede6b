/*
 * Attaching to one Ruby process: find the object holding the Ruby VM in
 * its maps, open it through /proc/PID/map_files (or the path in the
 * process's root, never following a link there), take the VM or
 * execution context pointer and the version from its ELF, and check the
 * layout with a trial read.  Nothing here stops the target.
 */
#include "config.h"

#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfread.h"
#include "langattach.h"
#include "langproc.h"
#include "ruby_target.h"

/* A new sample: whatever was cached may have changed since. */
void
ruby_target_begin(struct ruby_target *t)
{
	langproc_pages_begin(&t->pg);
}

/* The reader's memory callback (struct ruby_mem), through the page cache. */
int
ruby_mem_proc_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct ruby_target *t = arg;

	return (langproc_pages_read(&t->pg, addr, buf, len));
}

/* An attached process without a sample in a cycle holds no cache. */
void
ruby_target_idle(struct ruby_target *t)
{
	langproc_pages_idle(&t->pg);
	free(t->fcache);
	t->fcache = NULL;
}

int
ruby_target_wake(struct ruby_target *t)
{
	if (t->fcache == NULL &&
	    (t->fcache = calloc(1, sizeof(*t->fcache))) == NULL)
		return (-ENOMEM);
	return (langproc_pages_wake(&t->pg));
}

void
ruby_target_release(struct ruby_target *t)
{
	if (t == NULL)
		return;
	ruby_target_idle(t);
	langproc_pages_free(&t->pg);
}

static int
ruby_elf_read_any(int fd, void *pe)
{
	return (ruby_elf_read_fd(fd, pe));
}

/* Each process's file read again (no facts kept). */
static struct langattach_elf ruby_elf_files = {
	.read = ruby_elf_read_any,
	.size = sizeof(struct ruby_elf),
};

struct ruby_found {
	struct ruby_object ob, exe;
	int musl;
};

static int
ruby_find(void *arg, const char *maps, size_t len, uint64_t exe_ino)
{
	struct ruby_found *f = arg;

	/* musl lays out its threads' DTVs its own way */
	f->musl = memmem(maps, len, "/ld-musl-", 9) != NULL;
	return (ruby_maps_find(maps, len, exe_ino, &f->ob, &f->exe));
}

/*
 * Where each thread's execution context is (ruby_current_ec, 3.x): the
 * module ID of the object's TLS block, which the dynamic linker wrote
 * in its GOT (an executable's own block is module 1), and the offset.
 * Without it (2.x, musl, a module ID not sane) the process is sampled
 * on the timer only.
 */
static void
ruby_target_tls(struct ruby_target *t, const struct ruby_found *f,
    const struct ruby_elf *pe)
{
	uint64_t mod = 0;

	if (!pe->has_tls_ec || !pe->has_pt_tls || t->off.ec_direct ||
	    f->musl)
		return;
	if (f->exe.found && f->exe.start == f->ob.start)
		mod = 1;
	else if (pe->tls_module_got == 0 || ruby_read_u64(&t->mem,
	    f->ob.start - pe->first_load_vaddr + pe->tls_module_got,
	    &mod) != 0)
		return;
	if (mod == 0 || mod > 4096)
		return;
	t->tls_module = (uint32_t)mod;
	t->tls_ec = pe->tls_ec;
}

/*
 * 0: attached.  -ENOTSUP: skip the process (reason in why); -ENOENT: no
 * Ruby VM here; -EAGAIN: none yet, the dynamic linker still at work;
 * -ESRCH: gone; other -errno: profiling error.
 */
int
ruby_target_attach(pid_t pid, struct ruby_target *t, char *why, size_t whylen)
{
	struct ruby_found f;
	struct ruby_object *ob = &f.ob, *exe = &f.exe;
	struct ruby_elf pe, exe_pe;
	uint32_t nframes = 0, nseen;
	int fd, rc, linking;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->mem.read = ruby_mem_proc_read;
	t->mem.arg = t;
	if ((rc = langattach_find(pid, ruby_find, &f, "Ruby VM", &linking,
	    why, whylen)) != 0)
		return (rc);
	snprintf(t->object, sizeof(t->object), "%s", ob->path);
	if ((fd = langattach_open(pid, ob->start, ob->end, ob->path, 0, why,
	    whylen)) < 0)
		return (fd == -ENOENT ? -ESRCH : fd);
	if ((rc = langattach_read(&ruby_elf_files, fd, ob->path, &pe, why,
	    whylen)) < 0)
		return (rc);
	if (rc != 0) {
		snprintf(why, whylen, "no Ruby VM found (%s has neither "
		    "ruby_current_vm_ptr nor "
		    "ruby_current_execution_context_ptr)", ob->path);
		return (linking ? -EAGAIN : -ENOENT);
	}
	if (!pe.has_ver) {
		snprintf(why, whylen, "unknown Ruby version in %s", ob->path);
		return (-ENOTSUP);
	}
	t->ver = pe.ver;
	snprintf(t->description, sizeof(t->description), "%s",
	    pe.description);
	if (exe->found && exe->start == ob->start)	/* a static ruby */
		ruby_elf_buildid_text(&pe, t->exe_elfid, sizeof(t->exe_elfid));
	else {
		ruby_elf_buildid_text(&pe, t->lib_elfid, sizeof(t->lib_elfid));
		/* The executable's build id: its symbols are not needed. */
		if (exe->found && (fd = langproc_open_object(pid,
		    exe->start, exe->end, exe->path, 0)) >= 0) {
			rc = ruby_elf_read_fd(fd, &exe_pe);
			close(fd);
			if (rc == -EINPROGRESS) {
				snprintf(why, whylen, "%s: %s", exe->path,
				    elfread_strerror(rc));
				return (rc);
			}
			if (rc != -ENOEXEC)
				ruby_elf_buildid_text(&exe_pe, t->exe_elfid,
				    sizeof(t->exe_elfid));
		}
	}
	if ((rc = ruby_offsets_for(&t->ver, &t->off, why, whylen)) != 0)
		return (rc);
	if (t->off.ec_direct ? pe.current_ec_ptr == 0 :
	    pe.current_vm_ptr == 0) {
		snprintf(why, whylen, "Ruby %d.%d.%d in %s without the %s "
		    "symbol", t->ver.major, t->ver.minor, t->ver.patch,
		    ob->path, t->off.ec_direct ?
		    "ruby_current_execution_context_ptr" :
		    "ruby_current_vm_ptr");
		return (-ENOTSUP);
	}
	t->root = ob->start - pe.first_load_vaddr + (t->off.ec_direct ?
	    pe.current_ec_ptr : pe.current_vm_ptr);
	if (pe.global_symbols != 0) {
		t->off.global_symbols = ob->start - pe.first_load_vaddr +
		    pe.global_symbols;
		t->off.last_op_id = pe.last_op_id;
	}
	/* Trial read: the chain must be walkable now (often empty). */
	if ((t->fcache = langattach_memory(&t->pg, pid, sizeof(*t->fcache),
	    &rc, why, whylen)) == NULL)
		return (rc);
	if ((rc = ruby_walk_stack(&t->mem, &t->off, t->root, RUBY_MAX_FRAMES,
	    t->fcache, langattach_count_frame, &nframes, &nseen)) != 0) {
		rc = langattach_trial_failed(rc, &t->pg.guard, why, whylen,
		    "Ruby %d.%d.%d: cannot read the running thread's frames",
		    t->ver.major, t->ver.minor, t->ver.patch);
		ruby_target_release(t);
		return (rc);
	}
	ruby_target_tls(t, &f, &pe);
	return (0);
}
