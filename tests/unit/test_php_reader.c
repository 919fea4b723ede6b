/*
 * The PHP reader over memory images laid out as the Zend engine lays out
 * its structs (the offsets of php_offsets.c, i.e. phpspy's bindings for
 * PHP 8.2): frame texts as phpspy writes them, loops in the frame chain,
 * huge string lengths and unmapped pointers; the version and symbol
 * lookup in the real php binary when it is installed; maps parsing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testing.h"
#include "phpreader.h"

#define BASE		0x10000ull
#define SIZE		0x10000u
#define MEMIMG_BASE	BASE
#define MEMIMG_SIZE	SIZE
#include "memimg.h"

/* A zend_string at addr: refcount/type (8), hash (8), len (8), val. */
static void
put_zstr(const struct php_offsets *o, uint64_t addr, const char *s)
{
	put64(addr + o->zs_len, strlen(s));
	memcpy(img + (addr - BASE) + o->zs_val, s, strlen(s) + 1);
}

struct collect {
	char f[8][512];
	uint32_t n;
};

static int
collect(void *arg, const char *text)
{
	struct collect *c = arg;

	if (c->n < 8)
		snprintf(c->f[c->n], sizeof(c->f[0]), "%s", text);
	c->n++;
	return (0);
}

/* EG at 0x10000; three execute_data: strlen <- Foo::bar <- <main>. */
static void
build_stack(const struct php_offsets *o)
{
	const uint64_t eg = BASE, ed1 = 0x11000, ed2 = 0x11100, ed3 = 0x11200;
	const uint64_t fn_int = 0x12000, fn_bar = 0x12400, fn_main = 0x12800;
	const uint64_t ce = 0x13000;

	memset(img, 0, sizeof(img));
	put64(eg + o->eg_current_execute_data, ed1);
	put64(ed1 + o->ed_func, fn_int);
	put64(ed1 + o->ed_prev, ed2);
	put64(ed2 + o->ed_func, fn_bar);
	put64(ed2 + o->ed_prev, ed3);
	put64(ed3 + o->ed_func, fn_main);
	put64(ed3 + o->ed_prev, 0);

	img[fn_int - BASE + o->fn_type] = 1;	/* ZEND_INTERNAL_FUNCTION */
	put64(fn_int + o->fn_name, 0x14000);
	put_zstr(o, 0x14000, "strlen");

	img[fn_bar - BASE + o->fn_type] = 2;	/* ZEND_USER_FUNCTION */
	put64(fn_bar + o->fn_name, 0x14100);
	put_zstr(o, 0x14100, "bar");
	put64(fn_bar + o->fn_scope, ce);
	put64(ce + o->ce_name, 0x14200);
	put_zstr(o, 0x14200, "App\\Foo");
	put64(fn_bar + o->op_filename, 0x14300);
	put_zstr(o, 0x14300, "/srv/app/Foo.php");
	put32(fn_bar + o->op_line_start, 42);

	img[fn_main - BASE + o->fn_type] = 2;
	put64(fn_main + o->op_filename, 0x14400);
	put_zstr(o, 0x14400, "/srv/app/index.php");
	put32(fn_main + o->op_line_start, 0);
}

