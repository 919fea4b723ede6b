/*
 * Finding Python processes in /proc (docs/specs/gprofiler-compat.md §10,
 * docs/specs/cpython.md §2) and the per-process facts the plugin reports: comm,
 * age, argv, cwd, appid.
 */
#ifndef GP_PY_DISCOVER_H
#define GP_PY_DISCOVER_H

#include <sys/types.h>

#include <stdint.h>

int py_discover_candidate(pid_t);
int py_discover_candidate_maps(pid_t, const char *, size_t);
int py_discover_comm(pid_t, char *, size_t);
int py_discover_appid(pid_t, char *, size_t);
int64_t py_discover_euid(pid_t);

#endif
