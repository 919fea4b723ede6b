/*
 * An unprivileged process that maps a file as a runtime library would be
 * mapped (PROT_READ | PROT_EXEC, from offset 0, so that /proc/PID/maps
 * names it), takes the comm it is given, says "ready" and spins: what a
 * runtime plugin looks for, without the dynamic loader (which refuses a
 * broken ELF).  The hostile-ELF tests map their files with it.
 *
 * usage: elf_mapper FILE COMM SECONDS
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long spins;

int
main(int argc, char **argv)
{
	struct stat st;
	time_t end;
	void *p;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: elf_mapper FILE COMM SECONDS\n");
		return (2);
	}
	if ((fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) != 0) {
		perror(argv[1]);
		return (1);
	}
	/* a page is enough for the name in the maps; never touched */
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return (1);
	}
	close(fd);
	(void)prctl(PR_SET_NAME, argv[2], 0, 0, 0);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	end = time(NULL) + atoi(argv[3]);
	while (time(NULL) < end)
		spins++;
	return (0);
}
