/*
 * PHP versions and the struct offsets the reader needs per version.
 *
 * The offsets are facts from phpspy's generated per-version bindings
 * (github.com/adsr/phpspy, structs/x86_64/php_structs_74.h ... _84.h,
 * dumped by gdb from each release): zend_executor_globals.
 * current_execute_data, zend_execute_data.{func,prev_execute_data},
 * zend_function.{type,common.function_name,common.scope},
 * zend_op_array.{filename,line_start}, zend_class_entry.name and
 * zend_string.{len,val}.  They hold for x86-64 non-ZTS builds only.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "phpreader.h"

static const struct {
	int		 major, minor;
	uint32_t	 filename, line_start;
} php_offsets_table[] = {
	{ 7, 4, 136, 144 },
	{ 8, 0, 144, 152 },
	{ 8, 1, 144, 152 },
	{ 8, 2, 152, 160 },
	{ 8, 3, 144, 152 },
	{ 8, 4, 168, 176 },
};

#define PHP_NOFFSETS							\
	(sizeof(php_offsets_table) / sizeof(php_offsets_table[0]))

/* "8.2.36" (digits, dots; anything after the third number ignored). */
int
php_version_parse(const char *s, size_t len, struct php_version *v)
{
	int part[3] = { 0, 0, 0 };
	size_t i = 0;
	int k, digits;

	for (k = 0; k < 3; k++) {
		digits = 0;
		while (i < len && s[i] >= '0' && s[i] <= '9' && digits < 4) {
			part[k] = part[k] * 10 + (s[i] - '0');
			i++;
			digits++;
		}
		if (digits == 0)
			return (-EINVAL);
		if (k < 2) {
			if (i >= len || s[i] != '.')
				return (-EINVAL);
			i++;
		}
	}
	v->major = part[0];
	v->minor = part[1];
	v->patch = part[2];
	return (0);
}

/*
 * The version a binary was built as: main.c sends "X-Powered-By: PHP/"
 * PHP_VERSION, so every SAPI (cli, fpm, apache's libphp) carries it.
 */
int
php_version_find(const uint8_t *buf, size_t len, struct php_version *v)
{
	static const char tag[] = "X-Powered-By: PHP/";
	const size_t tlen = sizeof(tag) - 1;
	const uint8_t *p = buf, *end = buf + len;

	while (p != NULL && (size_t)(end - p) > tlen) {
		p = memchr(p, 'X', (size_t)(end - p - tlen));
		if (p == NULL)
			break;
		/* A malformed one (another string's tail): keep looking. */
		if (memcmp(p, tag, tlen) == 0 && php_version_parse(
		    (const char *)p + tlen, (size_t)(end - p - tlen), v) == 0)
			return (0);
		p++;
	}
	return (-ENOENT);
}

/* 0, or -ENOTSUP with the reason in why. */
int
php_offsets_for(const struct php_version *v, struct php_offsets *o,
    char *why, size_t whylen)
{
	size_t i;

	for (i = 0; i < PHP_NOFFSETS; i++)
		if (php_offsets_table[i].major == v->major &&
		    php_offsets_table[i].minor == v->minor)
			break;
	if (i == PHP_NOFFSETS) {
		snprintf(why, whylen, "PHP %d.%d.%d is not supported (PHP "
		    "7.4-8.4 are)", v->major, v->minor, v->patch);
		return (-ENOTSUP);
	}
	memset(o, 0, sizeof(*o));
	/* The same from 7.4 to 8.4 (phpspy's bindings). */
	o->eg_current_execute_data = 488;
	o->ed_func = 24;
	o->ed_prev = 48;
	o->fn_type = 0;
	o->fn_name = 8;
	o->fn_scope = 16;
	o->ce_name = 8;
	o->zs_len = 16;
	o->zs_val = 24;
	o->op_filename = php_offsets_table[i].filename;
	o->op_line_start = php_offsets_table[i].line_start;
	return (0);
}
