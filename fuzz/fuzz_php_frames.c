/*
 * Fuzz the PHP frame walk and the maps and version parsers over a fake
 * memory image: the input is the target's memory mapped at a fixed
 * address (the executor globals at its start), its first byte picks the
 * PHP version's offsets.  Hostile chains (loops, huge lengths, wild
 * pointers) must end within PHP_MAX_FRAMES reads of frames.  Frames
 * the sampler walked, (function, opline) pairs taken from the image's
 * first words, are named through the same text cache, at a bounded cost.
 * The same input is also given to the ELF reader as a file image.
 * FUZZ_SOURCES: plugins/lang/php/php_offsets.c plugins/lang/php/php_walk.c plugins/lang/php/php_maps.c plugins/lang/php/php_elf.c plugins/common/elf/elfread.c plugins/common/elf/elfread_held.c plugins/common/elf/elfbad.c plugins/lang/common/langproc.c plugins/lang/common/langmaps.c plugins/lang/common/langmem.c plugins/lang/common/langver.c plugins/lang/common/langguard.c plugins/lang/common/langfile.c lib/fsguard.c lib/procstat.c
 * FUZZ_LIBS: -lelf
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/lang/php/phpreader.h"
#include "fuzz/fuzz_image.h"

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
	static const struct php_version vers[] = {
		{ 7, 4, 0 }, { 8, 0, 0 }, { 8, 1, 0 }, { 8, 2, 0 }, { 8, 3, 0 },
		{ 8, 4, 0 },
	};
	struct image im = { data + 1, size > 0 ? size - 1 : 0, 0 };
	struct php_mem m = { image_read, &im };
	struct php_offsets o;
	struct php_object ob;
	struct php_version v;
	char why[128];
	size_t total = 0;
	uint32_t n;

	if (size < 1)
		return (0);
	if (php_offsets_for(&vers[data[0] % 6], &o, why, sizeof(why)) != 0)
		abort();
	static struct php_fcache fc;

	(void)php_walk_stack(&m, &o, BASE, PHP_MAX_FRAMES, NULL, frame_cb,
	    &total, &n);
	if (n > PHP_MAX_FRAMES)
		abort();
	/* twice with the text cache: once to fill it, once to hit it */
	memset(&fc, 0, sizeof(fc));
	(void)php_walk_stack(&m, &o, BASE, PHP_MAX_FRAMES, &fc, frame_cb,
	    &total, &n);
	(void)php_walk_stack(&m, &o, BASE, PHP_MAX_FRAMES, &fc, frame_cb,
	    &total, &n);
	/* each frame costs a bounded number of reads */
	if (n > PHP_MAX_FRAMES || im.reads > 3 * 16u * (PHP_MAX_FRAMES + 1))
		abort();
	/* walked frames: pairs of words of the image, each twice */
	{
		char text[PHP_MAX_FRAME_TEXT];
		const char *t;
		uint64_t w[16];
		size_t i, nw = im.len / 8 < 16 ? im.len / 8 : 16;

		memcpy(w, im.data, nw * 8);
		fc.eg = BASE;
		for (i = 0; i + 1 < nw; i += 2) {
			im.reads = 0;
			(void)php_walked_frame(&m, &o, &fc, w[i], w[i + 1],
			    text, sizeof(text), &t);
			(void)php_walked_frame(&m, &o, &fc, w[i], w[i + 1],
			    text, sizeof(text), &t);
			if (im.reads > 2 * 16u)
				abort();
		}
	}
	(void)php_maps_find((const char *)data, size, data[0], &ob);
	(void)php_version_find(data, size, &v);
	{
		struct php_elf pe;

		(void)php_elf_read_mem(data, size, &pe);
	}
	return (0);
}
