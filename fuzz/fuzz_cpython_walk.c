/*
 * Fuzz the CPython walk (thread states, frames, code objects, strings,
 * line tables) over a fake memory image: the input is the target's memory
 * mapped at a fixed address, its first byte picks the version.
 * FUZZ_SOURCES: plugins/lang/python/py_mem.c plugins/lang/python/py_offsets.c plugins/lang/python/py_version.c plugins/lang/python/py_line.c plugins/lang/python/py_string.c plugins/lang/python/py_code.c plugins/lang/python/py_walk.c plugins/lang/python/py_proc.c plugins/lang/python/py_sample.c plugins/lang/python/py_target.c plugins/lang/python/py_elf.c plugins/common/elf/elfread.c plugins/common/elf/elfread_held.c plugins/common/elf/elfbad.c plugins/lang/common/langattach.c plugins/lang/common/langproc.c plugins/lang/common/langmaps.c plugins/lang/common/langguard.c plugins/lang/common/langfile.c lib/fsguard.c lib/procstat.c
 * FUZZ_LIBS: -lelf
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/lang/python/py_target.h"

#define BASE	0x100000ull

struct image {
	const uint8_t *data;
	size_t len;
};

static int
image_readv(void *arg, const struct py_iov *iov, uint32_t n)
{
	struct image *im = arg;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (iov[i].addr < BASE || iov[i].addr - BASE > im->len ||
		    iov[i].len > im->len - (iov[i].addr - BASE))
			return (-EFAULT);
		memcpy(iov[i].buf, im->data + (iov[i].addr - BASE),
		    iov[i].len);
	}
	return (0);
}

static void
emit(void *arg, struct py_target *t, int32_t tid, const char *const *f,
    uint32_t n)
{
	size_t *total = arg;
	uint32_t i;

	for (i = 0; i < n; i++)
		*total += strlen(f[i]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image im = { data, size };
	struct py_target t;
	uint32_t nth;
	size_t total = 0;

	if (size < 2)
		return (0);
	memset(&t, 0, sizeof(t));
	t.pid = 1;
	t.mem.readv = image_readv;
	t.mem.arg = &im;
	t.runtime = BASE;
	t.tid_fallback = 1;	/* no /proc lookups */
	t.line_mode = data[1] & 1;
	if (py_offsets_for_version(3, 8 + data[0] % 6, &t.off) != 0)
		return (0);
	if (data[0] % 6 == 5) {
		char err[128];

		/* 3.13 from the image's own debug offsets when valid. */
		(void)py_offsets_from_debug(data, size, 13, &t.off, err,
		    sizeof(err));
	}
	t.codes = py_code_cache_new();
	t.scratch.frames = calloc(PY_MAX_FRAMES,
	    sizeof(*t.scratch.frames));
	t.scratch.ptrs = calloc(PY_MAX_FRAMES,
	    sizeof(*t.scratch.ptrs));
	if (data[1] & 2)
		(void)py_mem_cache_init(&t.mem);
	if (t.codes != NULL && t.scratch.frames != NULL &&
	    t.scratch.ptrs != NULL) {
		if (data[1] & 4) {
			/* frames as a BPF walk would hand them: pairs of
			 * (code word, position) taken from the image */
			uint64_t walk[2 * 64];
			uint32_t n = (uint32_t)(size / 16 < 64 ? size / 16 : 64);

			memcpy(walk, data, 16 * (size_t)n);
			(void)py_target_sample_walked(&t, 7, walk, n, emit,
			    &total);
		} else
			(void)py_target_sample(&t, emit, &total, &nth);
	}
	py_target_release(&t);
	return (0);
}
