/*
 * A synthetic JIT: copies a small spinning function into fresh executable
 * memory, describes it in /tmp/perf-PID.map (the format Node, Java and
 * CPython 3.12 write) as "jit_spin_loop", and runs it, so a profiler must
 * name it from the map ("jit_spin_loop_[j]").
 *
 *	perf_jit [-t seconds]
 */
#include <sys/mman.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * x86_64: push rbp; mov rbp,rsp; mov ecx,0x2000000; 1: dec ecx; jnz 1b;
 * pop rbp; ret  -- a frame-pointer-friendly busy loop.
 */
static const uint8_t jit_code[] = {
	0x55, 0x48, 0x89, 0xe5, 0xb9, 0x00, 0x00, 0x00, 0x02,
	0xff, 0xc9, 0x75, 0xfc, 0x5d, 0xc3,
};

__attribute__((noinline)) void
jit_driver(void (*fn)(void), double end)
{
	struct timespec ts;

	do {
		fn();
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}

int
main(int argc, char **argv)
{
	struct timespec ts;
	char path[64];
	double secs = 5;
	void *mem;
	FILE *f;

	if (argc > 2)
		secs = atof(argv[2]);
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return (1);
	memcpy((char *)mem + 64, jit_code, sizeof(jit_code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if ((f = fopen(path, "w")) == NULL)
		return (1);
	fprintf(f, "%lx %zx jit_spin_loop\n",
	    (unsigned long)((char *)mem + 64), sizeof(jit_code));
	fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	jit_driver((void (*)(void))((char *)mem + 64),
	    ts.tv_sec + ts.tv_nsec / 1e9 + secs);
	unlink(path);
	return (0);
}
