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

#include "ruby_target.h"

#define RUBY_MAPS_MAX	(16u << 20)
#define RUBY_MAX_OBJECT	(4ull << 30)

static ruby_open_fn	 ruby_opener;
static void		*ruby_opener_arg;

void
ruby_set_opener(ruby_open_fn fn, void *arg)
{
	ruby_opener = fn;
	ruby_opener_arg = arg;
}

static int
ruby_open(const char *root, const char *path, uint32_t flags,
    uint64_t max_size)
{
	struct gp_open_spec spec;

	if (ruby_opener == NULL)
		return (-ENOSYS);
	memset(&spec, 0, sizeof(spec));
	spec.size = sizeof(spec);
	spec.flags = flags;
	spec.root = root;
	spec.path = path;
	spec.max_size = max_size;
	spec.owner = -1;
	return (ruby_opener(ruby_opener_arg, &spec, NULL));
}

/* A /proc file, at most len - 1 bytes, NUL-terminated. */
ssize_t
ruby_read_small_file(const char *path, char *buf, size_t len)
{
	ssize_t n, total = 0;
	int fd;

	if ((fd = ruby_open(NULL, path, 0, 0)) < 0)
		return (fd);
	while ((size_t)total + 1 < len) {
		n = read(fd, buf + total, len - 1 - (size_t)total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return (total);
}

static char *
ruby_read_maps(pid_t pid, size_t *lenp)
{
	char path[64], *buf = NULL, *nb;
	size_t cap = 64 * 1024, len = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((fd = ruby_open(NULL, path, 0, 0)) < 0)
		return (NULL);
	for (;;) {
		if (buf == NULL && (buf = malloc(cap)) == NULL)
			break;
		if (len + 4096 > cap) {
			if (cap >= RUBY_MAPS_MAX ||
			    (nb = realloc(buf, cap * 2)) == NULL)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (buf != NULL)
		buf[len] = '\0';
	*lenp = len;
	return (buf);
}

/* process_vm_readv: a short read is a failed read. */
static int
ruby_proc_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t got;

	if (addr == 0 || addr + len < addr)
		return (-EFAULT);
	got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (got < 0)
		return (errno == ESRCH ? -ESRCH : errno == EPERM ? -EPERM :
		    -EFAULT);
	return ((size_t)got == len ? 0 : -EFAULT);
}

/* A new sample: whatever was cached may have changed since. */
void
ruby_target_begin(struct ruby_target *t)
{
	if (t->pages != NULL && ++t->gen == 0) {
		memset(t->pages, 0, RUBY_PAGES * sizeof(*t->pages));
		t->gen = 1;
	}
}

/*
 * The walk reads a few small fields per frame, mostly from the same few
 * pages (the VM stack, the function, interned strings): whole pages are
 * read once per sample and served from here, one syscall instead of ten.
 */
int
ruby_mem_proc_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct ruby_target *t = arg;
	struct ruby_page *p;
	uint64_t page, off;
	uint8_t *dst = buf;
	size_t n;
	uint32_t i;

	if (t->pages == NULL || len > 2 * RUBY_PAGE || addr == 0 ||
	    addr + len < addr) {
		t->nreads++;
		return (ruby_proc_read(t->pid, addr, buf, len));
	}
	while (len > 0) {
		page = addr & ~(uint64_t)(RUBY_PAGE - 1);
		off = addr - page;
		n = RUBY_PAGE - off < len ? RUBY_PAGE - off : len;
		/* Fully associative: a sample touches a handful of pages
		 * whose addresses often collide in a direct-mapped table. */
		for (i = 0, p = NULL; i < RUBY_PAGES && p == NULL; i++)
			if (t->pages[i].gen == t->gen &&
			    t->pages[i].addr == page)
				p = &t->pages[i];
		if (p == NULL) {
			p = &t->pages[t->next++ % RUBY_PAGES];
			p->addr = page;
			p->gen = t->gen;
			t->nreads++;
			p->bad = ruby_proc_read(t->pid, page, p->data,
			    RUBY_PAGE);
		}
		if (p->bad != 0)
			return (p->bad);
		memcpy(dst, p->data + off, n);
		dst += n;
		addr += n;
		len -= n;
	}
	return (0);
}

void
ruby_target_release(struct ruby_target *t)
{
	if (t == NULL)
		return;
	free(t->pages);
	free(t->fcache);
	t->pages = NULL;
	t->fcache = NULL;
}

static int
ruby_open_object(pid_t pid, const struct ruby_object *ob)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
	    (int)pid, ob->start, ob->end);
	if ((fd = ruby_open(NULL, path, GP_OPEN_PROC_LINK,
	    RUBY_MAX_OBJECT)) >= 0 || fd == -EINVAL || fd == -EFBIG)
		return (fd);
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	return (ruby_open(path, ob->path, GP_OPEN_NO_SYMLINKS,
	    RUBY_MAX_OBJECT));
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
 * Ruby VM here; -ESRCH: gone; other -errno: profiling error.
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
	int fd, rc;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->mem.read = ruby_mem_proc_read;
	t->mem.arg = t;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st) != 0)
		st.st_ino = 0;
	if ((maps = ruby_read_maps(pid, &len)) == NULL) {
		snprintf(why, whylen, "cannot read maps");
		return (-ESRCH);
	}
	rc = ruby_maps_find(maps, len, (uint64_t)st.st_ino, &ob, &exe);
	free(maps);
	if (rc != 0) {
		snprintf(why, whylen, "no Ruby VM found");
		return (-ENOENT);
	}
	snprintf(t->object, sizeof(t->object), "%s", ob.path);
	if ((fd = ruby_open_object(pid, &ob)) < 0) {
		snprintf(why, whylen, "cannot open %s: %s", ob.path,
		    fd == -EINVAL ? "not a regular file" : strerror(-fd));
		return (fd == -ENOENT ? -ESRCH : fd);
	}
	rc = ruby_elf_read_fd(fd, &pe);
	close(fd);
	if (rc != 0) {
		snprintf(why, whylen, "no Ruby VM found (%s has neither "
		    "ruby_current_vm_ptr nor "
		    "ruby_current_execution_context_ptr)", ob.path);
		return (-ENOENT);
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
			if (ruby_elf_read_fd(fd, &exe_pe) != -ENOEXEC)
				ruby_elf_buildid_text(&exe_pe, t->exe_elfid,
				    sizeof(t->exe_elfid));
			close(fd);
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
	/* Trial read: the chain must be walkable now (often empty). */
	if ((t->pages = calloc(RUBY_PAGES, sizeof(*t->pages))) == NULL ||
	    (t->fcache = calloc(1, sizeof(*t->fcache))) == NULL) {
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
		    t->ver.patch, strerror(-rc));
		return (rc == -EPERM ? rc : -EIO);
	}
	return (0);
}
