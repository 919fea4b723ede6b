/*
 * The walk of a PHP process's frame chain (EG(current_execute_data),
 * then prev_execute_data), as phpspy reads it: function name, class,
 * file and the function's first line for user code, "<internal>:-1" for
 * internal functions, "<main>" for the script's top level.  Pure over the
 * read callback; every length and the chain itself are bounded, so
 * hostile memory costs at most max frames of reads.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "langmem.h"
#include "phpreader.h"

#define ZEND_USER_FUNCTION	2

static int
php_read_u64(const struct php_mem *m, uint64_t addr, uint64_t *out)
{
	return (langmem_read_u64(m->read, m->arg, addr, out));
}

/*
 * A zend_string's text into buf (NUL-terminated, cut at len - 1 bytes);
 * phpspy's delimiters and ours (newline, ';') and other control bytes
 * become '?', so a name cannot split a frame or a stack.
 */
int
php_read_zstring(const struct php_mem *m, const struct php_offsets *o,
    uint64_t zs, char *buf, size_t len)
{
	uint64_t n;
	int rc;

	buf[0] = '\0';
	if (len == 0)
		return (-EINVAL);
	if ((rc = php_read_u64(m, zs + o->zs_len, &n)) != 0)
		return (rc);
	return (langmem_read_text(m->read, m->arg, zs + o->zs_val, n, buf,
	    len));
}

/* Fibonacci hashing: functions lie at multiples of 8 and often of a
 * larger power of two apart, which a plain modulo would collide. */
static uint32_t
php_fcache_slot(uint64_t func)
{
	return ((uint32_t)(((func >> 3) * 0x9e3779b97f4a7c15ull) >> 56) %
	    PHP_FCACHE);
}

/* The text kept for slot k; the arena full: every entry goes first. */
static void
php_fcache_put(struct php_fcache *fc, uint32_t k, const char *text)
{
	size_t len = strlen(text) + 1;

	if (len > sizeof(fc->texts))
		return;
	if (len > sizeof(fc->texts) - fc->used) {
		memset(fc->e, 0, sizeof(fc->e));
		fc->used = 0;
	}
	memcpy(fc->texts + fc->used, text, len);
	fc->e[k].text = fc->used;
	fc->e[k].valid = 1;
	fc->used += (uint32_t)len;
}

static int
php_walk_frame(const struct php_mem *m, const struct php_offsets *o,
    uint64_t func, struct php_fcache *fc, char *out, size_t outlen,
    const char **textp)
{
	char name[PHP_MAX_NAME], cls[PHP_MAX_NAME], file[PHP_MAX_FILE];
	uint64_t zname, scope, zcls, zfile = 0, opcodes = 0;
	uint32_t line = 0, nops = 0, k = php_fcache_slot(func);
	uint8_t type;
	int rc;

	if ((rc = m->read(m->arg, func + o->fn_type, &type, 1)) != 0 ||
	    (rc = php_read_u64(m, func + o->fn_name, &zname)) != 0 ||
	    (rc = php_read_u64(m, func + o->fn_scope, &scope)) != 0)
		return (rc);
	if (type == ZEND_USER_FUNCTION &&
	    ((rc = php_read_u64(m, func + o->op_filename, &zfile)) != 0 ||
	    (rc = langmem_read_u32(m->read, m->arg, func + o->op_line_start,
	    &line)) != 0))
		return (rc);
	if (fc != NULL && fc->e[k].valid && fc->e[k].func == func &&
	    fc->e[k].type == type && fc->e[k].zname == zname &&
	    fc->e[k].scope == scope && fc->e[k].zfile == zfile &&
	    fc->e[k].line == line) {
		fc->hits++;
		*textp = fc->texts + fc->e[k].text;
		return (0);
	}
	if (zname == 0)
		snprintf(name, sizeof(name), "<main>");
	else if ((rc = php_read_zstring(m, o, zname, name,
	    sizeof(name))) != 0)
		return (rc);
	cls[0] = '\0';
	if (scope != 0 && ((rc = php_read_u64(m, scope + o->ce_name,
	    &zcls)) != 0 || (rc = php_read_zstring(m, o, zcls, cls,
	    sizeof(cls))) != 0))
		return (rc);
	if (type == ZEND_USER_FUNCTION) {
		if ((rc = php_read_zstring(m, o, zfile, file,
		    sizeof(file))) != 0)
			return (rc);
		/* where its code is, so a walked frame is known as its own
		 * without a read (php_walked_frame) */
		if ((rc = php_read_u64(m, func + o->op_opcodes,
		    &opcodes)) != 0 || (rc = langmem_read_u32(m->read, m->arg,
		    func + o->op_last, &nops)) != 0)
			return (rc);
		snprintf(out, outlen, "%s%s%s %s:%d", cls, cls[0] ? "::" : "",
		    name, file, (int)line);
	} else
		snprintf(out, outlen, "%s%s%s <internal>:-1", cls,
		    cls[0] ? "::" : "", name);
	*textp = out;
	if (fc != NULL) {
		fc->misses++;
		fc->e[k].func = func;
		fc->e[k].type = type;
		fc->e[k].zname = zname;
		fc->e[k].scope = scope;
		fc->e[k].zfile = zfile;
		fc->e[k].line = line;
		fc->e[k].opcodes = opcodes;
		fc->e[k].nops = nops;
		php_fcache_put(fc, k, out);
	}
	return (0);
}