static void
test_walk(void)
{
	struct php_mem m = { img_read, NULL };
	struct php_version v = { 8, 2, 36 };
	struct php_offsets o;
	struct collect c;
	char why[128];
	uint32_t n;
	int rc;

	CHECK_INTEQ(php_offsets_for(&v, &o, why, sizeof(why)), 0,
	    "8.2 has offsets");
	CHECK_INTEQ(o.op_filename, 152, "8.2 op_array.filename (phpspy)");
	build_stack(&o);
	memset(&c, 0, sizeof(c));
	rc = php_walk_stack(&m, &o, BASE, PHP_MAX_FRAMES, NULL, collect, &c,
	    &n);
	CHECK_INTEQ(rc, 0, "walk");
	CHECK_INTEQ(c.n, 3, "three frames");
	CHECK_STREQ(c.f[0], "strlen <internal>:-1", "internal, leaf first");
	CHECK_STREQ(c.f[1], "App\\Foo::bar /srv/app/Foo.php:42",
	    "method: Class::function file:line_start");
	CHECK_STREQ(c.f[2], "<main> /srv/app/index.php:0", "top level");

	/* max frames cuts at the root */
	memset(&c, 0, sizeof(c));
	rc = php_walk_stack(&m, &o, BASE, 2, NULL, collect, &c, &n);
	CHECK(rc == 0 && c.n == 2, "max frames bounds the walk");

	/* A chain that loops back ends at the first repeat. */
	put64(0x11200 + o.ed_prev, 0x11100);
	memset(&c, 0, sizeof(c));
	rc = php_walk_stack(&m, &o, BASE, PHP_MAX_FRAMES, NULL, collect, &c,
	    &n);
	CHECK(rc == 0 && c.n == 3, "loop in the chain: stops, no repeat");
	put64(0x11200 + o.ed_prev, 0);

	/* A huge length is cut to the name buffer. */
	put64(0x14100 + o.zs_len, (uint64_t)1 << 62);
	memset(img + (0x14100 - BASE) + o.zs_val, 'x', 600);
	memset(&c, 0, sizeof(c));
	rc = php_walk_stack(&m, &o, BASE, PHP_MAX_FRAMES, NULL, collect, &c,
	    &n);
	CHECK(rc == 0 && c.n == 3 && strlen(c.f[1]) < PHP_MAX_FRAME_TEXT &&
	    strstr(c.f[1], "::xxxxxxxx") != NULL, "huge string length: cut");

	/* Delimiters in a name cannot split a frame or a stack. */
	build_stack(&o);
	put_zstr(&o, 0x14100, "a;b\nc");
	memset(&c, 0, sizeof(c));
	rc = php_walk_stack(&m, &o, BASE, PHP_MAX_FRAMES, NULL, collect, &c,
	    &n);
	CHECK_STREQ(c.f[1], "App\\Foo::a?b?c /srv/app/Foo.php:42",
	    "';' and newline become '?'");

	/* An unmapped pointer fails the sample, cleanly. */
	build_stack(&o);
	put64(0x11100 + o.ed_func, 0xdead0000);
	memset(&c, 0, sizeof(c));
	rc = php_walk_stack(&m, &o, BASE, PHP_MAX_FRAMES, NULL, collect, &c,
	    &n);
	CHECK_INTEQ(rc, -EFAULT, "unmapped function pointer: -EFAULT");

	/* The text cache: hits while the function is the same, a function
	 * compiled at the same address with another name is not served the
	 * old text. */
	{
		static struct php_fcache fc;

		build_stack(&o);
		memset(&c, 0, sizeof(c));
		rc = php_walk_stack(&m, &o, BASE, PHP_MAX_FRAMES, &fc, collect,
		    &c, &n);
		memset(&c, 0, sizeof(c));
		rc |= php_walk_stack(&m, &o, BASE, PHP_MAX_FRAMES, &fc,
		    collect, &c, &n);
		CHECK(rc == 0 && fc.misses == 3 && fc.hits == 3 &&
		    strcmp(c.f[1], "App\\Foo::bar /srv/app/Foo.php:42") == 0,
		    "text cache: second walk served from it, same texts");
		put64(0x12400 + o.fn_name, 0x14500);
		put_zstr(&o, 0x14500, "baz");
		memset(&c, 0, sizeof(c));
		rc = php_walk_stack(&m, &o, BASE, PHP_MAX_FRAMES, &fc, collect,
		    &c, &n);
		CHECK_STREQ(c.f[1], "App\\Foo::baz /srv/app/Foo.php:42",
		    "text cache: another function at the same address");
	}

	/* No code running: no frames. */
	put64(BASE + o.eg_current_execute_data, 0);
	memset(&c, 0, sizeof(c));
	rc = php_walk_stack(&m, &o, BASE, PHP_MAX_FRAMES, NULL, collect, &c,
	    &n);
	CHECK(rc == 0 && c.n == 0, "idle interpreter: empty stack");
}

static int
counted_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(*(unsigned *)arg)++;
	return (img_read(NULL, addr, buf, len));
}

/*
 * Frames the sampler walked (function, opline): a known function costs no
 * read while the opline is one of its opcodes; another function compiled
 * at its address (other opcodes) is read again; internal functions are
 * known whatever the opline; the texts' arena, once full, starts over.
 */
