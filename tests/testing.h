/*
 * Minimal TAP for unit tests (collectd's testing.h, TAP output): every check
 * is one "ok"/"not ok" line, counted by automake's tap-driver.
 *
 *	int main(void) { CHECK(1 + 1 == 2, "arith"); return testing_done(); }
 */
#ifndef GP_TESTING_H
#define GP_TESTING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int testing_n;
static int testing_failed;

static inline int
testing_check(int ok, const char *file, int line, const char *expr,
    const char *what)
{
	testing_n++;
	printf("%s %d - %s\n", ok ? "ok" : "not ok", testing_n,
	    what != NULL ? what : expr);
	if (!ok) {
		testing_failed++;
		printf("# %s:%d: failed: %s\n", file, line, expr);
	}
	fflush(stdout);
	return (ok);
}

#define CHECK(expr, what)						\
	testing_check(!!(expr), __FILE__, __LINE__, #expr, (what))

#define CHECK_STREQ(a, b, what) do {					\
	const char *testing_a = (a), *testing_b = (b);			\
	if (!testing_check(testing_a != NULL && testing_b != NULL &&	\
	    strcmp(testing_a, testing_b) == 0, __FILE__, __LINE__,	\
	    #a " == " #b, (what)))					\
		printf("#   got:      \"%s\"\n#   expected: \"%s\"\n",	\
		    testing_a ? testing_a : "(null)",			\
		    testing_b ? testing_b : "(null)");			\
} while (0)

#define CHECK_INTEQ(a, b, what) do {					\
	long long testing_a = (long long)(a), testing_b = (long long)(b); \
	if (!testing_check(testing_a == testing_b, __FILE__, __LINE__,	\
	    #a " == " #b, (what)))					\
		printf("#   got: %lld, expected: %lld\n", testing_a,	\
		    testing_b);						\
} while (0)

/* Skip the whole program (e.g. not root, no BTF). */
#define SKIP_ALL(reason) do {						\
	printf("1..0 # SKIP %s\n", (reason));				\
	exit(0);							\
} while (0)

static inline int
testing_done(void)
{
	printf("1..%d\n", testing_n);
	return (testing_failed ? 1 : 0);
}

#endif
