/*
 * Field helpers for the iaprof stream parser: numbers read the way the
 * reference parser (Python int()/float()) reads them, UTF-8 repair as
 * bytes.decode("utf-8", "replace") does it, and str.strip() whitespace.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "parse.h"

/* ASCII whitespace as Python's str.isspace() sees it. */
static int
text_is_space(unsigned char c)
{
	return (c == ' ' || (c >= '\t' && c <= '\r') ||
	    (c >= 0x1c && c <= 0x1f));
}

/* Skip ASCII whitespace at both ends of s[0..*n), return the new start. */
static const char *
text_trim_ascii(const char *s, size_t *n)
{
	while (*n > 0 && text_is_space((unsigned char)*s)) {
		s++;
		(*n)--;
	}
	while (*n > 0 && text_is_space((unsigned char)s[*n - 1]))
		(*n)--;
	return (s);
}

static int
text_hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

int
iaprof_parse_int(const char *s, size_t n, int allow_hex, int *neg,
    uint64_t *mag)
{
	uint64_t v = 0;
	unsigned base = 10;
	size_t i;
	int d;

	/* The common case: plain decimal digits, no room for overflow. */
	if (n > 0 && n < 20) {
		for (i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			v = v * 10 + (uint64_t)(s[i] - '0');
		if (i == n && (n == 1 || s[0] != '0' || !allow_hex)) {
			*neg = 0;
			*mag = v;
			return (0);
		}
		v = 0;
	}
	s = text_trim_ascii(s, &n);
	*neg = 0;
	if (n > 0 && (*s == '+' || *s == '-')) {
		*neg = *s == '-';
		s++;
		n--;
	}
	if (allow_hex && n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		n -= 2;
	}
	if (n == 0)
		return (-1);
	for (; n > 0; s++, n--) {
		d = text_hexval((unsigned char)*s);
		if (d < 0 || (unsigned)d >= base)
			return (-1);
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return (-1);	/* out of range: counted as malformed */
		v = v * base + (uint64_t)d;
	}
	*mag = v;
	return (0);
}

/* Digits with single '_' between them, as Python allows; count them. */
static size_t
text_digits(const char *s, size_t n, size_t *ndig)
{
	size_t i = 0;

	*ndig = 0;
	while (i < n) {
		if (s[i] >= '0' && s[i] <= '9') {
			(*ndig)++;
			i++;
		} else if (s[i] == '_' && *ndig > 0 && i + 1 < n &&
		    s[i + 1] >= '0' && s[i + 1] <= '9' && s[i - 1] != '_')
			i++;
		else
			break;
	}
	return (i);
}

static int
text_caseeq(const char *s, size_t n, const char *word)
{
	size_t i;

	if (strlen(word) != n)
		return (0);
	for (i = 0; i < n; i++)
		if ((s[i] | 0x20) != word[i])
			return (0);
	return (1);
}

int
iaprof_parse_float(const char *s, size_t n)
{
	size_t i, intd, fracd, expd;

	s = text_trim_ascii(s, &n);
	if (n > 0 && (*s == '+' || *s == '-')) {
		s++;
		n--;
	}
	if (text_caseeq(s, n, "inf") || text_caseeq(s, n, "infinity") ||
	    text_caseeq(s, n, "nan"))
		return (0);
	i = text_digits(s, n, &intd);
	fracd = 0;
	if (i < n && s[i] == '.') {
		i++;
		i += text_digits(s + i, n - i, &fracd);
	}
	if (intd + fracd == 0)
		return (-1);
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		i += text_digits(s + i, n - i, &expd);
		if (expd == 0)
			return (-1);
	}
	return (i == n ? 0 : -1);
}

/*
 * Length of the valid UTF-8 sequence at s, or 0 and in *bad the length of
 * its maximal invalid subpart (Unicode "best practice", which CPython
 * follows: one U+FFFD per subpart).
 */
static size_t
utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (c < 0x80)
		return (1);
	if (c >= 0xc2 && c <= 0xdf)
		need = 1;
	else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		*bad = 1;
		return (0);
	}
	for (i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*bad = i;
			return (0);
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return (need + 1);
}

int
iaprof_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k, bad;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if ((k = utf8_seq(p + i, n - i, &bad)) == 0)
			return (0);
		i += k;
	}
	return (1);
}

size_t
iaprof_utf8_sanitize(char *dst, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, k, bad;

	while (i < n) {
		if ((k = utf8_seq(p + i, n - i, &bad)) != 0) {
			memcpy(dst + o, s + i, k);
			o += k;
			i += k;
			continue;
		}
		memcpy(dst + o, "\xef\xbf\xbd", 3);
		o += 3;
		i += bad;
	}
	dst[o] = '\0';
	return (o);
}

/* Length of the Unicode whitespace character at s[0..n), or 0. */
static size_t
text_space_at(const unsigned char *s, size_t n)
{
	if (text_is_space(s[0]))
		return (1);
	if (n >= 2 && s[0] == 0xc2 && (s[1] == 0x85 || s[1] == 0xa0))
		return (2);
	if (n < 3)
		return (0);
	if ((s[0] == 0xe1 && s[1] == 0x9a && s[2] == 0x80) ||
	    (s[0] == 0xe2 && s[1] == 0x80 &&
	    (s[2] <= 0x8a || s[2] == 0xa8 || s[2] == 0xa9 || s[2] == 0xaf)) ||
	    (s[0] == 0xe2 && s[1] == 0x81 && s[2] == 0x9f) ||
	    (s[0] == 0xe3 && s[1] == 0x80 && s[2] == 0x80))
		return (3);
	return (0);
}

/* Length of the whitespace character ending at s[n), or 0. */
static size_t
text_space_before(const unsigned char *s, size_t n)
{
	size_t k;

	for (k = 1; k <= 3 && k <= n; k++)
		if (text_space_at(s + n - k, k) == k)
			return (k);
	return (0);
}

size_t
iaprof_text_strip(const char *s, size_t n, size_t *start)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t b = 0, k;

	while (b < n && (k = text_space_at(p + b, n - b)) != 0)
		b += k;
	while (n > b && (k = text_space_before(p + b, n - b)) != 0)
		n -= k;
	*start = b;
	return (n - b);
}