static void
test_walked(void)
{
	static struct php_fcache fc;
	struct php_version v = { 8, 2, 36 };
	struct php_offsets o;
	unsigned reads = 0;
	struct php_mem m = { counted_read, &reads };
	const uint64_t fn_int = 0x12000, fn_bar = 0x12400, ops = 0x15000;
	char text[PHP_MAX_FRAME_TEXT], why[128], name[201];
	const char *t = NULL;
	int rc, i, ok;

	if (php_offsets_for(&v, &o, why, sizeof(why)) != 0)
		return;
	build_stack(&o);
	put64(fn_bar + o.op_opcodes, ops);
	put32(fn_bar + o.op_last, 10);
	memset(&fc, 0, sizeof(fc));
	rc = php_walked_frame(&m, &o, &fc, fn_bar, ops + 3 * PHP_ZEND_OP,
	    text, sizeof(text), &t);
	CHECK(rc == 0 && reads > 0 && fc.misses == 1 && t != NULL &&
	    strcmp(t, "App\\Foo::bar /srv/app/Foo.php:42") == 0,
	    "walked frame: read once, phpspy's text");
	reads = 0;
	rc = php_walked_frame(&m, &o, &fc, fn_bar, ops + 9 * PHP_ZEND_OP,
	    text, sizeof(text), &t);
	CHECK(rc == 0 && reads == 0 && fc.hits == 1 &&
	    strcmp(t, "App\\Foo::bar /srv/app/Foo.php:42") == 0,
	    "walked frame: known function, opline in its opcodes: no read");
	rc = php_walked_frame(&m, &o, &fc, fn_bar, ops + 10 * PHP_ZEND_OP,
	    text, sizeof(text), &t);
	CHECK(rc == 0 && reads > 0, "walked frame: opline past its opcodes: "
	    "read again");

	/* freed, and another function compiled at its address */
	put64(fn_bar + o.fn_name, 0x14500);
	put_zstr(&o, 0x14500, "baz");
	put64(fn_bar + o.op_opcodes, 0x16000);
	rc = php_walked_frame(&m, &o, &fc, fn_bar, 0x16000, text,
	    sizeof(text), &t);
	CHECK(rc == 0 && strcmp(t, "App\\Foo::baz /srv/app/Foo.php:42") == 0,
	    "walked frame: another function at the address: its own text");

	/* __call's trampoline: its opcode lies in the executor globals */
	fc.eg = BASE;
	put64(fn_bar + o.op_opcodes, BASE + 0x600);
	put32(fn_bar + o.op_last, 1);
	rc = php_walked_frame(&m, &o, &fc, fn_bar, BASE + 0x600, text,
	    sizeof(text), &t);
	reads = 0;
	rc |= php_walked_frame(&m, &o, &fc, fn_bar, BASE + 0x600, text,
	    sizeof(text), &t);
	CHECK(rc == 0 && reads > 0, "walked frame: the trampoline (named per "
	    "call) read each time");

	rc = php_walked_frame(&m, &o, &fc, fn_int, 0xdead, text,
	    sizeof(text), &t);
	reads = 0;
	rc |= php_walked_frame(&m, &o, &fc, fn_int, 0xbeef, text,
	    sizeof(text), &t);
	CHECK(rc == 0 && reads == 0 && strcmp(t, "strlen <internal>:-1") == 0,
	    "walked frame: internal function known whatever its opline");

	/* 600 functions of 200-byte names, 64 addresses reused by ever
	 * other code: 128 KiB of texts through a 32 KiB arena, each text
	 * still its own */
	put_zstr(&o, 0x14600, "/f.php");
	for (i = 0, ok = 1; i < 600 && ok; i++) {
		uint64_t fn = 0x17000 + 0x100 * (uint64_t)(i % 64);
		uint64_t zs = 0x1b000 + 0x200 * (uint64_t)(i % 16);
		uint64_t code = 0x100000 + 0x1000 * (uint64_t)i;

		snprintf(name, sizeof(name), "%0200d", i);
		memset(img + (fn - BASE), 0, 0x100);
		img[fn - BASE + o.fn_type] = 2;
		put64(fn + o.fn_name, zs);
		put_zstr(&o, zs, name);
		put64(fn + o.op_filename, 0x14600);
		put64(fn + o.op_opcodes, code);
		put32(fn + o.op_last, 1);
		rc = php_walked_frame(&m, &o, &fc, fn, code, text,
		    sizeof(text), &t);
		ok = rc == 0 && strncmp(t, name, strlen(name)) == 0 &&
		    fc.used <= PHP_FCACHE_TEXT;
	}
	CHECK(ok, "walked frames: the texts' arena starts over when full");
}

