/*
 * A process that maps a page of FILE (a file on FUSE whose reads never
 * answer, in the test) over the top of its own stack, where the kernel
 * put the AT_EXECFN string: the application metadata the agent adds to a
 * profile reads that string from the process's memory, and a read of
 * the page would wait for the FUSE server.  The page is never touched
 * here; the process then burns CPU so that it is sampled.
 *
 *	execfn_fuse FILE READY_FILE SECONDS
 *
 * READY_FILE gets the page's address (hex) once it is mapped.  The test
 * gives the process a large environment so that the stack's frames lie
 * pages below the strings at its top.
 */
#include <sys/auxv.h>
#include <sys/mman.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

int
main(int argc, char **argv)
{
	uintptr_t fn, page, here = (uintptr_t)&fn;
	long psz = sysconf(_SC_PAGESIZE);
	struct timespec t0, t;
	double secs;
	FILE *f;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: execfn_fuse FILE READY_FILE SECONDS\n");
		return (2);
	}
	secs = atof(argv[3]);
	if ((fn = (uintptr_t)getauxval(AT_EXECFN)) == 0) {
		fprintf(stderr, "no AT_EXECFN\n");
		return (1);
	}
	page = fn & ~(uintptr_t)(psz - 1);
	/* Our frames must not be in the page we replace. */
	if (here + 2 * (uintptr_t)psz > page) {
		fprintf(stderr, "the stack's frames are too near AT_EXECFN "
		    "(give a larger environment)\n");
		return (1);
	}
	if ((fd = open(argv[1], O_RDONLY)) == -1) {
		perror(argv[1]);
		return (1);
	}
	if (mmap((void *)page, (size_t)psz, PROT_READ, MAP_PRIVATE | MAP_FIXED,
	    fd, 0) == MAP_FAILED) {
		perror("mmap");
		return (1);
	}
	if ((f = fopen(argv[2], "w")) == NULL) {
		perror(argv[2]);
		return (1);
	}
	fprintf(f, "%lx\n", (unsigned long)page);
	fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000000; i++)
			sink += (unsigned long)i * 7;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) +
	    (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return (0);
}