int
php_walked_frame(const struct php_mem *m, const struct php_offsets *o,
    struct php_fcache *fc, uint64_t func, uint64_t opline, char *out,
    size_t outlen, const char **textp)
{
	uint32_t k = php_fcache_slot(func);
	uint64_t ops = fc->e[k].opcodes;

	/* Internal functions live as long as the process; user code is
	 * its own while the opline is one of its opcodes, but for the
	 * trampoline's, the same for every method it calls. */
	if (fc->e[k].valid && fc->e[k].func == func &&
	    (fc->e[k].type != ZEND_USER_FUNCTION ||
	    (opline >= ops && opline - ops < (uint64_t)fc->e[k].nops *
	    PHP_ZEND_OP && (ops < fc->eg || ops - fc->eg >= PHP_EG_SPAN)))) {
		fc->hits++;
		*textp = fc->texts + fc->e[k].text;
		return (0);
	}
	/* A stale entry must not pass the read's own check either. */
	fc->e[k].valid = 0;
	return (php_walk_frame(m, o, func, fc, out, outlen, textp));
}

int
php_walk_stack(const struct php_mem *m, const struct php_offsets *o,
    uint64_t eg, uint32_t max, struct php_fcache *fc, php_frame_fn fn,
    void *arg, uint32_t *n)
{
	uint64_t seen[PHP_MAX_FRAMES];
	char text[PHP_MAX_FRAME_TEXT];
	const char *t;
	uint64_t ed, func;
	uint32_t i;
	int rc;

	*n = 0;
	if (max > PHP_MAX_FRAMES)
		max = PHP_MAX_FRAMES;
	if ((rc = php_read_u64(m, eg + o->eg_current_execute_data, &ed)) != 0)
		return (rc);
	while (ed != 0 && *n < max) {
		/* A chain that comes back on itself is corrupt: stop. */
		for (i = 0; i < *n; i++)
			if (seen[i] == ed)
				return (0);
		seen[*n] = ed;
		if ((rc = php_read_u64(m, ed + o->ed_func, &func)) != 0)
			return (rc);
		/* Frames without a function (being set up) say nothing. */
		if (func != 0) {
			if ((rc = php_walk_frame(m, o, func, fc, text,
			    sizeof(text), &t)) != 0)
				return (rc);
			if ((rc = fn(arg, t)) != 0)
				return (rc);
		}
		(*n)++;
		if ((rc = php_read_u64(m, ed + o->ed_prev, &ed)) != 0)
			return (rc);
	}
	return (0);
}
