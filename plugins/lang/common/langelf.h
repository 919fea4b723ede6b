/*
 * Opening an interpreter's ELF image for a runtime plugin's reader, from a
 * file descriptor or from bytes in memory (unit tests, fuzzers): libelf set
 * up once, the image handed to the reader's own walk, closed again.
 */
#ifndef GP_LANGELF_H
#define GP_LANGELF_H

#include <stddef.h>

#include <libelf.h>

typedef int	(*langelf_fn)(Elf *, void *);

/*
 * fn(elf, arg)'s result; -ENOSYS when libelf is unusable, -ENOEXEC when the
 * bytes are not an ELF libelf opens, -ENOMEM.
 */
int	langelf_read_fd(int fd, langelf_fn fn, void *arg);
int	langelf_read_mem(const void *buf, size_t len, langelf_fn fn,
	    void *arg);

#endif