static void
test_versions(void)
{
	static const uint8_t ro[] = "junk\0X-Powered-By: PHP/8.3.12-1+b1\0";
	static const uint8_t bad[] = "X-Powered-By: PHP/x";
	struct php_version v, v73 = { 7, 3, 33 }, v85 = { 8, 5, 0 };
	struct php_offsets o;
	char why[128];
	int mn;

	CHECK(php_version_find(ro, sizeof(ro), &v) == 0 && v.major == 8 &&
	    v.minor == 3 && v.patch == 12, "version from the X-Powered-By "
	    "string");
	CHECK(php_version_find(bad, sizeof(bad) - 1, &v) != 0,
	    "malformed version refused");
	{
		static const uint8_t two[] = "X-Powered-By: PHP/\0"
		    "X-Powered-By: PHP/8.3.2";

		CHECK(php_version_find(two, sizeof(two) - 1, &v) == 0 &&
		    v.minor == 3 && v.patch == 2, "a malformed tag is skipped");
	}
	CHECK(php_version_find(ro, 10, &v) == -ENOENT, "no version string");
	CHECK(php_offsets_for(&v73, &o, why, sizeof(why)) == -ENOTSUP &&
	    strstr(why, "7.3.33 is not supported") != NULL, "7.3 refused");
	CHECK(php_offsets_for(&v85, &o, why, sizeof(why)) == -ENOTSUP,
	    "8.5 refused");
	for (mn = 0; mn <= 4; mn++) {
		v.major = 8;
		v.minor = mn;
		CHECK(php_offsets_for(&v, &o, why, sizeof(why)) == 0 &&
		    o.eg_current_execute_data == 488, "8.x supported");
	}
}

static void
test_maps(void)
{
	static const char maps[] =
	    "55d0c0000000-55d0c00ea000 r--p 00000000 08:01 1234 "
	    "/usr/bin/php8.2\n"
	    "55d0c00eb000-55d0c03f7000 r-xp 000eb000 08:01 1234 "
	    "/usr/bin/php8.2\n"
	    "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n";
	static const char apache[] =
	    "5500000000-5500001000 r--p 00000000 08:01 77 /usr/sbin/apache2\n"
	    "7f1000000000-7f1000100000 r--p 00000000 08:01 99 "
	    "/usr/lib/apache2/modules/libphp8.2.so\n";
	struct php_object ob;

	CHECK(php_maps_find(maps, sizeof(maps) - 1, 1234, &ob) == 0 &&
	    ob.start == 0x55d0c0000000ull && strcmp(ob.path,
	    "/usr/bin/php8.2") == 0, "the executable at offset 0");
	CHECK(php_maps_find(maps, sizeof(maps) - 1, 999, &ob) == -ENOENT,
	    "another executable: no PHP");
	CHECK(php_maps_find(apache, sizeof(apache) - 1, 77, &ob) == 0 &&
	    strcmp(ob.path, "/usr/lib/apache2/modules/libphp8.2.so") == 0 &&
	    ob.start == 0x7f1000000000ull, "mod_php: libphp*.so");
	CHECK(php_maps_find("garbage\n\n-\n", 11, 1, &ob) == -ENOENT,
	    "garbage maps");
}

/*
 * A ZTS build has executor_globals_offset (the globals are thread-local)
 * instead of executor_globals: this test program defines one, and a
 * version string, so its own ELF stands for such a build.
 */
__attribute__((used)) const unsigned long executor_globals_offset = 64;
__attribute__((used)) const char test_php_powered[] =
    "X-Powered-By: PHP/8.3.7";

static void
test_zts(void)
{
	struct php_elf pe;
	int fd, rc;

	if ((fd = open("/proc/self/exe", O_RDONLY)) < 0) {
		CHECK(0, "open /proc/self/exe");
		return;
	}
	rc = php_elf_read_fd(fd, &pe);
	close(fd);
	CHECK(rc == 0 && pe.zts && pe.executor_globals == 0,
	    "ZTS: executor_globals_offset found, no executor_globals");
	/* test_versions' strings are in .rodata too: all say 8.3 */
	CHECK(pe.has_ver && pe.ver.major == 8 && pe.ver.minor == 3,
	    "ZTS: version read from .rodata");
	CHECK(php_elf_read_mem("\177ELF", 4, &pe) == -ENOEXEC,
	    "a truncated ELF is refused");
}

/* The real binary, when the machine has one (php-cli). */
static void
test_real_binary(void)
{
	struct php_elf pe;
	int fd, rc;

	if ((fd = open("/usr/bin/php8.2", O_RDONLY)) < 0) {
		printf("ok %d - # SKIP /usr/bin/php8.2 not installed\n",
		    ++testing_n);
		return;
	}
	rc = php_elf_read_fd(fd, &pe);
	close(fd);
	CHECK_INTEQ(rc, 0, "php8.2: executor_globals found");
	CHECK(pe.executor_globals != 0 && !pe.zts, "php8.2: non-ZTS");
	CHECK(pe.has_ver && pe.ver.major == 8 && pe.ver.minor == 2,
	    "php8.2: version 8.2 from the binary");
}

int
main(void)
{
	test_walk();
	test_walked();
	test_versions();
	test_maps();
	test_zts();
	test_real_binary();
	return (testing_done());
}
