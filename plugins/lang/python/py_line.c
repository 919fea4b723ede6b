/*
 * Line-number tables of code objects (docs/specs/cpython.md §10): co_lnotab
 * (3.8, 3.9), co_linetable (3.10) and the PEP 657 location table (3.11+).
 * Pure functions over the table bytes; an unknown line yields firstlineno.
 */
#include "config.h"

#include <stdint.h>

#include "pyreader.h"

/* 3.8-3.9: (address increment u8, line increment s8) pairs; lasti bytes. */
int
py_line_lnotab(const uint8_t *t, size_t len, int firstlineno, int lasti)
{
	int line = firstlineno, addr = 0;
	size_t i;

	if (lasti < 0)
		return (firstlineno);
	for (i = 0; i + 1 < len; i += 2) {
		addr += t[i];
		if (addr > lasti)
			break;
		line += (int8_t)t[i + 1];
	}
	return (line);
}

/* 3.10: (span u8 bytes, line delta s8, -128 = no line); lasti in units. */
int
py_line_310(const uint8_t *t, size_t len, int firstlineno, int lasti)
{
	int line = firstlineno, start = 0, b;
	size_t i;

	if (lasti < 0)
		return (firstlineno);
	b = lasti * 2;
	for (i = 0; i + 1 < len; i += 2) {
		int span = t[i], delta = (int8_t)t[i + 1];

		if (delta != -128)
			line += delta;
		if (b >= start && b < start + span)
			return (delta == -128 ? firstlineno : line);
		start += span;
	}
	return (firstlineno);
}

static int
py_varint(const uint8_t *t, size_t len, size_t *i, uint32_t *out)
{
	uint32_t v = 0;
	int shift = 0;

	while (*i < len && shift < 32) {
		uint8_t c = t[(*i)++];

		v |= (uint32_t)(c & 0x3f) << shift;
		shift += 6;
		if ((c & 0x40) == 0) {
			*out = v;
			return (0);
		}
	}
	return (-1);
}

static int
py_svarint(const uint8_t *t, size_t len, size_t *i, int *out)
{
	uint32_t v;

	if (py_varint(t, len, i, &v) != 0)
		return (-1);
	*out = (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
	return (0);
}

/* 3.11+: PEP 657 entries; unit = code units from co_code_adaptive. */
int
py_line_pep657(const uint8_t *t, size_t len, int firstlineno, int64_t unit)
{
	int64_t addr = 0, line = firstlineno;
	int delta, code, known;
	size_t i = 0;

	if (unit < 0)
		return (firstlineno);
	while (i < len) {
		uint8_t first = t[i++];
		int length = (first & 7) + 1;

		if ((first & 0x80) == 0)
			return (firstlineno);	/* desynchronised table */
		code = (first >> 3) & 0xf;
		delta = 0;
		known = 1;
		if (code == 15)
			known = 0;
		else if (code == 13 || code == 14) {
			if (py_svarint(t, len, &i, &delta) != 0)
				return (firstlineno);
		} else if (code >= 10)
			delta = code - 10;
		line += delta;
		if (line < -(1 << 30) || line > (1 << 30))
			return (firstlineno);	/* garbage table */
		/* Skip columns and end-line: to the next entry start. */
		while (i < len && (t[i] & 0x80) == 0)
			i++;
		if (unit >= addr && unit < addr + length)
			return (known ? (int)line : firstlineno);
		addr += length;
	}
	return (firstlineno);
}
