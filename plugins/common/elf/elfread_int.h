/*
 * The ELF reader's insides shared by its two files: elfread.c (the
 * headers, the budget, the one-shot reads of the runtime readers) and
 * elfread_held.c (the reader the perf plugin keeps open across loop
 * turns, symbols and relocations read in chunks).
 */
#ifndef GP_ELFREAD_INT_H
#define GP_ELFREAD_INT_H

#include <sys/stat.h>

#include <stddef.h>
#include <stdint.h>

#include "elfread.h"

/* len bytes at off, within the file and the budget: 0, or -1. */
int elfread_pread(struct elfread *le, uint64_t off, void *buf, size_t len);
/* The headers read and checked: 0 or the reader's error. */
int elfread_open(struct elfread *le);
void elfread_close(struct elfread *le);
/* A file given up on, marked bad by identity and said once. */
void elfread_log_bad(int fd, const struct stat *st, int rc);

#endif
