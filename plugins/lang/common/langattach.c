/*
 * Attaching a runtime's reader to a process: see langattach.h.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfread.h"
#include "langattach.h"
#include "langmaps.h"
#include "procexe.h"

int
langattach_find(pid_t pid, langattach_find_fn find, void *arg,
    const char *what, int *linking, char *why, size_t whylen)
{
	struct stat st;
	char *maps;
	size_t len;
	int rc;

	*linking = 0;
	(void)procexe_stat(pid, &st);	/* st_ino 0 if unknown */
	if ((maps = langproc_read_maps(pid, &len)) == NULL) {
		if (errno == EAGAIN) {
			snprintf(why, whylen, "maps read deferred (budget)");
			return (-EINPROGRESS);	/* tried again */
		}
		snprintf(why, whylen, "cannot read maps");
		return (-ESRCH);
	}
	rc = find(arg, maps, len, (uint64_t)st.st_ino);
	/* Just after its execve, its libraries may not all be mapped. */
	*linking = langmaps_linking(maps, len);
	free(maps);
	if (rc == 0)
		return (0);
	snprintf(why, whylen, "no %s found%s", what, *linking ?
	    " yet (the dynamic linker is at work)" : "");
	return (*linking ? -EAGAIN : -ENOENT);
}

int
langattach_open(pid_t pid, uint64_t start, uint64_t end, const char *path,
    int is_exe, char *why, size_t whylen)
{
	int fd;

	if ((fd = langproc_open_object(pid, start, end, path, is_exe)) < 0)
		snprintf(why, whylen, "cannot open %s: %s", path,
		    fd == -EINVAL ? "not a regular file" : fd == -EREMOTE ?
		    LANGGUARD_FILE_REFUSED : strerror(-fd));
	return (fd);
}

int
langattach_elf_read(struct langattach_elf *e, int fd, void *facts)
{
	struct stat st;
	unsigned int i;
	int rc;

	if (e->facts == NULL || fstat(fd, &st) != 0)
		return (e->read(fd, facts));
	for (i = 0; i < LANGATTACH_CACHE; i++)
		if (e->file[i].used && e->file[i].dev == st.st_dev &&
		    e->file[i].ino == st.st_ino &&
		    e->file[i].size == st.st_size &&
		    e->file[i].mtim.tv_sec == st.st_mtim.tv_sec &&
		    e->file[i].mtim.tv_nsec == st.st_mtim.tv_nsec) {
			memcpy(facts, (char *)e->facts + i * e->size, e->size);
			return (e->file[i].rc);
		}
	rc = e->read(fd, facts);
	if (rc == -EINPROGRESS)
		return (rc);	/* not read: nothing to remember */
	i = e->next++ % LANGATTACH_CACHE;
	e->file[i].used = 1;
	e->file[i].dev = st.st_dev;
	e->file[i].ino = st.st_ino;
	e->file[i].size = st.st_size;
	e->file[i].mtim = st.st_mtim;
	e->file[i].rc = rc;
	memcpy((char *)e->facts + i * e->size, facts, e->size);
	return (rc);
}

int
langattach_read(struct langattach_elf *e, int fd, const char *path,
    void *facts, char *why, size_t whylen)
{
	int rc;

	rc = langattach_elf_read(e, fd, facts);
	close(fd);
	if (rc == -EINPROGRESS) {
		snprintf(why, whylen, "%s: %s", path, elfread_strerror(rc));
		return (rc);
	}
	if (elfread_is_bad(rc)) {
		snprintf(why, whylen, "%s skipped: %s", path,
		    elfread_strerror(rc));
		return (-ENOENT);
	}
	return (rc != 0);
}

int
langattach_guard_failed(int rc, char *why, size_t whylen)
{
	if (rc == -EAGAIN) {
		snprintf(why, whylen, "maps read deferred (budget)");
		return (-EINPROGRESS);	/* tried again */
	}
	snprintf(why, whylen, "cannot read its maps and mounts: %s",
	    strerror(-rc));
	return (rc == -ENOMEM ? rc : -ESRCH);
}

void *
langattach_memory(struct langproc_pages *pg, pid_t pid, size_t size,
    int *rcp, char *why, size_t whylen)
{
	void *cache;

	if ((*rcp = langproc_pages_init(pg, pid)) != 0) {
		*rcp = langattach_guard_failed(*rcp, why, whylen);
		return (NULL);
	}
	if ((cache = calloc(1, size)) == NULL) {
		langproc_pages_free(pg);
		snprintf(why, whylen, "out of memory");
		*rcp = -ENOMEM;
		return (NULL);
	}
	langproc_pages_begin(pg);
	return (cache);
}

int
langattach_count_frame(void *arg, const char *text)
{
	(void)text;
	(*(uint32_t *)arg)++;
	return (0);
}

int
langattach_trial_failed(int rc, const struct langguard *g, char *why,
    size_t whylen, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (rc == -ESRCH)
		return (rc);
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	n = strlen(why);
	snprintf(why + n, whylen - n, ": %s", rc == -EREMOTE ? g->why :
	    strerror(-rc));
	return (rc == -EPERM ? rc : -EIO);
}
