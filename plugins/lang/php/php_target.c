/*
 * Attaching to one PHP process: find the object holding the Zend engine
 * in its maps, open it through /proc/PID/map_files (or exe, or the path
 * in the process's root, never following a link there), take
 * executor_globals and the version from its ELF, and check the layout
 * with a trial read.  Nothing here stops the target.
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
#include "php_target.h"

/* A new sample: whatever was cached may have changed since. */
void
php_target_begin(struct php_target *t)
{
	langproc_pages_begin(&t->pg);
}

/* The reader's memory callback (struct php_mem), through the page cache. */
int
php_mem_proc_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct php_target *t = arg;

	return (langproc_pages_read(&t->pg, addr, buf, len));
}

void
php_target_release(struct php_target *t)
{
	if (t == NULL)
		return;
	langproc_pages_free(&t->pg);
	free(t->fcache);
	t->fcache = NULL;
}

/*
 * What php_elf_read_fd found in a file, by the file's identity: a
 * php-fpm pool's workers map one binary (its version search reads some
 * 600 KB), read once rather than per worker, so that the ELF reader's
 * share of a loop turn (elfread.h) attaches a whole pool at once.
 */
#define PHP_ELF_CACHE	8

static struct php_elf_cached {
	int		 used;
	dev_t		 dev;
	ino_t		 ino;
	off_t		 size;
	struct timespec	 mtim;
	int		 rc;
	struct php_elf	 pe;
} php_elf_cache[PHP_ELF_CACHE];
static unsigned int	 php_elf_cache_next;

static int
php_elf_read_cached(int fd, struct php_elf *pe)
{
	struct php_elf_cached *c;
	struct stat st;
	unsigned int i;
	int rc;

	if (fstat(fd, &st) != 0)
		return (php_elf_read_fd(fd, pe));
	for (i = 0; i < PHP_ELF_CACHE; i++) {
		c = &php_elf_cache[i];
		if (c->used && c->dev == st.st_dev && c->ino == st.st_ino &&
		    c->size == st.st_size && c->mtim.tv_sec ==
		    st.st_mtim.tv_sec && c->mtim.tv_nsec == st.st_mtim.tv_nsec) {
			*pe = c->pe;
			return (c->rc);
		}
	}
	rc = php_elf_read_fd(fd, pe);
	if (rc == -EINPROGRESS)
		return (rc);	/* not read: nothing to remember */
	c = &php_elf_cache[php_elf_cache_next++ % PHP_ELF_CACHE];
	c->used = 1;
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	c->size = st.st_size;
	c->mtim = st.st_mtim;
	c->rc = rc;
	c->pe = *pe;
	return (rc);
}

static int
php_open_object(pid_t pid, const struct php_object *ob)
{
	return (langproc_open_object(pid, ob->start, ob->end, ob->path, 0));
}

static int
php_count_frame(void *arg, const char *text)
{
	(void)text;
	(*(uint32_t *)arg)++;
	return (0);
}

/*
 * 0: attached.  -ENOTSUP: skip the process (reason in why); -ENOENT: no
 * PHP engine here; -EAGAIN: none yet, the dynamic linker still at work;
 * -ESRCH: gone; other -errno: profiling error.
 */
int
php_target_attach(pid_t pid, struct php_target *t, char *why, size_t whylen)
{
	struct php_object ob;
	struct php_elf pe;
	struct stat st;
	char path[64], *maps;
	size_t len;
	uint32_t nframes = 0, nseen;
	int fd, rc, linking;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->mem.read = php_mem_proc_read;
	t->mem.arg = t;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st) != 0)
		st.st_ino = 0;
	if ((maps = langproc_read_maps(pid, &len)) == NULL) {
		snprintf(why, whylen, "cannot read maps");
		return (-ESRCH);
	}
	rc = php_maps_find(maps, len, (uint64_t)st.st_ino, &ob);
	/* Just after its execve, its libraries may not all be mapped. */
	linking = langmaps_linking(maps, len);
	free(maps);
	if (rc != 0) {
		snprintf(why, whylen, "no PHP engine found%s", linking ?
		    " yet (the dynamic linker is at work)" : "");
		return (linking ? -EAGAIN : -ENOENT);
	}
	snprintf(t->object, sizeof(t->object), "%s", ob.path);
	if ((fd = php_open_object(pid, &ob)) < 0) {
		snprintf(why, whylen, "cannot open %s: %s", ob.path,
		    fd == -EINVAL ? "not a regular file" : fd == -EREMOTE ?
		    LANGGUARD_FILE_REFUSED : strerror(-fd));
		return (fd == -ENOENT ? -ESRCH : fd);
	}
	rc = php_elf_read_cached(fd, &pe);
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
		snprintf(why, whylen, "no PHP engine found (%s has no "
		    "executor_globals)", ob.path);
		return (linking ? -EAGAIN : -ENOENT);
	}
	if (pe.zts) {
		snprintf(why, whylen, "%s is a thread-safe (ZTS) PHP build: "
		    "its executor globals are thread-local, which this reader "
		    "does not follow", ob.path);
		return (-ENOTSUP);
	}
	if (!pe.has_ver) {
		snprintf(why, whylen, "unknown PHP version in %s", ob.path);
		return (-ENOTSUP);
	}
	t->ver = pe.ver;
	if ((rc = php_offsets_for(&t->ver, &t->off, why, whylen)) != 0)
		return (rc);
	t->eg = ob.start - pe.first_load_vaddr + pe.executor_globals;
	/* Trial read: the chain must be walkable now (often empty). */
	if ((rc = langproc_pages_init(&t->pg, pid)) != 0) {
		snprintf(why, whylen, "cannot read its maps and mounts: %s",
		    strerror(-rc));
		return (rc == -ENOMEM ? rc : -ESRCH);
	}
	if ((t->fcache = calloc(1, sizeof(*t->fcache))) == NULL) {
		php_target_release(t);
		snprintf(why, whylen, "out of memory");
		return (-ENOMEM);
	}
	php_target_begin(t);
	rc = php_walk_stack(&t->mem, &t->off, t->eg, PHP_MAX_FRAMES,
	    t->fcache, php_count_frame, &nframes, &nseen);
	if (rc != 0)
		php_target_release(t);
	if (rc == -ESRCH)
		return (rc);
	if (rc != 0) {
		snprintf(why, whylen, "PHP %d.%d.%d: cannot read the executor "
		    "globals: %s", t->ver.major, t->ver.minor, t->ver.patch,
		    rc == -EREMOTE ? t->pg.guard.why : strerror(-rc));
		return (rc == -EPERM ? rc : -EIO);
	}
	return (0);
}
