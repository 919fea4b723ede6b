/*
 * A native program that loads CPython late, by dlopen, as uWSGI loads its
 * Python plugin or an application its embedded interpreter: it spins in
 * native code for DELAY seconds (a runtime profiler looks at it then and
 * finds no interpreter), then dlopens LIB (libpython3.X.so), starts the
 * interpreter and runs late_hot() for SECONDS, in Python.
 *
 * usage: late_embed LIB DELAY SECONDS
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long spins;

/* Native work, its own frame in perf's stacks. */
static void __attribute__((noinline))
late_native_spin(int secs)
{
	time_t end = time(NULL) + secs;

	while (time(NULL) < end)
		spins++;
}

int
main(int argc, char **argv)
{
	void (*init)(void);
	int (*run)(const char *);
	char code[512];
	void *lib;

	if (argc != 4) {
		fprintf(stderr, "usage: late_embed LIB DELAY SECONDS\n");
		return (2);
	}
	printf("ready\n");
	fflush(stdout);
	late_native_spin(atoi(argv[2]));
	if ((lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL)) == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return (1);
	}
	init = (void (*)(void))dlsym(lib, "Py_Initialize");
	run = (int (*)(const char *))dlsym(lib, "PyRun_SimpleString");
	if (init == NULL || run == NULL) {
		fprintf(stderr, "%s: no Py_Initialize/PyRun_SimpleString\n",
		    argv[1]);
		return (1);
	}
	init();
	printf("python\n");
	fflush(stdout);
	snprintf(code, sizeof(code),
	    "import time\n"
	    "def late_hot(end):\n"
	    "    n = 0\n"
	    "    while time.time() < end:\n"
	    "        n += 1\n"
	    "    return n\n"
	    "late_hot(time.time() + %d)\n", atoi(argv[3]));
	return (run(code) == 0 ? 0 : 1);
}
