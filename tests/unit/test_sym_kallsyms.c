/*
 * kallsyms.c: literal input, then the running kernel's /proc/kallsyms
 * (a symbol's own address must resolve to it).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/kallsyms.h"
#include "testing.h"

#define CHECK_EQ(a, b)	CHECK_INTEQ(a, b, #a " == " #b)

static const char text[] =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000010 t __pfx_do_thing\n"
    "ffffffff81000020 t do_thing\n"
    "ffffffff81000100 D some_data\n"
    "ffffffff81000200 W weak_fn\n"
    "garbage line\n"
    "ffffffffc0001000 t mod_fn\t[mymod]\n";

static void
test_literal(void)
{
	struct kallsyms k;

	CHECK_EQ(kallsyms_parse(text, sizeof(text) - 1, &k), 0);
	CHECK_EQ(k.n, 4);
	CHECK_EQ(k.bad_lines, 1);
	CHECK_STREQ(kallsyms_lookup(&k, 0xffffffff81000000ull), "_stext",
	    "exact");
	CHECK_STREQ(kallsyms_lookup(&k, 0xffffffff81000018ull), "_stext",
	    "__pfx_ padding is not a function");
	CHECK_STREQ(kallsyms_lookup(&k, 0xffffffff81000150ull), "do_thing",
	    "data symbols skipped");
	CHECK_STREQ(kallsyms_lookup(&k, 0xffffffffc0001004ull), "mod_fn",
	    "module name stripped");
	CHECK(kallsyms_lookup(&k, 0xffffffff80000000ull) == NULL, "below");
	CHECK(kallsyms_lookup(&k, 0xffffffffc0001000ull + KALLSYMS_MAX_FUNC)
	    == NULL, "far past the last symbol");
	kallsyms_free(&k);
	CHECK_EQ(kallsyms_parse("0000000000000000 T a\n"
	    "0000000000000000 T b\n", 42, &k), -ENOENT);
	CHECK(k.zeroed, "kptr_restrict detected");
	kallsyms_free(&k);
}

static void
test_live(void)
{
	struct kallsyms k;
	char *buf, line[512], name[256], type, want[256] = "";
	unsigned long long addr, waddr = 0, prev = 0;
	size_t len = 0, cap = 64 << 20;
	FILE *f;

	if ((f = fopen("/proc/kallsyms", "r")) == NULL) {
		CHECK(0, "open /proc/kallsyms");
		return;
	}
	buf = malloc(cap);
	len = fread(buf, 1, cap, f);
	rewind(f);
	/* The first T symbol after a distinct address, not a module's. */
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type == 'T' && addr > prev && strchr(line, '[') == NULL &&
		    strncmp(name, "__pfx_", 6) != 0 && strcmp(name,
		    "do_syscall_64") == 0) {
			waddr = addr;
			snprintf(want, sizeof(want), "%s", name);
		}
		prev = addr;
	}
	fclose(f);
	if (waddr == 0) {
		printf("# do_syscall_64 not found or addresses hidden\n");
		free(buf);
		return;
	}
	CHECK_EQ(kallsyms_parse(buf, len, &k), 0);
	printf("# %zu kernel text symbols, %zu bytes of names\n", k.n,
	    k.names_len);
	CHECK_STREQ(kallsyms_lookup(&k, waddr), want, "do_syscall_64 itself");
	CHECK_STREQ(kallsyms_lookup(&k, waddr + 5), want, "inside it");
	kallsyms_free(&k);
	free(buf);
}

int
main(void)
{
	test_literal();
	if (geteuid() == 0)
		test_live();
	return (testing_done());
}
