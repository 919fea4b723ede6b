/*
 * libFuzzer target for the /proc, os-release, auxv, maps, status and ELF
 * parsers.
 * FUZZ_SOURCES: core/base/procfs.c core/base/safeopen.c core/base/procstr.c core/base/mapsread.c core/base/safefs.c lib/fsguard.c core/base/xmalloc.c core/base/log.c core/base/textesc.c lib/procstat.c
 * FUZZ_LIBS: -ljson-c
 */
#include <stddef.h>
#include <stdint.h>

#include "base/mapsread.h"
#include "base/procfs.h"
#include "base/procstr.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct cpu_times ct;
	struct os_release os;
	struct cpu_info ci;
	uint64_t a, b;
	int32_t pp;
	uint32_t uid;
	struct procstr_ranges r;

	procfs_stat_ppid(s, size, &pp);
	procfs_cpu_times(s, size, &ct);
	procfs_meminfo(s, size, &a, &b);
	procfs_os_release(s, size, &os);
	procfs_cpuinfo(s, size, &ci);
	procfs_auxv_execfn(data, size, &a);
	procfs_elf_arch(data, size);
	procstr_maps_anon(s, size, 0x7ffd00001000, 4096);
	procstr_parse_stat(s, size, &r);
	mapsread_status_root(s, size, &uid);
	return (0);
}
