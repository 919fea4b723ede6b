/*
 * PHP versions and the struct offsets the reader needs per version.
 *
 * The offsets are facts from phpspy's generated per-version bindings
 * (github.com/adsr/phpspy, structs/x86_64/php_structs_74.h ... _84.h,
 * dumped by gdb from each release): zend_executor_globals.
 * current_execute_data, zend_execute_data.{func,prev_execute_data},
 * zend_function.{type,common.function_name,common.scope},
 * zend_op_array.{filename,line_start}, zend_class_entry.name and
 * zend_string.{len,val}.  zend_op_array.{last,opcodes} follow from the
 * same dumps' last_var and vars: `last` is the uint32_t after last_var
 * (after T in 7.4-8.1, whose T comes first), `opcodes` the pointer after
 * it.  They hold for x86-64 non-ZTS builds only.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "langver.h"
#include "phpreader.h"

static const struct {
	struct langver_key v;
	uint32_t filename, line_start, last, opcodes;
} php_offsets_table[] = {
	{ { 7, 4 }, 136, 144, 60, 64 },
	{ { 8, 0 }, 144, 152, 68, 72 },
	{ { 8, 1 }, 144, 152, 68, 72 },
	{ { 8, 2 }, 152, 160, 80, 88 },
	{ { 8, 3 }, 144, 152, 76, 80 },
	{ { 8, 4 }, 168, 176, 96, 104 },
};

static const struct langver_table php_versions = {
	"PHP", "7.4-8.4", php_offsets_table,
	sizeof(php_offsets_table) / sizeof(php_offsets_table[0]),
	sizeof(php_offsets_table[0]),
};

/* "8.2.36" (langver_parse). */
int
php_version_parse(const char *s, size_t len, struct php_version *v)
{
	return (langver_parse(s, len, &v->major, &v->minor, &v->patch));
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
	int i;

	if ((i = langver_row(&php_versions, v->major, v->minor, v->patch, why,
	    whylen)) < 0)
		return (i);
	memset(o, 0, sizeof(*o));
	/* The same from 7.4 to 8.4 (phpspy's bindings). */
	o->eg_current_execute_data = 488;
	o->eg_fake_scope = 496;
	o->ed_opline = 0;
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
	o->op_last = php_offsets_table[i].last;
	o->op_opcodes = php_offsets_table[i].opcodes;
	return (0);
}
