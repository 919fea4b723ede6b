/* Unit tests of core/base/procfs.c parsers, on fixed text and on this host. */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "base/log.h"
#include "base/procfs.h"
#include "testing.h"

static void
test_stat(void)
{
	const char *s = "123 (a) b) c) S 456 123 123 0 -1 4194560";
	int32_t pp = 0;
	char *buf;
	size_t len;

	CHECK_INTEQ(procfs_stat_ppid(s, strlen(s), &pp), 0, "parse stat");
	CHECK_INTEQ(pp, 456, "ppid after the last ')'");
	CHECK_INTEQ(procfs_stat_ppid("12 (x", 5, &pp), -EINVAL, "truncated");
	CHECK_INTEQ(procfs_stat_ppid("1 (x) S", 7, &pp), -EINVAL, "no ppid");
	CHECK(procfs_read("/proc/self/stat", &buf, &len, 65536) == 0 &&
	    procfs_stat_ppid(buf, len, &pp) == 0 && pp == getppid(),
	    "ppid of this process");
	free(buf);
}

static void
test_cpu_mem(void)
{
	const char *st = "cpu  100 5 50 800 20 3 2 10 40 0\n"
	    "cpu0 1 2 3 4\nintr 1\n";
	const char *mi = "MemTotal:       16000 kB\nMemFree: 1 kB\n"
	    "MemAvailable:    4000 kB\n";
	struct cpu_times ct;
	uint64_t t, a;
	char *buf;
	size_t len;

	CHECK_INTEQ(procfs_cpu_times(st, strlen(st), &ct), 0, "cpu line");
	CHECK_INTEQ(ct.total, 990, "total = user..steal, guest excluded");
	CHECK_INTEQ(ct.idle, 820, "idle + iowait");
	CHECK_INTEQ(procfs_cpu_times("cpu0 1 2\n", 9, &ct), -EINVAL,
	    "no aggregate line");
	CHECK_INTEQ(procfs_meminfo(mi, strlen(mi), &t, &a), 0, "meminfo");
	CHECK(t == 16000 && a == 4000, "MemTotal, MemAvailable");
	CHECK_INTEQ(procfs_meminfo("MemTotal: 5 kB\n", 15, &t, &a), -EINVAL,
	    "MemAvailable missing");
	CHECK(procfs_read("/proc/stat", &buf, &len, 1 << 20) == 0 &&
	    procfs_cpu_times(buf, len, &ct) == 0 && ct.total > ct.idle,
	    "this host's /proc/stat");
	free(buf);
	CHECK(procfs_read("/proc/meminfo", &buf, &len, 1 << 20) == 0 &&
	    procfs_meminfo(buf, len, &t, &a) == 0 && t > 0 && a <= t,
	    "this host's /proc/meminfo");
	free(buf);
}

static void
test_osrel_cpuinfo(void)
{
	const char *os = "PRETTY_NAME=\"Ubuntu 22.04.3 LTS\"\n"
	    "NAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\nVERSION_CODENAME=jammy\n";
	const char *ci = "processor\t: 0\nvendor_id\t: GenuineIntel\n"
	    "cpu family\t: 6\nmodel\t\t: 143\nmodel name\t: Intel(R) Xeon\n"
	    "flags\t\t: fpu vme hypervisor\n";
	struct os_release o;
	struct cpu_info c;

	CHECK_INTEQ(procfs_os_release(os, strlen(os), &o), 0, "os-release");
	CHECK_STREQ(o.name, "Ubuntu", "NAME unquoted");
	CHECK_STREQ(o.release, "22.04", "VERSION_ID");
	CHECK_STREQ(o.codename, "jammy", "VERSION_CODENAME bare");
	CHECK_INTEQ(procfs_os_release("X=1\n", 4, &o), -EINVAL, "no NAME");
	procfs_cpuinfo(ci, strlen(ci), &c);
	CHECK_STREQ(c.model_name, "Intel(R) Xeon", "model name");
	CHECK_STREQ(c.flags, "fpu vme hypervisor", "flags");
	CHECK(c.family == 6 && c.model == 143, "family 6 model 143");
}

static void
test_auxv_elf(void)
{
	uint64_t aux[8] = { 6, 4096, 31, 0x7ffd1234, 0, 0 };
	unsigned char elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1 };
	uint64_t a = 0;
	char *buf;
	size_t len;

	CHECK_INTEQ(procfs_auxv_execfn((unsigned char *)aux, sizeof(aux), &a),
	    0, "AT_EXECFN found");
	CHECK_INTEQ(a, 0x7ffd1234, "its value");
	CHECK_INTEQ(procfs_auxv_execfn((unsigned char *)aux, 16, &a), -ENOENT,
	    "absent");
	elf[18] = 62;
	CHECK_STREQ(procfs_elf_arch(elf, sizeof(elf)), "x86_64", "EM_X86_64");
	elf[18] = 183;
	CHECK_STREQ(procfs_elf_arch(elf, sizeof(elf)), "aarch64", "aarch64");
	CHECK(procfs_elf_arch(elf, 10) == NULL, "short header");
	CHECK(procfs_read("/proc/self/exe", &buf, &len, 64) == 0 &&
	    procfs_elf_arch((unsigned char *)buf, len) != NULL,
	    "this program's ELF header");
	free(buf);
}

int
main(void)
{
	log_init(0, "test_procfs");
	test_stat();
	test_cpu_mem();
	test_osrel_cpuinfo();
	test_auxv_elf();
	return (testing_done());
}
