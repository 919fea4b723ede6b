/*
 * libFuzzer target for the one text rule (core/base/textesc.c): for any bytes
 * and flags, the output is valid UTF-8 (Python's strict decoder would take
 * it), holds no control character (but '\n' with TEXTESC_LINES) nor, in a
 * frame, ';', its length is what textesc_len says, and a second pass
 * leaves it unchanged.
 *
 * FUZZ_SOURCES: core/base/textesc.c core/base/xmalloc.c core/base/log.c
 * FUZZ_LIBS: -ljson-c
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/textesc.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* An independent validity check: no control, no bad sequence. */
static void
fuzz_check(const unsigned char *p, size_t n, int flags)
{
	size_t i = 0, l, k;
	uint32_t c;

	while (i < n) {
		if (p[i] < 0x80) {
			if ((p[i] < 0x20 && !(p[i] == '\n' &&
			    (flags & TEXTESC_LINES))) || p[i] == 0x7f ||
			    (p[i] == ';' && (flags & TEXTESC_FRAME)))
				abort();
			i++;
			continue;
		}
		l = p[i] >= 0xf0 ? 4 : p[i] >= 0xe0 ? 3 : 2;
		if (p[i] < 0xc2 || p[i] > 0xf4 || i + l > n)
			abort();
		c = p[i] & (0x7f >> l);
		for (k = 1; k < l; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				abort();
			c = c << 6 | (p[i + k] & 0x3f);
		}
		if ((l == 3 && c < 0x800) || (l == 4 && c < 0x10000) ||
		    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff ||
		    c <= 0x9f || c == 0x2028 || c == 0x2029)
			abort();
		i += l;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data + 1;
	char *a, *b;
	size_t n, alen;
	int flags;

	if (size < 1)
		return (0);
	flags = data[0] & (TEXTESC_FRAME | TEXTESC_LINES);
	n = size - 1;
	if ((a = textesc_dup(s, n, flags, &alen)) == NULL)
		return (0);
	if (alen != textesc_len(s, n, flags) || strlen(a) > alen)
		abort();
	fuzz_check((const unsigned char *)a, alen, flags);
	if (textesc_clean(s, n, flags) != (alen == n && memcmp(a, s, n) == 0))
		abort();
	if (!textesc_clean(a, alen, flags))
		abort();
	b = textesc_dup(a, alen, flags, NULL);
	if (b == NULL || strcmp(a, b) != 0)
		abort();
	free(a);
	free(b);
	return (0);
}
