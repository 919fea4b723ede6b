/*
 * An interpreter's ELF image opened for a reader's walk: see langelf.h.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "langelf.h"

int
langelf_read_fd(int fd, langelf_fn fn, void *arg)
{
	Elf *elf;
	int rc;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return (-ENOSYS);
	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL)
		return (-ENOEXEC);
	rc = fn(elf, arg);
	elf_end(elf);
	return (rc);
}

int
langelf_read_mem(const void *buf, size_t len, langelf_fn fn, void *arg)
{
	Elf *elf;
	char *copy;
	int rc;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return (-ENOSYS);
	/* libelf may write to the image (elf_memory takes char *). */
	if ((copy = malloc(len ? len : 1)) == NULL)
		return (-ENOMEM);
	memcpy(copy, buf, len);
	if ((elf = elf_memory(copy, len)) == NULL) {
		free(copy);
		return (-ENOEXEC);
	}
	rc = fn(elf, arg);
	elf_end(elf);
	free(copy);
	return (rc);
}
