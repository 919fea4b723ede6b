/*
 * Fuzz the ELF reader that finds _PyRuntime, Py_Version, PyCode_Type, the
 * .PyRuntime section, the first PT_LOAD and the build id.
 * FUZZ_SOURCES: plugins/lang/python/py_elf.c plugins/common/elf/elfread.c plugins/common/elf/elfread_held.c plugins/common/elf/elfbad.c
 * FUZZ_LIBS: -lelf
 */
#include <stdint.h>

#include "plugins/lang/python/pyreader.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct py_elf pe;

	(void)py_elf_read_mem(data, size, &pe);
	return (0);
}
