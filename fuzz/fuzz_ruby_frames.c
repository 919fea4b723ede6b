/*
 * Fuzz the Ruby control frame walk, the line table lookup and the maps
 * and version parsers over a fake memory image: the input is the target's
 * memory mapped at a fixed address (the VM or execution context pointer
 * at its start), its first byte picks the Ruby version's offsets.
 * Hostile memory (huge stacks and lengths, wild pointers, line tables
 * out of range) must end within RUBY_MAX_FRAMES control frames of reads.
 * The walks are repeated with a global symbol table inside the image (C
 * function frames named), and the input is searched as code for it.
 * Frames as the system profiler walks them (ruby_walked_frame: code
 * words and pcs taken from the input, twice, the second time from its
 * caches) cost a bounded number of reads each.
 * The same input is also given to the ELF reader as a file image.
 * FUZZ_SOURCES: plugins/common/elf/elfread.c plugins/common/elf/elfread_held.c plugins/common/elf/elfbad.c plugins/lang/ruby/ruby_offsets.c plugins/lang/ruby/ruby_walk.c plugins/lang/ruby/ruby_ids.c plugins/lang/ruby/ruby_maps.c plugins/lang/ruby/ruby_elf.c plugins/lang/common/langproc.c plugins/lang/common/langmaps.c plugins/lang/common/langmem.c plugins/lang/common/langver.c plugins/lang/common/langguard.c plugins/lang/common/langfile.c lib/fsguard.c lib/procstat.c
 * FUZZ_LIBS: -lelf
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/lang/ruby/rubyreader.h"
#include "fuzz/fuzz_image.h"

/* The input as code at BASE, for ruby_ids_locate. */
static int64_t
code_read(void *arg, uint64_t vaddr, uint8_t *buf, size_t len)
{
	struct image *im = arg;

	if (vaddr < BASE || vaddr - BASE >= im->len)
		return (-1);
	if (len > im->len - (vaddr - BASE))
		len = (size_t)(im->len - (vaddr - BASE));
	memcpy(buf, im->data + (vaddr - BASE), len);
	return ((int64_t)len);
}

static int
frame_cb(void *arg, const char *text)
{
	size_t *total = arg;

	*total += strlen(text);
	return (0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ruby_version vers[] = {
		{ 2, 7, 0 }, { 3, 0, 0 }, { 3, 1, 0 }, { 3, 2, 0 }, { 3, 3, 0 },
		{ 3, 4, 0 },
	};
	static struct ruby_fcache fc;
	struct image im = { data + 1, size > 0 ? size - 1 : 0, 0 };
	struct ruby_mem m = { image_read, &im };
	struct ruby_offsets o;
	struct ruby_object ob, exe;
	struct ruby_version v;
	char why[128];
	size_t total = 0;
	uint32_t n, line;

	if (size < 1)
		return (0);
	if (ruby_offsets_for(&vers[data[0] % 6], &o, why, sizeof(why)) != 0)
		abort();
	(void)ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL, frame_cb,
	    &total, &n);
	if (n > RUBY_MAX_FRAMES)
		abort();
	/* twice with the text cache: once to fill it, once to hit it */
	memset(&fc, 0, sizeof(fc));
	(void)ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, &fc, frame_cb,
	    &total, &n);
	(void)ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, &fc, frame_cb,
	    &total, &n);
	/* each control frame costs a bounded number of reads */
	if (n > RUBY_MAX_FRAMES || im.reads > 3 * 32u * (RUBY_MAX_FRAMES + 2))
		abort();
	/* C function frames named from a symbol table in the image */
	if (size >= 3) {
		uint64_t syms;
		uint32_t op;

		o.global_symbols = BASE + 8 * (uint64_t)(data[1] | data[2] << 8);
		o.last_op_id = 0xa9;
		im.reads = 0;
		(void)ruby_walk_stack(&m, &o, BASE, RUBY_MAX_FRAMES, NULL,
		    frame_cb, &total, &n);
		if (n > RUBY_MAX_FRAMES || im.reads > 32u *
		    (RUBY_MAX_FRAMES + 2))
			abort();
		(void)ruby_ids_locate(code_read, &im, BASE + data[1] % 64,
		    &syms, &op);
		if (syms == 0 && op != 0)
			abort();
	}
	/* walked frames: (code, pc) pairs from the input, twice */
	if (size >= 17) {
		char text[RUBY_MAX_FRAME_TEXT];
		uint64_t code, pc;
		size_t i, k;
		int pass;

		for (pass = 0; pass < 2; pass++)
			for (i = 1; i + 16 <= size && i < 1 + 16 * 32; i += 16) {
				code = pc = 0;
				for (k = 8; k-- > 0;) {
					code = code << 8 | data[i + k];
					pc = pc << 8 | data[i + 8 + k];
				}
				/* inside the image, or as given */
				if (data[i] & 1)
					code = BASE + code % (im.len + 1);
				im.reads = 0;
				(void)ruby_walked_frame(&m, &o, &fc, code, pc,
				    text, sizeof(text));
				if (im.reads > 64)
					abort();
			}
	}
	/* the line table of a body at the image's start, pc anywhere */
	if (size >= 9) {
		uint64_t pc = 0;
		int i;

		for (i = 8; i >= 1; i--)
			pc = pc << 8 | data[i];
		(void)ruby_line_of(&m, &o, BASE, pc, &line);
	}
	(void)ruby_maps_find((const char *)data, size, data[0], &ob, &exe);
	(void)ruby_version_parse((const char *)data, size, &v);
	{
		struct ruby_elf re;

		(void)ruby_elf_read_mem(data, size, &re);
	}
	return (0);
}
