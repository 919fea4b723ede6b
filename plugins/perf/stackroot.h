/*
 * Where a user stack really begins (stackroot.c): a frame-pointer walk
 * goes on past the process's and its threads' entry code, reading
 * whatever that code, built without frame pointers, left in the frame
 * register.
 */
#ifndef PERF_STACKROOT_H
#define PERF_STACKROOT_H

#include <stddef.h>

/*
 * How many of a stack's n user frames to keep, names[0] the leaf: up to
 * and with the entry frames (main's and a thread's start routine's
 * callers: __libc_start_call_main, start_thread, ...), none past the
 * first frame beyond them that is not an entry frame too.  A static
 * binary's walk ends "[unknown];__do_global_dtors_aux;
 * __libc_start_call_main" (perf shows it so): the first two are read
 * from a stack slot that is no frame.  Pure.
 */
size_t stackroot_keep(const char *const *names, size_t n);

#endif
