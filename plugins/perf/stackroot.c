/*
 * The entry frames of glibc's and musl's processes and threads, outermost
 * last: what calls main or a thread's start routine, and what calls that.
 * Only these may follow one another at a stack's root; a name is matched
 * up to its symbol version ("__libc_start_main@@GLIBC_2.34").
 */
#include <string.h>

#include "stackroot.h"

static const char *const stackroot_entry[] = {
	"__libc_start_call_main",	/* glibc 2.34+: calls main */
	"__libc_start_main",		/* calls it, or main before 2.34 */
	"__libc_start_main_impl",
	"libc_start_main_stage2",	/* musl */
	"_start",
	"_start_c",			/* musl */
	"start_thread",			/* glibc: a thread's start routine */
	"__clone",
	"__clone3",
	"clone",
	"clone3",
};

static int
stackroot_is_entry(const char *name)
{
	size_t i, len;

	if (name == NULL)
		return (0);
	len = strcspn(name, "@");
	for (i = 0; i < sizeof(stackroot_entry) / sizeof(stackroot_entry[0]);
	    i++)
		if (strlen(stackroot_entry[i]) == len &&
		    strncmp(stackroot_entry[i], name, len) == 0)
			return (1);
	return (0);
}

size_t
stackroot_keep(const char *const *names, size_t n)
{
	size_t i;
	int entered = 0;

	for (i = 0; i < n; i++) {
		if (stackroot_is_entry(names[i]))
			entered = 1;
		else if (entered)
			return (i);
	}
	return (n);
}
