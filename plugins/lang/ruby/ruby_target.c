/*
 * Attaching to one Ruby process: find the object holding the Ruby VM in
 * its maps, open it through /proc/PID/map_files (or the path in the
 * process's root, never following a link there), take the VM or
 * execution context pointer and the version from its ELF, and check the
 * layout with a trial read.  Nothing here stops the target.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfread.h"
#include "langmaps.h"
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

void
ruby_target_release(struct ruby_target *t)
{
	if (t == NULL)
		return;
	langproc_pages_free(&t->pg);
	free(t->fcache);
	t->fcache = NULL;
}

static int
ruby_open_object(pid_t pid, const struct ruby_object *ob)
{
	return (langproc_open_object(pid, ob->start, ob->end, ob->path, 0));
}

static int
ruby_count_frame(void *arg, const char *text)
{
	(void)text;
	(*(uint32_t *)arg)++;
	return (0);
}

/*
 * 0: attached.  -ENOTSUP: skip the process (reason in why); -ENOENT: no
 * Ruby VM here; -EAGAIN: none yet, the dynamic linker still at work;
 * -ESRCH: gone; other -errno: profiling error.
 */
int
ruby_target_attach(pid_t pid, struct ruby_target *t, char *why, size_t whylen)
{
	struct ruby_object ob, exe;
	struct ruby_elf pe, exe_pe;
	struct stat st;
	char path[64], *maps;
	size_t len;
	uint32_t nframes = 0, nseen;
	int fd, rc, linking;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->mem.read = ruby_mem_proc_read;
	t->mem.arg = t;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st) != 0)
		st.st_ino = 0;
	if ((maps = langproc_read_maps(pid, &len)) == NULL) {
		snprintf(why, whylen, "cannot read maps");
		return (-ESRCH);
	}
	rc = ruby_maps_find(maps, len, (uint64_t)st.st_ino, &ob, &exe);
	/* Just after its execve, libruby may not be mapped yet. */
	linking = langmaps_linking(maps, len);
	free(maps);
	if (rc != 0) {
		snprintf(why, whylen, "no Ruby VM found%s", linking ?
		    " yet (the dynamic linker is at work)" : "");
		return (linking ? -EAGAIN : -ENOENT);
	}
	snprintf(t->object, sizeof(t->object), "%s", ob.path);
	if ((fd = ruby_open_object(pid, &ob)) < 0) {
		snprintf(why, whylen, "cannot open %s: %s", ob.path,
		    fd == -EINVAL ? "not a regular file" : fd == -EREMOTE ?
		    LANGGUARD_FILE_REFUSED : strerror(-fd));
		return (fd == -ENOENT ? -ESRCH : fd);
	}
	rc = ruby_elf_read_fd(fd, &pe);
	close(fd);
	if (rc == -EINPROGRESS) {
		snprintf(why, whylen, "%s: %s", ob.path,
		    elfread_strerror(rc));
		return (rc);
	}
	if (elfread_is_bad(rc)) {
		snprintf(why, whylen, "%s skipped: %s", ob.path,
		    elfread_strerror(rc));
		return (-ENOENT);
	}
	if (rc != 0) {
		snprintf(why, whylen, "no Ruby VM found (%s has neither "
		    "ruby_current_vm_ptr nor "
		    "ruby_current_execution_context_ptr)", ob.path);
		return (linking ? -EAGAIN : -ENOENT);
	}
	if (!pe.has_ver) {
		snprintf(why, whylen, "unknown Ruby version in %s", ob.path);
		return (-ENOTSUP);
	}
	t->ver = pe.ver;
	snprintf(t->description, sizeof(t->description), "%s",
	    pe.description);
	if (exe.found && exe.start == ob.start)	/* a static ruby */
		ruby_elf_buildid_text(&pe, t->exe_elfid, sizeof(t->exe_elfid));
	else {
		ruby_elf_buildid_text(&pe, t->lib_elfid, sizeof(t->lib_elfid));
		/* The executable's build id: its symbols are not needed. */
		if (exe.found && (fd = ruby_open_object(pid, &exe)) >= 0) {
			rc = ruby_elf_read_fd(fd, &exe_pe);
			close(fd);
			if (rc == -EINPROGRESS) {
				snprintf(why, whylen, "%s: %s", exe.path,
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
		    "symbol", t->ver.major, t->ver.minor, t->ver.patch, ob.path,
		    t->off.ec_direct ? "ruby_current_execution_context_ptr" :
		    "ruby_current_vm_ptr");
		return (-ENOTSUP);
	}
	t->root = ob.start - pe.first_load_vaddr + (t->off.ec_direct ?
	    pe.current_ec_ptr : pe.current_vm_ptr);
	if (pe.global_symbols != 0) {
		t->off.global_symbols = ob.start - pe.first_load_vaddr +
		    pe.global_symbols;
		t->off.last_op_id = pe.last_op_id;
	}
	/* Trial read: the chain must be walkable now (often empty). */
	if ((rc = langproc_pages_init(&t->pg, pid)) != 0) {
		snprintf(why, whylen, "cannot read its maps and mounts: %s",
		    strerror(-rc));
		return (rc == -ENOMEM ? rc : -ESRCH);
	}
	if ((t->fcache = calloc(1, sizeof(*t->fcache))) == NULL) {
		ruby_target_release(t);
		snprintf(why, whylen, "out of memory");
		return (-ENOMEM);
	}
	ruby_target_begin(t);
	rc = ruby_walk_stack(&t->mem, &t->off, t->root, RUBY_MAX_FRAMES,
	    t->fcache, ruby_count_frame, &nframes, &nseen);
	if (rc != 0)
		ruby_target_release(t);
	if (rc == -ESRCH)
		return (rc);
	if (rc != 0) {
		snprintf(why, whylen, "Ruby %d.%d.%d: cannot read the running "
		    "thread's frames: %s", t->ver.major, t->ver.minor,
		    t->ver.patch, rc == -EREMOTE ? t->pg.guard.why :
		    strerror(-rc));
		return (rc == -EPERM ? rc : -EIO);
	}
	return (0);
}
