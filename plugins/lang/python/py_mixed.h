/*
 * Mixed stacks: a Python stack with the native and kernel frames of the
 * sample the system profiler took of the same thread (ABI 1.3 reports),
 * as gProfiler's PyPerf writes them: Python frames root first, then the
 * native frames the interpreter called (C extensions, ctypes targets,
 * libc: "name_[pn]"), then the kernel's ("name_[k]").
 *
 * The Python frames are the sample's own: walked in the system profiler's
 * BPF program at the sample (sample_walk, ABI 1.6), or, where it cannot
 * walk them (no root yet, a page not resident, deeper than its walk, the
 * perf-events backend), read right after it, when the ring wakes the loop
 * (about 5% of those samples' threads moved on meanwhile on a loaded
 * 2-CPU host).  A sample of a thread without Python frames keeps its
 * native and kernel frames alone.
 */
#ifndef GP_PY_MIXED_H
#define GP_PY_MIXED_H

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

#define PY_MIXED_MAX_NATIVE	64	/* native frames kept above Python */
#define PY_MIXED_MAX_EXTRA	(PY_MIXED_MAX_NATIVE + 128)

/*
 * Where the interpreter's own code is in the process: [lo, hi) spans the
 * mappings of the object holding the eval loop (python or libpython).
 * The native frames kept are the leaf ones up to the first address in it:
 * what runs above the innermost eval loop.  Where no user address falls
 * in it (a frame-pointer chain broken below a C extension built without
 * frame pointers, or the range unknown: lo == hi) the leaf frames up to
 * the first one nothing maps ("[unknown]") are kept, at least the leaf,
 * the one address a sample always has right.
 *
 * Writes the merged frames into out (cap entries; the native names made
 * in buf, buflen bytes) and returns their count: py's frames, then native,
 * then kernel, each part cut when out or buf is full.  st may be NULL.
 */
uint32_t py_mixed_merge(const char *const *py, uint32_t npy,
		    const struct gp_sample_stack *st, uint64_t lo, uint64_t hi,
		    const char **out, uint32_t cap, char *buf, size_t buflen);

#endif
