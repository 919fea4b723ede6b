/*
 * Attaching to one PHP process: find the object holding the Zend engine
 * in its maps, open it through /proc/PID/map_files (or exe, or the path
 * in the process's root, never following a link there), take
 * executor_globals and the version from its ELF, and check the layout
 * with a trial read.  Nothing here stops the target.
 */
#include "config.h"

#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "langattach.h"
#include "langproc.h"
#include "php_target.h"

/* A new sample: whatever was cached may have changed since.  The cache
 * is refreshed at the sample's first read: a walked sample whose frames
 * are all known makes none. */
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

/* An attached process without a sample in a cycle (a php-fpm pool's idle
 * workers) holds no cache: some 110 KB each. */
void
php_target_idle(struct php_target *t)
{
	langproc_pages_idle(&t->pg);
	free(t->fcache);
	t->fcache = NULL;
}

int
php_target_wake(struct php_target *t)
{
	if (t->fcache == NULL) {
		if ((t->fcache = calloc(1, sizeof(*t->fcache))) == NULL)
			return (-ENOMEM);
		t->fcache->eg = t->eg;
	}
	return (langproc_pages_wake(&t->pg));
}

void
php_target_release(struct php_target *t)
{
	if (t == NULL)
		return;
	php_target_idle(t);
	langproc_pages_free(&t->pg);
}

static int
php_elf_read_any(int fd, void *pe)
{
	return (php_elf_read_fd(fd, pe));
}

/* A php-fpm pool's workers map one binary (its version search reads
 * some 600 KB): read once rather than per worker (langattach.h). */
static struct php_elf php_elf_facts[LANGATTACH_CACHE];
static struct langattach_elf php_elf_files = {
	.read = php_elf_read_any,
	.size = sizeof(struct php_elf),
	.facts = php_elf_facts,
};

static int
php_find(void *arg, const char *maps, size_t len, uint64_t exe_ino)
{
	return (php_maps_find(maps, len, exe_ino, arg));
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
	uint32_t nframes = 0, nseen;
	int fd, rc, linking;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->mem.read = php_mem_proc_read;
	t->mem.arg = t;
	if ((rc = langattach_find(pid, php_find, &ob, "PHP engine", &linking,
	    why, whylen)) != 0)
		return (rc);
	snprintf(t->object, sizeof(t->object), "%s", ob.path);
	if ((fd = langattach_open(pid, ob.start, ob.end, ob.path, 0, why,
	    whylen)) < 0)
		return (fd == -ENOENT ? -ESRCH : fd);
	if ((rc = langattach_read(&php_elf_files, fd, ob.path, &pe, why,
	    whylen)) < 0)
		return (rc);
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
	if ((t->fcache = langattach_memory(&t->pg, pid, sizeof(*t->fcache),
	    &rc, why, whylen)) == NULL)
		return (rc);
	t->fcache->eg = t->eg;
	if ((rc = php_walk_stack(&t->mem, &t->off, t->eg, PHP_MAX_FRAMES,
	    t->fcache, langattach_count_frame, &nframes, &nseen)) != 0) {
		rc = langattach_trial_failed(rc, &t->pg.guard, why, whylen,
		    "PHP %d.%d.%d: cannot read the executor globals",
		    t->ver.major, t->ver.minor, t->ver.patch);
		php_target_release(t);
	}
	return (rc);
}
