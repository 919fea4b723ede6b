/* Allocation wrappers: the daemon cannot do anything useful after an OOM. */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

static void __attribute__((noreturn))
xmalloc_die(size_t n)
{
	fprintf(stderr, "ERROR out of memory allocating %zu bytes\n", n);
	abort();
}

void
xmalloc_policy(void)
{
	/* A fixed threshold also stops glibc from moving it (and with it
	 * the heap's trim threshold) up to the largest block freed;
	 * realloc grows a mapped block with mremap, without a copy. */
	(void)mallopt(M_MMAP_THRESHOLD, XMALLOC_MMAP_THRESHOLD);
}

void *
xmalloc(size_t n)
{
	void *p;

	if ((p = malloc(n ? n : 1)) == NULL)
		xmalloc_die(n);
	return (p);
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if ((p = calloc(nmemb ? nmemb : 1, size ? size : 1)) == NULL)
		xmalloc_die(nmemb * size);
	return (p);
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void *p;

	if (size != 0 && nmemb > SIZE_MAX / size)
		xmalloc_die(SIZE_MAX);
	if ((p = realloc(ptr, (nmemb * size) != 0 ? nmemb * size : 1)) == NULL)
		xmalloc_die(nmemb * size);
	return (p);
}

char *
xstrdup(const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL)
		xmalloc_die(strlen(s) + 1);
	return (p);
}

char *
xstrndup(const char *s, size_t n)
{
	char *p;

	if ((p = strndup(s, n)) == NULL)
		xmalloc_die(n + 1);
	return (p);
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(ret, fmt, ap);
	va_end(ap);
	if (n == -1)
		xmalloc_die(0);
	return (n);
}
